"""GridWorld's SSRL tasks: prompts, unlabeled rows and per-goal action log-likelihoods.

Training rows carry no goal labels; a reward needs only the layout and the observed action prefix
(``layout``, ``actions`` columns). The log-likelihood of the prefix under every goal pair is
computed once per prefix — incrementally along an episode, from the same :class:`HumanModel`
that simulates the human — and cached, so scoring a completion costs a parse and a sum over its
few particles (:mod:`mindzero.domains.reward`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from functools import lru_cache
from typing import Any

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.parsing import option_answer
from mindzero.core.results import read_jsonl
from mindzero.domains.base import RewardContext, TrainData
from mindzero.domains.gridworld.hypotheses import (
    OBJECT_LETTERS,
    format_goal_particles,
    format_letter_particles,
    parse_goal_particles,
    particles_schema,
)
from mindzero.domains.gridworld.qa import DATA_HUMAN, LETTER_STYLES, PROMPT_STYLES, build_split, qa_prompt
from mindzero.envs.gridworld.episodes import Episode, generate_episodes, rollout_alone
from mindzero.envs.gridworld.human import HumanModel, human_roles
from mindzero.envs.gridworld.layout import Layout, parse_layout
from mindzero.envs.gridworld.render import anchored_view, distance_view, transcript
from mindzero.envs.gridworld.world import ACTION_NAMES, Action, WorldState, goal_pairs, step

#: Per-step probability floor (log ≈ −13.8): an action impossible under a goal costs a lot but
#: keeps rewards finite, as GRPO advantages need.
STEP_PROB_FLOOR = 1e-6


@lru_cache(maxsize=256)
def _layout(text: str) -> Layout:
    return parse_layout(text)


@lru_cache(maxsize=256)
def _model(layout_text: str, human: HumanParams) -> HumanModel:
    return HumanModel(_layout(layout_text), **asdict(human))


@lru_cache(maxsize=4096)
def _prefix_logliks(layout_text: str, actions: tuple[str, ...], human: HumanParams) -> tuple[np.ndarray, WorldState]:
    """(log P(a_1:t | g) for every goal pair, state after the prefix); extends the cached t−1 prefix."""
    model = _model(layout_text, human)
    if not actions:
        return np.zeros(len(model.all_goals)), WorldState.initial(model.layout)
    previous, state = _prefix_logliks(layout_text, actions[:-1], human)
    action = ACTION_NAMES.index(actions[-1])
    step_probs = model.policy_table(state)[:, action]
    logliks = previous + np.log(np.maximum(step_probs, STEP_PROB_FLOOR))
    logliks.setflags(write=False)
    return logliks, step(model.layout, state, action, Action.STAY)


def goal_logliks(layout_text: str, actions: Sequence[str], human: HumanParams) -> np.ndarray:
    """log P(a_1:t | g, s_1:t) in nats for every goal pair (``goal_pairs`` order); helper still."""
    return _prefix_logliks(layout_text, tuple(actions), human)[0]


@lru_cache(maxsize=64)
def _uniform_logprior(n_goals: int) -> tuple[float, ...]:
    return (-math.log(n_goals),) * n_goals


@lru_cache(maxsize=256)
def _lookups(layout_text: str) -> tuple[tuple[tuple[str, str], ...], dict[tuple[int, int], int]]:
    """(object names, row of each goal pair): what scoring a completion looks up, per layout."""
    layout = _layout(layout_text)
    goals = HumanModel(layout).all_goals.tolist()
    return tuple(object_names(layout)), {(i, j): row for row, (i, j) in enumerate(goals)}


def object_names(layout: Layout) -> list[tuple[str, str]]:
    return [(o.color, o.shape) for o in layout.objects]


# --- prompts -----------------------------------------------------------------------------------


def particles_instruction(n_particles: int) -> str:
    """Paper Fig. 7: the request for N goal particles in the JSON schema."""
    return (
        f"Please propose a probability distribution that includes {n_particles} candidate paired goals "
        "and their probabilities. Your response should include the probability distribution formatted "
        f"according to this JSON schema: {particles_schema()}."
    )


def compact_observation(layout: Layout, states: Sequence[WorldState], actions: Sequence[int]) -> str:
    """A short text view for small models on CPU: objects with cells, the human's path, carrying."""
    objects = "; ".join(f"{o.label} ({x},{y})" for o, (x, y) in zip(layout.objects, layout.object_cells))
    path = " ".join("({},{})".format(*layout.cell(s.human)) for s in states)
    now = states[-1]
    holding = layout.objects[now.human_carry].label if now.human_carry >= 0 else "nothing"
    picks = sum(a == Action.PICK for a in actions)
    return f"Objects: {objects}.\nHuman path: {path}.\nHuman holds: {holding} (picks so far: {picks})."


