"""The backend interface shared by every language-model backend, and its cost accounting.

Reasoners, trainers and evaluators talk to one :class:`Backend`; which engine answers (local
transformers, vLLM, an OpenAI-compatible server) is a choice of spec string, not of code.

Cost follows the MindZero paper, Eq. 6 (after Kaplan et al., 2020)::

    FLOPs = 2 × P_active × N_tokens

where ``N_tokens`` counts every processed token of every sample: prompt plus completion, with a
prompt sampled ``n`` times counted ``n`` times (what a plain, non-prefix-caching engine computes),
and padding not counted. Scoring a continuation counts its prompt plus the continuation.
"""

from __future__ import annotations

import contextlib
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from mindzero.core.errors import UserError

#: One chat message, as in the OpenAI chat API: ``{"role": "user", "content": "..."}``.
Message = dict[str, str]
#: A plain text prompt (completed as is) or a chat (rendered with the model's chat template).
Prompt = str | list[Message]


@dataclass(frozen=True)
class Generation:
    """One sampled completion of one prompt."""

    text: str
    """The completion only, without the prompt and without special tokens."""
    prompt_tokens: int
    """Tokens of the (templated) prompt that produced it."""
    completion_tokens: int
    """Tokens generated, including a final end-of-sequence token when one was produced."""
    finish_reason: str = "stop"
    """``"stop"`` (end of sequence) or ``"length"`` (hit ``max_new_tokens``)."""


def flops(active_params: int | None, tokens: int) -> float | None:
    """Paper Eq. 6: forward FLOPs = 2 × active parameters × processed tokens (None if P unknown)."""
    if active_params is None:
        return None
    return 2.0 * float(active_params) * float(tokens)


@dataclass
class Usage:
    """Counts of work done: calls, tokens, FLOPs and wall-clock seconds.

    ``flops`` is None when the backend does not know its parameter count (a remote endpoint
    without ``active_params=``); sums with an unknown stay unknown rather than silently zero.
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    flops: float | None = 0.0
    seconds: float = 0.0

    @property
    def tokens(self) -> int:
        """All processed tokens, prompt plus completion (Eq. 6's N_tokens)."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def tflops(self) -> float | None:
        """FLOPs in units of 10^12, the unit of the paper's tables."""
        return None if self.flops is None else self.flops / 1e12

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            flops=None if self.flops is None or other.flops is None else self.flops + other.flops,
            seconds=self.seconds + other.seconds,
        )

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls - other.calls,
            prompt_tokens=self.prompt_tokens - other.prompt_tokens,
            completion_tokens=self.completion_tokens - other.completion_tokens,
            flops=None if self.flops is None or other.flops is None else self.flops - other.flops,
            seconds=self.seconds - other.seconds,
        )

    def as_dict(self) -> dict[str, float | int | None]:
        """Plain numbers for ``results.json``: calls, tokens, TFLOPs, seconds."""
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tokens": self.tokens,
            "tflops": self.tflops,
            "seconds": self.seconds,
        }


@dataclass
class UsageMeter:
    """Running totals of a backend's work, readable by reasoners.

    ``meter.total`` is everything since creation (or :meth:`reset`); ``with meter.measure() as u:``
    fills ``u`` with the work done inside the block, e.g. the TFLOPs of one decision.
    """

    active_params: int | None
    """Parameters used per token (for a mixture of experts: the active ones), or None if unknown."""
    total: Usage = field(default_factory=Usage)

    def record(self, prompt_tokens: int, completion_tokens: int, seconds: float) -> Usage:
        """Add one backend call; returns that call's own usage."""
        call = Usage(
            calls=1,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            flops=flops(self.active_params, prompt_tokens + completion_tokens),
            seconds=seconds,
        )
        self.total = self.total + call
        return call

    def record_generations(self, results: Sequence[Sequence[Generation]], started: float) -> Usage:
        """Add one ``generate`` call: every completion's tokens, wall time since ``started``
        (a ``time.perf_counter()`` reading)."""
        return self.record(
            prompt_tokens=sum(g.prompt_tokens for gs in results for g in gs),
            completion_tokens=sum(g.completion_tokens for gs in results for g in gs),
            seconds=time.perf_counter() - started,
        )

    def snapshot(self) -> Usage:
        """A copy of the totals now; subtract two snapshots to get the work in between."""
        return replace(self.total)

    def reset(self) -> None:
        """Start counting from zero."""
        self.total = Usage()

    @contextlib.contextmanager
    def measure(self) -> Iterator[Usage]:
        """Yield a :class:`Usage` that, on leaving the block, holds the work done inside it."""
        start = self.snapshot()
        delta = Usage()
        try:
            yield delta
        finally:
            done = self.total - start
            for name in ("calls", "prompt_tokens", "completion_tokens", "flops", "seconds"):
                setattr(delta, name, getattr(done, name))


