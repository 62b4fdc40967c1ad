"""``mindzero gridworld``: assistance benchmark, QA data generation and QA evaluation."""

from __future__ import annotations

import argparse
import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path

from mindzero.core.config import add_dataclass_flags, config_from_args
from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.results import read_jsonl, write_results
from mindzero.domains import get_domain
from mindzero.domains.gridworld import EpisodeConfig, episodes
from mindzero.domains.gridworld.qa import QADataConfig, write_qa_dataset
from mindzero.inference.llm import LLMQAAnswerer, LLMReasoner, LLMSettings
from mindzero.llm import load_backend
from mindzero.report.plots import plot_goal_accuracy
from mindzero.report.tables import format_table, metric_rows
from mindzero.tasks.assist import AssistSettings, run_assist
from mindzero.tasks.qa import evaluate_qa, evaluate_qa_llm

DOMAIN = "gridworld"


@dataclass
class AssistConfig(AssistSettings, EpisodeConfig):
    """``gridworld assist``: which reasoners, on which episodes, run how."""

    reasoner: str = field(
        default="none,random,exact,oracle", metadata={"help": "comma list of none | random | oracle | exact | llm"}
    )


@dataclass
class QAEvalConfig:
    """``gridworld qa-eval``: the questions and the reasoner that answers them."""

    data: str | None = field(default=None, metadata={"help": "questions JSONL (e.g. qa-data's DIR/test.jsonl)"})
    reasoner: str = field(default="exact", metadata={"help": "exact | random | none | oracle | llm (needs --model)"})
    seed: int = field(default=0, metadata={"help": "seed for tie-breaking and random reasoners"})
    limit: int | None = field(default=None, metadata={"help": "evaluate only the first N questions"})
    human: HumanParams = field(
        default_factory=lambda: HumanParams(epsilon=0.0),
        metadata={"help": "the human model of exact inference (the questions' noise-free human)"},
    )


def _fields(cls: type, config: object) -> dict:
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(cls)}


def register(areas: argparse._SubParsersAction) -> None:
    parser = areas.add_parser("gridworld", help="GridWorld 'Construction': assistance and question answering")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

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
    add_dataclass_flags(qa_eval, QAEvalConfig)
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


def _llm_settings(args: argparse.Namespace) -> LLMSettings:
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
    return load_backend(args.model) if ":" in args.model else load_backend(args.model, dtype=args.dtype)


def cmd_assist(args: argparse.Namespace) -> int:
    domain = get_domain(DOMAIN)
    config = config_from_args(AssistConfig, args)
    settings = AssistSettings(**_fields(AssistSettings, config))
    names = [n.strip() for n in str(config.reasoner).split(",") if n.strip()]
    if not names:
        raise UserError(f"--reasoner names no reasoner; choose from {', '.join(domain.reasoners)}, llm")
    for name in names:
        if name not in (*domain.reasoners, "llm"):
            raise UserError(f"unknown reasoner {name!r}; choose from {', '.join(domain.reasoners)}, llm")
    factories = {n: (lambda seed, n=n: domain.reasoner(n, seed, settings.human)) for n in names if n != "llm"}
    if "llm" in names:
        llm_settings = _llm_settings(args)
        backend = _load_backend(args)
        factories["llm"] = lambda seed: LLMReasoner(domain, backend, llm_settings, seed)
    runs = episodes(EpisodeConfig(**_fields(EpisodeConfig, config)))
    rows, curves = [], {}
    for name in names:
        start = time.perf_counter()
        metrics, samples, curve = run_assist(domain, runs, settings, factories[name], label=name)
        metrics["seconds"] = time.perf_counter() - start
        out = args.out / name if len(names) > 1 else args.out
        record = dataclasses.asdict(dataclasses.replace(config, reasoner=name))
        record |= _llm_config(args) if name == "llm" else {}
        write_results(out, f"{DOMAIN}/assist", record, metrics, samples, {"goal_accuracy_curve": curve})
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
    print(format_table([*header, "parse_fail", "TFLOPs/dec"], rows))
    print(f"results: {args.out}  plot: {plot}")
    return 0


def cmd_qa_data(args: argparse.Namespace) -> int:
    config = config_from_args(QADataConfig, args)
    counts = write_qa_dataset(config, args.out)
    print(f"wrote {counts['train']} train and {counts['test']} test questions to {args.out}")
    return 0


def cmd_qa_eval(args: argparse.Namespace) -> int:
    domain = get_domain(DOMAIN)
    config = config_from_args(QAEvalConfig, args)
    if config.data is None:
        raise UserError("--data is required: a questions JSONL (make one with `mindzero gridworld qa-data`)")
    data = Path(config.data)
    if not data.is_file():
        raise UserError(f"no such questions file: {data} (make one with `mindzero gridworld qa-data`)")
    if config.limit is not None and config.limit < 1:
        raise UserError(f"--limit must be at least 1, got {config.limit}")
    rows = read_jsonl(data)[: config.limit]
    record = dataclasses.asdict(config)
    if config.reasoner == "llm":
        answerer = LLMQAAnswerer(domain, _load_backend(args), args.answer_mode, _llm_settings(args))
        metrics, samples = evaluate_qa_llm(rows, answerer, config.seed)
        record.update(_llm_config(args))
    else:
        if config.reasoner not in domain.reasoners:
            raise UserError(f"unknown reasoner {config.reasoner!r}; choose from {', '.join(domain.reasoners)}, llm")
        metrics, samples = evaluate_qa(domain, rows, config.reasoner, config.human, config.seed)
    path = write_results(args.out, f"{DOMAIN}/qa", record, metrics, samples)
    print(format_table(["metric", "value"], metric_rows(metrics)))
    print(f"results: {path}")
    return 0
