"""GridWorld speed figures: exact posterior update latency (vs naive replay), env steps/s, and one
full 100-tick helped episode with exact inference.

    python benchmarks/bench_gridworld.py [--episodes 50]

Targets (issue 2): update ≤ 50 µs amortised for 28 goals; a 100-tick helped episode ≤ 20 ms.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict

import numpy as np

from mindzero.core.human import HumanParams
from mindzero.domains.gridworld.reasoners import ExactGoalInference, replay_posterior
from mindzero.envs.gridworld.episodes import generate_episodes, rollout_alone
from mindzero.envs.gridworld.helper import HelperPlanner
from mindzero.envs.gridworld.human import HumanModel, _goal_table
from mindzero.envs.gridworld.world import Observation, goal_achieved, step

#: The evaluation human (ε = 0.15): simulator and exact inference share it.
HUMAN = HumanParams()


def bench_updates(episodes) -> None:
    trajectories = []
    for k, ep in enumerate(episodes):
        human = HumanModel(ep.layout, **asdict(HUMAN))
        states, actions = rollout_alone(ep, human, np.random.default_rng(k), max_steps=100)
        trajectories.append((ep, [Observation(s, a) for s, a in zip(states, actions)]))
    n_updates = sum(len(obs) for _, obs in trajectories)

    online = np.inf
    for _ in range(5):  # best of 5 passes: the machine's noise only ever adds time
        _goal_table.cache_clear()  # cold: every update computes its state's policy table
        start = time.perf_counter()
        for ep, obs in trajectories:
            inference = ExactGoalInference(HUMAN)
            inference.reset(ep)
            for o in obs:
                inference.update(o)
        online = min(online, (time.perf_counter() - start) / n_updates)

    start = time.perf_counter()
    for ep, obs in trajectories:
        for t in range(len(obs)):
            replay_posterior(ep, obs[: t + 1], HUMAN)
    naive = (time.perf_counter() - start) / n_updates
    print(f"exact posterior update (28 goals): {online * 1e6:8.1f} µs/action amortised, best of 5  (target ≤ 50 µs)")
    print(f"naive replay-the-history update:   {naive * 1e6:8.1f} µs/action  -> online is {naive / online:.1f}x faster")
    print(f"  ({n_updates} updates over {len(trajectories)} episodes, mean length {n_updates / len(trajectories):.1f})")


def bench_env(episodes) -> None:
    ep = episodes[0]
    state = ep.initial_state()
    rng = np.random.default_rng(0)
    moves = rng.integers(0, 7, size=(20000, 2))
    start = time.perf_counter()
    for a, b in moves:
        state = step(ep.layout, state, int(a), int(b))
    elapsed = time.perf_counter() - start
    print(f"env dynamics: {len(moves) / elapsed:,.0f} steps/s")
    model = HumanModel(ep.layout, **asdict(HUMAN))
    start = time.perf_counter()
    for _ in range(2000):
        model.sample(state, ep.goal, rng)
    print(f"simulated human: {2000 / (time.perf_counter() - start):,.0f} actions/s")


def helped_episode_seconds(ep, seed: int, ticks: int) -> float:
    """One run of human + helper + exact inference for exactly ``ticks`` ticks (restarts on success)."""
    _goal_table.cache_clear()  # cold: no policy table from an earlier run
    human, helper = HumanModel(ep.layout, **asdict(HUMAN)), HelperPlanner(ep.layout)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    inference = ExactGoalInference(HUMAN)
    posterior = inference.reset(ep)
    state = ep.initial_state()
    for _ in range(ticks):
        a = human.sample(state, ep.goal, rng)
        b = helper.act(state, posterior, rng)
        nxt = step(ep.layout, state, a, b)
        posterior = inference.update(Observation(state, a))
        state = nxt
        if goal_achieved(state, ep.goal, ep.layout):
            state, posterior = ep.initial_state(), inference.reset(ep)
    return time.perf_counter() - start


def bench_helped_episode(episodes, ticks: int = 100, repeats: int = 3) -> None:
    """Per episode the best of ``repeats`` identical runs (same seed, same work); median over episodes."""
    times = [min(helped_episode_seconds(ep, k, ticks) for _ in range(repeats)) for k, ep in enumerate(episodes[:20])]
    print(
        f"{ticks}-tick helped episode with exact inference: median {np.median(times) * 1e3:.1f} ms over 20 episodes, "
        f"each best of {repeats} (min {min(times) * 1e3:.1f}, max {max(times) * 1e3:.1f}; target ≤ 20 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=50)
    args = parser.parse_args()
    episodes = generate_episodes(args.episodes, seed=0)
    for ep in episodes:
        _ = ep.layout.distance  # precomputed per layout, outside the timed loops
    bench_updates(episodes)
    bench_env(episodes)
    bench_helped_episode(episodes)


if __name__ == "__main__":
    main()
