"""``mindzero household``: the proactive-assistance benchmark on the Household apartments, and
MMToM-QA question answering (``mmtom-eval``)."""

from __future__ import annotations

import argparse
import dataclasses
import time
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from mindzero.commands.assist_runs import HEADER, run_reasoners
from mindzero.commands.llm_options import AssistLLMOptions, BatchOptions, LLMOptions
from mindzero.core.config import add_dataclass_flags, config_from_args
from mindzero.core.human import HumanParams
from mindzero.core.outputs import add_output_flags, claim_out
from mindzero.core.results import dumps_json, read_jsonl, read_stdin_text, read_text, write_jsonl, write_results
from mindzero.domains.base import Estimators, estimators_of
from mindzero.domains.household import HouseholdDomain
from mindzero.domains.household.estimators import HouseholdEstimators, household_estimators
from mindzero.domains.household.mmtom.generate import generate as generate_mmtom
from mindzero.domains.household.mmtom.model import MMToMModel
from mindzero.domains.household.smc import REASONERS, SMCSettings, make_reasoner
from mindzero.domains.household.ssrl import PROMPT_STYLES
from mindzero.envs.household.apartment import bundled_apartment
from mindzero.envs.household.episodes import EPISODE_TICKS, SPLITS, all_goals, benchmark_episodes
from mindzero.envs.household.helper import HelperSettings
from mindzero.envs.household.human import HOUSEHOLD_HUMAN
from mindzero.inference.llm import ANSWER_MODES, LLMQAAnswerer, LLMReasoner
from mindzero.report.tables import format_table, metric_rows
from mindzero.tasks.assist import AssistSettings
from mindzero.tasks.mmtom import (
    MMTOM_REASONERS,
    QUESTION_FIELDS,
    MMToMTotals,
    ask_household,
    mmtom_llm_samples,
    mmtom_rows,
    mmtom_samples,
)


@dataclass
class RunSettings:
    """How each Household episode is run (the generic assistance settings, Household's defaults)."""

    max_steps: int = field(default=EPISODE_TICKS, metadata={"help": "tick limit of an episode", "ge": 1, "le": 10_000})
    human: HumanParams = field(default_factory=lambda: HOUSEHOLD_HUMAN, metadata={"help": "the simulated human"})
    helper: HelperSettings = field(default_factory=HelperSettings, metadata={"help": "the helper"})
    calibrate: bool = field(
        default=False,
        metadata={"help": "track KL(exact ‖ reasoner) every tick (exact inference over every goal beside it: slow)"},
    )


@dataclass
class AssistConfig(BatchOptions, AssistLLMOptions, RunSettings, Estimators):
    """``household assist``: which reasoners, on which apartments and episodes; ``--likelihood`` and
    ``--prior``: the estimators of the smc and exact reasoners."""

    default_new_tokens: ClassVar[int] = 96

    reasoner: list[str] = field(
        default_factory=lambda: ["none", "random", "oracle", "smc"],
        metadata={"help": "comma list of reasoners (llm needs --model)", "choices": (*REASONERS, "llm")},
    )
    split: str = field(default="test", metadata={"help": "bundled apartments to run on", "choices": tuple(SPLITS)})
    apartment: str | None = field(default=None, metadata={"help": "an apartment JSON file instead of --split"})
    goal: str | None = field(
        default=None, metadata={"help": "fix every episode's goal, e.g. 'on(plate, kitchentable): 2'"}
    )
    episodes: int = field(default=10, metadata={"help": "episodes per apartment", "ge": 1, "le": 10_000})
    episode_seed: int = field(default=0, metadata={"help": "seed of the first episode", "ge": 0})
    seeds: list[int] = field(default_factory=lambda: [10, 20, 30], metadata={"help": "agent seeds", "ge": 0})
    smc: SMCSettings = field(default_factory=SMCSettings, metadata={"help": "SMC inference"})


