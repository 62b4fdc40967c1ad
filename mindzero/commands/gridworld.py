"""``mindzero gridworld``: assistance benchmark, QA data generation and QA evaluation."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from mindzero.commands.assist_runs import HEADER, run_reasoners
from mindzero.commands.llm_options import AssistLLMOptions, BatchOptions, LLMOptions
from mindzero.core.config import add_dataclass_flags, config_from_args
from mindzero.core.human import HumanParams
from mindzero.core.outputs import add_output_flags, claim_out
from mindzero.core.results import read_jsonl, write_results
from mindzero.domains import get_domain
from mindzero.domains.gridworld import EpisodeConfig, episodes
from mindzero.domains.gridworld.qa import QUESTION_FIELDS, QADataConfig, qa_source, write_qa_dataset
from mindzero.domains.gridworld.reasoners import BASELINE_REASONERS
from mindzero.inference.llm import ANSWER_MODES, LLMQAAnswerer, LLMReasoner
from mindzero.report.tables import format_table, metric_rows
from mindzero.tasks.assist import AssistSettings
from mindzero.tasks.qa import QATotals, qa_llm_samples, qa_samples

DOMAIN = "gridworld"
REASONERS = (*BASELINE_REASONERS, "llm")


@dataclass
class AssistConfig(BatchOptions, AssistLLMOptions, AssistSettings, EpisodeConfig):
    """``gridworld assist``: which reasoners, on which episodes, run how."""

    reasoner: list[str] = field(
        default_factory=lambda: ["none", "random", "exact", "oracle"],
        metadata={"help": "comma list of reasoners", "choices": REASONERS},
    )


@dataclass
class QAEvalConfig(BatchOptions, LLMOptions):
    """``gridworld qa-eval``: the questions and the reasoner that answers them."""

    data: str = field(metadata={"help": "questions JSONL (e.g. qa-data's DIR/test.jsonl)"})
    reasoner: str = field(default="exact", metadata={"help": "llm needs --model", "choices": REASONERS})
    seed: int = field(default=0, metadata={"help": "seed for tie-breaking and random reasoners", "ge": 0})
    limit: int | None = field(
        default=None, metadata={"help": "evaluate only the first N questions", "ge": 1, "le": 10_000_000}
    )
    human: HumanParams = field(
        default_factory=lambda: HumanParams(epsilon=0.0),
        metadata={"help": "the human model of exact inference (the questions' noise-free human)"},
    )
    answer_mode: str = field(
        default="generate",
        metadata={
            "help": "generate (write a letter, parsed) | score (log-prob of (a) vs (b))",
            "choices": ANSWER_MODES,
        },
    )
    default_new_tokens: ClassVar[int] = 16


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
    assist.add_argument("--out", default="runs/gridworld-assist", help="output folder")
    add_output_flags(assist)
    assist.set_defaults(func=cmd_assist)

    qa_data = verbs.add_parser("qa-data", help="generate the GridWorld QA dataset (train/test JSONL, images, HF)")
    add_dataclass_flags(qa_data, QADataConfig)
    qa_data.add_argument("--out", default="runs/gridworld-qa", help="output folder")
    add_output_flags(qa_data)
    qa_data.set_defaults(func=cmd_qa_data)

    qa_eval = verbs.add_parser("qa-eval", help="answer GridWorld QA questions with a reasoner")
    add_dataclass_flags(qa_eval, QAEvalConfig)
    qa_eval.add_argument("--out", default="runs/gridworld-qa-eval", help="output folder")
    add_output_flags(qa_eval)
    qa_eval.set_defaults(func=cmd_qa_eval)


def cmd_assist(args: argparse.Namespace) -> int:
    domain = get_domain(DOMAIN)
    config = config_from_args(AssistConfig, args)
    names = config.reasoner
    llm_settings = config.assist_settings(domain.prompt_styles) if "llm" in names else None
    if llm_settings is not None:  # the record says how the model was asked (its card may have chosen)
        config = config.settled(llm_settings)
    folder = claim_out(args.out, "gridworld assist", config, args.overwrite, args.resume)
    settings = AssistSettings(**_fields(AssistSettings, config))
    runs = episodes(EpisodeConfig(**_fields(EpisodeConfig, config)))
    factories = {n: (lambda seed, n=n: domain.reasoner(n, seed, settings.human)) for n in names if n != "llm"}
    if llm_settings is not None:
        backend = config.backend(config.batch_size)
        factories["llm"] = lambda seed: LLMReasoner(domain, backend, llm_settings, seed)
    with folder.run():
        chosen = {n: factories[n] for n in names}
        rows, plot = run_reasoners(domain, runs, settings, chosen, folder, config, config.batch_size)
    teleport = "off" if config.teleport is None else f"{config.teleport_when}, after {config.teleport} stable updates"
    source = f"episodes of {config.episodes_file}" if config.episodes_file else f"{config.protocol} protocol"
    print(f"GridWorld assistance ({source}): {config.episodes} episodes x seeds {config.seeds}, teleport {teleport}")
    print(format_table(HEADER, rows))
    print(f"results: {folder.path}  plot: {plot}")
    return 0


def cmd_qa_data(args: argparse.Namespace) -> int:
    config = config_from_args(QADataConfig, args)
    source = qa_source(config)  # a bad episodes file fails before the output folder is claimed
    folder = claim_out(args.out, "gridworld qa-data", config, args.overwrite, args.resume)
    with folder.run():
        counts = write_qa_dataset(config, folder, source=source)
    print(f"wrote {counts['train']} train and {counts['test']} test questions to {folder.path}")
    return 0


def cmd_qa_eval(args: argparse.Namespace) -> int:
    domain = get_domain(DOMAIN)
    config = config_from_args(QAEvalConfig, args)
    llm_settings = config.llm_settings(domain.prompt_styles) if config.reasoner == "llm" else None
    if llm_settings is not None:  # the record says how the model was asked (its card may have chosen)
        config = config.settled(llm_settings)
    folder = claim_out(args.out, "gridworld qa-eval", config, args.overwrite, args.resume)
    rows = read_jsonl(config.data, QUESTION_FIELDS, hint="make one with `mindzero gridworld qa-data`")
    rows = rows[: config.limit]
    answerer = None
    if llm_settings is not None:
        answerer = LLMQAAnswerer(domain, config.backend(config.batch_size), config.answer_mode, llm_settings)
    with folder.run():
        with folder.stream("samples.jsonl") as stream:  # the state: totals, and the rng or the LLM's costs
            if answerer is None:
                totals, rng = stream.state or (QATotals(), np.random.default_rng(config.seed))
                units, rest = qa_samples(domain, rows, config.reasoner, config.human, totals, rng), rng
            else:
                totals, answerer.stats = stream.state or (QATotals(), answerer.stats)
                units, rest = qa_llm_samples(rows, answerer, totals, config.seed, config.batch_size), answerer.stats
            for unit in units:
                for sample in unit:
                    stream.write(sample)
                stream.checkpoint((totals, rest))
        metrics = totals.metrics() | (answerer.stats.metrics() if answerer is not None else {})
        path = write_results(folder.path, f"{DOMAIN}/qa", dataclasses.asdict(config), metrics, None)
    print(format_table(["metric", "value"], metric_rows(metrics)))
    print(f"results: {path}")
    return 0
