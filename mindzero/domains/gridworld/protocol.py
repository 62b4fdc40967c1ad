"""The reference implementation's episode generator (``--protocol reference``; ``paper`` means it too).

SCAI-JHU/MindZero's ``build_gw_asst_dataset.py`` makes the published evaluation's episodes; this is
our own code for the same distribution (``docs/gridworld.md`` compares them):

- layouts by episode index: of every 40, 15 empty, 10 with 10 walls, 10 with 15 and 5 with 20
  (:func:`~mindzero.envs.gridworld.episodes.reference_layout`); 8 objects of one shape in 8 colours;
- the goal drawn uniformly among the pairs more than 6 moves apart and from the human
  (:func:`~mindzero.envs.gridworld.episodes.far_pairs`); a layout without one is redrawn;
- a noise-free rollout of the reference's human (:class:`ReferenceHuman`) must finish within the
  tick limit and pass :func:`passes_reference_filter`: the goal must become partly identifiable, by
  the reference's own inference (:func:`reference_posteriors`), before the first pick and midway
  through the carry.

The generator's human and the filter's inference are the reference's, not the evaluation's
(:class:`~mindzero.envs.gridworld.human.HumanModel` and exact inference under it, which this
module does not change): which episodes the reference kept depends on how its human moves and on
how its inference reads the moves, e.g. its inference forgets everything at the human's pauses
while carrying, so it keeps only goals whose objects are an even number of moves apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.envs.gridworld.episodes import Episode, far_pairs, reference_layout, rollout_alone
from mindzero.envs.gridworld.human import reward_to_go, softmax_rows
from mindzero.envs.gridworld.layout import MOVE_DELTAS, UNREACHABLE, Layout
from mindzero.envs.gridworld.world import N_ACTIONS, Action, WorldState, goal_achieved, goal_pairs

#: The parameters of the generator's human and of the filter's likelihood: the reference's
#: noise-free human (τ 0.01, c 0.1, γ 0.95; its ``random_prob`` 0, so ε is not used).
GENERATOR_HUMAN = HumanParams(epsilon=0.0)
#: Least actions before the first pick, and from it to the first put (min_pick/put_steps).
MIN_PHASE_ACTIONS = 6
#: The most likely object needs at least this probability, and some other object less than
#: :data:`UNLIKELY` (the reference's min_high / max_low, also the QA questions' thresholds).
LIKELY, UNLIKELY = 0.3, 0.01
#: The filter's inference keeps every goal's unnormalised posterior at least this (infer_min_prob).
REFERENCE_MIN_PROB = 1e-4


@dataclass(frozen=True)
class ReferenceHuman:
    """The reference generator's human (``agent.py`` ``HumanAgent``, ``random_prob`` 0), which
    walks the rollouts the reference filtered. Its policy for goal (a, b), in priority order:

    1. pick when standing on a goal object on the ground; while carrying one, put when standing on
       an object-free cell next to the other (a wall-free neighbour of its cell);
    2. pause (stay) after every move while carrying;
    3. otherwise a Boltzmann choice (temperature τ) among the moves that leave its cell: up, down,
       left, right within the grid, *not* stay. A move is worth Q = γ·R(n) − c, R(n) =
       −c(1−γⁿ)/(1−γ), where n is, from the cell the move reaches, before picking: the distance to
       the *nearer* goal object + max(0, d(a, b) − 1) (so at equal distances it heads for either);
       while carrying: the distance to the nearest wall-free neighbour of the other object. A move
       into a wall reaches nothing (n unreachable).

    It differs from the evaluation's human (:class:`~mindzero.envs.gridworld.human.HumanModel`) in
    the ties (ours heads for the lower-indexed object), the stay among its choices, Q = R(n), and ε.
    """

    layout: Layout
    tau: float = GENERATOR_HUMAN.tau
    c: float = GENERATOR_HUMAN.c
    gamma: float = GENERATOR_HUMAN.gamma

    @classmethod
    def from_params(cls, layout: Layout, params: HumanParams = GENERATOR_HUMAN) -> ReferenceHuman:
        """The reference human with ``params``' τ, c and γ (ε does not apply: it is noise-free)."""
        return cls(layout, params.tau, params.c, params.gamma)

    def action_probs(self, state: WorldState, goals: np.ndarray, pause: bool = True) -> np.ndarray:
        """P(action | goal, state) for each row of ``goals`` (G, 2): shape (G, 7). A row is all 0
        where the human carries an object outside the goal (the reference never does; its
        inference gives such goals likelihood 0). ``pause=False``: the choice as the reference's
        inference scores it, which never sees the pause, so that a pause is impossible under every goal."""
        lay = self.layout
        goals = np.asarray(goals, dtype=np.int64).reshape(-1, 2)
        a, b = goals[:, 0], goals[:, 1]
        objs = np.asarray(state.objects)
        pos = state.human
        x, y = lay.cell(pos)
        moves = MOVE_DELTAS[Action.UP : Action.RIGHT + 1]  # the reference's MOVE_ACTIONS: never stay
        reached = np.array([lay.index((x + dx, y + dy)) if lay.inside((x + dx, y + dy)) else -1 for dx, dy in moves])
        on_ground = state.ground_object_at(pos)
        carry = state.human_carry
        valid = np.ones(len(goals), dtype=bool)
        if carry < 0:
            between = lay.dist(objs[a], objs[b])
            nearer = np.minimum(lay.dist(objs[a][:, None], reached), lay.dist(objs[b][:, None], reached))
            cost = np.where(
                (nearer >= UNREACHABLE) | (between[:, None] >= UNREACHABLE),
                UNREACHABLE,
                nearer + np.maximum(between - 1, 0)[:, None],
            )
            interact, action = (on_ground >= 0) & ((a == on_ground) | (b == on_ground)), Action.PICK
        else:
            valid = (a == carry) | (b == carry)
            around = lay.neighbors[objs[np.where(a == carry, b, a)]]  # (G, 4); -1 (wall, border) reads UNREACHABLE
            cost = lay.dist(around[:, :, None], reached[None, None, :]).min(axis=1)
            interact, action = valid & (around == pos).any(axis=1) & (on_ground < 0), Action.PUT
        # reached -1 (off the grid) is no choice; a wall cell's distances are UNREACHABLE.
        q = self.gamma * reward_to_go(np.minimum(cost, UNREACHABLE), self.c, self.gamma) - self.c
        logits = np.where(reached >= 0, q / self.tau, -np.inf)
        probs = np.zeros((len(goals), N_ACTIONS))
        probs[:, Action.UP : Action.RIGHT + 1] = softmax_rows(logits)
        if pause and carry >= 0 and state.human_rest:
            probs[:] = 0.0
            probs[:, Action.STAY] = 1.0
        probs[interact] = 0.0
        probs[interact, action] = 1.0
        probs[~valid] = 0.0
        return probs

    def sample(self, state: WorldState, goal: tuple[int, int], rng: np.random.Generator) -> int:
        """Draw the human's action for ``goal``."""
        p = self.action_probs(state, np.array([goal]))[0]
        if not p.sum() > 0:
            raise UserError(f"the reference human carries an object outside its goal {goal}")
        return int(min(np.searchsorted(np.cumsum(p), rng.random() * p.sum(), side="right"), N_ACTIONS - 1))


