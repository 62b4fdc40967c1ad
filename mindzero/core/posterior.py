"""Posteriors over hypotheses: weighted particles ``(hypothesis, q)`` with q summing to 1."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np


def merge_weights(
    hypotheses: Sequence[Hashable], weights: Sequence[float]
) -> tuple[tuple[Hashable, ...], tuple[float, ...]]:
    """(distinct hypotheses in first-seen order, their summed weights normalised to 1).

    Plain Python: parsers call it once per model output, on a handful of particles."""
    merged = dict.fromkeys(hypotheses, 0.0)
    for h, w in zip(hypotheses, weights, strict=True):
        merged[h] += w
    return normalise_weights(merged)


def normalise_weights(merged: dict[Hashable, float]) -> tuple[tuple[Hashable, ...], tuple[float, ...]]:
    """(hypotheses, weights / their sum) of already merged weights; ValueError without positive mass."""
    total = sum(merged.values())
    if not total > 0:
        raise ValueError("weights must have a positive sum")
    return tuple(merged), tuple([w / total for w in merged.values()])


@dataclass(frozen=True)
class Posterior:
    """A distribution over a finite list of hashable hypotheses (e.g. goal pairs)."""

    hypotheses: tuple[Hashable, ...]
    probs: np.ndarray

    def __post_init__(self) -> None:
        probs = np.asarray(self.probs, dtype=np.float64)
        if probs.shape != (len(self.hypotheses),):
            raise ValueError("one probability per hypothesis")
        if len(probs) and (probs.min() < 0 or abs(probs.sum() - 1.0) > 1e-6):
            raise ValueError(f"probabilities must be ≥ 0 and sum to 1 (sum={probs.sum()})")
        object.__setattr__(self, "probs", probs)

    @classmethod
    def uniform(cls, hypotheses: Sequence[Hashable]) -> Posterior:
        return cls(tuple(hypotheses), np.full(len(hypotheses), 1.0 / len(hypotheses)))

    @classmethod
    def point(cls, hypothesis: Hashable) -> Posterior:
        return cls((hypothesis,), np.ones(1))

    @classmethod
    def from_weights(cls, hypotheses: Sequence[Hashable], weights: Sequence[float]) -> Posterior:
        """Merge duplicate hypotheses (weights summed) and normalise."""
        merged, probs = merge_weights(hypotheses, weights)
        return cls(merged, np.array(probs))

    def prob(self, hypothesis: Hashable) -> float:
        try:
            return float(self.probs[self.hypotheses.index(hypothesis)])
        except ValueError:
            return 0.0

    def map(self) -> Hashable:
        """Most probable hypothesis (first on ties, so deterministic)."""
        return self.hypotheses[int(np.argmax(self.probs))]

    def dense(self, support: Sequence[Hashable]) -> np.ndarray:
        """Probabilities over ``support`` in its order (0 for hypotheses not in this posterior)."""
        lookup = dict(zip(self.hypotheses, self.probs))
        return np.array([lookup.get(h, 0.0) for h in support])
