"""The simulated human of Household — and, by construction, the action likelihood.

:meth:`HouseholdHuman.action_probs` is the one function that both samples the simulated human's
actions and scores observed actions in SMC inference, so the likelihood is the policy.

For a goal (target t, class counts) and the human's *belief* (``World`` state), the planner lists
subgoals and the first action of each, with its path cost in ticks:

- deliver a held object the goal still needs: walk to t, open it if it is a closed container, put
  (cost d(here, t) + open + 1);
- discard a held object the goal does not need: put it on the nearest surface;
- with a free hand, fetch a needed object from each place the human believes it may be — a known
  place, or each place not yet ruled out (belief-driven search): walk there, open it if closed,
  grab; cost d(here, place) + open + 1 + d(place, t) + open(t) + 1;
- nothing left (by its belief): wait.

"Needed" counts what the human believes is already at t. Each first action costs its cheapest
subgoal; the human picks one by a Boltzmann choice over R(cost)/τ with R(n) = −c(1−γⁿ)/(1−γ)
(:class:`~mindzero.core.human.HumanParams`), and with probability ε replaces it by a uniformly
random valid action, so every valid action keeps probability ≥ ε / #valid under every goal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

import numpy as np

from mindzero.core.config import PROBABILITY
from mindzero.core.human import HumanParams
from mindzero.envs.household.world import (
    GRAB,
    HANDS,
    HUMAN,
    NOOP_ACTION,
    OPEN,
    OPENED,
    POS,
    PUTIN,
    PUTON,
    WALK,
    Action,
    Goal,
    State,
    World,
)


@dataclass(frozen=True)
class HouseholdHumanParams(HumanParams):
    """:class:`HumanParams` with Household's defaults: τ 0.05 makes subgoals a few ticks apart
    comparably likely (GridWorld's 0.01 is near-deterministic over these path lengths); ε 0.1."""

    epsilon: float = field(default=0.1, metadata={"help": "probability of a uniformly random action", **PROBABILITY})
    tau: float = field(default=0.05, metadata={"help": "Boltzmann temperature of goal-directed actions", "gt": 0})


HOUSEHOLD_HUMAN = HouseholdHumanParams()


def household_human(flags: HumanParams) -> HouseholdHumanParams:
    """Household's human model, with every value ``flags`` changed from their (GridWorld) default:
    what a command whose ``--human-*`` flags are GridWorld's means on this domain."""
    changed = {f.name: getattr(flags, f.name) for f in fields(HumanParams) if getattr(flags, f.name) != f.default}
    return HouseholdHumanParams(**changed)


class HouseholdHuman:
    """The Boltzmann-noisy subgoal planner (module docstring) of one apartment."""

    def __init__(self, world: World, human: HumanParams = HOUSEHOLD_HUMAN) -> None:
        self.world = world
        self.epsilon, self.tau, self.c, self.gamma = human.epsilon, human.tau, human.c, human.gamma
        apt = world.apartment
        surfaces = [f for f in range(world.F) if world.surface[f]]
        #: nearest surface of each cell (ties: the lower index): where unneeded objects go
        self.nearest_surface = [min(surfaces, key=lambda f: (apt.dist[f][cell], f)) for cell in range(len(apt.cells))]
        self.reward = [-self.c * (1 - self.gamma**n) / (1 - self.gamma) / self.tau for n in range(400)]

    def costs(self, state: State, goal: Goal) -> dict[Action, int]:
        """Cheapest subgoal cost (ticks) behind each first action the planner considers."""
        w = self.world
        fcell, dist, bel0 = w.fcell, w.apartment.dist, w.BEL
        pos, opened = state[POS], state[OPENED]
        target = goal[1]
        tbit = 1 << target
        t_closed = 0 if w.surface[target] or opened >> target & 1 else 1
        remaining = {}
        for cls, n in goal[2]:
            remaining[cls] = n - sum(state[bel0 + o] == tbit for o in w.class_objects.get(cls, ()))
        costs: dict[Action, int] = {}
        free = False
        for hand in (HANDS, HANDS + 1):
            o = state[hand]
            if o < 0:
                free = True
                continue
            cls = w.apartment.object_classes[o]
            if remaining.get(cls, 0) > 0:
                remaining[cls] -= 1
                f, cost = target, dist[target][pos] + t_closed + 1
            else:
                f = self.nearest_surface[pos]
                cost = dist[f][pos] + 1
            if fcell[f] != pos:
                action = (WALK, f, 0)
            elif w.container[f] and not opened >> f & 1:
                action = (OPEN, f, 0)
            else:
                action = (PUTON if w.surface[f] else PUTIN, o, f)
            if cost < costs.get(action, 999):
                costs[action] = cost
        if free:
            held = w.held_bits[0] | w.held_bits[1]
            to_target = dist[target]
            for cls, left in remaining.items():
                if left <= 0:
                    continue
                for o in w.class_objects.get(cls, ()):
                    belief = state[bel0 + o]
                    if belief == tbit or belief & held:
                        continue
                    while belief:
                        low = belief & -belief
                        belief ^= low
                        f = low.bit_length() - 1
                        cell = fcell[f]
                        closed = w.container[f] and not opened >> f & 1
                        cost = dist[f][pos] + closed + 2 + to_target[cell] + t_closed
                        action = (WALK, f, 0) if cell != pos else (OPEN, f, 0) if closed else (GRAB, o, 0)
                        if cost < costs.get(action, 999):
                            costs[action] = cost
        return costs or {NOOP_ACTION: 0}

    def planner_probs(self, state: State, goal: Goal) -> dict[Action, float]:
        """The Boltzmann choice over first actions (no ε)."""
        costs = self.costs(state, goal)
        reward = self.reward
        top = max(reward[c] for c in costs.values())
        weights = {a: math.exp(reward[c] - top) for a, c in costs.items()}
        total = sum(weights.values())
        return {a: v / total for a, v in weights.items()}

    def action_probs(self, state: State, goal: Goal) -> tuple[list[Action], np.ndarray]:
        """(valid actions, their probabilities): the policy and the likelihood."""
        actions = self.world.valid_actions(state, HUMAN)
        planned = self.planner_probs(state, goal)
        base = self.epsilon / len(actions)
        probs = np.array([base + (1 - self.epsilon) * planned.get(a, 0.0) for a in actions])
        return actions, probs

    def sample(self, state: State, goal: Goal, rng: np.random.Generator) -> Action:
        actions, probs = self.action_probs(state, goal)
        return actions[int(np.searchsorted(np.cumsum(probs), rng.random() * probs.sum(), side="right"))]

    def likelihoods(self, state: State, action: Action, goals: Sequence[Goal]) -> np.ndarray:
        """P(action | goal, state) for each goal: the observation's validity and the number of
        valid actions are computed once, the planner once per goal."""
        actions = self.world.valid_actions(state, HUMAN)
        if action not in actions:
            return np.zeros(len(goals))
        base = self.epsilon / len(actions)
        keep = 1 - self.epsilon
        return np.array([base + keep * self.planner_probs(state, g).get(action, 0.0) for g in goals])
