"""Proactive-assistance benchmark (paper §5.2, App. A.2, Fig. 5).

Each episode is run twice with the same human random stream: alone (the helper stands still)
and helped (the helper acts on the reasoner's posterior). speedup = T_alone / T_helped − 1,
averaged over episodes and seeds; a failed run counts as ``max_steps`` ticks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
from tqdm import tqdm

from mindzero.core.posterior import Posterior
from mindzero.envs.gridworld.episodes import Episode, episodes_on_layouts, generate_episodes, load_layouts
from mindzero.envs.gridworld.helper import HelperPlanner
from mindzero.envs.gridworld.human import HumanModel, human_first_object
from mindzero.envs.gridworld.world import Action, Observation, goal_achieved, step
from mindzero.inference.base import Reasoner
from mindzero.inference.gridworld import ExactGoalInference

#: Bins of task progress (fraction of the helped episode elapsed) for the Fig. 5 curve.
PROGRESS_BINS = 10


@dataclass
class AssistConfig:
    """Defaults of the benchmark (paper: 20 episodes, seeds 10/20/30, ε = 0.15, 50 ticks)."""

    reasoner: str = field(
        default="none,random,exact,oracle", metadata={"help": "comma list of none | random | oracle | exact"}
    )
    episodes: int = field(default=20, metadata={"help": "episodes per seed"})
    seeds: list[int] = field(default_factory=lambda: [10, 20, 30], metadata={"help": "agent seeds"})
    episode_seed: int = field(default=0, metadata={"help": "seed of the episode generator"})
    family: str | None = field(default=None, metadata={"help": "layout family; None = U(0,20) obstacles"})
    layouts: str | None = field(default=None, metadata={"help": "layout file or folder of *.txt layouts"})
    size: int = field(default=10, metadata={"help": "grid width and height of generated layouts"})
    n_objects: int = field(default=8, metadata={"help": "objects per generated layout"})
    epsilon: float = field(default=0.15, metadata={"help": "human random-move probability"})
    max_steps: int = field(default=50, metadata={"help": "tick limit of an episode"})
    teleport: int | None = field(
        default=None,
        metadata={"help": "teleport the helper to its object once the MAP goal (p ≥ 0.5) is stable this many updates"},
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
    episode: Episode,
    reasoner: Reasoner | None,
    seed: int,
    epsilon: float = 0.15,
    max_steps: int = 50,
    teleport: int | None = None,
) -> EpisodeRun:
    """Run one episode; ``reasoner=None`` runs the human alone (the helper stands still)."""
    layout = episode.layout
    human = HumanModel(layout, epsilon=epsilon)
    helper = HelperPlanner(layout)
    human_rng = np.random.default_rng([seed, 0])
    helper_rng = np.random.default_rng([seed, 1])
    state = episode.initial_state()
    posterior = reasoner.reset(episode) if reasoner is not None else None
    exact = ExactGoalInference(epsilon=epsilon) if reasoner is not None else None
    exact_posterior = exact.reset(episode) if exact is not None else None
    map_correct, true_prob, kls = [], [], []
    stable, last_map, teleported_for = 0, None, None
    for _ in range(max_steps):
        human_action = human.sample(state, episode.goal, human_rng)
        helper_action = Action.STAY
        if posterior is not None:
            goal_now = posterior.map()
            map_correct.append(goal_now == episode.goal)
            true_prob.append(posterior.prob(episode.goal))
            kls.append(kl_to_exact(exact_posterior, posterior))
            if reasoner.name != "none":
                stable = stable + 1 if goal_now == last_map else 1
                last_map = goal_now
                confident = stable >= (teleport or 0) and posterior.probs.max() >= 0.5
                if teleport is not None and confident and teleported_for != goal_now:
                    teleported_for = goal_now
                    state = teleport_helper(state, layout, goal_now)
                helper_action = helper.act(state, posterior, helper_rng)
        next_state = step(layout, state, human_action, helper_action)
        if posterior is not None:
            posterior = reasoner.update(Observation(state, human_action))
            exact_posterior = exact.update(Observation(state, human_action))
        state = next_state
        if goal_achieved(state, episode.goal, layout):
            return EpisodeRun(state.t, True, map_correct, true_prob, kls)
    return EpisodeRun(max_steps, False, map_correct, true_prob, kls)


def teleport_helper(state, layout, goal):
    """Move an empty-handed helper onto the object it would fetch for ``goal`` (reference eval mode)."""
    _, other = human_first_object(state, layout, goal)
    if state.helper_carry >= 0 or not state.on_ground(other):
        return state
    return replace(state, helper=state.objects[other])


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


def run_assist(
    config: AssistConfig, make_reasoner: Callable[[int], Reasoner], progress: bool = True
) -> tuple[dict, list[dict], list[float | None]]:
    """Evaluate a reasoner; returns (metrics, per-episode samples, Fig. 5 accuracy curve)."""
    if config.layouts:
        episodes = episodes_on_layouts(load_layouts(config.layouts), config.episodes, config.episode_seed)
    else:
        episodes = generate_episodes(
            config.episodes, config.episode_seed, config.family, n_objects=config.n_objects, size=config.size
        )
    samples, helped_runs = [], []
    reasoner_stats = None  # summed DecisionStats of reasoners that count their cost (LLMs)
    jobs = [(s, e) for s in config.seeds for e in episodes]
    for seed, episode in tqdm(jobs, desc=f"assist[{config.reasoner}]", disable=not progress, leave=False):
        alone = run_episode(episode, None, seed, config.epsilon, config.max_steps)
        reasoner = make_reasoner(seed)
        helped = run_episode(episode, reasoner, seed, config.epsilon, config.max_steps, config.teleport)
        helped_runs.append(helped)
        stats = getattr(reasoner, "stats", None)
        if stats is not None:
            reasoner_stats = stats if reasoner_stats is None else reasoner_stats.merge(stats)
        samples.append(
            {
                "episode_id": episode.episode_id,
                "seed": seed,
                "goal": list(episode.goal),
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
        "speedup_stderr": float(speedups.std(ddof=1) / np.sqrt(len(speedups))) if len(speedups) > 1 else 0.0,
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