@dataclass
class MMToMEvalConfig(BatchOptions, LLMOptions):
    """``household mmtom-eval``: the MMToM-QA questions and the reasoner that answers them."""

    data: str = field(metadata={"help": "MMToM-QA questions JSONL (e.g. ../shared/data/mmtom_qa/questions.jsonl)"})
    reasoner: str = field(default="model", metadata={"help": "llm needs --model", "choices": MMTOM_REASONERS})
    seed: int = field(default=0, metadata={"help": "seed of tie-breaking coins and LLM decoding", "ge": 0})
    limit: int | None = field(
        default=None, metadata={"help": "evaluate only the first N questions", "ge": 1, "le": 10_000_000}
    )
    inference: MMToMModel = field(default_factory=MMToMModel, metadata={"help": "the model reasoner"})
    answer_mode: str = field(
        default="generate",
        metadata={
            "help": "generate (write a letter, parsed) | score (log-prob of (a) vs (b))",
            "choices": ANSWER_MODES,
        },
    )
    default_new_tokens: ClassVar[int] = 16
    strict: bool = field(
        default=False, metadata={"help": "any sentence the reader cannot read is an error (exit 2), not a note"}
    )


@dataclass
class AskConfig:
    """``household ask``: answer questions about a household story a user wrote."""

    story: str = field(
        metadata={"help": "story file: the apartment, then what the person does, perhaps a question ('-': stdin)"}
    )
    json: bool = field(default=False, metadata={"help": "print the answers and the state as JSON"})
    strict: bool = field(default=False, metadata={"help": "any sentence the reader cannot read is an error (exit 2)"})
    inference: MMToMModel = field(default_factory=MMToMModel, metadata={"help": "the inverse-planning model"})


@dataclass
class MMToMDataConfig:
    """``household mmtom-data``: how many generated questions, on which apartments."""

    per_type: int = field(default=20, metadata={"help": "questions of each of the seven types", "ge": 1, "le": 10_000})
    split: str = field(default="test", metadata={"help": "bundled apartments to use", "choices": tuple(SPLITS)})
    seed: int = field(default=0, metadata={"help": "seed of objects' places, minds and walks", "ge": 0})
    margin: float = field(
        default=0.1, metadata={"help": "skip questions whose label posterior is within this of 1/2", "ge": 0, "lt": 0.5}
    )
    inference: MMToMModel = field(default_factory=MMToMModel, metadata={"help": "the labelling model"})


@dataclass
class PriorCacheConfig:
    """``household prior-cache``: the llm prior of every goal of an apartment split, into its cache."""

    model: str = field(metadata={"help": "model spec that judges the goals (e.g. smollm2-135m)"})
    split: str = field(default="train", metadata={"help": "bundled apartments", "choices": tuple(SPLITS)})
    cache: str | None = field(
        default=None, metadata={"help": "cache folder (default: $MINDZERO_CACHE/estimators; --estimator-cache)"}
    )


def register(areas: argparse._SubParsersAction) -> None:
    parser = areas.add_parser("household", help="Household apartments: proactive assistance; MMToM-QA")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    assist = verbs.add_parser(
        "assist",
        help="proactive-assistance benchmark (speedup = T_alone / T_helped - 1)",
        description="Run the same episodes alone and helped; --reasoner takes a comma list "
        "(none,random,oracle,smc,exact,llm): each gets OUT/<reasoner>/results.json, plus goal_accuracy.png "
        "(goal F1 vs progress).",
    )
    add_dataclass_flags(assist, AssistConfig)
    assist.add_argument("--out", default="runs/household-assist", help="output folder")
    add_output_flags(assist)
    assist.set_defaults(func=cmd_assist)
    mmtom = verbs.add_parser(
        "mmtom-eval",
        help="answer MMToM-QA's text questions (rule-based reader + inverse planning, an LLM, or random)",
        description="Accuracy overall and per question type, the reader's sentence coverage, and for "
        "--reasoner llm tokens and TFLOPs per question; OUT/results.json and OUT/samples.jsonl (per "
        "question: the parsed state, unread sentences and the posterior behind the answer).",
    )
    add_dataclass_flags(mmtom, MMToMEvalConfig)
    mmtom.add_argument("--out", default="runs/mmtom-eval", help="output folder")
    add_output_flags(mmtom)
    mmtom.set_defaults(func=cmd_mmtom_eval)
    ask = verbs.add_parser(
        "ask",
        help="answer questions about a household story you wrote (the reader + inverse planning)",
        description="Prints each answer with the posterior over its options and the state the reader built "
        "(rooms, places and their objects, the person's path, sentences it could not read). A question is "
        "'Does X think the plate is in the fridge?', 'Is X looking for (a) an apple or (b) a plate?', "
        "'What is X trying to get?' (every object of the apartment), or MMToM-QA's forms.",
    )
    add_dataclass_flags(ask, AskConfig)
    ask.add_argument("--question", action="append", default=[], metavar="TEXT", help="a question (repeatable)")
    ask.set_defaults(func=cmd_ask)
    mmtom_data = verbs.add_parser(
        "mmtom-data",
        help="generate MMToM-style questions (7 types) on our apartments, labelled by the model reasoner",
        description="OUT/questions.jsonl in MMToM-QA's format; mmtom-eval --reasoner model on it must score 1.0.",
    )
    add_dataclass_flags(mmtom_data, MMToMDataConfig)
    mmtom_data.add_argument("--out", default="runs/mmtom-data", help="output folder")
    add_output_flags(mmtom_data, resume=False)
    mmtom_data.set_defaults(func=cmd_mmtom_data)
    prior_cache = verbs.add_parser(
        "prior-cache",
        help="precompute the llm prior (--prior llm) of every goal of a split's apartments",
        description="Scores each goal's plausibility once into the cache file of (model, prior), which later "
        "--prior llm --estimator-model MODEL runs read; a second run computes nothing.",
    )
    add_dataclass_flags(prior_cache, PriorCacheConfig)
    prior_cache.set_defaults(func=cmd_prior_cache)


