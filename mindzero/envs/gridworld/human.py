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

import numpy as np

from mindzero.envs.gridworld.layout import UNREACHABLE, Layout
from mindzero.envs.gridworld.world import N_ACTIONS, N_MOVES, Action, Goal, WorldState


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


def human_first_object(state: WorldState, layout: Layout, goal: Goal) -> tuple[int, int]:
    """(first, other): the goal object the human handles first under the human model, and the rest."""
    a, b = goal
    if state.human_carry in goal:
        first = state.human_carry
    elif state.helper_carry in goal:
        first = b if state.helper_carry == a else a
    else:
        d = layout.distance[state.human]
        first = a if d[state.objects[a]] <= d[state.objects[b]] else b
    return first, (b if first == a else a)


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

    def action_probs(self, state: WorldState, goals: np.ndarray) -> np.ndarray:
        """P(action | goal, state) for every goal: shape (G, 7); rows sum to 1."""
        goals = np.asarray(goals, dtype=np.int64).reshape(-1, 2)
        lay = self.layout
        objs = np.asarray(state.objects)
        pos = state.human
        a, b = goals[:, 0], goals[:, 1]
        n_goals = len(goals)
        det = np.zeros((n_goals, N_ACTIONS))
        moves_from = lay.next_cell[pos]  # (5,)
        occupied = state.ground_mask(lay.n_cells)
        if state.human_carry < 0:
            a_ground = a != state.helper_carry
            b_ground = b != state.helper_carry
            pick = ((objs[a] == pos) & a_ground) | ((objs[b] == pos) & b_ground)
            da = np.where(a_ground, lay.distance[pos, objs[a]], UNREACHABLE + 1)
            db = np.where(b_ground, lay.distance[pos, objs[b]], UNREACHABLE + 1)
            first_is_a = da <= db
            first = np.where(first_is_a, objs[a], objs[b])
            other = np.where(first_is_a, objs[b], objs[a])
            carry_cost = np.maximum(0, lay.distance[first, other] - 1)
            cost = lay.distance[moves_from[None, :], first[:, None]] + carry_cost[:, None]
            interact, interact_action = pick, Action.PICK
        else:
            k = state.human_carry
            in_goal = (a == k) | (b == k)
            other_obj = np.where(a == k, b, a)
            other = objs[other_obj]
            cost = nearest_free_neighbor_cost(lay, np.broadcast_to(moves_from, (n_goals, N_MOVES)), other, occupied)
            other_ground = other_obj != state.helper_carry
            put = in_goal & other_ground & (cost[:, Action.STAY] == 0)
            # A goal without the carried object never made the human pick it: drop it where possible.
            drop = ~in_goal & ~occupied[pos]
            cost = np.where(in_goal[:, None], cost, 0)
            interact, interact_action = put | drop, Action.PUT
        q = reward_to_go(cost, self.c, self.gamma)
        det[:, :N_MOVES] = softmax_rows(q / self.tau)
        if state.human_rest:
            det[:, :N_MOVES] = 0.0
            det[:, Action.STAY] = 1.0
        det[interact] = 0.0
        det[interact, interact_action] = 1.0
        probs = (1.0 - self.epsilon) * det
        probs[:, :N_MOVES] += self.epsilon / N_MOVES
        return probs

    def sample(self, state: WorldState, goal: Goal, rng: np.random.Generator) -> int:
        """Draw the human's action for ``goal``: the same distribution ``action_probs`` gives."""
        p = self.action_probs(state, np.array([goal]))[0]
        return int(rng.choice(N_ACTIONS, p=p))
