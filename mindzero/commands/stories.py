"""``mindzero stories generate|hitom-eval|pbm-data|pbm-eval|scale-eval`` — DEL-labelled stories and PBM search."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from mindzero.core.config import PROBABILITY, add_dataclass_flags, config_from_args
from mindzero.core.results import atomic_write_text, dumps_json, prepare_out, read_jsonl, write_jsonl, write_results
from mindzero.llm import EndpointOptions, load_backend
from mindzero.pbm.data import STEPWISE_FIELDS, gold_and_corrupted_rows, policy_rows, questions_from_stories
from mindzero.pbm.model import ProcessBeliefModel, read_pbm_config, step_accuracy
from mindzero.report.plots import plot_scaling
from mindzero.report.tables import format_table
from mindzero.stories.export import question_rows, write_hf_dataset, write_jsonl_rows
from mindzero.stories.generator import generate_stories
from mindzero.stories.hitom import HITOM_URL, evaluate, load_hitom
from mindzero.stories.semantics import SEMANTICS
from mindzero.tasks.stories_scale import ScaleEvalConfig, run_scale_eval

#: Chapters a story may have.
LENGTHS = (1, 2, 3)


@dataclass
class GenerateConfig:
    """``stories generate``: Hi-ToM-style stories with per-line belief labels."""

    n: int = field(metadata={"help": "number of stories (5 questions each, orders 0-4)", "ge": 1})
    out: str = field(metadata={"help": "output folder (stories.jsonl, hf/, manifest.json)"})
    seed: int = field(default=0, metadata={"help": "generator seed", "ge": 0})
    lengths: list[int] = field(
        default_factory=lambda: [1, 2, 3], metadata={"help": "chapters per story, cycled", "choices": LENGTHS}
    )
    noise: float = field(default=0.1, metadata={"help": "probability of a distractor before each line", **PROBABILITY})
    semantics: str = field(default="hitom", metadata={"help": "belief semantics of the labels", "choices": SEMANTICS})
    no_hf: bool = field(default=False, metadata={"help": "skip the Hugging Face datasets export"})


@dataclass
class HitomEvalConfig:
    """``stories hitom-eval``: the official Hi-ToM questions answered by the DEL engine."""

    data: str = field(metadata={"help": f"path to the official Hi-ToM_data.json (released at {HITOM_URL})"})
    out: str = field(metadata={"help": "output folder (results.json, samples.jsonl, disagreements.jsonl)"})
    semantics: str = field(default="hitom", metadata={"help": "belief semantics of the engine", "choices": SEMANTICS})


@dataclass
class PBMDataConfig(EndpointOptions):
    """``stories pbm-data``: stepwise PBM rows, every step labelled by the checker."""

    out: str = field(metadata={"help": "output folder (stepwise.jsonl, hf/, manifest.json)"})
    stories: int = field(default=100, metadata={"help": "generated stories (5 questions each)", "ge": 1})
    seed: int = field(default=0, metadata={"help": "story, corruption and sampling seed", "ge": 0})
    lengths: list[int] = field(
        default_factory=lambda: [1], metadata={"help": "chapters per story, cycled", "choices": LENGTHS}
    )
    source: str = field(
        default="gold",
        metadata={
            "help": "gold: gold + corrupted traces (no model); policy: sampled traces; both",
            "choices": ("gold", "policy", "both"),
        },
    )
    corruptions: int = field(default=2, metadata={"help": "corrupted traces per question (gold source)", "ge": 0})
    policy: str = field(default="smollm2-135m", metadata={"help": "model spec of the policy (policy source)"})
    samples: int = field(default=4, metadata={"help": "traces sampled per question (policy source)", "ge": 1})
    temperature: float = field(default=0.7, metadata={"help": "policy sampling temperature", "ge": 0})
    max_new_tokens: int = field(default=1024, metadata={"help": "tokens per sampled trace", "ge": 1})
    no_hf: bool = field(default=False, metadata={"help": "skip the Hugging Face datasets export"})


@dataclass
class PBMEvalConfig:
    """``stories pbm-eval``: PBM step-level accuracy per belief order."""

    pbm: str = field(metadata={"help": "PBM folder (train pbm's OUT/final or OUT/checkpoint-N)"})
    out: str = field(metadata={"help": "output folder (results.json, samples.jsonl)"})
    data: str | None = field(
        default=None, metadata={"help": "stepwise JSONL to evaluate (e.g. train pbm's OUT/heldout.jsonl)"}
    )
    stories: int = field(default=10, metadata={"help": "without --data: generate this many stories", "ge": 1})
    seed: int = field(default=12345, metadata={"help": "without --data: story seed (not the training seed)", "ge": 0})
    batch_size: int = field(default=8, metadata={"help": "traces per forward pass", "ge": 1})
    threshold: float = field(
        default=0.5, metadata={"help": "score above which a step counts as correct", **PROBABILITY}
    )


def register(areas: argparse._SubParsersAction) -> None:
    """Add the ``stories`` area with its verbs."""
    area = areas.add_parser("stories", help="DEL-labelled theory-of-mind stories (Hi-ToM style)")
    verbs = area.add_subparsers(dest="verb", metavar="VERB", required=True)

    gen = verbs.add_parser("generate", help="generate Hi-ToM-style stories with per-line belief labels")
    add_dataclass_flags(gen, GenerateConfig)
    gen.set_defaults(func=cmd_generate)

    ev = verbs.add_parser("hitom-eval", help="answer the official Hi-ToM questions with the DEL engine")
    add_dataclass_flags(ev, HitomEvalConfig)
    ev.set_defaults(func=cmd_hitom_eval)

    data = verbs.add_parser(
        "pbm-data",
        help="stepwise PBM data: policy-sampled and/or gold + corrupted traces, every step labelled by the checker",
    )
    add_dataclass_flags(data, PBMDataConfig)
    data.set_defaults(func=cmd_pbm_data)

    pev = verbs.add_parser("pbm-eval", help="PBM step-level accuracy per belief order (DEL-ToM Table 4)")
    add_dataclass_flags(pev, PBMEvalConfig)
    pev.set_defaults(func=cmd_pbm_eval)

    sc = verbs.add_parser(
        "scale-eval",
        help="Best-of-N / weighted BoN / majority / beam search accuracy vs N (DEL-ToM Fig. 3)",
        description="Sample a pool of DEL-ToM traces per question with --policy (synthetic or a model), score "
        "every step with --verifier (oracle or a PBM folder), and report accuracy per order for every N, "
        "aggregation and strategy. Writes OUT/results.json, samples.jsonl, traces.jsonl, scaling.png.",
    )
    add_dataclass_flags(sc, ScaleEvalConfig)
    sc.set_defaults(func=cmd_scale_eval)


def cmd_generate(args: argparse.Namespace) -> int:
    config = config_from_args(GenerateConfig, args)
    out = prepare_out(config.out)
    stories = generate_stories(
        config.n, config.seed, tuple(config.lengths), config.noise, config.semantics, progress=True
    )
    rows = [row for story in stories for row in question_rows(story, config.semantics)]
    digest = write_jsonl_rows(out / "stories.jsonl", rows)
    if not config.no_hf:
        write_hf_dataset(out / "hf", rows, digest)
    manifest = {
        "task": "stories/generate",
        "config": {k: getattr(config, k) for k in ("n", "seed", "lengths", "noise", "semantics")},
        "questions": len(rows),
        "stories_jsonl_sha256": digest,
    }
    atomic_write_text(out / "manifest.json", dumps_json(manifest))
    print(f"{config.n} stories, {len(rows)} questions -> {out / 'stories.jsonl'}")
    return 0


def cmd_hitom_eval(args: argparse.Namespace) -> int:
    config = config_from_args(HitomEvalConfig, args)
    out = prepare_out(config.out)
    records = load_hitom(config.data)
    metrics, samples, disagreements = evaluate(records, config.semantics)
    write_jsonl(out / "disagreements.jsonl", disagreements)
    path = write_results(
        out,
        "stories/hitom-eval",
        {"data": config.data, "semantics": config.semantics},
        metrics,
        samples,
        extra={"disagreements": disagreements},
    )
    acc = metrics["accuracy"]
    rows = [["overall", f"{acc['overall']:.4f}"], ["one-chapter CoT (DEL-ToM)", f"{acc['one_chapter_cot']:.4f}"]]
    for group in ("by_order", "by_length", "by_tell", "by_prompting_type"):
        rows += [[f"{group[3:]} {key}", f"{value:.4f}"] for key, value in acc[group].items()]
    print(format_table(["subset", "accuracy"], rows))
    print(f"disagreements: {metrics['n_disagreements']} {metrics['disagreements_by_cause']}")
    print(path)
    return 0


def cmd_pbm_data(args: argparse.Namespace) -> int:
    config = config_from_args(PBMDataConfig, args)
    out = prepare_out(config.out)
    stories = generate_stories(config.stories, config.seed, tuple(config.lengths), progress=True)
    questions = list(questions_from_stories(stories))
    rows: list[dict] = []
    if config.source in ("gold", "both"):
        rows += gold_and_corrupted_rows(questions, config.corruptions, config.seed)
    if config.source in ("policy", "both"):
        backend = load_backend(config.policy, endpoint=config)
        rows += policy_rows(backend, questions, config.samples, config.temperature, config.max_new_tokens, config.seed)
    digest = write_jsonl_rows(out / "stepwise.jsonl", rows)
    if not config.no_hf:
        write_hf_dataset(out / "hf", rows, digest)
    steps = [y for r in rows for y in r["labels"]]
    manifest = {
        "task": "stories/pbm-data",
        "config": dataclasses.asdict(config),
        "rows": len(rows),
        "steps": len(steps),
        "correct_step_fraction": sum(steps) / len(steps) if steps else None,
        "stepwise_jsonl_sha256": digest,
    }
    atomic_write_text(out / "manifest.json", dumps_json(manifest))
    print(f"{len(rows)} traces, {len(steps)} labelled steps ({manifest['correct_step_fraction']:.3f} correct)")
    print(out / "stepwise.jsonl")
    return 0


def step_accuracy_table(acc: dict) -> str:
    """PBM step accuracy per belief order and their mean (``step_accuracy`` metrics; Table 4)."""
    rows = [[order, f"{value:.4f}"] for order, value in acc["by_order"].items()]
    return format_table(["order", "step acc"], [*rows, ["avg", f"{acc['avg']:.4f}"]])


def cmd_pbm_eval(args: argparse.Namespace) -> int:
    config = config_from_args(PBMEvalConfig, args)
    read_pbm_config(config.pbm)  # a wrong folder fails before any data work
    out = prepare_out(config.out)
    if config.data:
        rows = read_jsonl(config.data, STEPWISE_FIELDS, hint="make one with `mindzero stories pbm-data`")
    else:
        rows = gold_and_corrupted_rows(questions_from_stories(generate_stories(config.stories, config.seed, (1,))))
    pbm = ProcessBeliefModel(config.pbm, batch_size=config.batch_size)
    metrics, samples = step_accuracy(pbm, rows, config.threshold)
    record = {k: getattr(config, k) for k in ("pbm", "data", "stories", "seed")}
    path = write_results(out, "stories/pbm-eval", record, metrics, samples)
    acc = metrics["step_accuracy"]
    print(step_accuracy_table(acc))
    kinds = [f"{k.replace('_', ' ')} {acc[k]:.4f}" for k in ("correct_steps", "wrong_steps") if acc[k] is not None]
    print(", ".join([*kinds, f"{metrics['n_steps']} steps"]))
    print(path)
    return 0


def scale_tables(metrics: dict, ns: list[int]) -> str:
    """Mean accuracy per method (rows) and N (columns), then per-order accuracy at the largest N."""
    acc = metrics["accuracy"]
    by_n = format_table(
        ["method", *(f"N={n}" for n in ns)],
        [[name, *(f"{per_n[str(n)]['avg']:.3f}" for n in ns)] for name, per_n in acc.items()],
    )
    n_max = str(max(ns))
    orders = list(acc["majority"][n_max]["by_order"])
    rows = [
        [name, *(f"{acc[name][n_max]['by_order'][o]:.3f}" for o in orders)]
        for name in ("weighted-min", "vanilla-min", "majority")
    ]
    rows.append(["sample acc", *(f"{metrics['sample_accuracy']['by_order'][o]:.3f}" for o in orders)])
    if "beam" in metrics:
        rows.append(["beam", *(f"{metrics['beam']['by_order'].get(o, float('nan')):.3f}" for o in orders)])
    return by_n + "\n\n" + format_table([f"N={n_max} by order", *orders], rows)


def cmd_scale_eval(args: argparse.Namespace) -> int:
    config = config_from_args(ScaleEvalConfig, args)
    out = prepare_out(config.out)
    metrics, samples, traces = run_scale_eval(config)
    write_jsonl(out / "traces.jsonl", traces)
    task = f"stories/scale-eval/{config.data}"
    path = write_results(out, task, dataclasses.asdict(config), metrics, samples)
    title = f"{config.data}: policy {Path(config.policy).name}, verifier {Path(config.verifier).name}"
    plot_scaling(metrics, out / "scaling.png", title)
    print(scale_tables(metrics, config.ns))
    print(path)
    return 0