def relative_observation(
    layout: Layout, states: Sequence[WorldState], actions: Sequence[int], style: str = "relative"
) -> str:
    """For small models trained from scratch: holding flag, picks so far, then per object its
    letter (named in letter-form answers), its numbers — :func:`distance_view` for ``relative``,
    :func:`anchored_view` for ``anchored`` — and where it is (g ground, h human, r helper).
    Colours and shapes are left out: letters name objects."""
    now = states[-1]
    where = ["h" if k == now.human_carry else "r" if k == now.helper_carry else "g" for k in range(len(layout.objects))]
    view = anchored_view if style == "anchored" else distance_view
    views = view(layout, states, range(len(layout.objects)))
    objects = " ; ".join(f"{letter} {v} {w}" for letter, v, w in zip(OBJECT_LETTERS, views, where))
    return f"h{int(now.human_carry >= 0)} p{sum(a == Action.PICK for a in actions)} | {objects}"


def assist_prompt(
    layout: Layout, states: Sequence[WorldState], actions: Sequence[int], n_particles: int, style: str = "full"
) -> str:
    """The assistance prompt: ``full`` = paper Figs. 7 + 11; ``compact`` = short, for CPU models;
    ``relative`` / ``anchored`` = per-object distances and the number of particles asked for, for
    models trained from scratch (answered in the letter form, see
    :mod:`~mindzero.domains.gridworld.hypotheses`)."""
    if style in LETTER_STYLES:
        return f"{relative_observation(layout, states, actions, style)} | n{n_particles}"
    if style == "full":
        body = transcript(layout, states, actions)
    elif style == "compact":
        body = "Two objects must end next to each other. " + compact_observation(layout, states, actions)
    else:
        raise UserError(f"unknown prompt style {style!r}; use one of {', '.join(PROMPT_STYLES)}")
    return f"{body}\n{particles_instruction(n_particles)}"


def particle_form(style: str) -> str:
    """How answers to prompts of this style write particles: ``letters`` for :data:`LETTER_STYLES`, else ``json``."""
    return "letters" if style in LETTER_STYLES else "json"


def assist_rows(config: TrainData, human: HumanParams = DATA_HUMAN) -> list[dict]:
    """One row per kept timestep t ≥ 1: prompt, layout, actions so far (no goal used by rewards)."""
    rows = []
    for k, episode in enumerate(generate_episodes(config.episodes, config.seed, prefix="ssrl")):
        model = HumanModel(episode.layout, **asdict(human))
        states, actions = rollout_alone(episode, model, np.random.default_rng([config.seed, k]))
        for t in range(1, len(actions) + 1, config.every):
            rows.append(assist_row(episode, states[: t + 1], actions[:t], config.n_particles, config.prompt_style))
    return rows


def assist_row(
    episode: Episode, states: Sequence[WorldState], actions: Sequence[int], n_particles: int, style: str
) -> dict:
    return {
        "prompt": assist_prompt(episode.layout, states, actions, n_particles, style),
        "layout": episode.layout.to_text(),
        "actions": [ACTION_NAMES[a] for a in actions],
        "t": len(actions),
        "n_particles": n_particles,
        "particle_form": particle_form(style),
        "episode_id": episode.episode_id,
        "goal": list(episode.goal),  # for evaluation metrics only; rewards never read it
    }


# --- tasks -------------------------------------------------------------------------------------