def cmd_assist(args: argparse.Namespace) -> int:
    config = config_from_args(AssistConfig, args)
    names = config.reasoner
    llm = config.assist_settings(PROMPT_STYLES) if "llm" in names else None
    if llm is not None:  # the record says how the model was asked (its card may have chosen)
        config = config.settled(llm)
    runs = benchmark_episodes(config.split, config.episodes, config.episode_seed, config.apartment, config.goal)
    estimators = estimators_of(config)
    scoring = household_estimators(estimators)  # a missing --estimator-model fails here, before any work
    folder = claim_out(args.out, "household assist", config, args.overwrite, args.resume)
    domain = HouseholdDomain(config.helper)
    settings = AssistSettings(
        seeds=config.seeds, human=config.human, max_steps=config.max_steps, calibrate=config.calibrate
    )
    human, smc = settings.human, config.smc
    factories = {n: (lambda seed, n=n: make_reasoner(n, seed, human, smc, estimators)) for n in names if n != "llm"}
    if llm is not None:
        backend = config.backend(config.batch_size)
        factories["llm"] = lambda seed: LLMReasoner(domain, backend, llm, seed)
    with folder.run():
        chosen = {n: factories[n] for n in names}
        rows, plot = run_reasoners(domain, runs, settings, chosen, folder, config, config.batch_size)
    where = config.apartment or f"{config.split} apartments {', '.join(SPLITS[config.split])}"
    print(f"Household assistance on {where}: {config.episodes} episodes each x seeds {config.seeds}")
    print(format_table(HEADER, rows))
    if scoring.scorers:
        print("LLM estimators: " + ", ".join(f"{k} {v:.3g}" for k, v in scoring.stats().items()))
    print(f"results: {folder.path}  plot: {plot}")
    return 0


def cmd_prior_cache(args: argparse.Namespace) -> int:
    config = config_from_args(PriorCacheConfig, args)
    settings = Estimators(prior="llm", estimator_model=config.model, estimator_cache=config.cache)
    estimators = HouseholdEstimators(settings)  # its own counts: what this run computed
    start = time.perf_counter()
    for name in SPLITS[config.split]:
        apartment = bundled_apartment(name)
        estimators.logprior(apartment)
        print(f"{name}: {len(all_goals(apartment))} goals")
    stats = estimators.stats()
    print(
        f"prior scores: {stats['prior_scores_computed']} computed, {stats['prior_scores_cached']} cached "
        f"({time.perf_counter() - start:.1f} s); cache {estimators.scorers['prior'].cache.path}"
    )
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    config = config_from_args(AskConfig, args)
    text = read_stdin_text() if config.story == "-" else read_text(config.story)
    result = ask_household(text, args.question, config.inference, config.strict)
    print(dumps_json(result) if config.json else _format_answers(result))
    return 0


