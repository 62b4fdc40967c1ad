"""Model output as data: the outcome of parsing one completion, never an exception.

Every domain's parser returns a :class:`ParseResult`; rewards, reasoners and trainers count
outcomes with one :class:`ParseCounter`. :func:`parse_option` reads two-option answers
("(a)", "Answer: b", a line that is just "a"), which both domains' QA benchmarks use.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from mindzero.core.posterior import Posterior

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)


@dataclass(frozen=True)
class ParseResult:
    """Outcome of parsing one model output: distinct hypotheses and their probabilities (both empty
    exactly when ``ok`` is False; then ``reason`` says why)."""

    ok: bool
    hypotheses: tuple[Hashable, ...] = ()
    probs: tuple[float, ...] = ()
    reason: str | None = None
    n_particles: int = 0
    merged: int = 0  # duplicate hypotheses merged into one
    notes: list[str] = field(default_factory=list)
    entropy: float = 0.0  # H(probs) in nats: the reward and the training log both read it
    # The answer in the one spelling the model was taught (meaningful when ok): only such a completion
    # earns the trainer's policy-entropy bonus, which would otherwise pay for varied spellings of one
    # answer (leading spaces, one-digit probabilities: docs/ssrl.md).
    canonical: bool = True

    @cached_property
    def posterior(self) -> Posterior | None:
        """The particles as a :class:`Posterior`; built on demand, as the reward needs only the tuples."""
        return Posterior(self.hypotheses, np.array(self.probs)) if self.ok else None

    @property
    def answer(self) -> Hashable | None:
        """The most probable hypothesis (first on ties), None for a failure."""
        return self.hypotheses[max(range(len(self.probs)), key=self.probs.__getitem__)] if self.ok else None


def json_candidates(text: str) -> Iterator[str]:
    """Strings that may hold a JSON object, most literal first (computed lazily): the whole text,
    each fenced block, the outermost braces."""
    yield text.strip()
    for match in _FENCE.findall(text):
        yield match.strip()
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        yield text[start : end + 1]


@dataclass
class ParseCounter:
    """Parse outcomes since the last :meth:`pop`: failures by reason (the text before the first
    colon) and the mean entropy H(q) of the valid outputs."""

    n: int = 0
    failures: int = 0
    entropy_sum: float = 0.0
    reasons: dict[str, int] = field(default_factory=dict)

    def add(self, result: ParseResult) -> None:
        self.n += 1
        if result.ok:
            self.entropy_sum += result.entropy
        else:
            self.add_failure(result.reason or "")

    def add_failure(self, reason: str) -> None:
        """Count a failure whose ParseResult the caller did not build (``n`` included)."""
        if not reason:
            reason = "unknown"
        self.failures += 1
        key = reason.split(":")[0]
        self.reasons[key] = self.reasons.get(key, 0) + 1

    def merge(self, other: ParseCounter) -> ParseCounter:
        out = ParseCounter(self.n + other.n, self.failures + other.failures, self.entropy_sum + other.entropy_sum)
        for reasons in (self.reasons, other.reasons):
            for key, k in reasons.items():
                out.reasons[key] = out.reasons.get(key, 0) + k
        return out

    def metrics(self) -> dict:
        valid = self.n - self.failures
        return {
            "parse_failure_rate": self.failures / self.n if self.n else 0.0,
            "hypothesis_entropy": self.entropy_sum / valid if valid else 0.0,
            "parse_failure_reasons": dict(sorted(self.reasons.items())),
        }

    def pop(self) -> dict:
        """:meth:`metrics`, then start counting afresh."""
        out = self.metrics()
        self.n, self.failures, self.entropy_sum, self.reasons = 0, 0, 0.0, {}
        return out


_OPTION = re.compile(
    r"\(\s*([ab])\s*\)"  # "(a)"
    r"|\b(?:answer|option)\s*(?:is|:)?\s*\(?\s*([ab])\b"  # "Answer: b", "option a"
    r"|^\s*([ab])\s*[).:]?\s*$",  # a line that is just "a" or "b."
    re.I | re.M,
)


def parse_option(text: object) -> int | None:
    """Index (0 for a, 1 for b) of the first option a QA answer names; None when it names none."""
    if not isinstance(text, str):
        return None
    match = _OPTION.search(text)
    if match is None:
        return None
    letter = next(g for g in match.groups() if g)
    return "ab".index(letter.lower())


def bare_json(text: str) -> bool:
    """Whether ``text`` is a JSON object with nothing around it (the canonical spelling of a JSON
    answer that parsed; whitespace inside the object is not checked)."""
    return text[:1] == "{" and text[-1:] == "}"


def option_answer(text: object) -> ParseResult:
    """A QA answer as a point mass on the option it names (0 = a, 1 = b): how an SSRL QA task parses."""
    choice = parse_option(text)
    if choice is None:
        return ParseResult(False, reason="no option named")
    return ParseResult(True, (choice,), (1.0,), n_particles=1, canonical=text == f"({'ab'[choice]})")


def completion_text(completion: object) -> object:
    """TRL passes strings, or chat lists ``[{"role": "assistant", "content": ...}]``."""
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return completion[-1].get("content", "")
    return completion
