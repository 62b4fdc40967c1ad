"""Local Hugging Face causal LMs through transformers: the default backend on CPU machines."""

from __future__ import annotations

import copy
import math
import os
import secrets
import time
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from mindzero.core.errors import UserError
from mindzero.llm.base import Backend, Generation, Prompt, UsageMeter
from mindzero.llm.models import DEFAULT_MODEL, load_language_model, resolve_model

DTYPES = ("float32", "bfloat16", "float16", "auto")

#: A batch changes a prompt's logits by float rounding only (padding, matrix shapes: at most 6e-8
#: measured in float32, docs/llm.md). Where a prompt's chosen token ever led the runner-up by less
#: than this (in logits; greedy, or Gumbel-perturbed logits × temperature when sampling), the
#: prompt is decoded again alone, so its answer does not depend on the batch it was in.
TIE_MARGIN = 1e-3


def _require_transformers() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as err:
        raise UserError(
            f"the transformers backend needs torch and transformers ({err.name} is missing): "
            'pip install "mindzero[llm]"'
        ) from None
    return torch, transformers


def encode_prompt(tokenizer: Any, prompt: Prompt, model_name: str) -> list[int]:
    """Token ids of a prompt: text as given (with the tokenizer's special tokens), chats rendered
    by the chat template with an assistant turn opened (the template supplies special tokens)."""
    if isinstance(prompt, str):
        return list(tokenizer(prompt, add_special_tokens=True).input_ids)
    if not tokenizer.chat_template:
        raise UserError(f"model '{model_name}' has no chat template; pass text prompts instead of chat messages")
    text = tokenizer.apply_chat_template(prompt, tokenize=False, add_generation_prompt=True)
    return list(tokenizer(text, add_special_tokens=False).input_ids)


def _token_logprob_sums(logprobs: Any, rows: Sequence[Sequence[int]]) -> list[float]:
    """Per row r: the sum over k of ``logprobs[r, k, rows[r][k]]`` (log-probs where position k predicts
    the row's k-th target token)."""
    torch, _ = _require_transformers()
    sums = []
    for row, targets in enumerate(rows):
        index = torch.tensor(targets, dtype=torch.long, device=logprobs.device)
        sums.append(float(logprobs[row, : len(targets)].gather(-1, index[:, None]).sum()))
    return sums


class _Chooser:
    """Picks every row's next token itself, as a logits processor of a greedy ``generate``: the
    argmax of the logits (greedy) or of logits / temperature + Gumbel noise drawn from the row's
    own generator (exact sampling; seeded per row, so a row samples the same in any batch). Keeps
    each step's gap between the chosen and the runner-up score, in logits (:data:`TIE_MARGIN`)."""

    def __init__(self, seeds: list[list[int]], temperature: float) -> None:
        torch, _ = _require_transformers()
        self.temperature = temperature
        self.generators = [torch.Generator().manual_seed(_mix(s)) for s in seeds] if temperature > 0 else []
        self.gaps: list[Any] = []

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        torch, _ = _require_transformers()
        logits = scores.float()
        if self.temperature > 0:
            u = torch.stack([torch.rand(logits.shape[-1], generator=g) for g in self.generators]).to(logits.device)
            gumbel = -torch.log(-torch.log(u.clamp(min=torch.finfo(u.dtype).tiny)))
            logits = logits / self.temperature + gumbel
        top = logits.topk(2, dim=-1)
        self.gaps.append((top.values[:, 0] - top.values[:, 1]) * (self.temperature or 1.0))
        chosen = torch.full_like(scores, -math.inf)
        return chosen.scatter_(1, top.indices[:, :1], 0.0)


def _mix(parts: list[int]) -> int:
    """A 63-bit generator seed from (prompt seed, sample index)."""
    return int(np.random.SeedSequence([p % 2**63 for p in parts]).generate_state(1, np.uint64)[0] >> 1)