class Backend(ABC):
    """A language model that samples completions and scores given continuations.

    Every call adds its tokens, FLOPs and seconds to :attr:`usage`.
    """

    name: str
    """What was loaded, for logs and ``results.json`` (a path, URL or model id)."""
    usage: UsageMeter

    def generate(
        self,
        prompts: Sequence[Prompt],
        n: int = 1,
        temperature: float = 1.0,
        max_new_tokens: int = 256,
        seed: int | Sequence[int] | None = None,
    ) -> list[list[Generation]]:
        """Sample ``n`` completions for each prompt; ``result[i][j]`` is sample j of prompt i.

        ``temperature == 0`` means greedy decoding. Each prompt has its own seed: ``seed[i]``, or
        ``seed + i`` for one number; a prompt's completions depend only on the prompt, its seed and
        the other arguments (on the same backend, hardware and library versions), not on the
        prompts sent with it, so decisions batched together answer as they would one at a time.
        Usage counts the completions computed: a backend that decodes greedily once and repeats
        it ``n`` times counts it once.
        """
        check_sampling_args(n, temperature, max_new_tokens)
        prompts = list(prompts)
        seeds = prompt_seeds(seed, len(prompts))
        start = time.perf_counter()
        computed = self.sample(prompts, n, temperature, max_new_tokens, seeds)
        self.usage.record_generations(computed, start)
        return [gs * (n // len(gs)) if len(gs) < n else gs for gs in computed]

    @abstractmethod
    def sample(
        self, prompts: list[Prompt], n: int, temperature: float, max_new_tokens: int, seed: list[int] | None
    ) -> list[list[Generation]]:
        """The completions computed for each prompt: ``n``, or 1 where ``n`` would be identical
        (greedy decoding); ``seed`` is one seed per prompt (None: unseeded). Arguments are already
        checked; :meth:`generate` meters the call."""

    @abstractmethod
    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        """Total log-probability (natural log, nats) of each continuation given the prompt.

        Used for option scoring in multiple-choice QA. Local backends tokenize each continuation
        on its own and append it to the (templated) prompt's tokens, so leading spaces matter
        (score ``" A"``, not ``"A"``, after ``"Answer:"``).
        """

    def score_pairs(self, pairs: Sequence[tuple[Prompt, str]]) -> list[float]:
        """log P(continuation | prompt) in nats of each ``(prompt, continuation)`` pair, as
        :meth:`score` gives it: one :meth:`score` call per distinct prompt here; a backend that
        batches different prompts in one forward pass overrides it (LLM estimators score one
        continuation after each of hundreds of prompts)."""
        groups: dict[int, list[int]] = {}
        keys: dict[str, int] = {}
        for i, (prompt, _) in enumerate(pairs):
            key = keys.setdefault(repr(prompt), len(keys))
            groups.setdefault(key, []).append(i)
        out = [0.0] * len(pairs)
        for rows in groups.values():
            for i, value in zip(rows, self.score(pairs[rows[0]][0], [pairs[i][1] for i in rows])):
                out[i] = value
        return out


def prompt_seeds(seed: int | Sequence[int] | None, n_prompts: int) -> list[int] | None:
    """One seed per prompt: ``seed + i`` for prompt i, or the given list (checked for length)."""
    if seed is None:
        return None
    if not isinstance(seed, Sequence):
        return [int(seed) + i for i in range(n_prompts)]
    seeds = [int(s) for s in seed]
    if len(seeds) != n_prompts:
        raise UserError(f"got {len(seeds)} seeds for {n_prompts} prompts; give one seed per prompt")
    return seeds


def check_sampling_args(n: int, temperature: float, max_new_tokens: int) -> None:
    """Reject arguments every backend would reject, with one message for all of them."""
    if n < 1:
        raise UserError(f"n must be at least 1 sample per prompt, got {n}")
    if temperature < 0:
        raise UserError(f"temperature must be >= 0 (0 means greedy), got {temperature}")
    if max_new_tokens < 1:
        raise UserError(f"max_new_tokens must be at least 1, got {max_new_tokens}")
