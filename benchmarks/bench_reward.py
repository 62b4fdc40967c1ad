"""SSRL reward throughput: a batch of 64 completions of 8 particles at a mid-episode step.

    python benchmarks/bench_reward.py [--batches 20]

Target (issue 4): ≥ 20,000 rewards/s on one core, and ≥ 100× a naive implementation that replays
the episode for every particle of every completion (measured in the same run).

Every batch is a new prompt on a new layout, timed once with cold caches: its layout is parsed, its
distance tables and the policy along its action prefix are computed, then its 64 completions are
parsed and scored. The same batches are then scored again with every cache warm, which isolates
the per-completion part (parse + reward).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mindzero.core.hypotheses import format_goal_particles, parse_goal_particles
from mindzero.core.reward import ssrl_reward
from mindzero.envs.gridworld.episodes import generate_episodes, rollout_alone
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.world import ACTION_NAMES, WorldState, goal_pairs, step
from mindzero.tasks.gridworld_ssrl import STEP_PROB_FLOOR, ParticlesReward, _prefix_logliks


def completions(layout, rng, n: int = 64, k: int = 8) -> list[str]:
    goals = goal_pairs(len(layout.objects))
    objects = [(o.color, o.shape) for o in layout.objects]
    out = []
    for _ in range(n):
        picks = rng.choice(len(goals), size=k, replace=False)
        out.append(format_goal_particles([goals[i] for i in picks], rng.dirichlet(np.ones(k)), objects))
    return out


def naive_reward(text: str, layout, actions: list[str], epsilon: float = 0.15) -> float:
    """Parse, then replay the whole episode for each particle with a fresh policy computation."""
    objects = [(o.color, o.shape) for o in layout.objects]
    result = parse_goal_particles(text, objects)
    model = HumanModel(layout, epsilon=epsilon)
    logliks = []
    for goal in result.posterior.hypotheses:
        state, total = WorldState.initial(layout), 0.0
        for name in actions:
            a = ACTION_NAMES.index(name)
            total += np.log(max(model.reference_policy(state, np.array([goal]))[0, a], STEP_PROB_FLOOR))
            state = step(layout, state, a, 0)
        logliks.append(total)
    n_goals = len(model.all_goals)
    return ssrl_reward(result.posterior.probs, np.array(logliks), np.full(len(logliks), -np.log(n_goals)))


def score_all(reward: ParticlesReward, batches: list) -> float:
    """Seconds to score every batch."""
    start = time.perf_counter()
    for _, text, prefix, comps in batches:
        reward(None, comps, layout=[text] * len(comps), actions=[prefix] * len(comps))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=20, help="prompts (one batch of 64 completions each)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    batches = []
    for k, ep in enumerate(generate_episodes(args.batches, seed=1)):
        _, actions = rollout_alone(ep, HumanModel(ep.layout), np.random.default_rng(k))
        prefix = [ACTION_NAMES[a] for a in actions[: len(actions) // 2]]
        batches.append((ep.layout, ep.layout.to_text(), prefix, completions(ep.layout, rng)))
    n = sum(len(b[3]) for b in batches)
    mean_t = np.mean([len(b[2]) for b in batches])

    reward = ParticlesReward()
    _prefix_logliks.cache_clear()
    fast = n / score_all(reward, batches)
    warm = n / score_all(reward, batches)  # every cache now holds these prompts

    start = time.perf_counter()
    sample = batches[: max(1, len(batches) // 10)]
    for layout, _, prefix, comps in sample:
        for c in comps:
            naive_reward(c, layout, prefix)
    naive = sum(len(b[3]) for b in sample) / (time.perf_counter() - start)
    print(f"{n} completions x 8 particles, mean prefix {mean_t:.1f} actions (cold likelihood caches)")
    print(f"SSRL reward:  {fast:10,.0f} rewards/s  (target ≥ 20,000/s)")
    print(f"  warm caches:{warm:10,.0f} rewards/s  (parse + reward; the rest is each new prompt's setup)")
    print(f"naive replay: {naive:10,.1f} rewards/s  -> {fast / naive:,.0f}x faster (target ≥ 100x)")


if __name__ == "__main__":
    main()
