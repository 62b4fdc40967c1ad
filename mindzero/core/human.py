"""Parameters of a simulated human: one object for the simulator, the exact reasoner and the reward.

Both MindZero domains model the person as a noisy Boltzmann-rational planner: with probability
ε a uniformly random move, otherwise a softmax (temperature τ) over the moves' discounted
rewards-to-go R(n) = −c(1−γⁿ)/(1−γ). Every command that simulates or infers takes these as
``--human-epsilon``, ``--human-tau``, ``--human-c``, ``--human-gamma`` (or a ``human:`` YAML
section), and passes the same object to the simulator and to the likelihood, so "the likelihood
is the policy" holds at every setting, not just the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mindzero.core.config import PROBABILITY, validate


@dataclass(frozen=True)
class HumanParams:
    """The simulated human's noise, rationality and cost parameters (paper App. B.3)."""

    epsilon: float = field(default=0.15, metadata={"help": "probability of a uniformly random move", **PROBABILITY})
    tau: float = field(default=0.01, metadata={"help": "Boltzmann temperature of goal-directed moves", "gt": 0})
    c: float = field(default=0.1, metadata={"help": "step cost c in R(n) = -c(1-gamma^n)/(1-gamma)", "gt": 0})
    gamma: float = field(default=0.95, metadata={"help": "discount gamma in R(n)", "gt": 0, "lt": 1})

    def __post_init__(self) -> None:
        validate(self)  # built in code too: the likelihood is a distribution only for valid values
