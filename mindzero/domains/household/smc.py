"""Online goal inference for Household: sequential Monte Carlo over goal hypotheses.

Particles are goals (task, target, class counts) drawn from the apartment's task templates (the
prior). Each observed human action reweights them by the planner likelihood
P(a | goal, belief) of :class:`~mindzero.envs.household.human.HouseholdHuman` — the simulated
human's own policy. When the effective sample size falls below ``ess_fraction`` × N the particles
are resampled (systematic) and rejuvenated: each takes ``moves`` Metropolis–Hastings steps whose
proposals are a fresh template draw or a local edit (one class's count ± 1, a class added, dropped
or swapped within the task's classes), accepted on the whole history's likelihood × prior ratio.
That ratio ignores the proposals' asymmetry, so the moves are an approximate MCMC kernel: their job
is to move particles that locked onto a wrong goal towards goals that explain the history.
Per-goal history log-likelihoods are cached and brought up to date lazily.

The likelihood and prior are the command's estimators (``--likelihood``, ``--prior``:
:mod:`mindzero.domains.household.estimators`). With ``--prior uniform`` the particles start equally
weighted (the template sampler stands in for the prior, as it always has); with ``rules`` or
``llm`` each starts weighted by prior / proposal probability (:func:`proposal_logprobs`), so the
particles target the chosen prior.

``exact`` is Bayes' rule over the apartment's whole goal space (:func:`all_goals`, a few hundred
goals) with the same likelihood and prior: the reference SMC approximates. The others: ``oracle`` (the true
goal), ``random`` (one goal drawn from the templates per episode) and ``none`` (no belief: the
helper waits).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.posterior import Posterior
from mindzero.domains.base import DEFAULT_ESTIMATORS, Estimators
from mindzero.domains.household.estimators import household_estimators
from mindzero.envs.household.apartment import Apartment
from mindzero.envs.household.episodes import (
    MAX_CLASSES,
    MAX_OBJECTS,
    MIN_OBJECTS,
    Episode,
    all_goals,
    sample_goal,
    templates,
    world_of,
)
from mindzero.envs.household.human import HOUSEHOLD_HUMAN, HouseholdHuman
from mindzero.envs.household.world import Action, Goal, State

REASONERS = ("none", "random", "oracle", "smc", "exact")


@dataclass(frozen=True)
class SMCSettings:
    """Particle filter size and rejuvenation."""

    particles: int = field(default=64, metadata={"help": "SMC goal particles", "ge": 1, "le": 100_000})
    ess_fraction: float = field(
        default=0.5, metadata={"help": "resample and rejuvenate when ESS < this × particles", "gt": 0, "le": 1}
    )
    moves: int = field(default=2, metadata={"help": "MH rejuvenation moves per particle", "ge": 0, "le": 1_000})
    local_moves: float = field(
        default=0.7, metadata={"help": "share of MH proposals that edit the goal locally", "ge": 0, "le": 1}
    )


@dataclass(frozen=True)
class Observation:
    """One tick as a reasoner sees it: the state before the tick and the human's action."""

    state: State
    action: Action


def proposal_logprobs(apartment: Apartment) -> np.ndarray:
    """log q(goal) in nats of :func:`sample_goal` for every goal of ``all_goals`` (its order): a
    uniform template, k classes uniform in 1..min(3, #classes), a uniform k-subset, uniform
    counts, redrawn until 2–6 objects (so normalised within each template)."""
    options = templates(apartment)
    limits = {t.task: dict(t.classes) for t in options}
    goals = all_goals(apartment)
    raw = np.empty(len(goals))
    for i, (task, _, counts) in enumerate(goals):
        n = len(limits[task])
        raw[i] = -math.log(min(MAX_CLASSES, n)) - math.log(math.comb(n, len(counts)))
        raw[i] -= sum(math.log(limits[task][c]) for c, _ in counts)
    out = np.empty(len(goals))
    for task in limits:
        rows = [i for i, g in enumerate(goals) if g[0] == task]
        out[rows] = raw[rows] - np.logaddexp.reduce(raw[rows]) - math.log(len(options))
    return out


