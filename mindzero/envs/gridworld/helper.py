"""The helping planner (paper App. B.3): acts on a goal distribution {(g_i, p_i)}.

For each goal the helper predicts which object the human handles first (the one it carries, else
the nearer one on the ground — the human model's own rule) and fetches the *other* one, bringing
it next to the first (or next to the human while the human carries it). Its action is a
Boltzmann choice over Q(a) = Σ_i p_i R(cost_i(a)), where cost_i is the number of helper ticks
left for goal i after action a and R is the human model's reward-to-go.

Collaboration rules: agents may share cells, so bodies never block; the human's pick and put
resolve first, so the helper yields on contested objects; the helper never drops an unwanted
object on a cell next to a likely goal object (it would take a put target from the human); and
after ``patience`` ticks without any change of its own state while it still has work to do, it
takes a random move to break deadlocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mindzero.core.posterior import Posterior
from mindzero.envs.gridworld.human import free_neighbor_distance, human_roles, reward_table
from mindzero.envs.gridworld.layout import UNREACHABLE, Layout
from mindzero.envs.gridworld.world import N_ACTIONS, N_MOVES, Action, Goal, WorldState


@dataclass
class HelperPlanner:
    """Boltzmann helper over goal-weighted costs. ``tau``: temperature; ``min_prob``: goals below
    this posterior mass are ignored (speed); ``patience``: idle ticks before a deadlock break."""

    layout: Layout
    tau: float = 0.01
    c: float = 0.1
    gamma: float = 0.95
    min_prob: float = 1e-3
    patience: int = 4

    def __post_init__(self) -> None:
        self._last_state: tuple[int, int] | None = None
        self._idle = 0
        # Helper cell after each of the 7 actions (pick and put stay), per current cell.
        cells = np.arange(self.layout.n_cells)[:, None]
        self._next_cell = np.concatenate([self.layout.next_cell, cells, cells], axis=1)

    def reset(self) -> None:
        self._last_state, self._idle = None, 0

    def _costs(self, state: WorldState, goals: np.ndarray) -> np.ndarray:
        """Helper ticks left per (goal, helper action) for goal rows (G, 2): shape (G, 7)."""
        lay = self.layout
        dist = lay.distance
        objs = np.array(state.objects)
        occupied = state.ground_mask(lay.n_cells)
        first, other = human_roles(state, lay, goals)
        first_cell = objs[first]
        # Hypothetical helper (cell, carried object) after each action.
        nxt = self._next_cell[state.helper]
        carry = np.full(N_ACTIONS, state.helper_carry)
        here = state.ground_object_at(state.helper)
        if state.helper_carry < 0 and here >= 0:
            carry[Action.PICK] = here
        if state.helper_carry >= 0 and here < 0:
            carry[Action.PUT] = -1
        carry_other = carry == other[:, None]  # (G, 7)
        # O's cell after the action: with the helper if carried, else where it lies now.
        other_cell = np.where(carry_other, nxt, objs[other][:, None])
        placed = ~carry_other & (dist[other_cell, first_cell[:, None]] == 1)
        # Helper's plan: fetch O (unless carried), bring it next to F, put it down; first drop a wrong object.
        bring = free_neighbor_distance(lay, other_cell, first_cell[:, None], occupied)
        helper_plan = np.where(carry_other, bring + 1, dist[nxt, other_cell] + bring + 2)
        helper_plan += ((carry >= 0) & ~carry_other) * (1 + occupied[nxt])
        # Human's plan alone (it pauses after every move while carrying), given where O ends up.
        if state.human_carry < 0:
            carry_len = np.maximum(dist[first_cell[:, None], other_cell] - 1, 0)
            human_plan = dist[state.human, first_cell][:, None] + 2 + 2 * carry_len
        else:
            to_put = free_neighbor_distance(lay, state.human, slice(None), occupied)  # around every cell
            human_plan = 2 * to_put[other_cell] + 1
        return np.where(placed, 0, np.minimum(np.minimum(helper_plan, human_plan), UNREACHABLE))

    def action_values(self, state: WorldState, posterior: Posterior) -> np.ndarray:
        """Q(a) = Σ_i p_i R(cost_i(a)) for the 7 helper actions."""
        probs = posterior.probs
        keep = probs >= min(self.min_prob, probs.max())
        goals = _goal_rows(posterior.hypotheses)[keep]
        p = probs[keep] / probs[keep].sum()
        q = p @ reward_table(self.c, self.gamma)[self._costs(state, goals)]
        here = state.ground_object_at(state.helper)
        if not (state.helper_carry < 0 and here >= 0):
            q[Action.PICK] = -np.inf
        if not (state.helper_carry >= 0 and here < 0):
            q[Action.PUT] = -np.inf
        # Never drop an unwanted object next to a likely goal object (it would block a put target).
        elif not (goals == state.helper_carry).any():
            if (self.layout.distance[np.array(state.objects)[goals], state.helper] == 1).any():
                q[Action.PUT] = -np.inf
        return q

    def act(self, state: WorldState, posterior: Posterior, rng: np.random.Generator) -> int:
        q = self.action_values(state, posterior)
        mine = (state.helper, state.helper_carry)
        self._idle = self._idle + 1 if mine == self._last_state else 0
        self._last_state = mine
        best = float(q.max())
        if best < 0 and self._idle >= self.patience:  # some goal still needs helper work
            self._idle = 0
            return int(rng.integers(1, N_MOVES))
        if q[Action.STAY] >= best - 1e-12:
            return int(Action.STAY)  # nothing to gain: yield rather than dither
        weights = np.exp((q - best) / self.tau)
        cdf = np.cumsum(weights / weights.sum())
        return int(np.searchsorted(cdf / cdf[-1], rng.random(), side="right"))  # = rng.choice(N_ACTIONS, p=...)


@lru_cache(maxsize=64)
def _goal_rows(goals: tuple[Goal, ...]) -> np.ndarray:
    """Goal tuples as a read-only (G, 2) index array (posteriors reuse one hypotheses tuple)."""
    rows = np.array(goals, dtype=np.int64).reshape(-1, 2)
    rows.setflags(write=False)
    return rows
