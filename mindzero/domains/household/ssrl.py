"""Household's SSRL task: the Fig. 9 assistance prompt, unlabeled rows and per-goal log-likelihoods.

A row names its episode (``apartment``, ``episode_seed``) and the human's actions so far; the
reward recomputes the states from them (the dynamics and the human's perception are
deterministic) and scores the prefix under every goal of the apartment with the same
:class:`~mindzero.envs.household.human.HouseholdHuman` that simulates the human — incrementally
along an episode and cached, so a completion costs a parse and a sum over its particles.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.results import read_jsonl
from mindzero.domains.base import DEFAULT_ESTIMATORS, Estimators, RewardContext, TrainData
from mindzero.domains.household.estimators import household_estimators
from mindzero.domains.household.hypotheses import (
    format_household_particles,
    parse_household_particles,
    particle_form,
    particles_schema,
)
from mindzero.domains.household.smc import Observation
from mindzero.envs.household.apartment import TRAIN_APARTMENTS, bundled_apartment
from mindzero.envs.household.episodes import (
    EPISODE_TICKS,
    TASKS,
    Episode,
    all_goals,
    make_episode,
    sample_goal,
    world_of,
)
from mindzero.envs.household.human import HOUSEHOLD_HUMAN, HouseholdHuman
from mindzero.envs.household.render import KEY_VERBS, render_state
from mindzero.envs.household.world import (
    GRAB,
    HUMAN,
    NOOP,
    NOOP_ACTION,
    OPEN,
    PUTIN,
    PUTON,
    VERBS,
    WALK,
    Action,
    State,
    World,
)

#: ``facts``: short word encodings for models trained from scratch (:func:`facts_observation`,
#: :func:`~mindzero.domains.household.qa.facts_prompt`), answered in the word form of particles.
PROMPT_STYLES = ("full", "compact", "facts")
#: Per-step probability floor (log ≈ −13.8): keeps rewards finite for actions a goal rules out.
STEP_PROB_FLOOR = 1e-6

#: The one-particle example of the compact prompt.
EXAMPLE = json.dumps(
    {
        "particles": [
            {
                "task_name": "setup_table",
                "objects": [{"type": "plate", "count": 2}],
                "target": {"type": "kitchentable"},
                "p": 1.0,
            }
        ]
    },
    separators=(",", ":"),
)
HINTS = (
    "Hints:\n- The task type is constant and the target location is unique, i.e., human will be consistently "
    "doing the same task (setting up a table, putting something in the dishwasher, putting something in the "
    "fridge, preparing food, or watching TV) and put all objects to the same location.\n"
    "- Please propose diverse goals in both object type and count."
)


def facts_observation(world: World, state: State, history: Sequence[Action], latest: Action | None) -> str:
    """What the planner's likelihood mostly reads, in a few words, for models trained from scratch
    (prompt style ``facts``; why: the ``compact`` prompt's sentences did not teach a scratch model
    inference in 100 steps, docs/household.md): the human's room and hands, the object classes it
    put on or in each furniture (counts), the furniture it opened, and its next action.
    ``in kitchen hold plate | put kitchentable cutleryfork 2 | opened kitchencabinet | next walk kitchentable``."""
    apartment = world.apartment
    held = " ".join(world.object_name(o) for o in world.holding(state, HUMAN)) or "none"
    placed: dict[str, Counter] = {}
    opened: list[str] = []
    for verb, x, y in history:
        if verb in (PUTON, PUTIN):
            placed.setdefault(apartment.furniture[y], Counter())[world.object_name(x)] += 1
        elif verb == OPEN and apartment.furniture[x] not in opened:
            opened.append(apartment.furniture[x])
    parts = [f"in {apartment.rooms[world.room_of(state, HUMAN)]} hold {held}"]
    parts += [f"put {f} " + " ".join(f"{c} {n}" for c, n in sorted(counts.items())) for f, counts in placed.items()]
    parts += [f"opened {' '.join(opened)}"] if opened else []
    if latest is not None:
        verb, x, y = latest
        if verb == WALK:
            parts.append(f"next walk {apartment.node_name(x)}")
        elif verb in (GRAB, PUTON, PUTIN):
            at = f" {apartment.furniture[y]}" if verb != GRAB else ""
            parts.append(f"next {VERBS[verb]} {world.object_name(x)}{at}")
        else:
            parts.append(f"next {VERBS[verb]} {apartment.furniture[x]}" if verb != NOOP else "next wait")
    return " | ".join(parts)


def assist_prompt(episode: Episode, observations: Sequence[Observation], n_particles: int, style: str) -> str:
    """Paper Fig. 9 (``full``: the whole apartment and the JSON schema), a short ``compact``
    form for small CPU models (the human's room, its key actions, one example particle), or
    ``facts`` (:func:`facts_observation` and the number of particles; answered in the word form).
    The current state is the one the latest action was taken in; that action is the "next action"."""
    if style not in PROMPT_STYLES:
        raise UserError(f"unknown prompt style {style!r}; use one of {', '.join(PROMPT_STYLES)}")
    world = world_of(episode.apartment)
    state = observations[-1].state if observations else episode.initial_state()
    history = [o.action for o in observations[:-1]]
    if style == "facts":
        latest_action = observations[-1].action if observations else None
        return f"{facts_observation(world, state, history, latest_action)} | n{n_particles}"
    keys = [world.action_sentence("Human", a) for a in history if a[0] in KEY_VERBS]
    keys_text = "\n".join(keys) if keys else "Human has not taken any key action yet."
    latest = world.action_sentence("Human", observations[-1].action) if observations else "none yet"
    if style == "full":
        return (
            "You are a helpful assistant. In order to help human, please propose multiple hypotheses of "
            "[human's overall goal] (including both finished and potential future subgoals), base on the "
            f"following information:\n\n[current state]\n{render_state(world, state)}\n\n"
            f"[key action history]\n{keys_text}\n\n[human's next action]\n{latest}\n\n{HINTS}\n\n"
            f"Output Requirements:\nPlease provide a probability distribution over n={n_particles} hypotheses of "
            "[human's overall goal] (including both finished and potential future subgoals).\nYour response "
            "should include the probability distribution formatted according to this JSON schema: "
            f"{particles_schema()}\nPlease output the minified JSON."
        )
    room = world.apartment.rooms[world.room_of(state, HUMAN)]
    held = ", ".join(world.object_name(o) for o in world.holding(state, HUMAN)) or "nothing"
    tasks = ", ".join(f"{t} ({target})" for t, (target, _, _) in TASKS.items())
    return (
        f"Tasks: {tasks}. Human is in the {room}, holding {held}.\nKey actions: {keys_text}\n"
        f"Latest: {latest}.\nGive {n_particles} goal(s) as JSON like {EXAMPLE}"
    )


@lru_cache(maxsize=64)
def _episode(apartment: str, seed: int) -> Episode:
    return make_episode(bundled_apartment(apartment), seed)


@lru_cache(maxsize=64)
def _model(apartment: str, human: HumanParams) -> HouseholdHuman:
    return HouseholdHuman(world_of(bundled_apartment(apartment)), human)


@lru_cache(maxsize=4096)
def _prefix_logliks(apartment: str, seed: int, actions: tuple, human: HumanParams) -> tuple[np.ndarray, State]:
    """(log P(a_1:t | g) for every goal of the apartment, state after the prefix; helper idle)."""
    episode = _episode(apartment, seed)
    if not actions:
        return np.zeros(len(all_goals(episode.apartment))), episode.initial_state()
    previous, state = _prefix_logliks(apartment, seed, actions[:-1], human)
    action = tuple(actions[-1])
    probs = _model(apartment, human).likelihoods(state, action, all_goals(episode.apartment))
    logliks = previous + np.log(np.maximum(probs, STEP_PROB_FLOOR))
    logliks.setflags(write=False)
    return logliks, world_of(episode.apartment).step(state, action, NOOP_ACTION)


def goal_logliks(apartment: str, seed: int, actions: Sequence[Sequence[int]], human: HumanParams) -> np.ndarray:
    """log P(a_1:t | g) in nats for every goal of ``all_goals`` (its order)."""
    return _prefix_logliks(apartment, seed, tuple(tuple(a) for a in actions), human)[0]


@lru_cache(maxsize=16)
def _index(apartment: str) -> tuple[dict, tuple[float, ...]]:
    goals = all_goals(bundled_apartment(apartment))
    return {g: k for k, g in enumerate(goals)}, (-math.log(len(goals)),) * len(goals)


def rollout(episode: Episode, rng: np.random.Generator) -> list[Observation]:
    """The human alone until its goal holds (at most :data:`EPISODE_TICKS`)."""
    world = world_of(episode.apartment)
    model = HouseholdHuman(world, HOUSEHOLD_HUMAN)
    state, observations = episode.initial_state(), []
    while not world.achieved(state, episode.goal) and len(observations) < EPISODE_TICKS:
        action = model.sample(state, episode.goal, rng)
        observations.append(Observation(state, action))
        state = world.step(state, action, NOOP_ACTION)
    return observations


class AssistTask:
    """Goal particles at a moment of an unlabeled episode; reward = paper Eq. 4 over the
    apartment's goals with the chosen estimators (``--likelihood``, ``--prior``: by default the
    planner likelihood and a uniform prior; the paper used an LLM for both)."""

    kind = "assist"
    choice_tokens: tuple[str, ...] = ()
    columns = ("apartment", "episode_seed", "actions", "n_particles")
    completion_tokens = 96  # one particle is about 50 tokens

    def __init__(self, estimators: Estimators = DEFAULT_ESTIMATORS) -> None:
        self.estimators = estimators

    def with_estimators(self, estimators: Estimators) -> AssistTask:
        """This task whose reward uses ``estimators`` (:func:`~mindzero.domains.base.with_estimators`);
        a missing ``--estimator-model`` fails here, before training starts."""
        household_estimators(estimators)
        return AssistTask(estimators)

    def rows(self, data: TrainData) -> list[dict]:
        """Rows every ``data.every`` ticks of human-alone episodes on the train apartments (or the
        rows of ``data.path``); no goal in them."""
        if data.path:
            keep = ("prompt", *self.columns, "particle_form", "episode_id", "t")
            return [{k: r[k] for k in keep if k in r} for r in read_jsonl(data.path)]
        rows = []
        for k in range(data.episodes):
            name, seed = TRAIN_APARTMENTS[k % len(TRAIN_APARTMENTS)], data.seed * 100_000 + k
            episode = _episode(name, seed)
            observations = rollout(episode, np.random.default_rng([data.seed, k]))
            for t in range(1, len(observations) + 1, data.every):
                rows.append(
                    {
                        "prompt": assist_prompt(episode, observations[:t], data.n_particles, data.prompt_style),
                        "apartment": name,
                        "episode_seed": seed,
                        "actions": [list(o.action) for o in observations[:t]],
                        "n_particles": data.n_particles,
                        "particle_form": particle_form(data.prompt_style),
                        "episode_id": episode.episode_id,
                        "t": t,
                    }
                )
        return rows

    def context(self, row: Mapping[str, Any], human: HumanParams) -> RewardContext:
        name = row["apartment"]
        apartment = bundled_apartment(name)
        index, logprior = _index(name)
        estimators = household_estimators(self.estimators)
        if self.estimators.likelihood == "llm":
            start = _episode(name, row["episode_seed"]).initial_state()
            logliks = estimators.text_logliks(apartment, start, row["actions"], all_goals(apartment)).tolist()
        else:
            logliks = goal_logliks(name, row["episode_seed"], row["actions"], human).tolist()
        if self.estimators.prior != "uniform":
            logprior = estimators.logprior(apartment).tolist()
        n_particles = row.get("n_particles")
        return RewardContext(
            logliks, logprior, index, lambda text: parse_household_particles(text, apartment, n_particles)
        )

    def random_completion(self, row: Mapping[str, Any], n_particles: int, rng: np.random.Generator) -> str:
        """Distinct goals of the row's apartment drawn as the episode generator draws them (a task
        uniformly, then a goal of it), with random probabilities, in the row's particle form: the
        format only. Not uniform over goals: watch_tv has the fewest goals (5 % of them, 20 % of
        episodes), and a warm start that rarely wrote its target left GRPO nothing to reward."""
        apartment = bundled_apartment(row["apartment"])
        goals = all_goals(apartment)
        if n_particles > len(goals):
            raise UserError(f"--n-particles {n_particles} exceeds the {len(goals)} goals of {apartment.name}")
        picked: list = []
        while len(picked) < n_particles:
            goal = sample_goal(apartment, rng)
            if goal not in picked:
                picked.append(goal)
        probs = rng.dirichlet(np.ones(n_particles))
        return format_household_particles(picked, probs, apartment, row.get("particle_form", "json"))
