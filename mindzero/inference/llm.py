"""Language-model reasoners for any domain: online goal particles (assistance) and QA answers.

:class:`LLMReasoner` implements the reasoner interface: at each observed action it prompts the
model with the episode so far (the domain's ``assist_prompt``), parses the particles it writes and
returns them as the posterior. A completion that does not parse keeps the previous posterior
(uniform at the start) and is counted, so a helper never acts on garbage. Every decision records
its tokens, FLOPs (paper Eq. 6, from ``backend.usage``) and wall-clock seconds.

:class:`LLMQAAnswerer` answers a binary GridWorld question either by generating and parsing a
letter (``generate``: the form GRPO trains) or by comparing the log-probabilities of ``(a)`` and
``(b)`` (``score``: no parsing, never fails).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm

from mindzero.core.errors import UserError, clip
from mindzero.core.parsing import ParseCounter, ParseResult, parse_option
from mindzero.core.posterior import Posterior
from mindzero.domains.base import Domain
from mindzero.llm.base import Backend, Generation, Usage, flops


@dataclass
class DecisionStats:
    """Totals over a reasoner's decisions (one decision = one observed action, one LLM call of
    ``samples`` completions); parse failures are counted per completion."""

    parses: ParseCounter = field(default_factory=ParseCounter)
    tokens: int = 0
    tflops: float | None = 0.0
    seconds: float = 0.0
    decisions: int = 0

    def add_batch(self, usage: Usage, failures: list[str | None], samples: int = 1) -> None:
        """Record the completions of decisions made together in one measured block, ``samples``
        completions per decision (``None`` = parsed fine)."""
        self.decisions += len(failures) // samples
        self.parses.n += len(failures)
        for reason in failures:
            if reason is not None:
                self.parses.add_failure(reason)
        self.tokens += usage.tokens
        self.tflops = None if self.tflops is None or usage.tflops is None else self.tflops + usage.tflops
        self.seconds += usage.seconds

    def merge(self, other: DecisionStats) -> DecisionStats:
        tflops = None if self.tflops is None or other.tflops is None else self.tflops + other.tflops
        return DecisionStats(
            self.parses.merge(other.parses),
            self.tokens + other.tokens,
            tflops,
            self.seconds + other.seconds,
            self.decisions + other.decisions,
        )

    def metrics(self) -> dict[str, Any]:
        """Per-decision costs and rates for ``results.json`` (TFLOPs = 10^12 FLOPs)."""
        n = self.decisions
        parses = self.parses.metrics()
        return {
            "decisions": n,
            "parse_failure_rate": parses["parse_failure_rate"],
            "tokens_per_decision": self.tokens / n if n else 0.0,
            "tflops_per_decision": None if self.tflops is None or not n else self.tflops / n,
            "decisions_per_second": n / self.seconds if self.seconds > 0 else 0.0,
            "parse_failure_reasons": parses["parse_failure_reasons"],
        }


#: how a model's answer is read: ``generate`` = sample text and parse it; ``score`` = compare the
#: log-probabilities of the possible answers (no parsing, never fails)
ANSWER_MODES = ("generate", "score")


@dataclass
class LLMSettings:
    """How an LLM reasoner prompts and decodes (shared by assistance and QA)."""

    prompt_style: str = "compact"
    n_particles: int = 1
    temperature: float = 0.0
    max_new_tokens: int = 64
    samples: int = 1  # assistance: completions per decision, their particles averaged (> 1 needs temperature > 0)
    answer_mode: str = "generate"  # assistance: generate (parse sampled particles) | score (see LLMReasoner)

    def __post_init__(self) -> None:
        if self.samples > 1 and self.temperature <= 0:
            raise UserError(f"{self.samples} samples per decision need a temperature > 0 (greedy ones are identical)")
        if self.answer_mode not in ANSWER_MODES:
            raise UserError(f"unknown answer mode {self.answer_mode!r}; use {' or '.join(ANSWER_MODES)}")
        if self.answer_mode == "score" and (self.n_particles != 1 or self.samples != 1):
            raise UserError(
                "--answer-mode score reads the model's probability of each one-particle answer: "
                f"it needs --n-particles 1 and --samples 1, got {self.n_particles} and {self.samples}"
            )


def mixture(results: Sequence[ParseResult]) -> Posterior | None:
    """The mean of the parsed completions' posteriors (each completion weighs the same), or None
    when none parsed. A policy trained with ``--policy-entropy`` samples its posterior: the mean of
    k single-particle samples estimates it."""
    valid = [r.posterior for r in results if r.ok]
    if not valid:
        return None
    hypotheses = [h for p in valid for h in p.hypotheses]
    return Posterior.from_weights(hypotheses, np.concatenate([p.probs for p in valid]))


def scored_posterior(domain: Domain, backend: Backend, episode: Any, chat: list[dict], style: str) -> Posterior:
    """The posterior a model's answer probabilities imply (``--answer-mode score``): each
    hypothesis weighs the total probability of the one-particle answers that name it
    (:meth:`Domain.hypothesis_texts`), renormalised over the hypotheses (the mass of invalid
    answers is dropped)."""
    hypotheses, texts = zip(*domain.hypothesis_texts(episode, style))
    scores = np.asarray(backend.score(chat, texts), dtype=float)
    return Posterior.from_weights(hypotheses, np.exp(scores - scores.max()))


class LLMReasoner:
    """Goal particles from a language model at every observed action (paper §4, assistance).

    ``answer_mode="score"`` (one particle) skips sampling: the posterior is the model's own
    probability of naming each hypothesis (:meth:`Domain.hypothesis_texts`). A policy trained with
    ``--policy-entropy 1`` samples its posterior, so this is the distribution that ``--samples k``
    estimates, read exactly: no hypothesis is left out for not having been drawn.
    """

    name = "llm"

    def __init__(self, domain: Domain, backend: Backend, settings: LLMSettings | None = None, seed: int = 0) -> None:
        self.domain = domain
        self.backend = backend
        self.settings = settings or LLMSettings()
        self.seed = seed
        self.stats = DecisionStats()

    def reset(self, episode: Any) -> Posterior:
        self.episode = episode
        self.observations: list[Any] = []
        self.posterior = Posterior.uniform(self.domain.hypotheses(episode))
        return self.posterior

    def update(self, observation: Any) -> Posterior:
        """Prompt with the prefix up to and including this action; keep the old posterior on failure."""
        return self.update_many([self], [observation])[0]

    @staticmethod
    def update_many(reasoners: Sequence[LLMReasoner], observations: Sequence[Any]) -> list[Posterior]:
        """Fold one observation into each reasoner (episodes run in lock-step), asking each model
        once for all the reasoners that share it and their settings: one batch instead of one call
        per decision. Each prompt has its own seed, so every reasoner decides as it would alone."""
        groups: dict[tuple, list[LLMReasoner]] = {}
        for reasoner, observation in zip(reasoners, observations, strict=True):
            reasoner.observations.append(observation)
            key = (id(reasoner.backend), dataclasses.astuple(reasoner.settings))
            groups.setdefault(key, []).append(reasoner)
        for group in groups.values():
            _decide(group)
        return [r.posterior for r in reasoners]

    def chat(self) -> list[dict]:
        """The prompt of the next decision: the episode up to the last observed action."""
        settings = self.settings
        prompt = self.domain.assist_prompt(self.episode, self.observations, settings.n_particles, settings.prompt_style)
        return [{"role": "user", "content": prompt}]


def _decide(group: Sequence[LLMReasoner]) -> None:
    """Update the posteriors of reasoners that share a backend and settings: one ``generate`` for
    all of them (``score`` mode: one scoring call each). A decision made alone is charged the
    measured call; decisions made together are each charged their own completions' tokens and an
    equal share of the call's seconds."""
    first = group[0]
    settings, backend = first.settings, first.backend
    if settings.answer_mode == "score":
        for reasoner in group:
            with backend.usage.measure() as usage:
                reasoner.posterior = scored_posterior(
                    reasoner.domain, backend, reasoner.episode, reasoner.chat(), settings.prompt_style
                )
            reasoner.stats.add_batch(usage, [None])
        return
    seeds = [r.seed * 1_000_003 + len(r.observations) for r in group]
    with backend.usage.measure() as usage:
        generations = backend.generate(
            [r.chat() for r in group],
            n=settings.samples,
            temperature=settings.temperature,
            max_new_tokens=settings.max_new_tokens,
            seed=seeds,
        )
    for reasoner, completions in zip(group, generations):
        results = [reasoner.domain.parse_particles(g.text, reasoner.episode, settings.n_particles) for g in completions]
        own = usage if len(group) == 1 else _share(backend, completions, usage.seconds / len(group))
        reasoner.stats.add_batch(own, [None if r.ok else r.reason for r in results], settings.samples)
        reasoner.posterior = mixture(results) or reasoner.posterior