class SMCGoalInference:
    """Particle filter over goals (module docstring)."""

    name = "smc"

    def __init__(
        self,
        seed: int = 0,
        human: HumanParams = HOUSEHOLD_HUMAN,
        settings: SMCSettings = SMCSettings(),
        estimators: Estimators = DEFAULT_ESTIMATORS,
    ):
        self.rng = np.random.default_rng([seed, 3])
        self.human = human
        self.settings = settings
        self.estimators = household_estimators(estimators)

    def reset(self, episode: Episode) -> Posterior:
        self.apartment = episode.apartment
        self.templates = {t.task: t for t in templates(episode.apartment)}
        self.model = HouseholdHuman(world_of(episode.apartment), self.human)
        self.particles = [sample_goal(self.apartment, self.rng) for _ in range(self.settings.particles)]
        self.prior: dict[Goal, float] = {}
        if self.estimators.settings.prior != "uniform":
            goals, prior = all_goals(self.apartment), self.estimators.logprior(self.apartment)
            self.prior = dict(zip(goals, prior))
            q = dict(zip(goals, proposal_logprobs(self.apartment)))
        self.logw = np.array([self.prior[g] - q[g] if self.prior else 0.0 for g in self.particles])
        self.history: list[Observation] = []
        #: goal -> (observations scored, log-likelihood of them)
        self.cache: dict[Goal, tuple[int, float]] = {g: (0, 0.0) for g in self.particles}
        return self.posterior()

    def text_logliks(self, goals: list[Goal], t: int) -> np.ndarray:
        """The llm likelihood of the first ``t`` observed actions under each goal (nats)."""
        actions = [o.action for o in self.history[:t]]
        return self.estimators.text_logliks(self.apartment, self.history[0].state, actions, goals)

    def target(self, goal: Goal) -> float:
        """log P(history | goal) + log P(goal) (the prior's constant left out when uniform): what MH moves compare."""
        return self.loglik(goal) + self.prior.get(goal, 0.0)

    def loglik(self, goal: Goal) -> float:
        """log P(all observed actions | goal), from the cache plus the observations it has not seen."""
        if self.estimators.likelihood == "llm":
            return float(self.text_logliks([goal], len(self.history))[0])
        done, total = self.cache.get(goal, (0, 0.0))
        for obs in self.history[done:]:
            p = self.model.likelihoods(obs.state, obs.action, (goal,))[0]
            total += math.log(p) if p > 0 else -math.inf
        self.cache[goal] = (len(self.history), total)
        return total

    def update(self, observation: Observation) -> Posterior:
        self.history.append(observation)
        distinct = list(dict.fromkeys(self.particles))
        if self.estimators.likelihood == "llm":
            t = len(self.history)
            step = dict(zip(distinct, self.text_logliks(distinct, t) - self.text_logliks(distinct, t - 1)))
        else:
            step = self.planner_step(observation, distinct)
        self.logw = self.logw + np.array([step[g] for g in self.particles])
        w = self.weights()
        if 1.0 / float(np.sum(w * w)) < self.settings.ess_fraction * len(self.particles):
            self.resample(w)
            self.rejuvenate()
        return self.posterior()

    def planner_step(self, observation: Observation, distinct: list[Goal]) -> dict[Goal, float]:
        """log P(latest action | goal) under the planner per distinct particle; brings the cache up to date."""
        liks = self.model.likelihoods(observation.state, observation.action, distinct)
        if not liks.max() > 0:
            raise UserError(
                "the observed action has zero likelihood under every particle "
                "(an invalid action, or --human-epsilon 0 with no particle explaining it)"
            )
        step = {}
        for goal, p in zip(distinct, liks):
            step[goal] = math.log(p) if p > 0 else -math.inf
            done, total = self.cache.get(goal, (-1, 0.0))
            if done == len(self.history) - 1:
                self.cache[goal] = (done + 1, total + step[goal])
        return step

    def weights(self) -> np.ndarray:
        w = np.exp(self.logw - self.logw.max())
        return w / w.sum()

    def resample(self, w: np.ndarray) -> None:
        n = len(self.particles)
        positions = (self.rng.random() + np.arange(n)) / n
        idx = np.minimum(np.searchsorted(np.cumsum(w), positions), n - 1)
        self.particles = [self.particles[i] for i in idx]
        self.logw = np.zeros(n)

    def rejuvenate(self) -> None:
        for i, goal in enumerate(self.particles):
            current = self.target(goal)
            for _ in range(self.settings.moves):
                proposal = self.propose(goal)
                new = self.target(proposal)
                if new >= current or self.rng.random() < math.exp(new - current):
                    goal, current = proposal, new
            self.particles[i] = goal

    def propose(self, goal: Goal) -> Goal:
        """A template draw, or a local edit of ``goal`` that stays a valid goal of its task."""
        if self.rng.random() >= self.settings.local_moves:
            return sample_goal(self.apartment, self.rng)
        task, target, counts = goal
        limits = dict(self.templates[task].classes)
        current = dict(counts)
        for _ in range(10):
            edit = dict(current)
            cls = list(limits)[int(self.rng.integers(len(limits)))]
            kind = int(self.rng.integers(3))
            if kind == 0 and cls in edit:
                edit[cls] += 1 if self.rng.random() < 0.5 else -1
            elif kind == 1 and cls not in edit:
                edit[cls] = 1
            elif kind == 2 and cls not in edit:
                edit.pop(list(edit)[int(self.rng.integers(len(edit)))])
                edit[cls] = current.get(cls, 1)
            else:
                continue
            edit = {c: n for c, n in edit.items() if n > 0}
            valid = all(n <= limits[c] for c, n in edit.items()) and 1 <= len(edit) <= 3
            if valid and MIN_OBJECTS <= sum(edit.values()) <= MAX_OBJECTS:
                return task, target, tuple(sorted(edit.items()))
        return goal

    def posterior(self) -> Posterior:
        return Posterior.from_weights(self.particles, self.weights())


