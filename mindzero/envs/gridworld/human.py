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
from functools import lru_cache
from itertools import product

import numpy as np

from mindzero.core.human import HumanParams
from mindzero.envs.gridworld.layout import UNREACHABLE, Layout
from mindzero.envs.gridworld.world import N_ACTIONS, N_MOVES, Action, Goal, WorldState, goal_pairs

#: A move changes a shortest-path distance by −1, 0 or +1, so the 4 moves' changes form one of
#: 3⁴ patterns, numbered Σ_m 3^(m−1)·(δ_m + 1) over moves m = up, down, left, right.
PATTERN_DIGITS = np.array([1, 3, 9, 27])
#: The pattern in which no move changes the distance.
UNIFORM_PATTERN = int(PATTERN_DIGITS.sum())


def reward_to_go(n: np.ndarray, c: float, gamma: float) -> np.ndarray:
    """R(n) = −c(1−γⁿ)/(1−γ): discounted cost of ``n`` more steps of cost ``c``."""
    return -c * (1.0 - np.power(gamma, n)) / (1.0 - gamma)


@lru_cache(maxsize=16)
def reward_table(c: float, gamma: float) -> np.ndarray:
    """:func:`reward_to_go` of 0..UNREACHABLE steps, for lookups by integer cost."""
    table = reward_to_go(np.arange(UNREACHABLE + 1), c, gamma)
    table.setflags(write=False)
    return table