def reference_posteriors(
    episode: Episode,
    states: list[WorldState],
    actions: list[int],
    times: tuple[int, ...],
    human: ReferenceHuman | None = None,
) -> dict[int, np.ndarray]:
    """The goal posterior (over ``goal_pairs`` order) after ``actions[:t]`` for each ``t`` in
    ``times``, as the reference's inference (``inference.py`` ``ExactInference``, infer_min_prob
    1e-4) computes it: each action multiplies a goal's probability by its likelihood under
    :class:`ReferenceHuman` without the pause, which is then kept at least
    :data:`REFERENCE_MIN_PROB` and normalised. A pause has likelihood 0 under every goal, so after
    it the posterior is uniform again: the reference's inference forgets at every pause."""
    human = human or ReferenceHuman.from_params(episode.layout)
    goals = np.array(goal_pairs(len(episode.layout.objects)), dtype=np.int64)
    probs = np.full(len(goals), 1.0 / len(goals))
    out = {}
    for t in range(max(times) + 1):
        if t in times:
            out[t] = probs
        if t < max(times):
            likelihood = human.action_probs(states[t], goals, pause=False)[:, actions[t]]
            probs = np.maximum(probs * likelihood, REFERENCE_MIN_PROB)
            probs = probs / probs.sum()
    return out


def reference_roles(
    probs: np.ndarray, state: WorldState, layout: Layout, tau: float = GENERATOR_HUMAN.tau
) -> tuple[np.ndarray, np.ndarray]:
    """(P(the human picks object k next), P(it places its object next to k)) from goal probabilities
    in ``goal_pairs`` order, as the reference's inference tracks them (``_sync_pick_put``). While
    the human carries an object: that object, and the partners of the goals that hold it. Before:
    goal (a, b) splits between a and b by weights exp(−d/τ) of the human's distances; with τ 0.01
    these underflow to 0 beyond 7 moves, so when both objects are 8 or more moves away the split is
    0.5/0.5, else the nearer one (ties 0.5/0.5)."""
    n = len(layout.objects)
    goals = np.array(goal_pairs(n), dtype=np.int64)
    a, b = goals[:, 0], goals[:, 1]

    def normalised(weights: np.ndarray, support: np.ndarray) -> np.ndarray:
        total = weights.sum()
        if total > 0:
            return weights / total
        return support / support.sum()

    everyone = np.ones(n)
    k = state.human_carry
    if k >= 0:
        pick = np.zeros(n)
        pick[k] = 1.0
        holds = (a == k) | (b == k)
        put = np.bincount(np.where(a == k, b, a)[holds], probs[holds], minlength=n)
        others = everyone.copy()
        others[k] = 0.0
        return pick, normalised(put, others)
    d = layout.dist(np.asarray(state.objects), state.human).astype(np.float64)
    for carried in (state.human_carry, state.helper_carry):
        if carried >= 0:
            d[carried] = np.inf
    weight = np.exp(-d / tau)  # underflows to 0 as the reference's math.exp does
    wa, wb = weight[a], weight[b]
    denom = wa + wb
    first_a = np.divide(wa, denom, out=np.full(len(goals), 0.5), where=denom > 0)
    pick = np.bincount(a, probs * first_a, minlength=n) + np.bincount(b, probs * (1 - first_a), minlength=n)
    put = np.bincount(b, probs * first_a, minlength=n) + np.bincount(a, probs * (1 - first_a), minlength=n)
    return normalised(pick, everyone), normalised(put, everyone)