class AssistTask:
    """Goal particles at a timestep of an unlabeled episode; reward = paper Eq. 4."""

    kind = "assist"
    #: object letters of the letter form (the first one starts the answer, the others follow a space);
    #: JSON particles name colours and shapes, which a warm start teaches to copy from the scene
    choice_tokens = (*OBJECT_LETTERS[:8], *(" " + x for x in OBJECT_LETTERS[:8]))
    columns = ("layout", "actions", "n_particles")
    completion_tokens = 64  # one JSON particle is about 45 tokens (a letter-form one 4 with a scratch tokenizer)

    def rows(self, data: TrainData) -> list[dict]:
        """Generated rows, or those of ``data.path`` (a JSONL of rows with these columns)."""
        keep = ("prompt", "layout", "actions", "n_particles", "particle_form", "episode_id", "t")
        raw = read_jsonl(data.path) if data.path else assist_rows(data)
        return [{k: r[k] for k in keep if k in r} for r in raw]

    def context(self, row: Mapping[str, Any], human: HumanParams) -> RewardContext:
        layout = row["layout"]
        logliks = goal_logliks(layout, row["actions"], human).tolist()
        objects, index = _lookups(layout)
        n_particles = row.get("n_particles")
        return RewardContext(
            logliks,
            _uniform_logprior(len(logliks)),
            index,
            lambda text: parse_goal_particles(text, objects, n_particles),
        )

    def random_completion(self, row: Mapping[str, Any], n_particles: int, rng: np.random.Generator) -> str:
        """A valid particle set over the row's objects with random pairs and probabilities: the
        answer format, independent of the actions (the format warm start's target)."""
        objects = _lookups(row["layout"])[0]
        goals = goal_pairs(len(objects))
        if n_particles > len(goals):
            raise UserError(f"--n-particles {n_particles} exceeds the {len(goals)} goal pairs of a scene")
        picked = [goals[i] for i in rng.choice(len(goals), size=n_particles, replace=False)]
        picked = [(j, i) if rng.random() < 0.5 else (i, j) for i, j in picked]  # no object-order habit
        probs = rng.dirichlet(np.ones(n_particles))
        if row.get("particle_form") == "letters":
            return format_letter_particles(picked, probs)
        return format_goal_particles(picked, probs, objects, digits=2)


class QATask:
    """Answer (a) or (b); reward = log-likelihood of the actions under the option (paper Fig. 6).

    An option is the goal pair it completes *and* the question's premise: type 1 asks which object
    the human picks given where it places it, type 2 where it places it given what it picks. Under
    a goal pair the human model fixes which object is handled first (:func:`human_roles`), so an
    option whose pair would have the roles the other way round contradicts the premise: its
    likelihood is 0, here floored to ``STEP_PROB_FLOOR`` times the least likely option's, below
    every option consistent with the premise. The options are the hypotheses, with a flat prior.
    """

    kind = "qa"
    choice_tokens = ("a", "b")  # the letter is the answer; the warm start teaches only "(", ")"
    columns = ("layout", "actions", "choice_goals", "question_type", "given_object")
    completion_tokens = 8  # "(a)" needs 3 tokens

    def rows(self, data: TrainData) -> list[dict]:
        raw = read_jsonl(data.path) if data.path else build_split("train", data.episodes, data.seed)
        keep = ("id", *self.columns)
        return [{"prompt": qa_prompt(r, data.prompt_style), **{k: r[k] for k in keep}} for r in raw]

    def context(self, row: Mapping[str, Any], human: HumanParams) -> RewardContext:
        logliks, state = _prefix_logliks(row["layout"], tuple(row["actions"]), human)
        index = _lookups(row["layout"])[1]
        goals = [(min(g), max(g)) for g in row["choice_goals"]]
        options = [float(logliks[index[g]]) for g in goals]
        qtype, given = row.get("question_type"), row.get("given_object")
        if qtype in (1, 2) and given is not None:
            first, _ = human_roles(state, _layout(row["layout"]), np.array(goals))
            consistent = (first != given) if qtype == 1 else (first == given)
            floor = min(options) + math.log(STEP_PROB_FLOOR)
            options = [ll if ok else floor for ll, ok in zip(options, consistent)]
        return RewardContext(options, (0.0,) * len(options), {0: 0, 1: 1}, option_answer)

    def random_completion(self, row: Mapping[str, Any], n_particles: int, rng: np.random.Generator) -> str:
        """A letter drawn at random: the answer format, nothing about the question."""
        return "(a)" if rng.random() < 0.5 else "(b)"
