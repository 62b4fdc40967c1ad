"""Language-model reasoners for GridWorld: online goal particles (assistance) and QA answers.

:class:`LLMReasoner` implements the reasoner interface: at each observed action it prompts the
model with the episode so far (:func:`assist_prompt`), parses the goal particles it writes and
returns them as the posterior. A completion that does not parse keeps the previous posterior
(uniform at the start) and is counted, so a helper never acts on garbage. Every decision records
its tokens, FLOPs (paper Eq. 6, from ``backend.usage``) and wall-clock seconds.

:class:`LLMQAAnswerer` answers a binary GridWorld question either by generating and parsing a
letter (``generate``: the form GRPO trains) or by comparing the log-probabilities of ``(a)`` and
``(b)`` (``score``: no parsing, never fails).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.hypotheses import parse_goal_particles
from mindzero.core.posterior import Posterior
from mindzero.envs.gridworld.episodes import Episode
from mindzero.envs.gridworld.world import Action, Observation, WorldState, goal_pairs, step
from mindzero.llm.base import Backend, Usage


@dataclass
class DecisionStats:
    """Totals over a reasoner's decisions (one decision = one observed action, one LLM call)."""

    decisions: int = 0
    parse_failures: int = 0
    tokens: int = 0
    tflops: float | None = 0.0
    seconds: float = 0.0
    reasons: dict[str, int] = field(default_factory=dict)

    def add_batch(self, usage: Usage, failures: list[str | None]) -> None:
        """Record decisions made together in one measured block (``None`` = parsed fine)."""
        self.decisions += len(failures)
        self.tokens += usage.tokens
        self.tflops = None if self.tflops is None or usage.tflops is None else self.tflops + usage.tflops
        self.seconds += usage.seconds
        for failure in failures:
            if failure is not None:
                self.parse_failures += 1
                key = failure.split(":")[0]
                self.reasons[key] = self.reasons.get(key, 0) + 1

    def merge(self, other: DecisionStats) -> DecisionStats:
        out = DecisionStats(
            self.decisions + other.decisions,
            self.parse_failures + other.parse_failures,
            self.tokens + other.tokens,
            None if self.tflops is None or other.tflops is None else self.tflops + other.tflops,
            self.seconds + other.seconds,
            dict(self.reasons),
        )
        for key, n in other.reasons.items():
            out.reasons[key] = out.reasons.get(key, 0) + n
        return out

    def metrics(self) -> dict[str, Any]:
        """Per-decision costs and rates for ``results.json`` (TFLOPs = 10^12 FLOPs)."""
        n = self.decisions
        return {
            "decisions": n,
            "parse_failure_rate": self.parse_failures / n if n else 0.0,
            "tokens_per_decision": self.tokens / n if n else 0.0,
            "tflops_per_decision": None if self.tflops is None or not n else self.tflops / n,
            "decisions_per_second": n / self.seconds if self.seconds > 0 else 0.0,
            "parse_failure_reasons": dict(sorted(self.reasons.items())),
        }


@dataclass
class LLMSettings:
    """How an LLM reasoner prompts and decodes (shared by assistance and QA)."""

    prompt_style: str = "compact"
    n_particles: int = 1
    temperature: float = 0.0
    max_new_tokens: int = 64


class LLMReasoner:
    """Goal particles from a language model at every observed action (paper §4, assistance)."""

    name = "llm"

    def __init__(self, backend: Backend, settings: LLMSettings | None = None, seed: int = 0) -> None:
        self.backend = backend
        self.settings = settings or LLMSettings()
        self.seed = seed
        self.stats = DecisionStats()

    def reset(self, episode: Episode) -> Posterior:
        from mindzero.tasks.gridworld_ssrl import object_names

        self.layout = episode.layout
        self.objects = object_names(episode.layout)
        self.states: list[WorldState] = [episode.initial_state()]
        self.actions: list[int] = []
        self.posterior = Posterior.uniform(goal_pairs(len(episode.layout.objects)))
        return self.posterior

    def update(self, observation: Observation) -> Posterior:
        """Prompt with the prefix up to and including this action; keep the old posterior on failure.

        The state after the action is the human's move with the helper standing still, as in the
        training rows (:func:`assist_row`); the next observation supersedes it."""
        from mindzero.tasks.gridworld_ssrl import assist_prompt

        self.states[-1] = observation.state
        self.actions.append(observation.human_action)
        self.states.append(step(self.layout, observation.state, observation.human_action, Action.STAY))
        prompt = assist_prompt(
            self.layout, self.states, self.actions, self.settings.n_particles, self.settings.prompt_style
        )
        seed = self.seed * 1_000_003 + len(self.actions)
        with self.backend.usage.measure() as usage:
            generation = self.backend.generate(
                [[{"role": "user", "content": prompt}]],
                n=1,
                temperature=self.settings.temperature,
                max_new_tokens=self.settings.max_new_tokens,
                seed=seed,
            )[0][0]
        result = parse_goal_particles(generation.text, self.objects, self.settings.n_particles)
        self.stats.add_batch(usage, [None if result.ok else result.reason])
        if result.ok:
            self.posterior = result.posterior
        return self.posterior


class LLMQAAnswerer:
    """Answers a GridWorld QA row with (a) or (b); ``None`` when a generated answer names neither."""

    MODES = ("generate", "score")

    def __init__(self, backend: Backend, mode: str = "generate", settings: LLMSettings | None = None) -> None:
        if mode not in self.MODES:
            raise UserError(f"unknown answer mode {mode!r}; use {' or '.join(self.MODES)}")
        self.backend = backend
        self.mode = mode
        self.settings = settings or LLMSettings(max_new_tokens=16)
        self.stats = DecisionStats()

    def answer(self, rows: list[dict], seed: int = 0, batch: int = 8) -> list[dict]:
        """One record per row: ``prediction`` ('a', 'b' or None), ``text`` or ``scores``, costs."""
        from tqdm import tqdm

        from mindzero.tasks.gridworld_qa import qa_prompt
        from mindzero.tasks.gridworld_ssrl import parse_option

        out = []
        for lo in tqdm(range(0, len(rows), batch), desc=f"qa-llm[{self.mode}]", leave=False):
            chunk = rows[lo : lo + batch]
            chats = [[{"role": "user", "content": qa_prompt(r, self.settings.prompt_style)}] for r in chunk]
            with self.backend.usage.measure() as usage:
                if self.mode == "generate":
                    gens = self.backend.generate(
                        chats,
                        n=1,
                        temperature=self.settings.temperature,
                        max_new_tokens=self.settings.max_new_tokens,
                        seed=seed + lo,
                    )
                    records = []
                    for g in gens:
                        choice = parse_option(g[0].text)
                        records.append({"prediction": None if choice is None else "ab"[choice], "text": g[0].text})
                else:
                    records = []
                    for chat in chats:
                        scores = self.backend.score(chat, ["(a)", "(b)"])
                        records.append({"prediction": "ab"[int(np.argmax(scores))], "scores": scores})
            failures = ["no option named" if r["prediction"] is None else None for r in records]
            self.stats.add_batch(usage, failures)
            out.extend(records)
        return out