def _format_answers(result: dict) -> str:
    """``household ask``'s answers and the reader's state, for a person."""
    lines = []
    for i, a in enumerate(result["answers"], 1):
        lines.append(f"Q{i}: {a['question']}")
        if a["answer"] == "unreadable":
            lines.append(f"  answer: unreadable ({a['reason']})")
            lines += [f"    line {u['line']}: {u['text']!r}" for u in a.get("blockers", [])]
            continue
        probs = a["posterior"]["option_probs"]
        for label, text, p in zip("abcde", a["options"], probs):
            mark = "→" if label == a["answer"] or (a["answer"] == "tie" and p == max(probs)) else " "
            lines.append(f"  {mark} ({label}) {p:.3f}  {text}")
        lines.append(f"  answer: {a['answer']}" + (" (the options are equally likely)" if a["answer"] == "tie" else ""))
    state = result["state"]
    lines.append("state the reader built:")
    lines.append(f"  rooms: {', '.join(state['scene']['rooms'])}")
    for place, objects in state["scene"]["places"].items():
        things = ", ".join(f"{n} {c}" for c, n in objects.items()) or "-"
        lines.append(f"  {place}: {things}")
    story = state["story"]
    lines.append(f"  {story['person']}: starts in {story['start']}; then {' → '.join(story['visits']) or 'stays'}")
    for u in state["unread"]:
        why = u["why"] or "unknown words: " + ", ".join(u["unknown"])
        lines.append(f"  not read, line {u['line']}: {u['text']!r} ({why})")
    return "\n".join(lines)


def cmd_mmtom_data(args: argparse.Namespace) -> int:
    config = config_from_args(MMToMDataConfig, args)
    folder = claim_out(args.out, "household mmtom-data", config, args.overwrite, False)
    with folder.run():
        rows = list(generate_mmtom(SPLITS[config.split], config.per_type, config.seed, config.inference, config.margin))
        write_jsonl(folder.path / "questions.jsonl", rows)
    print(f"wrote {len(rows)} questions ({config.per_type} per type) to {folder.path / 'questions.jsonl'}")
    return 0


def cmd_mmtom_eval(args: argparse.Namespace) -> int:
    config = config_from_args(MMToMEvalConfig, args)
    settings = config.llm_settings(PROMPT_STYLES) if config.reasoner == "llm" else None
    if settings is not None:  # the record says how the model was asked (its card may have chosen)
        config = config.settled(settings)
    folder = claim_out(args.out, "household mmtom-eval", config, args.overwrite, args.resume)
    rows = mmtom_rows(read_jsonl(config.data, QUESTION_FIELDS, hint="the benchmark is ../shared/data/mmtom_qa"))
    rows = rows[: config.limit]
    answerer = None
    if settings is not None:
        answerer = LLMQAAnswerer(HouseholdDomain(), config.backend(config.batch_size), config.answer_mode, settings)
    start = time.perf_counter()
    with folder.run():
        with folder.stream("samples.jsonl") as stream:  # the state: totals, seconds, and the rng or the LLM's costs
            if answerer is None:
                totals, seconds, rng = stream.state or (MMToMTotals(), 0.0, np.random.default_rng(config.seed))
                samples = mmtom_samples(rows, config.reasoner, config.inference, totals, rng, config.strict)
                units = ([s] for s in samples)
                rest = rng
            else:
                totals, seconds, answerer.stats = stream.state or (MMToMTotals(), 0.0, answerer.stats)
                units = mmtom_llm_samples(rows, answerer, totals, config.seed, config.batch_size)
                rest = answerer.stats
            for unit in units:
                for sample in unit:
                    stream.write(sample)
                stream.checkpoint((totals, seconds + time.perf_counter() - start, rest))
        metrics = totals.metrics() | (answerer.stats.metrics() if answerer is not None else {})
        metrics["seconds"] = seconds + time.perf_counter() - start
        metrics["seconds_per_question"] = metrics["seconds"] / metrics["n"]
        path = write_results(folder.path, "household/mmtom", dataclasses.asdict(config), metrics, None)
    print(f"MMToM-QA, reasoner {config.reasoner}: {metrics['n']} questions")
    print(format_table(["metric", "value"], metric_rows({k: v for k, v in metrics.items() if not isinstance(v, dict)})))
    print(f"results: {path}")
    return 0
