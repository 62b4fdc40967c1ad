"""GridWorld goal reasoners: exact Bayesian inverse planning and the reference baselines.

``ExactGoalInference`` keeps log-posteriors over all goal pairs and adds
``log P(a_t | g, s_t)`` from :class:`HumanModel` for each observed action: O(#goals) work per
action, no replay of the history. A goal whose posterior reached 0 stays at log 0 = −∞.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.posterior import Posterior
from mindzero.envs.gridworld.episodes import Episode
from mindzero.envs.gridworld.human import HumanModel, human_roles
from mindzero.envs.gridworld.layout import Layout
from mindzero.envs.gridworld.world import Goal, Observation, WorldState, goal_pairs


def role_joint(posterior: Posterior, state: WorldState, layout: Layout) -> np.ndarray:
    """J[f, o] = P(the human handles object f first and places it next to object o).

    Row sums: "which object will be picked"; column sums: "placed next to which"; J sums to 1.
    """
    joint = np.zeros((len(layout.objects), len(layout.objects)))
    first, other = human_roles(state, layout, np.array(posterior.hypotheses, dtype=np.int64))
    np.add.at(joint, (first, other), posterior.probs)
    return joint


class ExactGoalInference:
    """Exact posterior over goal pairs under the simulated human's own policy."""

    name = "exact"

    def __init__(self, human: HumanParams = HumanParams(), prior: Sequence[float] | None = None) -> None:
        self.human = human
        self.prior = None if prior is None else np.asarray(prior, dtype=np.float64)
        self.goals: tuple[Goal, ...] = ()
        self.log_post = np.zeros(0)

    def reset(self, episode: Episode) -> Posterior:
        self.model = HumanModel(episode.layout, **asdict(self.human))
        self.goals = tuple(goal_pairs(len(episode.layout.objects)))
        if self.prior is None:
            self.log_post = np.full(len(self.goals), -np.log(len(self.goals)))
        else:
            if self.prior.shape != (len(self.goals),) or self.prior.min() < 0 or self.prior.sum() <= 0:
                raise UserError(f"prior needs {len(self.goals)} non-negative weights with a positive sum")
            with np.errstate(divide="ignore"):
                self.log_post = np.log(self.prior / self.prior.sum())
        return self.posterior()

    def update(self, observation: Observation) -> Posterior:
        probs = self.model.policy_table(observation.state)[:, observation.human_action]
        with np.errstate(divide="ignore"):
            log_post = self.log_post + np.log(probs)
        top = log_post.max()
        if top == -np.inf:
            raise UserError("observed action has zero likelihood under every goal (not this human model?)")
        self.log_post = log_post - top
        return self.posterior()

    def posterior(self) -> Posterior:
        w = np.exp(self.log_post)
        return Posterior(self.goals, w / w.sum())


class OracleReasoner:
    """Knows the true goal: the upper bound for helpers."""

    name = "oracle"

    def reset(self, episode: Episode) -> Posterior:
        self.posterior = Posterior.point(episode.goal)
        return self.posterior

    def update(self, observation: Observation) -> Posterior:
        return self.posterior


class RandomGoalReasoner:
    """The paper's "Random Goal" baseline (Table 1a: speedup 0.0): a goal source that answers every
    query with a uniformly random goal pair, drawn anew at each update (seeded). The helper never
    follows one goal for long, so it almost never fetches anything; it may still pick up an object
    it stands on, and the rare goal object it carries off costs the human a little (measured: speedup
    −0.002 ± 0.002 on the reference episodes, ``docs/gridworld.md``)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def _draw(self) -> Posterior:
        self.posterior = Posterior.point(self.goals[int(self.rng.integers(len(self.goals)))])
        return self.posterior

    def reset(self, episode: Episode) -> Posterior:
        self.goals = goal_pairs(len(episode.layout.objects))
        return self._draw()

    def update(self, observation: Observation) -> Posterior:
        return self._draw()


class EpisodeRandomGoalReasoner(RandomGoalReasoner):
    """One uniformly random goal per episode, kept to the end (this project's ``random`` before):
    a lucky-guess baseline. With 28 pairs it names the true goal in 1 of 28 runs and then helps as
    much as the oracle, so its speedup is about the oracle's / 28 plus a little from guesses that
    share one object with the goal (+0.042 on the reference episodes where ``random`` gets 0)."""

    name = "random-episode"

    def update(self, observation: Observation) -> Posterior:
        return self.posterior


class UniformReasoner:
    """Never learns: a uniform posterior (the 'none' reasoner's belief; its helper stays idle)."""

    name = "none"

    def reset(self, episode: Episode) -> Posterior:
        self.posterior = Posterior.uniform(goal_pairs(len(episode.layout.objects)))
        return self.posterior

    def update(self, observation: Observation) -> Posterior:
        return self.posterior


#: Reasoners that need no model; ``llm`` is added by the LLM layer (``--model PATH``).
BASELINE_REASONERS = ("none", "random", "random-episode", "oracle", "exact")


def make_reasoner(name: str, seed: int = 0, human: HumanParams = HumanParams()):
    """A fresh GridWorld reasoner by name (:data:`BASELINE_REASONERS`); ``exact``
    infers under ``human``, the simulated human's own parameters."""
    if name == "none":
        return UniformReasoner()
    if name == "random":
        return RandomGoalReasoner(seed)
    if name == "random-episode":
        return EpisodeRandomGoalReasoner(seed)
    if name == "oracle":
        return OracleReasoner()
    if name == "exact":
        return ExactGoalInference(human)
    raise UserError(f"unknown reasoner {name!r}; choose from {', '.join(BASELINE_REASONERS)}")


def replay_posterior(
    episode: Episode, observations: Sequence[Observation], human: HumanParams = HumanParams()
) -> Posterior:
    """Reference posterior recomputed from the whole history (O(t·#goals)); checks the online one."""
    model = HumanModel(episode.layout, **asdict(human))
    goals = goal_pairs(len(episode.layout.objects))
    log_post = np.zeros(len(goals))
    with np.errstate(divide="ignore"):
        for obs in observations:
            log_post += np.log(model.action_probs(obs.state, np.array(goals))[:, obs.human_action])
    w = np.exp(log_post - log_post.max())
    return Posterior(tuple(goals), w / w.sum())
