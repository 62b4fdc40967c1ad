"""Our ``reference`` protocol against the reference implementation's own episodes, in one run: the
shared README's statistics, the filters' pass rates and the helpers' speedups (issue 48).

    python benchmarks/gw_reference_protocol.py [--episodes 200] [--file FILE] [--sets file,reference]

(FILE: by default ../shared/data/gw_reference_episodes/episodes_seed0.jsonl.)

Three sets: the shared file (with the reference human's recorded trajectories), our ``reference``
protocol (with its generator's rollouts) and our ``ambiguous`` protocol (the former ``paper``;
fresh rollouts). p(true goal) is exact inference under the evaluation human (ε 0.15) on those
noise-free trajectories. A "fresh" rollout is a new one of the generator's human (the reference's
noise-free human, ``ReferenceHuman``; seeded by ``--rollout-seed``), on which the reference filter
is recomputed. ``--sets`` measures fewer sets (e.g. ``file,reference``) while exploring.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from mindzero.core.human import HumanParams
from mindzero.domains import get_domain
from mindzero.domains.gridworld.protocol import ReferenceHuman, passes_reference_filter, reference_draw
from mindzero.domains.gridworld.reasoners import ExactGoalInference
from mindzero.envs.gridworld.episodes import Episode, generated_episode, load_episodes, rollout_alone
from mindzero.envs.gridworld.world import ACTION_NAMES, Action, Observation, WorldState, goal_achieved, step
from mindzero.tasks.assist import AssistSettings, run_assist

SHARED = Path(__file__).resolve().parents[2] / "shared/data/gw_reference_episodes/episodes_seed0.jsonl"
TICKS = (3, 6, 10)
#: (label, reasoner, teleport)
HELPERS = (
    ("random", "random", None),
    ("random-episode", "random-episode", None),
    ("exact, teleport off", "exact", None),
    ("exact, --teleport 3", "exact", 3),
    ("oracle, teleport off", "oracle", None),
)


def replay(episode: Episode, names: list[str]) -> tuple[list[WorldState], list[int]]:
    actions = [ACTION_NAMES.index(a) for a in names]
    states = [episode.initial_state()]
    for a in actions:
        states.append(step(episode.layout, states[-1], a, Action.STAY))
    return states, actions


def fresh_rollout(episode: Episode, k: int, seed: int) -> tuple[list[WorldState], list[int]]:
    """A new rollout of the generator's human (the reference's, :class:`ReferenceHuman`)."""
    model = ReferenceHuman.from_params(episode.layout)
    return rollout_alone(episode, model, np.random.default_rng([seed, k]), max_steps=49)


def true_goal_probs(episode: Episode, states: list[WorldState], actions: list[int]) -> tuple[dict, bool]:
    """p(true goal) after TICKS actions (exact inference, evaluation human) and whether the MAP
    goal is right after the last of them."""
    inference = ExactGoalInference(HumanParams())
    posterior = inference.reset(episode)
    probs = {}
    for t, a in enumerate(actions[: max(TICKS)], 1):
        posterior = inference.update(Observation(states[t - 1], a))
        if t in TICKS:
            probs[t] = posterior.prob(episode.goal)
    return probs, posterior.map() == episode.goal


def geometry(episode: Episode) -> tuple[int, int, int]:
    lay = episode.layout
    h = lay.index(lay.human_start)
    near, far = sorted(int(lay.dist(h, lay.index(lay.object_cells[g]))) for g in episode.goal)
    return len(lay.obstacles), near, far


def mean_se(values: list[float]) -> tuple[float, float]:
    a = np.asarray(values, dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else 0.0


def describe(name: str, episodes: list[Episode], trajectories: list, rollout_seed: int) -> dict:
    """Statistics of a set: its own noise-free trajectories and fresh ones."""
    probs = {t: [] for t in TICKS}
    fresh_probs = {t: [] for t in TICKS}
    right, own_pass, fresh_pass, fresh_done, t_free = [], [], [], [], []
    for k, (ep, (states, actions)) in enumerate(zip(episodes, trajectories)):
        p, ok = true_goal_probs(ep, states, actions)
        for t, v in p.items():
            probs[t].append(v)
        right.append(ok)
        t_free.append(len(actions))
        own_pass.append(passes_reference_filter(ep, states, actions))
        fs, fa = fresh_rollout(ep, k, rollout_seed)
        for t, v in true_goal_probs(ep, fs, fa)[0].items():
            fresh_probs[t].append(v)
        fresh_done.append(goal_achieved(fs[-1], ep.goal, ep.layout))
        fresh_pass.append(fresh_done[-1] and passes_reference_filter(ep, fs, fa))
    geo = np.array([geometry(ep) for ep in episodes])
    return {
        "set": name,
        "episodes": len(episodes),
        "t_alone_noise_free": mean_se(t_free),
        "obstacles": float(geo[:, 0].mean()),
        "path_near": float(geo[:, 1].mean()),
        "path_far": float(geo[:, 2].mean()),
        "path_min": int(geo[:, 1].min()),
        "p_true": {t: mean_se(v) for t, v in probs.items()},
        "p_true_fresh": {t: mean_se(v) for t, v in fresh_probs.items()},
        "map_right_at_10": float(np.mean(right)),
        "reference_filter_own": float(np.mean(own_pass)),
        "reference_filter_fresh": float(np.mean(fresh_pass)),
        "ambiguous_filter": float(np.mean([ep.fits_ambiguous_protocol() for ep in episodes])),
    }


def speedups(episodes: list[Episode], seeds: list[int]) -> dict:
    domain = get_domain("gridworld")
    out = {}
    for label, reasoner, teleport in HELPERS:
        settings = AssistSettings(seeds=seeds, teleport=teleport, calibrate=False)
        metrics, _, _ = run_assist(
            domain,
            episodes,
            settings,
            lambda seed, r=reasoner, h=settings.human: domain.reasoner(r, seed, h),
            progress=False,
        )
        out[label] = (metrics["speedup_mean"], metrics["speedup_stderr"])
        out.setdefault("T_alone (ε 0.15)", (metrics["t_alone_mean"], None))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", default=str(SHARED), help="the reference episodes (JSONL)")
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--episode-seed", type=int, default=0, help="seed of our generators")
    parser.add_argument("--rollout-seed", type=int, default=1, help="seed of the fresh noise-free rollouts")
    parser.add_argument("--seeds", type=int, nargs="+", default=[10, 20, 30], help="agent seeds of the assistance runs")
    parser.add_argument(
        "--sets",
        default="file,reference,ambiguous",
        help="comma-separated sets to measure, in order (file, reference, ambiguous): fewer while exploring",
    )
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()

    started = time.perf_counter()
    chosen = [name.strip() for name in args.sets.split(",") if name.strip()]
    unknown = sorted(set(chosen) - {"file", "reference", "ambiguous"})
    if unknown or not chosen:
        parser.error(f"--sets: choose among file, reference, ambiguous (got {args.sets!r})")
    sets = {}
    for name in chosen:
        if name == "file":
            rows = [json.loads(line) for line in Path(args.file).read_text().splitlines() if line.strip()]
            shared = load_episodes(args.file)[: args.episodes]
            trajectories = [replay(ep, r["human_actions"]) for ep, r in zip(shared, rows)]
            sets["reference file"] = (shared, trajectories)
        elif name == "reference":
            draws = [reference_draw(k, args.episode_seed) for k in range(args.episodes)]
            sets["ours: reference"] = ([d.episode for d in draws], [(d.states, d.actions) for d in draws])
        else:
            ambiguous = [generated_episode(k, args.episode_seed, protocol="ambiguous") for k in range(args.episodes)]
            sets["ours: ambiguous"] = (
                ambiguous,
                [fresh_rollout(ep, k, args.episode_seed) for k, ep in enumerate(ambiguous)],
            )
    results = {}
    for name, (episodes, trajectories) in sets.items():
        stats = describe(name, episodes, trajectories, args.rollout_seed)
        stats["helpers"] = speedups(episodes, args.seeds)
        results[name] = stats
        print(f"[{time.perf_counter() - started:6.0f} s] {name} done", flush=True)

    names = list(results)
    print(f"\n{args.episodes} episodes per set; helpers over seeds {args.seeds}\n")
    print(f"{'statistic':40s}" + "".join(f"{n:>22s}" for n in names))

    def row(label: str, cells: list[str]) -> None:
        print(f"{label:40s}" + "".join(f"{c:>22s}" for c in cells))

    def pm(v: tuple) -> str:
        return f"{v[0]:+.3f} ± {v[1]:.3f}" if v[1] is not None else f"{v[0]:.1f}"

    row("t_alone, noise-free trajectory", [f"{r['t_alone_noise_free'][0]:.1f}" for r in results.values()])
    row("obstacles", [f"{r['obstacles']:.2f}" for r in results.values()])
    row(
        "path to nearer / farther goal (min)",
        [f"{r['path_near']:.1f} / {r['path_far']:.1f} ({r['path_min']})" for r in results.values()],
    )
    for t in TICKS:
        row(
            f"p(true goal) at tick {t}",
            [f"{r['p_true'][t][0]:.3f} ± {r['p_true'][t][1]:.3f}" for r in results.values()],
        )
    for t in TICKS:
        row(
            f"p(true goal) at tick {t}, fresh rollout",
            [f"{r['p_true_fresh'][t][0]:.3f} ± {r['p_true_fresh'][t][1]:.3f}" for r in results.values()],
        )
    row("MAP right at tick 10", [f"{r['map_right_at_10']:.0%}" for r in results.values()])
    row("reference filter, own trajectory", [f"{r['reference_filter_own']:.0%}" for r in results.values()])
    row("reference filter, fresh rollout", [f"{r['reference_filter_fresh']:.0%}" for r in results.values()])
    row("ambiguous filter (former paper)", [f"{r['ambiguous_filter']:.0%}" for r in results.values()])
    for label in results[names[0]]["helpers"]:
        row(label, [pm(r["helpers"][label]) for r in results.values()])
    if len(names) > 1 and names[0] == "reference file":
        ref, new = results[names[0]]["helpers"], results[names[1]]["helpers"]
        for label in ("exact, teleport off", "exact, --teleport 3"):
            diff = new[label][0] - ref[label][0]
            both = math.hypot(new[label][1], ref[label][1])
            print(
                f"{label}: {names[1]} − file = {diff:+.3f} = {diff / both:+.2f} combined SE "
                f"({diff / ref[label][1]:+.2f} SE of the file's)"
            )
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))


if __name__ == "__main__":
    main()
