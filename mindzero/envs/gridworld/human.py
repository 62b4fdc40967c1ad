"""The simulated human (paper App. B.3) — and, by construction, the action likelihood.

``HumanModel.action_probs(state, goals)`` is the one function used both to *sample* the
simulated human's actions and to *score* observed actions in exact inference and in the SSRL
reward, so the likelihood is the policy (pauses, ε-mixture and deterministic pick/put included).

Policy for goal (a, b), in priority order:

1. pick — not carrying and standing on a goal object that lies on the ground;
   put — carrying a goal object and standing on a free cell next to the other goal object,
   which lies on the ground (the put achieves the goal);
2. pause (stay) — moved while carrying on the previous tick;
3. otherwise a Boltzmann choice (temperature τ) over the 5 moves with Q = R(cost of the
   next cell), R(n) = −c(1−γⁿ)/(1−γ). Before picking, the human heads for the nearer goal
   object ``f`` on the ground: cost = d(next, f) + max(0, d(f, other) − 1). While carrying, it
   heads for the nearest free cell next to the other goal object: cost = d(next, that cell).

With probability ε the chosen action is replaced by a uniformly random move (stay, up, down,
left, right), so every move keeps probability ≥ ε/5 under every goal.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from mindzero.envs.gridworld.layout import UNREACHABLE, Layout
from mindzero.envs.gridworld.world import N_ACTIONS, N_MOVES, Action, Goal, WorldState, goal_pairs


def reward_to_go(n: np.ndarray, c: float, gamma: float) -> np.ndarray:
    """R(n) = −c(1−γⁿ)/(1−γ): discounted cost of ``n`` more steps of cost ``c``."""
    return -c * (1.0 - np.power(gamma, n)) / (1.0 - gamma)


def softmax_rows(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def nearest_free_neighbor_cost(
    layout: Layout, from_cells: np.ndarray, around: np.ndarray, occupied: np.ndarray
) -> np.ndarray:
    """Distance (moves) from each of ``from_cells`` (shape (..., k)) to the nearest free cell
    4-adjacent to ``around`` (shape (...,)); free = no obstacle, no object on the ground."""
    nb = layout.neighbors[around]  # (..., 4)
    valid = (nb >= 0) & ~occupied[np.maximum(nb, 0)]
    d = layout.distance[from_cells[..., :, None], np.maximum(nb, 0)[..., None, :]]  # (..., k, 4)
    d = np.where(valid[..., None, :], d, UNREACHABLE)
    return d.min(axis=-1)


def human_roles(state: WorldState, layout: Layout, goals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, other) object indices per goal row (G, 2): the goal object the human handles first
    under the human model — the one it carries; else the one not in the helper's hands; else the
    nearer one (ties: the lower index) — and the other one."""
    a, b = goals[:, 0], goals[:, 1]
    objs = np.asarray(state.objects)
    d = layout.distance[state.human]
    first = np.where(d[objs[a]] <= d[objs[b]], a, b)
    if state.helper_carry >= 0:
        first = np.where(a == state.helper_carry, b, np.where(b == state.helper_carry, a, first))
    if state.human_carry >= 0:
        first = np.where((a == state.human_carry) | (b == state.human_carry), state.human_carry, first)
    return first, a + b - first


def human_first_object(state: WorldState, layout: Layout, goal: Goal) -> tuple[int, int]:
    """:func:`human_roles` for a single goal."""
    first, other = human_roles(state, layout, np.array([goal]))
    return int(first[0]), int(other[0])


