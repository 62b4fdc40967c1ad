"""The cpu-tiny QA learning claim as a table from runs: the recipe trained on several seeds, each
final model evaluated by ``gridworld qa-eval`` with no decoding flags (the model card says how to ask
it) on the curve's own held-out questions (it must give the curve's last point) and on one shared
test split, and one table of wall time, the held-out curve at fixed steps, both evaluations, and
mean ± sd of the shared split's accuracy.

    python benchmarks/learning_claims.py --seeds 0,1,2 --out runs/learning-claims   # ~45 min a seed here

The README and docs/ssrl.md quote the table this writes (``OUT/table.md``), nothing else: ``--docs``
writes it between their ``<!-- learning-claims -->`` markers (a test checks the two copies agree).
``--smoke`` shrinks every stage (a tiny model, a few steps) to check the pipeline in seconds.
Finished stages are reused, so a cut run continues where it stopped.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from mindzero.cli import main as mindzero
from mindzero.core.results import atomic_write_text, dumps_json

#: The files that quote the table, and the markers around the quote.
DOCS = (Path("README.md"), Path("docs/ssrl.md"))
START, END = "<!-- learning-claims -->", "<!-- /learning-claims -->"
#: Steps at which the held-out curve is reported (those the run reached).
CURVE_STEPS = (0, 100, 200, 400, 800, 1200)
#: The recipe (docs/ssrl.md, R1): the cpu-tiny preset on QA, four completion tokens.
RECIPE = ["train", "ssrl", "--preset", "cpu-tiny", "--task", "qa", "--max-completion-length", "4"]
SMOKE = ["--scratch-hidden", "32", "--scratch-layers", "1", "--scratch-heads", "2", "--scratch-vocab", "400",
         "--data-episodes", "4", "--warm-start-steps", "2", "--prompts-per-step", "2", "--num-generations", "2",
         "--eval-every", "1", "--eval-questions", "6", "--save-steps", "1"]  # fmt: skip


def run(argv: list[str]) -> None:
    if mindzero(argv) != 0:
        raise SystemExit(f"failed: mindzero {' '.join(argv)}")


def seed_row(seed: int, out: Path, test: Path, max_steps: int, smoke: bool) -> dict:
    """Train (or reuse) one seed's run, evaluate its final model, and read its curve."""
    folder = out / f"seed{seed}"
    started = time.perf_counter()
    if not (folder / "final" / "config.json").is_file():
        resume = ["--resume", "true"] if folder.is_dir() else []
        run([*RECIPE, *(SMOKE if smoke else []), "--seed", str(seed), "--max-steps", str(max_steps),
             "--out", str(folder), *resume])  # fmt: skip
    seconds = time.perf_counter() - started
    accuracy = evaluate(folder / "final", test, out / f"eval-seed{seed}")
    on_curve = evaluate(folder / "final", curve_questions(out, folder), out / f"eval-curve-seed{seed}")
    curve = {json.loads(line)["step"]: json.loads(line)["accuracy"] for line in (folder / "curves.jsonl").open()}
    log = [json.loads(line) for line in (folder / "train_log.jsonl").open()]
    wall = log[-1]["seconds"] if log else seconds
    return {"seed": seed, "train_seconds": wall, "curve": {s: curve[s] for s in CURVE_STEPS if s in curve},
            "last_step": max(curve), "last_point": curve[max(curve)], "qa_eval_on_curve_questions": on_curve,
            "qa_eval_accuracy": accuracy}  # fmt: skip


def evaluate(model: Path, questions: Path, out: Path) -> float:
    """``gridworld qa-eval`` of ``model`` on ``questions`` with no decoding flags (its card says how)."""
    if not (out / "results.json").is_file():
        run(["gridworld", "qa-eval", "--data", str(questions), "--reasoner", "llm", "--model", str(model),
             "--out", str(out), "--overwrite"])  # fmt: skip
    return json.loads((out / "results.json").read_text())["metrics"]["accuracy"]


def curve_questions(out: Path, folder: Path) -> Path:
    """The held-out questions of a run's learning curve as a ``qa-data`` test split: the same
    generator, seed and count (3 questions an episode), so that ``qa-eval`` on them must give the
    curve's own figure if it asks the model the way training did."""
    config = json.loads((folder / "ssrl_config.json").read_text())
    n, seed = config["eval_questions"], config["eval_seed"]
    data = out / f"curve-questions-{seed}-{n}"
    if not (data / "test.jsonl").is_file():
        run(["gridworld", "qa-data", "--train-episodes", "1", "--test-episodes", str(max(1, n // 3)),
             "--images", "false", "--seed", str(seed), "--out", str(data), "--overwrite"])  # fmt: skip
    return data / "test.jsonl"


def table(rows: list[dict]) -> str:
    """The markdown table: one row per seed, then mean ± sd of the final accuracy."""
    steps = sorted({s for r in rows for s in r["curve"]})
    lines = ["| seed | train min | " + " | ".join(f"curve @{s}" for s in steps)
             + " | qa-eval, the curve's questions | qa-eval accuracy |", "|---" * (4 + len(steps)) + "|"]  # fmt: skip
    for r in rows:
        points = " | ".join(f"{r['curve'][s]:.3f}" if s in r["curve"] else "–" for s in steps)
        lines.append(f"| {r['seed']} | {r['train_seconds'] / 60:.1f} | {points} | "
                     f"{r['qa_eval_on_curve_questions']:.3f} | {r['qa_eval_accuracy']:.3f} |")  # fmt: skip
    finals = [r["qa_eval_accuracy"] for r in rows]
    spread = statistics.stdev(finals) if len(finals) > 1 else 0.0
    seeds = f"{len(rows)} seed" + ("s" if len(rows) != 1 else "")
    lines.append(f"\nmean ± sd over {seeds}: {statistics.mean(finals):.3f} ± {spread:.3f}")
    return "\n".join(lines) + "\n"


def quote_in(doc: Path, text: str) -> None:
    """Replace what ``doc`` holds between the markers by ``text``."""
    content = doc.read_text()
    head, start, rest = content.partition(START)
    _, end, tail = rest.partition(END)
    if not (start and end):
        raise SystemExit(f"{doc} has no {START} ... {END} block")
    atomic_write_text(doc, f"{head}{START}\n{text}{END}{tail}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2", help="comma list of training seeds")
    parser.add_argument("--max-steps", type=int, default=1200, help="GRPO steps per seed (the preset's)")
    parser.add_argument("--test-episodes", type=int, default=100, help="episodes of the shared test split")
    parser.add_argument("--out", type=Path, default=Path("runs/learning-claims"))
    parser.add_argument("--smoke", action="store_true", help="tiny model and steps: check the pipeline")
    parser.add_argument("--docs", action="store_true", help="quote the table in README.md and docs/ssrl.md")
    args = parser.parse_args(argv)
    data = args.out / "qa-data"
    if not (data / "test.jsonl").is_file():
        run(["gridworld", "qa-data", "--train-episodes", "1", "--test-episodes", str(args.test_episodes),
             "--images", "false", "--seed", "0", "--out", str(data), "--overwrite"])  # fmt: skip
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = [seed_row(seed, args.out, data / "test.jsonl", args.max_steps, args.smoke) for seed in seeds]
    text = table(rows)
    atomic_write_text(args.out / "table.md", text)
    atomic_write_text(args.out / "table.json", dumps_json(rows))
    print(text, end="")
    if args.docs:
        for doc in DOCS:
            quote_in(doc, text)


if __name__ == "__main__":
    main()
