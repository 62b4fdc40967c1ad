"""Posteriors over hypotheses: weighted particles ``(hypothesis, q)`` with q summing to 1."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np


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
        merged: dict[Hashable, float] = {}
        for h, w in zip(hypotheses, weights, strict=True):
            merged[h] = merged.get(h, 0.0) + float(w)
        total = sum(merged.values())
        if total <= 0:
            raise ValueError("weights must have a positive sum")
        return cls(tuple(merged), np.array([w / total for w in merged.values()]))

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
