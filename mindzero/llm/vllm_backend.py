"""vLLM for GPU machines (optional extra: ``pip install "mindzero[vllm]"``).

vLLM is imported only when a :class:`VLLMBackend` is created, so everything else works without it.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mindzero.core.errors import UserError
from mindzero.llm.base import Backend, Generation, Prompt, UsageMeter
from mindzero.llm.models import DEFAULT_MODEL, PACKAGED_MODELS, count_parameters, resolve_model
from mindzero.llm.transformers_backend import encode_prompt

_HUB_ID = re.compile(r"^[\w.-]+/[\w.-]+$")


def _require_vllm() -> Any:
    try:
        import vllm
    except ImportError as err:
        raise UserError(
            f'the vllm backend needs the vllm package ({err.name} is missing): pip install "mindzero[vllm]"'
        ) from None
    return vllm


class VLLMBackend(Backend):
    """A model served in-process by ``vllm.LLM``; fast batched sampling and prompt log-probs on GPU.

    ``model`` is anything :func:`resolve_model` accepts, or a hub id (``org/name``) that vLLM
    fetches itself on machines with hub access. Extra keyword arguments go to ``vllm.LLM``
    (e.g. ``tensor_parallel_size=2, gpu_memory_utilization=0.8, max_model_len=4096``).
    """

    def __init__(
        self,
        model: str | os.PathLike[str] = DEFAULT_MODEL,
        *,
        dtype: str = "auto",
        active_params: int | None = None,
        **llm_kwargs: Any,
    ) -> None:
        vllm = _require_vllm()
        key = str(model)
        local = key in PACKAGED_MODELS or Path(key).expanduser().exists() or not _HUB_ID.match(key)
        target = str(resolve_model(key)) if local else key
        self.name = target
        self._vllm = vllm
        self.llm = vllm.LLM(model=target, dtype=dtype, **llm_kwargs)
        self.tokenizer = self.llm.get_tokenizer()
        self.usage = UsageMeter(active_params or (count_parameters(target) if local else None))

    def sample(
        self, prompts: list[Prompt], n: int, temperature: float, max_new_tokens: int, seed: list[int] | None
    ) -> list[list[Generation]]:
        """``n`` completions per prompt, all prompts in one ``generate`` (vLLM batches them itself);
        prompt i uses seed ``seed[i]`` (vLLM per-request seeds)."""
        inputs = [{"prompt_token_ids": encode_prompt(self.tokenizer, p, self.name)} for p in prompts]
        params = [
            self._vllm.SamplingParams(
                n=n,
                temperature=temperature,
                max_tokens=max_new_tokens,
                seed=None if seed is None else seed[i],
            )
            for i in range(len(inputs))
        ]
        outputs = self.llm.generate(inputs, params, use_tqdm=False)
        return [
            [
                Generation(c.text, len(out.prompt_token_ids), len(c.token_ids), c.finish_reason or "stop")
                for c in out.outputs
            ]
            for out in outputs
        ]

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        """Sum of vLLM's prompt log-probs (nats) over each continuation's tokens (tokenized on their own)."""
        start = time.perf_counter()
        context = encode_prompt(self.tokenizer, prompt, self.name)
        if not context:
            raise UserError("score needs a prompt of at least one token; the prompt encodes to none")
        conts = [list(self.tokenizer(c, add_special_tokens=False).input_ids) for c in continuations]
        params = self._vllm.SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=1)
        outputs = self.llm.generate([{"prompt_token_ids": context + c} for c in conts], params, use_tqdm=False)
        # prompt_logprobs[t] maps token ids to Logprob objects for position t; the actual token is
        # always among them.
        scores = [
            sum(out.prompt_logprobs[len(context) + k][tok].logprob for k, tok in enumerate(cont))
            for out, cont in zip(outputs, conts)
        ]
        self.usage.record(
            prompt_tokens=len(context) * len(conts),
            completion_tokens=sum(len(c) for c in conts),
            seconds=time.perf_counter() - start,
        )
        return [float(s) for s in scores]
