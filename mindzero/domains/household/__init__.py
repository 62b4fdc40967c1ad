"""Household (paper §5.3–5.4) as a domain: the second implementation of
:class:`mindzero.domains.base.Domain`.

Episodes are :func:`~mindzero.envs.household.episodes.make_episode` on the bundled apartments
(training rows on the five train apartments, held-out episodes on the two test ones); the
simulated human is :class:`~mindzero.envs.household.human.HouseholdHuman` with the command's
:class:`~mindzero.core.human.HumanParams`; the helper is
:class:`~mindzero.envs.household.helper.HouseholdHelper`; exact inference runs over every goal of
the apartment (:func:`~mindzero.envs.household.episodes.all_goals`, a few hundred), SMC over
particles of it. Its QA task is MMToM-style questions (:mod:`mindzero.domains.household.qa`):
the question text is the prompt.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.parsing import ParseResult
from mindzero.core.posterior import Posterior
from mindzero.domains.base import SSRLTask
from mindzero.domains.household.hypotheses import format_household_particles, parse_household_particles, particle_form
from mindzero.domains.household.metrics import expected_f1
from mindzero.domains.household.qa import QATask, heldout_questions, qa_prompt
from mindzero.domains.household.smc import REASONERS, Observation, make_reasoner
from mindzero.domains.household.ssrl import PROMPT_STYLES, AssistTask, assist_prompt
from mindzero.envs.household.apartment import TEST_APARTMENTS, bundled_apartment
from mindzero.envs.household.episodes import Episode, all_goals, make_episode, world_of
from mindzero.envs.household.helper import HelperSettings, HouseholdHelper
from mindzero.envs.household.human import HouseholdHuman, household_human
from mindzero.envs.household.world import NOOP_ACTION, Action, Goal, State

#: Seed offset of held-out evaluation episodes (training rows use seeds below it).
HELDOUT_SEEDS = 7_000_000


class HouseholdSimulator:
    """One Household episode through the :class:`~mindzero.domains.base.Simulator` protocol."""

    idle = NOOP_ACTION

    def __init__(self, episode: Episode, human: HumanParams, helper: HelperSettings | None = None) -> None:
        self.episode = episode
        self.goal = episode.goal
        self.world = world_of(episode.apartment)
        self.human = HouseholdHuman(self.world, human)
        self.helper = HouseholdHelper(self.world, helper or HelperSettings())

    def initial_state(self) -> State:
        return self.episode.initial_state()

    def human_action(self, state: State, rng: np.random.Generator) -> Action:
        return self.human.sample(state, self.goal, rng)

    def helper_action(self, state: State, posterior: Posterior, rng: np.random.Generator) -> Action:
        return self.helper.act(state, posterior)

    def observation(self, state: State, human_action: Action) -> Observation:
        return Observation(state, human_action)

    def step(self, state: State, human_action: Action, helper_action: Action) -> State:
        return self.world.step(state, human_action, helper_action)

    def done(self, state: State) -> bool:
        return self.world.achieved(state, self.goal)

    def ticks(self, state: State) -> int:
        return state[0]

    def teleport(self, state: State, goal: Hashable) -> State:
        """Household has no teleporting helper: the state unchanged."""
        return state


class HouseholdDomain:
    """Household through the domain interface (see :mod:`mindzero.domains.base`)."""

    name = "household"
    reasoners = REASONERS
    prompt_styles = PROMPT_STYLES
    goal_metric = "goal F1"

    def __init__(self, helper: HelperSettings | None = None) -> None:
        """``helper``: when the helper acts on an uncertain posterior (``household assist --helper-*``)."""
        self.tasks: Mapping[str, SSRLTask] = {"assist": AssistTask(), "qa": QATask()}
        self.helper = helper or HelperSettings()

    def human(self, flags: HumanParams) -> HumanParams:
        """Household's human (ε 0.1, τ 0.05) with every value the flags changed from their default."""
        return household_human(flags)

    def reasoner(self, name: str, seed: int, human: HumanParams) -> Any:
        return make_reasoner(name, seed, human)

    def simulator(self, episode: Episode, human: HumanParams) -> HouseholdSimulator:
        return HouseholdSimulator(episode, human, self.helper)

    def hypotheses(self, episode: Episode) -> tuple[Goal, ...]:
        return all_goals(episode.apartment)

    def goal(self, episode: Episode) -> Goal:
        return episode.goal

    def goal_record(self, episode: Episode) -> dict:
        """The task, the target furniture by class, and the object counts."""
        task, target, objects = episode.goal
        return {"task": task, "target": episode.apartment.furniture[target], "objects": dict(objects)}

    def goal_score(self, posterior: Posterior, goal: Goal) -> float:
        return expected_f1(posterior, goal)

    def episode_id(self, episode: Episode) -> str:
        return episode.episode_id

    def heldout_episodes(self, n: int, seed: int) -> list[Episode]:
        """Episodes on the two test apartments, from seeds no training row uses."""
        return [
            make_episode(bundled_apartment(TEST_APARTMENTS[k % 2]), HELDOUT_SEEDS + seed * 10_000 + k) for k in range(n)
        ]

    def heldout_questions(self, n: int, seed: int) -> list[dict]:
        return heldout_questions(n, seed)

    def assist_prompt(self, episode: Episode, observations: Sequence[Observation], n_particles: int, style: str) -> str:
        return assist_prompt(episode, observations, n_particles, style)

    def parse_particles(self, text: object, episode: Episode, n_particles: int | None) -> ParseResult:
        return parse_household_particles(text, episode.apartment, n_particles)

    def hypothesis_texts(self, episode: Episode, style: str) -> list[tuple[Hashable, str]]:
        """Every goal of the apartment as a one-particle answer in the style's particle form (whole,
        p included: a goal's words are a prefix of a larger goal's)."""
        apartment, form = episode.apartment, particle_form(style)
        return [(g, format_household_particles([g], [1.0], apartment, form)) for g in self.hypotheses(episode)]

    def qa_prompt(self, row: Mapping[str, Any], style: str) -> str:
        """The question text (MMToM-QA's already says how to answer) or its ``facts`` encoding."""
        return qa_prompt(row["question"], style)

    def qa_option_probs(self, row: Mapping[str, Any], reasoner: Any) -> np.ndarray:
        raise UserError("household questions are answered by `mindzero household mmtom-eval --reasoner model`")