class TransformersBackend(Backend):
    """Any Hugging Face causal LM in a local folder (or a GGUF file / packaged name, converted once).

    Text prompts are completed as given; chat prompts (lists of messages) are rendered with the
    tokenizer's chat template and an assistant turn is opened, as instruct models expect.
    Prompts are processed ``batch_size`` at a time with left padding; ``dtype="bfloat16"`` halves
    memory and is faster on CPUs with native bf16 (see ``benchmarks/bench_llm.py``).
    """

    def __init__(
        self,
        model: str | os.PathLike[str] = DEFAULT_MODEL,
        *,
        dtype: str = "float32",
        device: str | None = None,
        batch_size: int = 8,
        static_cache: bool = False,
        active_params: int | None = None,
    ) -> None:
        """Load ``model`` (name, folder or .gguf; see :func:`resolve_model`).

        ``static_cache`` preallocates the KV cache for the whole generation (faster batched
        decoding on CPU for some models); ``active_params`` overrides the parameter count used
        for FLOPs (default: all parameters of the model, tied weights once).
        """
        if dtype not in DTYPES:
            raise UserError(f"dtype must be one of {', '.join(DTYPES)}, got '{dtype}'")
        if batch_size < 1:
            raise UserError(f"batch_size must be at least 1, got {batch_size}")
        path = resolve_model(model)  # first: a wrong path is reported before the slow imports
        torch, transformers = _require_transformers()
        self.name = str(path)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.batch_size = batch_size
        self.static_cache = static_cache
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(str(path))
            self.model = load_language_model(path, dtype if dtype == "auto" else getattr(torch, dtype))
        except (OSError, ValueError, KeyError) as err:
            reason = " ".join(str(err).split())[:200]
            raise UserError(
                f"cannot load a causal language model from '{path}' ({reason}); "
                "give a folder saved with save_pretrained (config.json, weights, tokenizer)"
            ) from None
        self.model.to(self.device).eval()
        self._finish_setup(active_params)

    @classmethod
    def from_model(
        cls, model: Any, tokenizer: Any, *, batch_size: int = 8, name: str = "in-memory"
    ) -> TransformersBackend:
        """Wrap a model already in memory (e.g. one being trained) without copying it; the caller
        keeps its train/eval mode and device."""
        self = cls.__new__(cls)
        self.name = name
        self.model, self.tokenizer = model, tokenizer
        self.device = str(model.device)
        self.batch_size = batch_size
        self.static_cache = False
        self._finish_setup(None)
        return self

    def _finish_setup(self, active_params: int | None) -> None:
        """End-of-sequence and pad ids, and the usage meter (FLOPs from the parameter count)."""
        eos = self.model.generation_config.eos_token_id
        if eos is None:
            eos = self.tokenizer.eos_token_id
        self.eos_ids = {eos} if isinstance(eos, int) else set(eos or ())
        self.pad_id = self.tokenizer.pad_token_id
        if self.pad_id is None:
            self.pad_id = min(self.eos_ids) if self.eos_ids else 0
        self.usage = UsageMeter(active_params or self.model.num_parameters())

    def encode(self, prompt: Prompt) -> list[int]:
        """Token ids of a prompt as the model sees it (chat template applied to messages)."""
        return encode_prompt(self.tokenizer, prompt, self.name)

    def sample(
        self, prompts: list[Prompt], n: int, temperature: float, max_new_tokens: int, seed: list[int] | None
    ) -> list[list[Generation]]:
        """``n`` completions per prompt (pure sampling: no top-k/top-p truncation); greedy decoding
        (``temperature == 0``) computes one. Prompts are decoded ``batch_size`` at a time, each with
        its own seed, and answer as they would alone (see :data:`TIE_MARGIN`)."""
        encoded = [self.encode(p) for p in prompts]
        seeds = seed if seed is not None else [secrets.randbits(62) for _ in prompts]
        runs = n if temperature > 0 else 1
        results: list[list[Generation]] = []
        for lo in range(0, len(encoded), self.batch_size):
            batch, batch_seeds = encoded[lo : lo + self.batch_size], seeds[lo : lo + self.batch_size]
            done, margins = self._decode(batch, batch_seeds, runs, temperature, max_new_tokens)
            for i, (ids, s) in enumerate(zip(batch, batch_seeds)):
                if len(batch) > 1 and margins[i] < TIE_MARGIN:  # near a tie: padding's rounding could flip it
                    done[i] = self._decode([ids], [s], runs, temperature, max_new_tokens)[0][0]
            results += done
        return results

    def _decode(
        self, batch: list[list[int]], seeds: list[int], runs: int, temperature: float, max_new_tokens: int
    ) -> tuple[list[list[Generation]], list[float]]:
        """One padded ``generate`` of ``runs`` completions per prompt; (completions, each prompt's
        smallest top-two gap over the steps it decoded, in logits)."""
        torch, _ = _require_transformers()
        input_ids, mask = self._pad(batch, left=True)
        input_ids, mask = input_ids.repeat_interleave(runs, 0), mask.repeat_interleave(runs, 0)
        chooser = _Chooser([[s, j] for s in seeds for j in range(runs)], temperature)
        extra = {"cache_implementation": "static"} if self.static_cache else {}
        with torch.inference_mode():
            out = self.model.generate(
                input_ids=input_ids,
                attention_mask=mask,
                max_new_tokens=max_new_tokens,
                do_sample=False,
                logits_processor=[chooser],
                pad_token_id=self.pad_id,
                eos_token_id=sorted(self.eos_ids) or None,
                **extra,
            )
        new = out[:, input_ids.shape[1] :].tolist()
        gaps = torch.stack(chooser.gaps, 1).tolist() if chooser.gaps else [[]] * len(new)
        done, margins = [], []
        for i, ids in enumerate(batch):
            rows = [self._completion(new[i * runs + j], len(ids)) for j in range(runs)]
            done.append(rows)
            steps = [g for j, row in enumerate(rows) for g in gaps[i * runs + j][: row.completion_tokens]]
            margins.append(min(steps, default=math.inf))
        return done, margins

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        """Sum of log-probs (nats) of each continuation's tokens (tokenized on their own) after the prompt.

        The prompt is encoded once and its KV cache shared by every continuation (score mode reads
        dozens to hundreds of short answers after one long prompt); a model whose cache cannot be
        copied per batch re-encodes the prompt with each continuation instead (same numbers)."""
        torch, _ = _require_transformers()
        start = time.perf_counter()
        context = self.encode(prompt)
        if not context:
            raise UserError("score needs a prompt of at least one token; the prompt encodes to none")
        conts = [list(self.tokenizer(c, add_special_tokens=False).input_ids) for c in continuations]
        with torch.inference_mode():
            prefix = self.model(input_ids=torch.tensor([context], device=self.device), use_cache=True)
            if hasattr(prefix.cache, "batch_repeat_interleave"):
                first = torch.log_softmax(prefix.logits[0, -1].float(), dim=-1)  # every continuation's first token
                score_batch = partial(self._score_after, prefix.cache, first, len(context))
                prompt_tokens = len(context)
            else:
                score_batch = partial(self._score_with, context)
                prompt_tokens = len(context) * (len(conts) + 1)  # the pass above, then once per continuation
            scores = [
                s for lo in range(0, len(conts), self.batch_size) for s in score_batch(conts[lo : lo + self.batch_size])
            ]
        self.usage.record(
            prompt_tokens=prompt_tokens,
            completion_tokens=sum(len(c) for c in conts),
            seconds=time.perf_counter() - start,
        )
        return scores

    def score_pairs(self, pairs: Sequence[tuple[Prompt, str]]) -> list[float]:
        """:meth:`score` of many (prompt, continuation) pairs, ``batch_size`` whole sequences per
        padded forward pass (sorted by length, so a batch pads little); the same numbers as one
        :meth:`score` per pair up to float rounding (measured below 1e-4 in float32)."""
        torch, _ = _require_transformers()
        start = time.perf_counter()
        rows = []
        for prompt, continuation in pairs:
            context = self.encode(prompt)
            if not context:
                raise UserError("score needs a prompt of at least one token; the prompt encodes to none")
            rows.append((context, list(self.tokenizer(continuation, add_special_tokens=False).input_ids)))
        order = sorted(range(len(rows)), key=lambda i: len(rows[i][0]) + len(rows[i][1]))
        out = [0.0] * len(rows)
        with torch.inference_mode():
            for lo in range(0, len(order), self.batch_size):
                batch = [rows[i] for i in order[lo : lo + self.batch_size]]
                input_ids, mask = self._pad([c + k for c, k in batch], left=False)
                logprobs = torch.log_softmax(self.model(input_ids=input_ids, attention_mask=mask).logits.float(), -1)
                for row, (i, (context, cont)) in enumerate(zip(order[lo : lo + self.batch_size], batch)):
                    # position t predicts token t + 1: the continuation's tokens from position len(context) - 1
                    at = torch.arange(len(context) - 1, len(context) - 1 + len(cont), device=logprobs.device)
                    out[i] = float(logprobs[row, at, torch.tensor(cont, dtype=torch.long, device=at.device)].sum())
        self.usage.record(
            prompt_tokens=sum(len(c) for c, _ in rows),
            completion_tokens=sum(len(k) for _, k in rows),
            seconds=time.perf_counter() - start,
        )
        return out

    def _score_after(self, cache: Any, first: Any, n_prompt: int, batch: list[list[int]]) -> list[float]:
        """Scores of continuations after a prompt already in ``cache`` (copied, not changed) whose
        next-token log-probs are ``first``: each continuation's own tokens but the last are fed."""
        torch, _ = _require_transformers()
        heads = [float(first[c[0]]) if c else 0.0 for c in batch]
        tails = [c[:-1] for c in batch]
        if not any(tails):
            return heads
        ids, mask = self._pad(tails, left=False)
        past = copy.deepcopy(cache)
        past.batch_repeat_interleave(len(batch))
        full_mask = torch.cat([torch.ones((len(batch), n_prompt), dtype=mask.dtype, device=mask.device), mask], dim=1)
        logits = self.model(input_ids=ids, attention_mask=full_mask, cache=past, use_cache=True).logits
        logprobs = torch.log_softmax(logits.float(), dim=-1)  # position j predicts token j + 1
        return [head + rest for head, rest in zip(heads, _token_logprob_sums(logprobs, [c[1:] for c in batch]))]

    def _score_with(self, context: list[int], batch: list[list[int]]) -> list[float]:
        """Scores of continuations, each encoded together with the whole prompt."""
        torch, _ = _require_transformers()
        input_ids, mask = self._pad([context + c for c in batch], left=False)
        logits = self.model(input_ids=input_ids, attention_mask=mask).logits
        # Position t predicts token t+1: the continuation starts at len(context).
        logprobs = torch.log_softmax(logits[:, len(context) - 1 : -1].float(), dim=-1)
        return _token_logprob_sums(logprobs, batch)

    def _pad(self, rows: list[list[int]], left: bool) -> tuple[Any, Any]:
        torch, _ = _require_transformers()
        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, r in enumerate(rows):
            sl = slice(width - len(r), width) if left else slice(0, len(r))
            ids[i, sl] = torch.tensor(r, dtype=torch.long)
            mask[i, sl] = 1
        return ids.to(self.device), mask.to(self.device)

    def _completion(self, ids: list[int], prompt_tokens: int) -> Generation:
        """Cut a generated row at its first end-of-sequence token (kept in the count)."""
        for k, tok in enumerate(ids):
            if tok in self.eos_ids:
                ids, reason = ids[: k + 1], "stop"
                break
        else:
            reason = "length"
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        return Generation(text, prompt_tokens, len(ids), reason)
