"""Proactive-assistance benchmark (paper §5.2, App. A.2, Fig. 5), for any domain.

Each episode is run twice with the same human random stream: alone (the helper stands still)
and helped (the helper acts on the reasoner's posterior). speedup = T_alone / T_helped − 1,
averaged over episodes and seeds; a failed run counts as ``max_steps`` ticks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.posterior import Posterior
from mindzero.domains.base import Domain
from mindzero.inference.base import Reasoner

#: Bins of task progress (fraction of the helped episode elapsed) for the Fig. 5 curve.
PROGRESS_BINS = 10


@dataclass
class AssistSettings:
    """How each episode is run (paper: seeds 10/20/30, ε = 0.15, 50 ticks); the episodes themselves
    are the domain's."""

    seeds: list[int] = field(default_factory=lambda: [10, 20, 30], metadata={"help": "agent seeds", "ge": 0})
    human: HumanParams = field(default_factory=HumanParams, metadata={"help": "the simulated human"})
    max_steps: int = field(default=50, metadata={"help": "tick limit of an episode", "ge": 1})
    teleport: int | None = field(
        default=None,
        metadata={
            "help": "teleport the helper to its object once the MAP goal (p ≥ 0.5) is stable this many updates",
            "ge": 0,
        },
    )


@dataclass
class EpisodeRun:
    ticks: int
    success: bool
    map_correct: list[bool]  # per tick: was the reasoner's MAP goal the true goal before acting
    true_goal_prob: list[float]
    kl_to_exact: list[float] = field(default_factory=list)  # per tick: KL(exact ‖ reasoner), nats


#: Floor on the reasoner's probability of each goal pair in :func:`kl_to_exact` (a particle set
#: names only a few pairs; without a floor every unnamed pair with exact mass makes KL infinite).
KL_FLOOR = 1e-4


def kl_to_exact(exact: Posterior, model: Posterior, floor: float = KL_FLOOR) -> float:
    """KL(exact ‖ model) in nats over the exact posterior's goal pairs, with model mass floored at
    ``floor`` and renormalised: a calibration score (0 = the reasoner is the exact posterior)."""
    p = exact.probs
    q = np.maximum(model.dense(exact.hypotheses), floor)
    q = q / q.sum()
    nz = p > 0
    return float((p[nz] * np.log(p[nz] / q[nz])).sum())


def run_episode(
    domain: Domain,
    episode: object,
    reasoner: Reasoner | None,
    seed: int,
    settings: AssistSettings,
    exact_name: str = "exact",
) -> EpisodeRun:
    """Run one episode; ``reasoner=None`` runs the human alone (the helper stands still).

    The domain's ``exact`` reasoner runs beside the reasoner as the calibration reference."""
    world = domain.simulator(episode, settings.human)
    goal = world.goal
    human_rng = np.random.default_rng([seed, 0])
    helper_rng = np.random.default_rng([seed, 1])
    state = world.initial_state()
    posterior = reasoner.reset(episode) if reasoner is not None else None
    exact = domain.reasoner(exact_name, seed, settings.human) if reasoner is not None else None
    exact_posterior = exact.reset(episode) if exact is not None else None
    map_correct, true_prob, kls = [], [], []
    stable, last_map, teleported_for = 0, None, None
    teleport = settings.teleport
    for _ in range(settings.max_steps):
        human_action = world.human_action(state, human_rng)
        helper_action = world.idle
        if posterior is not None:
            goal_now = posterior.map()
            map_correct.append(goal_now == goal)
            true_prob.append(posterior.prob(goal))
            kls.append(kl_to_exact(exact_posterior, posterior))
            if reasoner.name != "none":
                stable = stable + 1 if goal_now == last_map else 1
                last_map = goal_now
                confident = stable >= (teleport or 0) and posterior.probs.max() >= 0.5
                if teleport is not None and confident and teleported_for != goal_now:
                    teleported_for = goal_now
                    state = world.teleport(state, goal_now)
                helper_action = world.helper_action(state, posterior, helper_rng)
        next_state = world.step(state, human_action, helper_action)
        if posterior is not None:
            observation = world.observation(state, human_action)
            posterior = reasoner.update(observation)
            exact_posterior = exact.update(observation)
        state = next_state
        if world.done(state):
            return EpisodeRun(world.ticks(state), True, map_correct, true_prob, kls)
    return EpisodeRun(settings.max_steps, False, map_correct, true_prob, kls)


