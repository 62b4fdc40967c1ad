"""SSRL reward throughput: a batch of 64 completions of 8 particles at a mid-episode step.

    python benchmarks/bench_reward.py [--batches 20] [--passes 5] [--naive-per-batch 4] [--prompts-per-call 4]

Target (issue 4): ≥ 20,000 rewards/s on one core, and ≥ 100× a naive implementation that replays
the episode for every particle of every completion (measured in the same run).

Every batch is a new prompt on a new layout, scored with cold caches: its layout is parsed, its
distance tables and the policy along its action prefix are computed, then its 64 completions are
parsed and scored. Each pass uses new episodes and alternates reward calls with the naive replay
of a few of the same prompts' completions (same prefix lengths), so both meet the same machine
phases; the replay between calls also leaves the next call's CPU caches cold, as generation does
in training. A call scores ``--prompts-per-call`` prompts back to back, as a GRPO trainer's reward
call does; the worst case, one prompt per call, is printed too. The best pass of each counts (the
shared machine's noise only ever adds time), and each pass's own ratio is printed. The last pass
is then scored again with every cache warm, which isolates the per-completion part.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict

import numpy as np

from mindzero.core.human import HumanParams
from mindzero.core.reward import ssrl_reward
from mindzero.domains.gridworld.hypotheses import format_goal_particles, parse_goal_particles
from mindzero.domains.gridworld.ssrl import STEP_PROB_FLOOR, AssistTask
from mindzero.domains.reward import SSRLReward
from mindzero.envs.gridworld.episodes import generate_episodes, rollout_alone
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.world import ACTION_NAMES, WorldState, goal_pairs, step

#: The evaluation human (ε = 0.15), for both the reward and the naive replay.
HUMAN = HumanParams()


def completions(layout, rng, n: int = 64, k: int = 8) -> list[str]:
    goals = goal_pairs(len(layout.objects))
    objects = [(o.color, o.shape) for o in layout.objects]
    out = []
    for _ in range(n):
        picks = rng.choice(len(goals), size=k, replace=False)
        out.append(format_goal_particles([goals[i] for i in picks], rng.dirichlet(np.ones(k)), objects))
    return out


def naive_reward(text: str, layout, actions: list[str], human: HumanParams = HUMAN) -> float:
    """Parse, then replay the whole episode for each particle with a fresh policy computation."""
    objects = [(o.color, o.shape) for o in layout.objects]
    result = parse_goal_particles(text, objects)
    model = HumanModel(layout, **asdict(human))
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


def score_all(reward: SSRLReward, batches: list) -> float:
    """Seconds to score every batch."""
    start = time.perf_counter()
    for _, text, prefix, comps in batches:
        reward(None, comps, layout=[text] * len(comps), actions=[prefix] * len(comps))
    return time.perf_counter() - start


def timed_pass(reward: SSRLReward, batches: list, naive_per_batch: int, prompts_per_call: int) -> tuple:
    """(seconds of the fast reward on all batches, seconds of the naive replay of the first
    ``naive_per_batch`` completions of each). The fast reward is called as a trainer calls it, on
    ``prompts_per_call`` prompts' completions at once; calls and naive replays alternate so that
    both meet the same machine phases (and the replay leaves the next call's CPU caches cold)."""
    fast = naive = 0.0
    for k in range(0, len(batches), prompts_per_call):
        call = batches[k : k + prompts_per_call]
        comps = [c for b in call for c in b[3]]
        layouts = [b[1] for b in call for _ in b[3]]
        prefixes = [b[2] for b in call for _ in b[3]]
        start = time.perf_counter()
        reward(None, comps, layout=layouts, actions=prefixes)
        middle = time.perf_counter()
        for layout, _, prefix, batch_comps in call:
            for c in batch_comps[:naive_per_batch]:
                naive_reward(c, layout, prefix)
        fast, naive = fast + middle - start, naive + time.perf_counter() - middle
    return fast, naive


def make_batches(n_batches: int, seed: int, rng: np.random.Generator) -> list:
    """One prompt per new episode (so a new layout): its mid-episode action prefix and 64 completions."""
    batches = []
    for k, ep in enumerate(generate_episodes(n_batches, seed=seed)):
        _, actions = rollout_alone(ep, HumanModel(ep.layout, **asdict(HUMAN)), np.random.default_rng([seed, k]))
        prefix = [ACTION_NAMES[a] for a in actions[: len(actions) // 2]]
        batches.append((ep.layout, ep.layout.to_text(), prefix, completions(ep.layout, rng)))
    return batches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=20, help="prompts per pass (one batch of 64 completions each)")
    parser.add_argument("--passes", type=int, default=5, help="passes, each on new episodes; the best is kept")
    parser.add_argument("--naive-per-batch", type=int, default=4, help="completions per batch for the naive replay")
    parser.add_argument("--prompts-per-call", type=int, default=4, help="prompts a trainer scores in one reward call")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = args.batches * 64
    n_naive = args.batches * args.naive_per_batch

    print(f"{n} completions x 8 particles per pass; best of {args.passes} passes")
    reward = SSRLReward(AssistTask(), HUMAN)
    # Every pass meets new layouts and prefixes: per-prompt caches are cold. Tables that depend only
    # on the model's parameters (built once per process) are warm after the first pass.
    for prompts_per_call, seeds in (
        (args.prompts_per_call, range(1, args.passes + 1)),
        (1, range(args.passes + 1, 2 * args.passes + 1)),
    ):
        passes = [make_batches(args.batches, seed, rng) for seed in seeds]  # new episodes: cold caches
        fast, naive = [], []
        for batches in passes:
            fast_seconds, naive_seconds = timed_pass(reward, batches, args.naive_per_batch, prompts_per_call)
            fast.append(n / fast_seconds)
            naive.append(n_naive / naive_seconds)
        ratios = np.array(fast) / np.array(naive)
        mean_t = np.mean([len(b[2]) for batches in passes for b in batches])
        print(f"reward calls of {prompts_per_call} prompt(s) x 64 completions (mean prefix {mean_t:.1f} actions):")
        print(f"  SSRL reward:  {max(fast):10,.0f} rewards/s  cold: new layouts and prefixes  (target ≥ 20,000/s)")
        best = max(fast) / max(naive)
        print(f"  naive replay: {max(naive):10,.1f} rewards/s  -> {best:,.0f}x faster (target ≥ 100x)")
        print(f"    per pass:   {' '.join(f'{r:.0f}x' for r in ratios)}  (median {np.median(ratios):.0f}x)")
    warm = n / score_all(reward, passes[-1])  # every cache now holds these prompts
    print(f"warm caches:    {warm:10,.0f} rewards/s  (parse + reward; the rest is each new prompt's setup)")


if __name__ == "__main__":
    main()
