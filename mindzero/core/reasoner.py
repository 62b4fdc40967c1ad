"""The reasoner interface: every way of inferring a mind (exact Bayes, SMC, LLMs) implements it.

A reasoner is online: ``reset(episode)`` starts a new episode and returns the prior;
``update(observation)`` folds in one observed action and returns the current posterior. It sits in
core because both the domains (their own exact and SMC reasoners) and ``mindzero.inference`` (the
domain-free ones) implement it.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from mindzero.core.posterior import Posterior


@runtime_checkable
class Reasoner(Protocol):
    name: str

    def reset(self, episode: Any) -> Posterior: ...

    def update(self, observation: Any) -> Posterior: ...
