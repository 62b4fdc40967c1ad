"""Household's likelihood and prior estimators (paper §4.2, §5.3, Fig. 2b): what ``--likelihood``
and ``--prior`` choose for the SSRL reward, SMC and exact inference.

Likelihood, log P(a_1:t | goal, s_1:t) in nats:

- ``model``: the simulated human's Boltzmann subgoal planner
  (:class:`~mindzero.envs.household.human.HouseholdHuman`), the policy that generates the actions;
- ``llm``: a language model's log-probability of the actions written as text after a prompt
  naming the goal and where the person starts (:func:`likelihood_prompt`, :func:`history_text`;
  ``docs/household.md`` shows the format). Consecutive identical sentences are written once (a
  walk of five cells towards the fridge is one "walks towards the fridge"), so the text, and the
  score, change only when the person does something new.

Prior, log P(goal) in nats, normalised over the apartment's goals (:func:`all_goals`):

- ``uniform``: −log #goals;
- ``rules``: symbolic task rules as data (``prior_rules.yaml``: object class fits the target,
  place settings matched, no second remote), summed per goal;
- ``llm``: the paper's plausibility judgement, log P(" yes") − log(P(" yes") + P(" no")) after
  "Is it plausible that ...?" (:func:`prior_prompt`).

LLM scores go through :class:`~mindzero.llm.score_cache.CachedScorer`: one cache file per (model,
estimator) under ``--estimator-cache``, so a run — and every later run — pays each distinct
(prompt, continuation) once; ``mindzero household prior-cache`` precomputes an apartment split's
priors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import yaml

from mindzero.core.errors import UserError, plural
from mindzero.domains.base import Estimators
from mindzero.envs.household.apartment import Apartment
from mindzero.envs.household.episodes import all_goals, world_of
from mindzero.envs.household.world import Action, Goal, State, World
from mindzero.llm import load_backend
from mindzero.llm.models import cache_dir
from mindzero.llm.score_cache import CachedScorer

#: The person's name in the likelihood's action sentences.
PERSON = "The person"
#: What each task is, in the prior's and the likelihood's prompts.
TASK_WORDS = {
    "setup_table": "setting up the table",
    "put_dishwasher": "loading the dishwasher",
    "put_fridge": "putting groceries in the fridge",
    "prepare_food": "preparing food",
    "watch_tv": "getting ready to watch TV",
}
#: The prior's two answers (scored after :func:`prior_prompt`; leading spaces matter).
YES, NO = " yes", " no"


def goal_phrase(apartment: Apartment, goal: Goal) -> str:
    """``put 2 plates and 1 cutleryfork on the kitchentable`` (counts, classes, relation, target)."""
    _, target, counts = goal
    things = [f"{n} {cls if cls.endswith('s') else plural(cls, n)}" for cls, n in counts]  # 2 chips, not chipses
    listed = things[0] if len(things) == 1 else ", ".join(things[:-1]) + " and " + things[-1]
    relation = "on" if world_of(apartment).surface[target] else "inside"
    return f"put {listed} {relation} the {apartment.furniture[target]}"


def likelihood_prompt(apartment: Apartment, goal: Goal, start: State) -> str:
    """The text before the scored actions: the task, the goal and the room the person starts in."""
    world = world_of(apartment)
    room = apartment.rooms[world.cell_room[start[1]]]
    return (
        f"{PERSON} is {TASK_WORDS.get(goal[0], goal[0])} at home: they want to {goal_phrase(apartment, goal)}. "
        f"They start in the {room}.\nWhat they do:"
    )


def history_text(world: World, actions: Sequence[Action]) -> str:
    """The scored continuation: one sentence per action, each after a space, consecutive repeats
    written once; empty before any action (score 0 under every goal)."""
    sentences: list[str] = []
    for action in actions:
        sentence = f" {world.action_sentence(PERSON, tuple(action))}."
        if not sentences or sentences[-1] != sentence:
            sentences.append(sentence)
    return "".join(sentences)


def prior_prompt(apartment: Apartment, goal: Goal) -> str:
    """The plausibility question whose answer (:data:`YES` / :data:`NO`) is the llm prior."""
    return (
        f"{PERSON} at home is {TASK_WORDS.get(goal[0], goal[0])}.\nQuestion: Is it plausible that they want to "
        f"{goal_phrase(apartment, goal)}? Answer yes or no.\nAnswer:"
    )


@cache
def prior_rules() -> dict[str, Any]:
    """``prior_rules.yaml``, loaded once."""
    return yaml.safe_load(resources.files(__package__).joinpath("prior_rules.yaml").read_text())


def rule_weight(apartment: Apartment, goal: Goal) -> float:
    """The goal's log-weight under :func:`prior_rules` (nats, ≤ 0; any goal, not only the apartment's)."""
    rules = prior_rules()
    _, target, counts = goal
    where = apartment.furniture[target]
    fits = rules["fit"].get(where, {})
    weights = rules["fit_weights"]
    total = sum(weights[fits.get(cls, "wrong")] for cls, _ in counts)
    have = dict(counts)
    for rule in rules["matched"]:
        present = [have[c] for c in rule["classes"] if c in have]
        if rule["target"] == where and len(present) > 1:
            total += rule["per_unit"] * (max(present) - min(present))
    for rule in rules["at_most"]:
        if rule["target"] == where and have.get(rule["class"], 0) > rule["n"]:
            total += rule["per_extra"] * (have[rule["class"]] - rule["n"])
    return total


def log_normalise(weights: np.ndarray) -> np.ndarray:
    """log-weights → log-probabilities (nats) that sum to one in probability."""
    return weights - (weights.max() + math.log(np.exp(weights - weights.max()).sum()))


class HouseholdEstimators:
    """The chosen likelihood and prior of one command (:class:`~mindzero.domains.base.Estimators`),
    over an apartment's goals. LLM estimators share one backend, loaded on the first score a cache
    lacks."""

    def __init__(self, estimators: Estimators) -> None:
        self.settings = estimators
        self.scorers: dict[str, CachedScorer] = {}
        if estimators.uses_llm():
            spec = estimators.estimator_model
            if not spec:
                raise UserError(
                    f"--likelihood {estimators.likelihood} --prior {estimators.prior} needs --estimator-model SPEC "
                    "(e.g. --estimator-model smollm2-135m)"
                )
            folder = estimators.estimator_cache or cache_dir() / "estimators"
            loaded: list = []

            def backend() -> Any:
                if not loaded:
                    loaded.append(load_backend(spec))
                return loaded[0]

            for kind in ("likelihood", "prior"):
                if getattr(estimators, kind) == "llm":
                    self.scorers[kind] = CachedScorer(backend, folder, spec, kind)
        self._priors: dict[str, np.ndarray] = {}

    @property
    def likelihood(self) -> str:
        return self.settings.likelihood

    def logprior(self, apartment: Apartment) -> np.ndarray:
        """log P(goal) in nats for every goal of ``all_goals(apartment)`` (its order), normalised."""
        if apartment.name not in self._priors:
            goals = all_goals(apartment)
            if self.settings.prior == "uniform":
                weights = np.zeros(len(goals))
            elif self.settings.prior == "rules":
                weights = np.array([rule_weight(apartment, g) for g in goals])
            else:
                weights = self.plausibility(apartment, goals)
            self._priors[apartment.name] = log_normalise(weights)
            self._priors[apartment.name].setflags(write=False)
        return self._priors[apartment.name]

    def plausibility(self, apartment: Apartment, goals: Sequence[Goal]) -> np.ndarray:
        """The llm prior's judgement per goal: log P(yes) − log(P(yes) + P(no)), nats."""
        prompts = [prior_prompt(apartment, g) for g in goals]
        scores = self.scorers["prior"].scores([(p, a) for p in prompts for a in (YES, NO)]).reshape(-1, 2)
        return scores[:, 0] - np.logaddexp(scores[:, 0], scores[:, 1])

    def text_logliks(
        self, apartment: Apartment, start: State, actions: Sequence[Action], goals: Sequence[Goal]
    ) -> np.ndarray:
        """The llm likelihood: log P(the actions as text | goal, start) in nats per goal."""
        text = history_text(world_of(apartment), actions)
        if not text:
            return np.zeros(len(goals))
        return self.scorers["likelihood"].scores([(likelihood_prompt(apartment, g, start), text) for g in goals])

    def stats(self) -> dict[str, float]:
        """Per LLM estimator: cached and computed scores, hit rate, backend seconds."""
        out: dict[str, float] = {}
        for kind, scorer in self.scorers.items():
            asked = scorer.hits + scorer.misses
            out |= {
                f"{kind}_scores_cached": scorer.hits,
                f"{kind}_scores_computed": scorer.misses,
                f"{kind}_cache_hit_rate": scorer.hits / asked if asked else 0.0,
                f"{kind}_seconds": scorer.seconds,
            }
        return out


@cache
def household_estimators(estimators: Estimators) -> HouseholdEstimators:
    """One :class:`HouseholdEstimators` per settings in a process: the reward and every reasoner
    of a run share its backend and in-memory caches."""
    return HouseholdEstimators(estimators)