def _share(backend: Backend, completions: Sequence[Generation], seconds: float) -> Usage:
    """One decision's part of a batched call: its completions' tokens (Eq. 6 FLOPs) and ``seconds``."""
    prompt_tokens = sum(g.prompt_tokens for g in completions)
    completion_tokens = sum(g.completion_tokens for g in completions)
    cost = flops(backend.usage.active_params, prompt_tokens + completion_tokens)
    return Usage(1, prompt_tokens, completion_tokens, cost, seconds)


class LLMQAAnswerer:
    """Answers a two-option QA row with (a) or (b); ``None`` when a generated answer names neither,
    ``"unreadable"`` when the prompt style cannot be built from the question (the model is not asked)."""

    MODES = ANSWER_MODES

    def __init__(
        self, domain: Domain, backend: Backend, mode: str = "generate", settings: LLMSettings | None = None
    ) -> None:
        if mode not in self.MODES:
            raise UserError(f"unknown answer mode {mode!r}; use {' or '.join(self.MODES)}")
        self.domain = domain
        self.backend = backend
        self.mode = mode
        self.settings = settings or LLMSettings(max_new_tokens=16)
        self.stats = DecisionStats()

    def answers(
        self, rows: Sequence[Mapping[str, Any]], seed: int = 0, start: int = 0, batch: int = 8
    ) -> Iterator[tuple[list[dict], Sequence[Mapping[str, Any]]]]:
        """(records, rows) batch by batch from row ``start`` on, one record per row: ``prediction``
        ('a', 'b', None or 'unreadable' with the reason in ``unreadable``), ``text`` or ``scores``.
        Row i decodes with seed ``seed + i`` in one ``generate`` with its batch, so the answers are the
        same whatever the batch size and wherever a run was resumed."""
        for lo in tqdm(range(start, len(rows), batch), desc=f"qa-llm[{self.mode}]", leave=False):
            chunk = rows[lo : lo + batch]
            prompts, seeds, unread = [], [], {}
            for k, row in enumerate(chunk):
                try:
                    prompts.append(self.domain.qa_prompt(row, self.settings.prompt_style))
                    seeds.append(seed + lo + k)
                except UserError as err:  # a prompt style that reads the question may not read this one
                    unread[k] = {"prediction": "unreadable", "unreadable": clip(str(err))}
            chats = [[{"role": "user", "content": prompt}] for prompt in prompts]
            with self.backend.usage.measure() as usage:
                if not chats:
                    answered = []
                elif self.mode == "generate":
                    gens = self.backend.generate(
                        chats,
                        n=1,
                        temperature=self.settings.temperature,
                        max_new_tokens=self.settings.max_new_tokens,
                        seed=seeds,
                    )
                    answered = []
                    for g in gens:
                        choice = parse_option(g[0].text)
                        answered.append({"prediction": None if choice is None else "ab"[choice], "text": g[0].text})
                else:
                    answered = []
                    for chat in chats:
                        scores = self.backend.score(chat, ["(a)", "(b)"])
                        answered.append({"prediction": "ab"[int(np.argmax(scores))], "scores": scores})
            answers = iter(answered)
            records = [unread[k] if k in unread else next(answers) for k in range(len(chunk))]
            failures = ["no option named" if r["prediction"] is None else None for r in answered]
            self.stats.add_batch(usage, failures)
            yield records, chunk