@dataclass(frozen=True)
class ReferenceDraw:
    """A generated episode with the noise-free rollout that passed the filter."""

    episode: Episode
    states: list[WorldState]
    actions: list[int]


def first_pick_put(states: list[WorldState]) -> tuple[int, int] | None:
    """Action indices of the human's first pick and of the put that follows it, or None."""
    carry = [s.human_carry >= 0 for s in states]
    picks = [t for t in range(len(states) - 1) if not carry[t] and carry[t + 1]]
    if not picks:
        return None
    puts = [t for t in range(picks[0] + 1, len(states) - 1) if carry[t] and not carry[t + 1]]
    return (picks[0], puts[0]) if puts else None


def _clear_choice(probs: np.ndarray, given: int) -> bool:
    """Whether a question about these object probabilities has an answer: besides ``given``, the
    most likely object has p ≥ LIKELY and another one p < UNLIKELY."""
    others = [k for k in range(len(probs)) if k != given]
    top = max(others, key=lambda k: probs[k])
    return bool(probs[top] >= LIKELY and any(probs[k] < UNLIKELY for k in others if k != top))


def passes_reference_filter(
    episode: Episode, states: list[WorldState], actions: list[int], human: HumanParams = GENERATOR_HUMAN
) -> bool:
    """The reference's ``is_episode_suitable`` on a rollout, with its inference
    (:func:`reference_posteriors`, :func:`reference_roles`): at least :data:`MIN_PHASE_ACTIONS`
    actions before the first pick and from it to the put; halfway to the pick, "which object first"
    and "next to which" each have a clear answer given the other's most likely object; midway
    through the carry, "next to which" has one given the carried object. The inference forgets at
    each pause, so midway through the carry it has seen only the moves since the last pause: one
    move if the carry has an odd number of moves (an even distance between the goal objects), none
    otherwise, and then no answer is clear."""
    phases = first_pick_put(states)
    if phases is None:
        return False
    pick, put = phases
    if pick < MIN_PHASE_ACTIONS or put - pick < MIN_PHASE_ACTIONS:
        return False
    before = pick // 2 + 1
    carrying = min(pick + max(1, (put - pick) // 2) + 1, put)
    model = ReferenceHuman.from_params(episode.layout, human)
    posteriors = reference_posteriors(episode, states, actions, (before, carrying), model)
    first, other = reference_roles(posteriors[before], states[before], episode.layout, human.tau)
    if not (_clear_choice(first, int(np.argmax(other))) and _clear_choice(other, int(np.argmax(first)))):
        return False
    held = states[carrying].human_carry
    if held < 0:
        return False
    return _clear_choice(reference_roles(posteriors[carrying], states[carrying], episode.layout, human.tau)[1], held)


def reference_draw(
    k: int,
    seed: int,
    size: int = 10,
    n_objects: int = 8,
    max_steps: int = 50,
    prefix: str = "ep",
    max_tries: int = 2000,
) -> ReferenceDraw:
    """Episode ``k`` of the reference protocol; it depends only on ``(seed, k)``. Each try draws a
    layout, a goal among its far pairs, and a rollout of :class:`ReferenceHuman` that must finish in
    fewer than ``max_steps`` ticks and pass the filter."""
    rng = np.random.default_rng([seed, k])
    for _ in range(max_tries):
        layout = reference_layout(rng, k, size, n_objects)
        pairs = far_pairs(layout)
        if not pairs:
            continue
        episode = Episode(layout, pairs[int(rng.integers(len(pairs)))], f"{prefix}{seed}-{k:04d}")
        states, actions = rollout_alone(episode, ReferenceHuman.from_params(layout), rng, max_steps - 1)
        if goal_achieved(states[-1], episode.goal, layout) and passes_reference_filter(episode, states, actions):
            return ReferenceDraw(episode, states, actions)
    raise UserError(f"no reference-protocol episode in {max_tries} tries ({size}x{size}, {n_objects} objects)")


def reference_episode(k: int, seed: int, **kwargs) -> Episode:
    """The episode of :func:`reference_draw`."""
    return reference_draw(k, seed, **kwargs).episode
