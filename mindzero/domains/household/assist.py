"""Household proactive assistance (paper §5.4, Fig. 5b): one episode alone and helped.

The human draws from the same random stream in both runs; the helper acts on the reasoner's
posterior each tick. speedup = T_alone / T_helped − 1 (ticks; a run that fails counts as
``max_steps``). The online goal F1 (Watch-And-Help's metric) compares the posterior's goals with
the true one as predicate counts, averaged over the posterior, at each tick.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mindzero.core.human import HumanParams
from mindzero.core.posterior import Posterior
from mindzero.domains.household.smc import Observation
from mindzero.envs.household.episodes import Episode, world_of
from mindzero.envs.household.helper import HelperSettings, HouseholdHelper
from mindzero.envs.household.human import HOUSEHOLD_HUMAN, HouseholdHuman
from mindzero.envs.household.world import NOOP_ACTION, Goal
from mindzero.inference.base import Reasoner


@dataclass
class RunSettings:
    """How each Household episode is run."""

    max_steps: int = field(default=250, metadata={"help": "tick limit of an episode", "ge": 1})
    human: HumanParams = field(default_factory=lambda: HOUSEHOLD_HUMAN, metadata={"help": "the simulated human"})
    helper: HelperSettings = field(default_factory=HelperSettings, metadata={"help": "the helper"})


@dataclass
class Run:
    ticks: int
    success: bool
    f1: list[float]  # per tick: posterior-expected goal F1 before the tick


def goal_f1(predicted: Goal, true: Goal) -> float:
    """F1 of two goals as multisets of predicates (class, target) with counts."""
    p = {(c, predicted[1]): n for c, n in predicted[2]}
    t = {(c, true[1]): n for c, n in true[2]}
    hit = sum(min(n, t.get(k, 0)) for k, n in p.items())
    if not hit:
        return 0.0
    precision, recall = hit / sum(p.values()), hit / sum(t.values())
    return 2 * precision * recall / (precision + recall)


def expected_f1(posterior: Posterior, true: Goal) -> float:
    return float(sum(q * goal_f1(g, true) for g, q in zip(posterior.hypotheses, posterior.probs)))


def run_episode(episode: Episode, reasoner: Reasoner | None, seed: int, settings: RunSettings) -> Run:
    """Run one episode; ``reasoner=None`` is the human alone (the helper waits)."""
    world = world_of(episode.apartment)
    human = HouseholdHuman(world, settings.human)
    helper = HouseholdHelper(world, settings.helper)
    rng = np.random.default_rng([seed, 0])
    state = episode.initial_state()
    posterior = reasoner.reset(episode) if reasoner is not None else None
    f1 = []
    for _ in range(settings.max_steps):
        action = human.sample(state, episode.goal, rng)
        helper_action = NOOP_ACTION
        if posterior is not None:
            f1.append(expected_f1(posterior, episode.goal))
            helper_action = helper.act(state, posterior)
        next_state = world.step(state, action, helper_action)
        if posterior is not None:
            posterior = reasoner.update(Observation(state, action))
        state = next_state
        if world.achieved(state, episode.goal):
            return Run(state[0], True, f1)
    return Run(settings.max_steps, False, f1)


def episode_sample(episode: Episode, seed: int, alone: Run, helped: Run) -> dict:
    """The per-run row of ``samples.jsonl``."""
    world = world_of(episode.apartment)
    return {
        "episode_id": episode.episode_id,
        "apartment": episode.apartment.name,
        "seed": seed,
        "goal": {
            "task": episode.goal[0],
            "target": world.apartment.furniture[episode.goal[1]],
            "objects": dict(episode.goal[2]),
        },
        "t_alone": alone.ticks,
        "t_helped": helped.ticks,
        "success_alone": alone.success,
        "success": helped.success,
        "speedup": alone.ticks / helped.ticks - 1.0,
        "goal_f1_mean": float(np.mean(helped.f1)) if helped.f1 else None,
        "goal_f1": [round(x, 4) for x in helped.f1],
    }