@dataclass(frozen=True)
class HumanModel:
    """Goal-directed human with pauses while carrying, Boltzmann moves and ε-random moves.

    Attributes: ``epsilon`` (probability of a random move; 0.15 in evaluation, 0 for data),
    ``tau`` (Boltzmann temperature), ``c`` and ``gamma`` (step cost and discount of R(n)).
    """

    layout: Layout
    epsilon: float = 0.15
    tau: float = 0.01
    c: float = 0.1
    gamma: float = 0.95

    @cached_property
    def all_goals(self) -> np.ndarray:
        """Every goal pair, shape (n_pairs, 2), in ``goal_pairs`` order."""
        return np.array(goal_pairs(len(self.layout.objects)), dtype=np.int64)

    @cached_property
    def pair_index(self) -> np.ndarray:
        """``pair_index[i, j]``: row of goal {i, j} in ``all_goals`` (symmetric; -1 on the diagonal)."""
        n = len(self.layout.objects)
        index = np.full((n, n), -1, dtype=np.int64)
        for row, (i, j) in enumerate(self.all_goals):
            index[i, j] = index[j, i] = row
        return index

    @cached_property
    def _reward_table(self) -> np.ndarray:
        return reward_to_go(np.arange(UNREACHABLE + 1), self.c, self.gamma)

    def action_probs(self, state: WorldState, goals: np.ndarray) -> np.ndarray:
        """P(action | goal, state) for every goal: shape (G, 7); rows sum to 1.

        The table over all goal pairs is computed once per state and cached (the simulator, the
        exact reasoner and the reward share it), so a lookup costs O(G)."""
        goals = np.asarray(goals, dtype=np.int64).reshape(-1, 2)
        return _goal_table(self, state)[self.pair_index[goals[:, 0], goals[:, 1]]]

    def reference_policy(self, state: WorldState, goals: np.ndarray) -> np.ndarray:
        """The policy computed for each row of ``goals`` (G, 2)."""
        lay = self.layout
        objs = np.asarray(state.objects)
        pos = state.human
        a, b = goals[:, 0], goals[:, 1]
        moves_from = lay.next_cell[pos]  # (5,)
        if state.human_carry < 0:
            first_obj, other_obj = human_roles(state, lay, goals)
            first = objs[first_obj]
            carry_cost = np.maximum(0, lay.distance[first, objs[other_obj]] - 1)
            cost = lay.distance[moves_from][:, first].T + carry_cost[:, None]
            interact, interact_action = first == pos, Action.PICK
        else:
            k = state.human_carry
            occupied = state.ground_mask(lay.n_cells)
            in_goal = (a == k) | (b == k)
            other_obj = np.where(a == k, b, a)
            from_cells = np.broadcast_to(moves_from, (len(goals), N_MOVES))
            cost = nearest_free_neighbor_cost(lay, from_cells, objs[other_obj], occupied)
            put = in_goal & (other_obj != state.helper_carry) & (cost[:, Action.STAY] == 0)
            # A goal without the carried object never made the human pick it: drop it where possible.
            drop = ~in_goal & ~occupied[pos]
            cost = np.where(in_goal[:, None], cost, 0)
            interact, interact_action = put | drop, Action.PUT
        probs = np.zeros((len(goals), N_ACTIONS))
        if state.human_rest:
            probs[:, Action.STAY] = 1.0 - self.epsilon
        else:
            q = self._reward_table[np.minimum(cost, UNREACHABLE)]
            probs[:, :N_MOVES] = (1.0 - self.epsilon) * softmax_rows(q / self.tau)
        if interact.any():
            probs[interact] = 0.0
            probs[interact, interact_action] = 1.0 - self.epsilon
        probs[:, :N_MOVES] += self.epsilon / N_MOVES
        return probs

    def sample(self, state: WorldState, goal: Goal, rng: np.random.Generator) -> int:
        """Draw the human's action for ``goal``: the same distribution ``action_probs`` gives."""
        p = _goal_table(self, state)[self.pair_index[goal[0], goal[1]]]
        return int(min(np.searchsorted(np.cumsum(p), rng.random(), side="right"), N_ACTIONS - 1))


@lru_cache(maxsize=512)
def _goal_table(model: HumanModel, state: WorldState) -> np.ndarray:
    """Read-only (n_pairs, 7) policy table; equal models (same layout object, same parameters) share it."""
    table = model.reference_policy(state, model.all_goals)
    table.setflags(write=False)
    return table
