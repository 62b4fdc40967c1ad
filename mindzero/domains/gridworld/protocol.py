"""The reference implementation's episode generator (``--protocol reference``; ``paper`` means it too).

SCAI-JHU/MindZero's ``build_gw_asst_dataset.py`` makes the published evaluation's episodes; this is
our own code for the same distribution (``docs/gridworld.md`` compares them):

- layouts by episode index: of every 40, 15 empty, 10 with 10 walls, 10 with 15 and 5 with 20
  (:func:`~mindzero.envs.gridworld.episodes.reference_layout`); 8 objects of one shape in 8 colours;
- the goal drawn uniformly among the pairs more than 6 moves apart and from the human
  (:func:`~mindzero.envs.gridworld.episodes.far_pairs`); a layout without one is redrawn;
- a noise-free rollout of the human (:data:`GENERATOR_HUMAN`) must finish within the tick limit and
  pass :func:`passes_reference_filter`: the goal must become partly identifiable by exact
  inference before the first pick and midway through the carry.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.domains.gridworld.reasoners import ExactGoalInference, role_joint
from mindzero.envs.gridworld.episodes import Episode, far_pairs, reference_layout, rollout_alone
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.world import Observation, WorldState, goal_achieved

#: The generator's human and the filter's likelihood: the reference's noise-free human (τ 0.01).
GENERATOR_HUMAN = HumanParams(epsilon=0.0)
#: Least actions before the first pick, and from it to the first put (min_pick/put_steps).
MIN_PHASE_ACTIONS = 6
#: The most likely object needs at least this probability, and some other object less than
#: :data:`UNLIKELY` (the reference's min_high / max_low, also the QA questions' thresholds).
LIKELY, UNLIKELY = 0.3, 0.01


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
    """The reference's ``is_episode_suitable`` on a rollout, with our exact inference: at least
    :data:`MIN_PHASE_ACTIONS` actions before the first pick and from it to the put; halfway to the
    pick, "which object first" and "next to which" each have a clear answer given the other's most
    likely object; midway through the carry, "next to which" has one given the carried object."""
    phases = first_pick_put(states)
    if phases is None:
        return False
    pick, put = phases
    if pick < MIN_PHASE_ACTIONS or put - pick < MIN_PHASE_ACTIONS:
        return False
    before = pick // 2 + 1
    carrying = min(pick + max(1, (put - pick) // 2) + 1, put)
    inference = ExactGoalInference(human)
    posterior = inference.reset(episode)
    for t in range(carrying):
        if t == before:
            joint = role_joint(posterior, states[t], episode.layout)
            first, other = joint.sum(axis=1), joint.sum(axis=0)
            if not (_clear_choice(first, int(np.argmax(other))) and _clear_choice(other, int(np.argmax(first)))):
                return False
        posterior = inference.update(Observation(states[t], actions[t]))
    held = states[carrying].human_carry
    joint = role_joint(posterior, states[carrying], episode.layout)
    return held >= 0 and _clear_choice(joint.sum(axis=0), held)


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
    layout, a goal among its far pairs, and a noise-free rollout that must finish in fewer than
    ``max_steps`` ticks and pass the filter."""
    rng = np.random.default_rng([seed, k])
    for _ in range(max_tries):
        layout = reference_layout(rng, k, size, n_objects)
        pairs = far_pairs(layout)
        if not pairs:
            continue
        episode = Episode(layout, pairs[int(rng.integers(len(pairs)))], f"{prefix}{seed}-{k:04d}")
        states, actions = rollout_alone(episode, HumanModel(layout, **asdict(GENERATOR_HUMAN)), rng, max_steps - 1)
        if goal_achieved(states[-1], episode.goal, layout) and passes_reference_filter(episode, states, actions):
            return ReferenceDraw(episode, states, actions)
    raise UserError(f"no reference-protocol episode in {max_tries} tries ({size}x{size}, {n_objects} objects)")


def reference_episode(k: int, seed: int, **kwargs) -> Episode:
    """The episode of :func:`reference_draw`."""
    return reference_draw(k, seed, **kwargs).episode
