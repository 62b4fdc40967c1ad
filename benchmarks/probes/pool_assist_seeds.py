"""Several training seeds' assistance evaluations pooled: the learned helper's speedup over every
run of every seed, its share of a reference helper's speedup and its margin over random, both
paired run by run (same episode and agent seed), as issue 47's criterion asks (3 seeds x >= 60
episodes). Each folder is a ``household assist`` (or ``gridworld assist``) output; the references
are read from the first folder that has them (the evaluation is deterministic by seed, so every
folder's random and smc runs are the same).

    python benchmarks/probes/pool_assist_seeds.py runs/hh-eval-balanced-s0 runs/hh-eval-balanced-s1 \
        runs/hh-eval-balanced-s2 --reference smc
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from mindzero.tasks.assist import paired_share, stderr


def samples(folder: Path, reasoner: str) -> list[dict]:
    """The runs of one reasoner: FOLDER/REASONER/ when the evaluation ran several, else FOLDER/."""
    path = folder / reasoner / "samples.jsonl"
    if not path.is_file() and reasoner in json.loads((folder / "mindzero-run.json").read_text())["config"]["reasoner"]:
        path = folder / "samples.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", type=Path, nargs="+", help="assist output folders, one per training seed")
    parser.add_argument("--reasoner", default="llm", help="the learned helper's folder name")
    parser.add_argument("--reference", default="smc", help="the helper whose speedup the share is of")
    args = parser.parse_args()
    learned = [s for f in args.folders for s in samples(f, args.reasoner)]
    with_refs = next((f for f in args.folders if (f / args.reference).is_dir() and (f / "random").is_dir()), None)
    if with_refs is None:
        parser.error(f"no folder has both {args.reference}/ and random/ runs")
    reference, random = samples(with_refs, args.reference), samples(with_refs, "random")
    random_of = {(r["episode_id"], r["seed"]): r["speedup"] for r in random}
    margin = [s["speedup"] - random_of[s["episode_id"], s["seed"]] for s in learned]
    speedups = [s["speedup"] for s in learned]
    share = paired_share(learned, reference)
    per_seed = [float(np.mean([s["speedup"] for s in samples(f, args.reasoner)])) for f in args.folders]
    print(f"{len(args.folders)} seeds x {len(learned) // len(args.folders)} runs")
    print(f"per seed: {', '.join(f'{v:+.3f}' for v in per_seed)}")
    print(f"{args.reasoner}: {np.mean(speedups):+.3f} ± {stderr(speedups):.3f}")
    for name, runs in ((args.reference, reference), ("random", random)):
        values = [r["speedup"] for r in runs]
        print(f"{name}: {np.mean(values):+.3f} ± {stderr(values):.3f}")
    print(f"share of {args.reference} (paired): {share[0]:.2f} ± {share[1]:.2f}")
    gain, error = float(np.mean(margin)), stderr(margin)
    print(f"over random (paired): {gain:+.3f} ± {error:.3f} ({gain / error:.1f} s.e.)")


if __name__ == "__main__":
    main()
