"""The held-out assistance curve of a finished (or running) SSRL run, re-read from its checkpoints
with a read-out the run's own curve did not use.

Why: a one-particle model's greedy answer names one goal of hundreds, so the run's curve (KL to
exact, p(true goal)) stays flat whatever the model learned; ``--answer-mode score`` reads the
model's probability of naming each goal instead, and ``--samples K`` pools K sampled answers.
Each checkpoint is scored on the same held-out decisions as the run's curve (its domain, eval
episodes, eval seed and human, from OUT/ssrl_config.json).

    python benchmarks/probes/checkpoint_curve.py runs/hh-assist-facts-s0 --answer-mode score --every 100
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from mindzero.core.human import HumanParams
from mindzero.domains import get_domain
from mindzero.llm import load_backend
from mindzero.tasks.curves import assist_decisions, score_assist


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a train ssrl --task assist output folder")
    parser.add_argument("--every", type=int, default=100, help="read every k-th step's checkpoint")
    parser.add_argument(
        "--checkpoints",
        type=Path,
        help="folder of checkpoint-N copies (the trainer keeps only its last two; default RUN)",
    )
    parser.add_argument("--answer-mode", default="score", choices=("score", "generate"))
    parser.add_argument("--samples", type=int, default=1, help="generate: answers pooled per decision")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--out", type=Path, help="JSONL of the rows (default: RUN/curve-<mode>.jsonl)")
    args = parser.parse_args()
    config = json.loads((args.run / "ssrl_config.json").read_text())
    if config["task"] != "assist":
        parser.error(f"{args.run} trained task {config['task']!r}; this reads assistance runs")
    domain = get_domain(config["domain"])
    human = HumanParams(**config["human"])
    episodes = domain.heldout_episodes(config["eval_episodes"], config["eval_seed"])
    decisions = assist_decisions(domain, episodes, human, config["eval_seed"])
    steps = {
        int(m.group(1)): p
        for p in (args.checkpoints or args.run).glob("checkpoint-*")
        if (m := re.fullmatch(r"checkpoint-(\d+)", p.name))
    }
    chosen = [(0, args.run / "format" / "final")] * (args.run / "format" / "final").is_dir()
    chosen += [(s, p) for s, p in sorted(steps.items()) if s % args.every == 0]
    out = args.out or args.run / f"curve-{args.answer_mode}.jsonl"
    data = config["data"]
    with out.open("w") as f:
        for step, path in chosen:
            backend = load_backend(f"hf:{path}")
            row = score_assist(
                domain, backend, decisions, data["n_particles"], data["prompt_style"], config["max_completion_length"],
                args.samples, args.temperature, config["eval_seed"], args.answer_mode,
            )  # fmt: skip
            row = {"step": step, **row}
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(" ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()), flush=True)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