def progress_curve(runs: list[EpisodeRun]) -> list[float | None]:
    """Mean MAP-goal accuracy per bin of task progress (fraction of the episode elapsed)."""
    sums, counts = np.zeros(PROGRESS_BINS), np.zeros(PROGRESS_BINS)
    for run in runs:
        n = len(run.map_correct)
        for t, ok in enumerate(run.map_correct):
            b = min(PROGRESS_BINS - 1, int(PROGRESS_BINS * t / n))
            sums[b] += ok
            counts[b] += 1
    return [float(s / c) if c else None for s, c in zip(sums, counts)]


def stderr(values) -> float:
    """Standard error of the mean (0 for a single value)."""
    values = np.asarray(values, dtype=np.float64)
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0


def run_assist(
    domain: Domain,
    episodes: Iterable[object],
    settings: AssistSettings,
    make_reasoner: Callable[[int], Reasoner],
    label: str = "",
    progress: bool = True,
) -> tuple[dict, list[dict], list[float | None]]:
    """Evaluate a reasoner on every (seed, episode); returns (metrics, per-episode samples, Fig. 5
    accuracy curve). Episodes are read once and kept (each seed runs them all)."""
    episodes = list(episodes)
    if not episodes:
        raise UserError("no episodes to run")
    samples, helped_runs = [], []
    reasoner_stats = None  # summed DecisionStats of reasoners that count their cost (LLMs)
    jobs = [(s, e) for s in settings.seeds for e in episodes]
    for seed, episode in tqdm(jobs, desc=f"assist[{label}]", disable=not progress, leave=False):
        alone = run_episode(domain, episode, None, seed, settings)
        reasoner = make_reasoner(seed)
        helped = run_episode(domain, episode, reasoner, seed, settings)
        helped_runs.append(helped)
        stats = getattr(reasoner, "stats", None)
        if stats is not None:
            reasoner_stats = stats if reasoner_stats is None else reasoner_stats.merge(stats)
        goal = domain.goal(episode)
        samples.append(
            {
                "episode_id": domain.episode_id(episode),
                "seed": seed,
                "goal": list(goal) if isinstance(goal, tuple) else goal,
                "t_alone": alone.ticks,
                "t_helped": helped.ticks,
                "success_alone": alone.success,
                "success": helped.success,
                "speedup": alone.ticks / helped.ticks - 1.0,
                "goal_accuracy": float(np.mean(helped.map_correct)),
                "true_goal_prob_mean": float(np.mean(helped.true_goal_prob)),
                "kl_to_exact_mean": float(np.mean(helped.kl_to_exact)),
                **({"reasoner": stats.metrics()} if stats is not None else {}),
            }
        )
    speedups = np.array([s["speedup"] for s in samples])
    metrics = {
        "speedup_mean": float(speedups.mean()),
        "speedup_stderr": stderr(speedups),
        "success_rate": float(np.mean([s["success"] for s in samples])),
        "success_rate_alone": float(np.mean([s["success_alone"] for s in samples])),
        "t_alone_mean": float(np.mean([s["t_alone"] for s in samples])),
        "t_helped_mean": float(np.mean([s["t_helped"] for s in samples])),
        "goal_accuracy_mean": float(np.mean([s["goal_accuracy"] for s in samples])),
        "true_goal_prob_mean": float(np.mean([s["true_goal_prob_mean"] for s in samples])),
        "kl_to_exact_mean": float(np.mean([s["kl_to_exact_mean"] for s in samples])),
        "n_runs": len(samples),
    }
    if reasoner_stats is not None:
        metrics.update(reasoner_stats.metrics())
    return metrics, samples, progress_curve(helped_runs)
