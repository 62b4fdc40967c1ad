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
    add_llm_flags(assist)
    assist.add_argument("--out", type=Path, default=Path("runs/gridworld-assist"), help="output folder")
    assist.set_defaults(func=cmd_assist)

    qa_data = verbs.add_parser("qa-data", help="generate the GridWorld QA dataset (train/test JSONL, images, HF)")
    add_dataclass_flags(qa_data, QADataConfig)
    qa_data.add_argument("--out", type=Path, default=Path("runs/gridworld-qa"), help="output folder")
    qa_data.set_defaults(func=cmd_qa_data)

    qa_eval = verbs.add_parser("qa-eval", help="answer GridWorld QA questions with a reasoner")
    qa_eval.add_argument("--data", type=Path, required=True, help="questions JSONL (e.g. DIR/test.jsonl)")
    qa_eval.add_argument("--reasoner", default="exact", help="exact | random | none | oracle | llm (needs --model)")
    qa_eval.add_argument("--seed", type=int, default=0, help="seed for tie-breaking and random reasoners")
    qa_eval.add_argument("--limit", type=int, default=None, help="evaluate only the first N questions")
    qa_eval.add_argument("--out", type=Path, default=Path("runs/gridworld-qa-eval"), help="output folder")
    add_llm_flags(qa_eval, qa=True)
    qa_eval.set_defaults(func=cmd_qa_eval)


def add_llm_flags(parser: argparse.ArgumentParser, qa: bool = False) -> None:
    """Options of ``--reasoner llm``: which model, how it is prompted and decoded."""
    group = parser.add_argument_group("LLM reasoner (--reasoner llm)")
    group.add_argument("--model", default=None, help="model spec: smollm2-135m, a folder, hf:/vllm:/openai: spec")
    group.add_argument("--dtype", default="float32", help="weights dtype of local models (float32 | bfloat16)")
    group.add_argument("--prompt-style", default="compact", help="compact (short, CPU) | full (paper transcript)")
    group.add_argument("--temperature", type=float, default=0.0, help="0 = greedy decoding")
    group.add_argument("--max-new-tokens", type=int, default=16 if qa else 64, help="completion token budget")
    if qa:
        group.add_argument(
            "--answer-mode",
            default="generate",
            help="generate (write a letter, parsed) | score (log-prob of (a) vs (b))",
        )
    else:
        group.add_argument("--n-particles", type=int, default=1, help="goal particles requested per decision")


def _llm_settings(args: argparse.Namespace):
    from mindzero.inference.llm import LLMSettings

    if args.model is None:
        raise UserError("--reasoner llm needs --model SPEC (e.g. --model smollm2-135m or a trained OUT/final)")
    return LLMSettings(
        prompt_style=args.prompt_style,
        n_particles=getattr(args, "n_particles", 1),
        temperature=args.temperature,
        max_new_tokens=args.max_new_tokens,
    )


def _llm_config(args: argparse.Namespace) -> dict:
    """The LLM options as recorded in ``results.json``."""
    keys = ("model", "dtype", "prompt_style", "temperature", "max_new_tokens", "n_particles", "answer_mode")
    return {k: getattr(args, k) for k in keys if hasattr(args, k)}


def _load_backend(args: argparse.Namespace):
    from mindzero.llm import load_backend

    return load_backend(args.model) if ":" in args.model else load_backend(args.model, dtype=args.dtype)


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
        if name not in (*BASELINE_REASONERS, "llm"):
            raise UserError(f"unknown reasoner {name!r}; choose from {', '.join(BASELINE_REASONERS)}, llm")
    factories = {n: (lambda seed, n=n: make_reasoner(n, seed, config.epsilon)) for n in names if n != "llm"}
    if "llm" in names:
        from mindzero.inference.llm import LLMReasoner

        settings = _llm_settings(args)
        backend = _load_backend(args)
        factories["llm"] = lambda seed: LLMReasoner(backend, settings, seed)
    rows, curves = [], {}
    for name in names:
        cfg = dataclasses.replace(config, reasoner=name)
        start = time.perf_counter()
        metrics, samples, curve = run_assist(cfg, factories[name])
        metrics["seconds"] = time.perf_counter() - start
        out = args.out / name if len(names) > 1 else args.out
        extra = {"goal_accuracy_curve": curve}
        record = dataclasses.asdict(cfg) | (_llm_config(args) if name == "llm" else {})
        write_results(out, "gridworld/assist", record, metrics, samples, extra)
        curves[name] = curve
        rows.append(
            [
                name,
                f"{metrics['speedup_mean']:+.3f} ± {metrics['speedup_stderr']:.3f}",
                f"{metrics['success_rate']:.2f}",
                f"{metrics['t_alone_mean']:.1f}",
                f"{metrics['t_helped_mean']:.1f}",
                f"{metrics['goal_accuracy_mean']:.2f}",
                f"{metrics['true_goal_prob_mean']:.2f}",
                f"{metrics['kl_to_exact_mean']:.2f}",
                f"{metrics['parse_failure_rate']:.2f}" if "parse_failure_rate" in metrics else "-",
                f"{metrics['tflops_per_decision']:.3g}" if metrics.get("tflops_per_decision") is not None else "-",
            ]
        )
    plot = plot_goal_accuracy(curves, args.out / "goal_accuracy.png", "GridWorld online goal inference")
    teleport = "off" if config.teleport is None else f"after {config.teleport} stable updates"
    print(f"GridWorld assistance: {config.episodes} episodes x seeds {config.seeds}, teleport {teleport}")
    header = ["reasoner", "speedup", "success", "T_alone", "T_helped", "goal_acc", "p_true", "KL_exact"]
    print(_table(rows, [*header, "parse_fail", "TFLOPs/dec"]))
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
    config = {"data": str(args.data), "reasoner": args.reasoner, "seed": args.seed, "limit": args.limit}
    if args.reasoner == "llm":
        from mindzero.inference.llm import LLMQAAnswerer
        from mindzero.tasks.gridworld_qa import evaluate_qa_llm

        settings = _llm_settings(args)
        answerer = LLMQAAnswerer(_load_backend(args), args.answer_mode, settings)
        metrics, samples = evaluate_qa_llm(rows, answerer, args.seed)
        config.update(_llm_config(args))
    else:
        metrics, samples = evaluate_qa(rows, args.reasoner, args.seed)
    path = write_results(args.out, "gridworld/qa", config, metrics, samples)
    rows = [[k, f"{v:.4g}" if isinstance(v, float) else str(v)] for k, v in metrics.items() if not isinstance(v, dict)]
    print(_table(rows, ["metric", "value"]))
    print(f"results: {path}")
    return 0
