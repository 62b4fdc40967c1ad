"""``mindzero gridworld``: assistance benchmark, QA data generation and QA evaluation."""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

from mindzero.core.config import add_dataclass_flags, config_from_args
from mindzero.core.errors import UserError
from mindzero.core.results import read_jsonl, write_results


def register(areas: argparse._SubParsersAction) -> None:
    parser = areas.add_parser("gridworld", help="GridWorld 'Construction': assistance and question answering")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    from mindzero.tasks.gridworld_assist import AssistConfig
    from mindzero.tasks.gridworld_qa import QADataConfig

    assist = verbs.add_parser(
        "assist",
        help="proactive-assistance benchmark (speedup = T_alone / T_helped - 1)",
        description="Run the same episodes alone and helped; --reasoner takes a comma list "
        "(e.g. none,random,exact,oracle): each gets OUT/<reasoner>/results.json, plus one plot.",
    )
    add_dataclass_flags(assist, AssistConfig)
    assist.add_argument("--out", type=Path, default=Path("runs/gridworld-assist"), help="output folder")
    assist.set_defaults(func=cmd_assist)

    qa_data = verbs.add_parser("qa-data", help="generate the GridWorld QA dataset (train/test JSONL, images, HF)")
    add_dataclass_flags(qa_data, QADataConfig)
    qa_data.add_argument("--out", type=Path, default=Path("runs/gridworld-qa"), help="output folder")
    qa_data.set_defaults(func=cmd_qa_data)

    qa_eval = verbs.add_parser("qa-eval", help="answer GridWorld QA questions with a reasoner")
    qa_eval.add_argument("--data", type=Path, required=True, help="questions JSONL (e.g. DIR/test.jsonl)")
    qa_eval.add_argument("--reasoner", default="exact", help="exact | random | none | oracle")
    qa_eval.add_argument("--seed", type=int, default=0, help="seed for tie-breaking and random reasoners")
    qa_eval.add_argument("--limit", type=int, default=None, help="evaluate only the first N questions")
    qa_eval.add_argument("--out", type=Path, default=Path("runs/gridworld-qa-eval"), help="output folder")
    qa_eval.set_defaults(func=cmd_qa_eval)


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)) for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cmd_assist(args: argparse.Namespace) -> int:
    from mindzero.inference.gridworld import BASELINE_REASONERS, make_reasoner
    from mindzero.report.plots import plot_goal_accuracy
    from mindzero.tasks.gridworld_assist import AssistConfig, run_assist

    config = config_from_args(AssistConfig, args)
    names = [n.strip() for n in str(config.reasoner).split(",") if n.strip()]
    for name in names:
        if name not in BASELINE_REASONERS:
            raise UserError(f"unknown reasoner {name!r}; choose from {', '.join(BASELINE_REASONERS)}")
    rows, curves = [], {}
    for name in names:
        cfg = dataclasses.replace(config, reasoner=name)
        start = time.perf_counter()
        metrics, samples, curve = run_assist(cfg, lambda seed, n=name: make_reasoner(n, seed, config.epsilon))
        metrics["seconds"] = time.perf_counter() - start
        out = args.out / name if len(names) > 1 else args.out
        extra = {"goal_accuracy_curve": curve}
        write_results(out, "gridworld/assist", dataclasses.asdict(cfg), metrics, samples, extra)
        curves[name] = curve
        rows.append(
            [
                name,
                f"{metrics['speedup_mean']:+.3f} ± {metrics['speedup_stderr']:.3f}",
                f"{metrics['success_rate']:.2f}",
                f"{metrics['t_alone_mean']:.1f}",
                f"{metrics['t_helped_mean']:.1f}",
                f"{metrics['goal_accuracy_mean']:.2f}",
            ]
        )
    plot = plot_goal_accuracy(curves, args.out / "goal_accuracy.png", "GridWorld online goal inference")
    teleport = "off" if config.teleport is None else f"after {config.teleport} stable updates"
    print(f"GridWorld assistance: {config.episodes} episodes x seeds {config.seeds}, teleport {teleport}")
    print(_table(rows, ["reasoner", "speedup", "success", "T_alone", "T_helped", "goal_acc"]))
    print(f"results: {args.out}  plot: {plot}")
    return 0


def cmd_qa_data(args: argparse.Namespace) -> int:
    from mindzero.tasks.gridworld_qa import QADataConfig, write_qa_dataset

    config = config_from_args(QADataConfig, args)
    counts = write_qa_dataset(config, args.out)
    print(f"wrote {counts['train']} train and {counts['test']} test questions to {args.out}")
    return 0


def cmd_qa_eval(args: argparse.Namespace) -> int:
    from mindzero.tasks.gridworld_qa import evaluate_qa

    if not args.data.is_file():
        raise UserError(f"no such questions file: {args.data} (make one with `mindzero gridworld qa-data`)")
    rows = read_jsonl(args.data)[: args.limit]
    metrics, samples = evaluate_qa(rows, args.reasoner, args.seed)
    config = {"data": str(args.data), "reasoner": args.reasoner, "seed": args.seed, "limit": args.limit}
    path = write_results(args.out, "gridworld/qa", config, metrics, samples)
    rows = [[k, f"{v:.3f}" if isinstance(v, float) else str(v)] for k, v in metrics.items()]
    print(_table(rows, ["metric", "value"]))
    print(f"results: {path}")
    return 0