class ExactGoalInference:
    """The exact posterior over every goal of the apartment under the chosen estimators, updated per action."""

    name = "exact"

    def __init__(self, human: HumanParams = HOUSEHOLD_HUMAN, estimators: Estimators = DEFAULT_ESTIMATORS) -> None:
        self.human = human
        self.estimators = household_estimators(estimators)

    def reset(self, episode: Episode) -> Posterior:
        self.apartment = episode.apartment
        self.model = HouseholdHuman(world_of(episode.apartment), self.human)
        self.goals = all_goals(episode.apartment)
        self.logprior = self.estimators.logprior(episode.apartment)
        self.log_post = self.logprior - self.logprior.max()
        self.history: list[Observation] = []
        return self.posterior()

    def update(self, observation: Observation) -> Posterior:
        if self.estimators.likelihood == "llm":
            self.history.append(observation)
            actions = [o.action for o in self.history]
            logliks = self.estimators.text_logliks(self.apartment, self.history[0].state, actions, self.goals)
            log_post = self.logprior + logliks
            self.log_post = log_post - log_post.max()
            return self.posterior()
        liks = self.model.likelihoods(observation.state, observation.action, self.goals)
        if not liks.max() > 0:
            raise UserError("observed action is not valid in the observed state (not this human model?)")
        with np.errstate(divide="ignore"):
            log_post = self.log_post + np.log(liks)
        self.log_post = log_post - log_post.max()
        return self.posterior()

    def posterior(self) -> Posterior:
        w = np.exp(self.log_post)
        return Posterior(self.goals, w / w.sum())


class FixedReasoner:
    """A belief that never changes: ``oracle`` (the true goal), ``random`` (one template goal drawn
    per episode), ``none`` (no goal: the helper never fetches)."""

    def __init__(self, name: str, seed: int = 0) -> None:
        self.name = name
        self.rng = np.random.default_rng([seed, 4])

    def reset(self, episode: Episode) -> Posterior:
        if self.name == "oracle":
            self.belief = Posterior.point(episode.goal)
        elif self.name == "random":
            self.belief = Posterior.point(sample_goal(episode.apartment, self.rng))
        else:
            self.belief = Posterior((), np.zeros(0))
        return self.belief

    def update(self, observation: Observation) -> Posterior:
        return self.belief


def make_reasoner(
    name: str,
    seed: int,
    human: HumanParams = HOUSEHOLD_HUMAN,
    smc: SMCSettings = SMCSettings(),
    estimators: Estimators = DEFAULT_ESTIMATORS,
):
    """A fresh Household reasoner by name (:data:`REASONERS`); ``estimators``: the likelihood and
    prior of ``smc`` and ``exact``."""
    if name == "smc":
        return SMCGoalInference(seed, human, smc, estimators)
    if name == "exact":
        return ExactGoalInference(human, estimators)
    if name in REASONERS:
        return FixedReasoner(name, seed)
    raise UserError(f"unknown reasoner {name!r}; choose from {', '.join(REASONERS)}")