def softmax_rows(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def free_neighbor_distance(
    layout: Layout, from_cells: np.ndarray | int, around: np.ndarray | int | slice, occupied: np.ndarray
) -> np.ndarray:
    """Distance from ``from_cells`` to the nearest free cell 4-adjacent to ``around`` (shapes
    broadcast; free = no obstacle, no object on the ground); ``UNREACHABLE`` if there is none."""
    cells = layout.neighbors[around]  # (..., 4); padding -1 reads a cell, but its distance is UNREACHABLE
    dist = layout.dist(cells, np.asarray(from_cells)[..., None])  # rows of the neighbours: reused while they stay
    return np.where(occupied[cells], UNREACHABLE, dist).min(axis=-1)


def human_roles(
    state: WorldState, layout: Layout, goals: np.ndarray, to_objects: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(first, other) object indices per goal row (G, 2): the goal object the human handles first
    under the human model — the one it carries; else the one not in the helper's hands; else the
    nearer one (ties: the lower index) — and the other one. ``to_objects``: the human's distance
    to each object, when the caller has it."""
    a, b = goals[:, 0], goals[:, 1]
    d = layout.dist(np.array(state.objects), state.human) if to_objects is None else to_objects
    first = np.where(d[a] <= d[b], a, b)
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

    Attributes: ``epsilon`` (probability of a random move), ``tau`` (Boltzmann temperature), ``c``
    and ``gamma`` (step cost and discount of R(n)); defaults and meaning are those of
    :class:`~mindzero.core.human.HumanParams` (build one with ``HumanModel(layout, **asdict(params))``).
    """

    layout: Layout
    epsilon: float = HumanParams.epsilon
    tau: float = HumanParams.tau
    c: float = HumanParams.c
    gamma: float = HumanParams.gamma

    @property
    def all_goals(self) -> np.ndarray:
        """Every goal pair, shape (n_pairs, 2), in ``goal_pairs`` order."""
        return _goal_index(len(self.layout.objects))[0]

    @property
    def pair_index(self) -> np.ndarray:
        """``pair_index[i, j]``: row of goal {i, j} in ``all_goals`` (symmetric; -1 on the diagonal)."""
        return _goal_index(len(self.layout.objects))[1]

    @property
    def _move_table(self) -> np.ndarray:
        """Move rows by (stay cost, pattern). The longest stay cost, d(human, first) + d(first, other) − 1,
        is below 2·n_cells; bounding by the grid size (not the layout's longest path) shares the
        table between all layouts of a size."""
        return _move_table(2 * self.layout.n_cells, self.epsilon, self.tau, self.c, self.gamma)

    def action_probs(self, state: WorldState, goals: np.ndarray) -> np.ndarray:
        """P(action | goal, state) for every goal: shape (G, 7); rows sum to 1.

        The table over all goal pairs is computed once per state and cached (the simulator, the
        exact reasoner and the reward share it), so a lookup costs O(G)."""
        goals = np.asarray(goals, dtype=np.int64).reshape(-1, 2)
        return _goal_table(self, state)[self.pair_index[goals[:, 0], goals[:, 1]]]

    def policy_table(self, state: WorldState) -> np.ndarray:
        """P(action | goal, state) for all goal pairs in ``all_goals`` order, shape (n_pairs, 7);
        cached per state, read-only."""
        return _goal_table(self, state)

    def _compute_policy_table(self, state: WorldState) -> np.ndarray:
        """:meth:`reference_policy` for all goal pairs, read from the distance fields of the current
        placement of the objects (:func:`_target_fields`) in a few array operations (it equals the
        reference; tested)."""
        lay = self.layout
        if not lay.is_connected:  # unreachable targets: costs saturate, no delta pattern
            return self.reference_policy(state, self.all_goals)
        pos = state.human
        moves_table = self._move_table
        fixed = _fixed_rows(self.epsilon)
        last = len(moves_table) - 1
        if state.human_carry < 0:
            to_objects, patterns = _target_fields(lay, state.objects, None)
            first, _ = human_roles(state, lay, self.all_goals, to_objects[pos])
            to_first = to_objects[pos, first]
            n0 = to_first + _carry_lengths(self, state.objects)
            table = moves_table[np.minimum(n0, last), patterns[pos, first]]
            if state.human_rest:
                table[:] = fixed[2]
            pick = to_first == 0
            if pick.any():
                table[pick] = fixed[0]
            return table
        # Carrying k: per object o, the moves towards the nearest free cell next to o (goal {k, o});
        # row n_objects serves the goals without k (cost 0 everywhere: uniform moves).
        k = state.human_carry
        occupied = state.ground_mask(lay.n_cells)
        # Row k is never read (no object is its own partner): aiming it at another object's cell
        # keeps the fields' key fixed while the human walks carrying k.
        around = list(state.objects)
        around[k] = around[k - 1]
        to_put, patterns = _target_fields(lay, tuple(around), occupied.tobytes())
        n0 = to_put[pos]
        rows = np.empty((len(around) + 1, N_ACTIONS))
        if state.human_rest:
            rows[:] = fixed[2]
        else:
            rows[:-1] = moves_table[np.minimum(n0, last), patterns[pos]]
            rows[-1] = moves_table[0, UNIFORM_PATTERN]
        interact = np.empty(len(around) + 1, dtype=bool)
        interact[:-1] = n0 == 0
        interact[-1] = not occupied[pos]
        if state.helper_carry >= 0:
            interact[state.helper_carry] = False
        rows[interact] = fixed[1]
        return rows[_partner_table(len(around))[k]]

    def reference_policy(self, state: WorldState, goals: np.ndarray) -> np.ndarray:
        """The policy for each row of ``goals`` (G, 2), computed goal by goal as the module docstring
        states it: the specification the fast table must equal, and the naive benchmarks' baseline."""
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
            cost = free_neighbor_distance(lay, moves_from, objs[other_obj][:, None], occupied)  # (G, 5)
            put = in_goal & (other_obj != state.helper_carry) & (cost[:, Action.STAY] == 0)
            # A goal without the carried object never made the human pick it: drop it where possible.
            drop = ~in_goal & ~occupied[pos]
            cost = np.where(in_goal[:, None], cost, 0)
            interact, interact_action = put | drop, Action.PUT
        probs = np.zeros((len(goals), N_ACTIONS))
        if state.human_rest:
            probs[:, Action.STAY] = 1.0 - self.epsilon
        else:
            q = reward_table(self.c, self.gamma)[np.minimum(cost, UNREACHABLE)]
            probs[:, :N_MOVES] = (1.0 - self.epsilon) * softmax_rows(q / self.tau)
        if interact.any():
            probs[interact] = 0.0
            probs[interact, interact_action] = 1.0 - self.epsilon
        probs[:, :N_MOVES] += self.epsilon / N_MOVES
        return probs

    def sample(self, state: WorldState, goal: Goal, rng: np.random.Generator) -> int:
        """Draw the human's action for ``goal``: the same distribution ``action_probs`` gives."""
        p = self.policy_table(state)[self.pair_index[goal[0], goal[1]]]
        return int(min(np.searchsorted(np.cumsum(p), rng.random(), side="right"), N_ACTIONS - 1))


@lru_cache(maxsize=512)
def _goal_table(model: HumanModel, state: WorldState) -> np.ndarray:
    """Read-only (n_pairs, 7) policy table; equal models (same layout object, same parameters) share it."""
    table = model._compute_policy_table(state)
    table.setflags(write=False)
    return table


@lru_cache(maxsize=256)
def _target_fields(layout: Layout, targets: tuple[int, ...], occupied: bytes | None) -> tuple[np.ndarray, np.ndarray]:
    """Distance fields towards each target cell and their move patterns, at every cell: (distance
    (n_cells, T), pattern (n_cells, T) as numbered by ``PATTERN_DIGITS``). With ``occupied`` (the
    ground mask's bytes), the distance to the nearest free cell next to each target instead.
    Targets stay put for many steps (the objects while the human walks to them or carries one),
    so one pair of fields serves them all. Read-only."""
    cells = np.arange(layout.n_cells)
    around = np.array(targets)[:, None]
    if occupied is None:
        dist = layout.dist(around, cells)  # (T, n_cells)
    else:
        mask = np.frombuffer(occupied, dtype=bool)
        next_to = layout.neighbors[around[:, 0]]  # (T, 4), -1 where blocked
        if (mask[next_to] & (next_to >= 0)).any():  # an object lies next to a target: search from its free neighbours
            dist = free_neighbor_distance(layout, cells, around, mask)
        else:  # a shortest path to a target ends on a (free) neighbour, one move before it
            to_target = layout.dist(around, cells)
            dist = np.where(to_target < UNREACHABLE, to_target - 1, UNREACHABLE)
            dist[np.arange(len(targets)), targets] = np.where((next_to < 0).all(axis=1), UNREACHABLE, 1)
    dist = dist.T
    # A field changes by at most 1 per move between free cells; the sign keeps obstacle cells
    # (never stood on) in range.
    deltas = np.sign(dist[layout.next_cell[:, 1:]] - dist[:, None, :]) + 1  # (n_cells, 4 moves, T)
    patterns = np.einsum("cmt,m->ct", deltas, PATTERN_DIGITS)
    for table in (dist, patterns):
        table.setflags(write=False)
    return dist, patterns


@lru_cache(maxsize=256)
def _carry_lengths(model: HumanModel, objects: tuple[int, ...]) -> np.ndarray:
    """Moves the human carries its first goal object, max(0, d(a, b) − 1), per goal pair {a, b}
    (either may come first: the distance is symmetric). Read-only."""
    cells = np.array(objects)[model.all_goals]
    lengths = np.maximum(model.layout.dist(cells[:, 0], cells[:, 1]) - 1, 0)
    lengths.setflags(write=False)
    return lengths


@lru_cache(maxsize=64)
def _goal_index(n_objects: int) -> tuple[np.ndarray, np.ndarray]:
    """(every goal pair (n_pairs, 2) in ``goal_pairs`` order, symmetric pair → row index)."""
    goals = np.array(goal_pairs(n_objects), dtype=np.int64).reshape(-1, 2)
    index = np.full((n_objects, n_objects), -1, dtype=np.int64)
    index[goals[:, 0], goals[:, 1]] = index[goals[:, 1], goals[:, 0]] = np.arange(len(goals))
    for table in (goals, index):
        table.setflags(write=False)
    return goals, index


@lru_cache(maxsize=64)
def _partner_table(n_objects: int) -> np.ndarray:
    """``[k, g]``: the partner of object ``k`` in goal ``g``, or ``n_objects`` if ``k ∉ g``."""
    a, b = _goal_index(n_objects)[0].T
    table = np.array([np.where(a == k, b, np.where(b == k, a, n_objects)) for k in range(n_objects)])
    table.setflags(write=False)
    return table


@lru_cache(maxsize=64)
def _fixed_rows(epsilon: float) -> np.ndarray:
    """Rows for the deterministic choices: 0 pick, 1 put, 2 pause (stay); ε-mixture included."""
    rows = np.zeros((3, N_ACTIONS))
    rows[:, :N_MOVES] = epsilon / N_MOVES
    rows[0, Action.PICK] = rows[1, Action.PUT] = rows[2, Action.STAY] = 1.0 - epsilon
    rows[2, Action.STAY] += epsilon / N_MOVES
    rows.setflags(write=False)
    return rows


@lru_cache(maxsize=64)
def _move_table(n_costs: int, epsilon: float, tau: float, c: float, gamma: float) -> np.ndarray:
    """``table[n0, pattern]``: the 7 action probabilities of a Boltzmann move choice whose stay cost
    is ``n0`` < ``n_costs`` moves and whose 4 moves change it by the deltas of ``pattern`` (see
    ``PATTERN_DIGITS``), ε-mixture included; the extra last row (unreachable target) is
    uniform over moves. Shape (n_costs + 1, 81, 7)."""
    deltas = np.array(list(product((-1, 0, 1), repeat=4)))[:, ::-1]  # column m-1 ↔ move m
    steps = np.concatenate([np.zeros((len(deltas), 1), dtype=np.int64), deltas], axis=1)
    cost = np.arange(n_costs)[:, None, None] + steps[None]
    table = np.zeros((n_costs + 1, len(deltas), N_ACTIONS))
    table[:-1, :, :N_MOVES] = (1.0 - epsilon) * softmax_rows(reward_to_go(cost, c, gamma) / tau)
    table[-1, :, :N_MOVES] = (1.0 - epsilon) / N_MOVES
    table[:, :, :N_MOVES] += epsilon / N_MOVES
    table.setflags(write=False)
    return table
