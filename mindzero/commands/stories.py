"""``mindzero stories ask|generate|hitom-eval|pbm-data|pbm-eval|scale-eval`` — DEL-labelled stories and PBM search."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from mindzero.core.config import PROBABILITY, add_dataclass_flags, config_from_args
from mindzero.core.errors import UserError
from mindzero.core.outputs import add_output_flags, claim_out
from mindzero.core.results import (
    atomic_write_text,
    dumps_json,
    read_jsonl,
    read_stdin_text,
    read_text,
    write_jsonl,
    write_results,
)
from mindzero.llm import EndpointOptions, load_backend
from mindzero.llm.base import Backend
from mindzero.pbm.data import (
    STEPWISE_FIELDS,
    gold_and_corrupted,
    gold_and_corrupted_rows,
    policy_batches,
    questions_from_stories,
)
from mindzero.pbm.model import READOUTS, ProcessBeliefModel, read_pbm_config, step_accuracy
from mindzero.report.plots import plot_scaling
from mindzero.report.tables import format_table, step_accuracy_table
from mindzero.stories.ask import ask, format_trace
from mindzero.stories.events import read_question, read_story, story_context
from mindzero.stories.export import file_sha256, question_rows, write_hf_dataset
from mindzero.stories.generator import MODES, generate_stories
from mindzero.stories.hitom import HITOM_URL, evaluate, load_hitom
from mindzero.stories.semantics import ENTERING, SEMANTICS
from mindzero.tasks.stories_scale import ScaleEvalConfig, run_scale_eval

#: Chapters a story may have.
LENGTHS = (1, 2, 3)


def _mode_field():
    """The ``--mode`` option of every verb that generates stories."""
    return field(
        default="hitom",
        metadata={
            "help": "hitom: Hi-ToM chapters; multiroom: agents enter and exit 2-3 rooms one by one (--lengths unused)",
            "choices": MODES,
        },
    )


@dataclass
class AskConfig:
    """``stories ask``: answer questions about a story with the DEL engine and show its trace."""

    story: str = field(
        metadata={
            "help": "story file, numbered or one sentence per line ('-' reads stdin); "
            "'Where ...?' lines in it are questions too"
        }
    )
    semantics: str = field(default="hitom", metadata={"help": "belief semantics of the engine", "choices": SEMANTICS})
    labels: bool = field(default=False, metadata={"help": "show every question's answer after each line"})
    json: bool = field(default=False, metadata={"help": "print the answers and trace as JSON"})
    ignore_unknown: bool = field(
        default=False, metadata={"help": "skip sentences that match no template (their count is reported)"}
    )
    entering: str = field(
        default="auto",
        metadata={
            "help": "what people entering a room see: the objects lying there (sees, Hi-ToM's rule) or "
            "nothing (blind: hidden in their containers, the classic Sally-Anne reading); auto: sees for "
            "a story in Hi-ToM's sentences, blind for one in anyone's own words",
            "choices": ("auto", *ENTERING),
        },
    )


@dataclass
class GenerateConfig:
    """``stories generate``: Hi-ToM-style stories with per-line belief labels."""

    n: int = field(metadata={"help": "number of stories (5 questions each, orders 0-4)", "ge": 1, "le": 1_000_000})
    out: str = field(metadata={"help": "output folder (stories.jsonl, hf/, manifest.json)"})
    seed: int = field(default=0, metadata={"help": "generator seed", "ge": 0})
    lengths: list[int] = field(
        default_factory=lambda: [1, 2, 3], metadata={"help": "chapters per story, cycled", "choices": LENGTHS}
    )
    noise: float = field(default=0.1, metadata={"help": "probability of a distractor before each line", **PROBABILITY})
    semantics: str = field(default="hitom", metadata={"help": "belief semantics of the labels", "choices": SEMANTICS})
    no_hf: bool = field(default=False, metadata={"help": "skip the Hugging Face datasets export"})
    mode: str = _mode_field()


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
    stories: int = field(
        default=100, metadata={"help": "generated stories (5 questions each)", "ge": 1, "le": 1_000_000}
    )
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
    corruptions: int = field(
        default=2, metadata={"help": "corrupted traces per question (gold source)", "ge": 0, "le": 64}
    )
    policy: str = field(default="smollm2-135m", metadata={"help": "model spec of the policy (policy source)"})
    samples: int = field(
        default=4, metadata={"help": "traces sampled per question (policy source)", "ge": 1, "le": 1_024}
    )
    batch: int = field(
        default=8,
        metadata={
            "help": "questions per policy call (policy source; the samples depend on it, as on the seed)",
            "ge": 1,
            "le": 4_096,
        },
    )
    temperature: float = field(default=0.7, metadata={"help": "policy sampling temperature", "ge": 0})
    max_new_tokens: int = field(default=1024, metadata={"help": "tokens per sampled trace", "ge": 1, "le": 32_768})
    with_example: bool = field(default=True, metadata={"help": "include the worked example in the policy prompt"})
    no_hf: bool = field(default=False, metadata={"help": "skip the Hugging Face datasets export"})
    mode: str = _mode_field()


@dataclass
class PBMEvalConfig:
    """``stories pbm-eval``: PBM step-level accuracy per belief order."""

    pbm: str = field(metadata={"help": "PBM folder (train pbm's OUT/final or OUT/checkpoint-N)"})
    out: str = field(metadata={"help": "output folder (results.json, samples.jsonl)"})
    data: str | None = field(
        default=None, metadata={"help": "stepwise JSONL to evaluate (e.g. train pbm's OUT/heldout.jsonl)"}
    )
    stories: int = field(
        default=10, metadata={"help": "without --data: generate this many stories", "ge": 1, "le": 1_000_000}
    )
    seed: int = field(default=12345, metadata={"help": "without --data: story seed (not the training seed)", "ge": 0})
    batch_size: int = field(default=8, metadata={"help": "traces per forward pass", "ge": 1, "le": 4_096})
    readout: str | None = field(
        default=None,
        metadata={
            "help": "label (P(+) at the tag), value (P(written value)) or both (their geometric mean); "
            "default: the PBM's own",
            "choices": READOUTS,
        },
    )
    threshold: float | None = field(
        default=None,
        metadata={
            "help": "score above which a step counts as correct; default: the PBM's own for the readout "
            "(chosen on validation traces by train pbm), else 0.5",
            **PROBABILITY,
        },
    )


def register(areas: argparse._SubParsersAction) -> None:
    """Add the ``stories`` area with its verbs."""
    area = areas.add_parser("stories", help="DEL-labelled theory-of-mind stories (Hi-ToM style)")
    verbs = area.add_subparsers(dest="verb", metavar="VERB", required=True)

    ask_ = verbs.add_parser("ask", help="answer belief questions about any story, with the DEL trace")
    add_dataclass_flags(ask_, AskConfig)
    ask_.add_argument("--question", action="append", default=[], metavar="TEXT", help="a question (repeatable)")
    ask_.set_defaults(func=cmd_ask)

    gen = verbs.add_parser("generate", help="generate Hi-ToM-style stories with per-line belief labels")
    add_dataclass_flags(gen, GenerateConfig)
    add_output_flags(gen)
    gen.set_defaults(func=cmd_generate)

    ev = verbs.add_parser("hitom-eval", help="answer the official Hi-ToM questions with the DEL engine")
    add_dataclass_flags(ev, HitomEvalConfig)
    add_output_flags(ev)
    ev.set_defaults(func=cmd_hitom_eval)

    data = verbs.add_parser(
        "pbm-data",
        help="stepwise PBM data: policy-sampled and/or gold + corrupted traces, every step labelled by the checker",
    )
    add_dataclass_flags(data, PBMDataConfig)
    add_output_flags(data)
    data.set_defaults(func=cmd_pbm_data)

    pev = verbs.add_parser("pbm-eval", help="PBM step-level accuracy per belief order (DEL-ToM Table 4)")
    add_dataclass_flags(pev, PBMEvalConfig)
    add_output_flags(pev)
    pev.set_defaults(func=cmd_pbm_eval)

    sc = verbs.add_parser(
        "scale-eval",
        help="Best-of-N / weighted BoN / majority / beam search accuracy vs N (DEL-ToM Fig. 3)",
        description="Sample a pool of DEL-ToM traces per question with --policy (synthetic or a model), score "
        "every step with --verifier (oracle or a PBM folder), and report accuracy per order for every N, "
        "aggregation and strategy. Writes OUT/results.json, samples.jsonl, traces.jsonl, scaling.png.",
    )
    add_dataclass_flags(sc, ScaleEvalConfig)
    add_output_flags(sc)
    sc.set_defaults(func=cmd_scale_eval)


def cmd_ask(args: argparse.Namespace) -> int:
    config = config_from_args(AskConfig, args)
    text = read_stdin_text() if config.story == "-" else read_text(config.story)
    story = read_story(text, config.ignore_unknown)
    context = story_context(story)  # whom and what a question in other words may mean
    questions = story.questions + [read_question(q, "--question: ", context) for q in args.question]
    if not questions:
        raise UserError("no question: pass --question TEXT or put 'Where ...?' lines in the story")
    entering = config.entering if config.entering != "auto" else "blind" if story.reworded else "sees"
    result = ask(story.events, questions, config.semantics, story.numbers, entering)
    result["ignored_lines"] = story.ignored
    result["reworded"] = [{"line": n, "written": w, "read": r} for n, w, r in story.reworded]
    if config.json:
        print(dumps_json(result))
    else:
        for n, written, read in story.reworded:
            print(f"line {n}: read {written!r} as {read!r}")
        print(format_trace(result, config.labels))
        if config.ignore_unknown:
            print(f"ignored {len(story.ignored)} line(s) matching no template: {story.ignored}")
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    config = config_from_args(GenerateConfig, args)
    folder = claim_out(config.out, "stories generate", config, args.overwrite, args.resume)
    with folder.run():
        with folder.stream("stories.jsonl") as stream:
            if not stream.done:
                start = stream.state or 0  # stories written
                lengths = tuple(config.lengths)
                stories = generate_stories(
                    config.n, config.seed, lengths, config.noise, config.semantics, True, start, config.mode
                )
                for i, story in enumerate(stories, start=start):
                    for row in question_rows(story, config.semantics):
                        stream.write(row)
                    stream.checkpoint(i + 1)
        rows, digest = _export(folder.path / "stories.jsonl", config.no_hf)
        manifest = {
            "task": "stories/generate",
            "config": {k: getattr(config, k) for k in ("n", "seed", "lengths", "noise", "semantics", "mode")},
            "questions": len(rows),
            "stories_jsonl_sha256": digest,
        }
        atomic_write_text(folder.path / "manifest.json", dumps_json(manifest))
    print(f"{config.n} stories, {len(rows)} questions -> {folder.path / 'stories.jsonl'}")
    return 0


def cmd_hitom_eval(args: argparse.Namespace) -> int:
    config = config_from_args(HitomEvalConfig, args)
    folder = claim_out(config.out, "stories hitom-eval", config, args.overwrite, args.resume)
    records = load_hitom(config.data)
    with folder.run():
        metrics, samples, disagreements = evaluate(records, config.semantics)
        write_jsonl(folder.path / "disagreements.jsonl", disagreements)
        path = write_results(
            folder.path,
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
    folder = claim_out(config.out, "stories pbm-data", config, args.overwrite, args.resume)
    policy = load_backend(config.policy, endpoint=config) if config.source in ("policy", "both") else None
    with folder.run():
        stories = generate_stories(config.stories, config.seed, tuple(config.lengths), progress=True, mode=config.mode)
        questions = list(questions_from_stories(stories))
        with folder.stream("stepwise.jsonl") as stream:
            if not stream.done:
                for state, rows in _pbm_rows(config, questions, policy, stream.state or ("gold", 0)):
                    for row in rows:
                        stream.write(row)
                    stream.checkpoint(state)
        rows, digest = _export(folder.path / "stepwise.jsonl", config.no_hf)
        steps = [y for r in rows for y in r["labels"]]
        manifest = {
            "task": "stories/pbm-data",
            "config": dataclasses.asdict(config),
            "rows": len(rows),
            "steps": len(steps),
            "correct_step_fraction": sum(steps) / len(steps) if steps else None,
            "stepwise_jsonl_sha256": digest,
        }
        atomic_write_text(folder.path / "manifest.json", dumps_json(manifest))
    print(f"{len(rows)} traces, {len(steps)} labelled steps ({manifest['correct_step_fraction']:.3f} correct)")
    print(folder.path / "stepwise.jsonl")
    return 0


def _export(path: Path, no_hf: bool) -> tuple[list[dict], str]:
    """(rows, sha256) of a finished JSONL file, also saved beside it as a Hugging Face dataset in
    ``hf/`` unless ``no_hf`` (the dataset is built in memory: its size is the data's)."""
    digest = file_sha256(path)
    rows = read_jsonl(path)
    if not no_hf:
        write_hf_dataset(path.parent / "hf", rows, digest)
    return rows, digest


def _pbm_rows(
    config: PBMDataConfig, questions: list, policy: Backend | None, state: tuple[str, int]
) -> Iterator[tuple[tuple[str, int], list[dict]]]:
    """``((source, next question), rows)`` per unit of work from ``state`` on: gold + corrupted
    traces question by question, then policy samples batch by batch."""
    source, start = state
    if source == "gold" and config.source in ("gold", "both"):
        for i in range(start, len(questions)):
            yield ("gold", i + 1), gold_and_corrupted(questions[i], config.corruptions, config.seed)
    if policy is not None:
        start = start if source == "policy" else 0
        batches = policy_batches(
            policy,
            questions,
            config.samples,
            config.temperature,
            config.max_new_tokens,
            config.seed,
            batch=config.batch,
            with_example=config.with_example,
            start=start,
        )
        for end, rows in batches:
            yield ("policy", end), rows


def cmd_pbm_eval(args: argparse.Namespace) -> int:
    config = config_from_args(PBMEvalConfig, args)
    read_pbm_config(config.pbm)  # a wrong folder fails before any data work
    folder = claim_out(config.out, "stories pbm-eval", config, args.overwrite, args.resume)
    if config.data:
        rows = read_jsonl(config.data, STEPWISE_FIELDS, hint="make one with `mindzero stories pbm-data`")
    else:
        rows = gold_and_corrupted_rows(questions_from_stories(generate_stories(config.stories, config.seed, (1,))))
    pbm = ProcessBeliefModel(config.pbm, batch_size=config.batch_size, readout=config.readout)
    with folder.run():
        scores = pbm.score([r["prompt"] for r in rows], [r["completions"] for r in rows])
        metrics, samples = step_accuracy(rows, scores, pbm.threshold if config.threshold is None else config.threshold)
        metrics["usage"] = pbm.usage.total.as_dict()
        record = {k: getattr(config, k) for k in ("pbm", "data", "stories", "seed")} | {"readout": pbm.readout}
        path = write_results(folder.path, "stories/pbm-eval", record, metrics, samples)
    acc = metrics["step_accuracy"]
    print(step_accuracy_table(metrics))
    kinds = [f"{k.replace('_', ' ')} {acc[k]:.4f}" for k in ("correct_steps", "wrong_steps") if acc[k] is not None]
    print(", ".join([*kinds, f"{metrics['n_steps']} steps"]))
    print(path)
    return 0


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.4g}"


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
        for name in ("weighted-min", "weighted-prod", "vanilla-min", "majority")
    ]
    oracle = metrics.get("oracle_accuracy")
    if oracle:
        rows.append(["oracle weighted-min", *(f"{oracle['weighted-min'][n_max]['by_order'][o]:.3f}" for o in orders)])
        by_n += "\n\noracle verifier, same pools and subsets:\n" + format_table(
            ["method", *(f"N={n}" for n in ns)],
            [[name, *(f"{per_n[str(n)]['avg']:.3f}" for n in ns)] for name, per_n in oracle.items()],
        )
    rows.append(["sample acc", *(f"{metrics['sample_accuracy']['by_order'][o]:.3f}" for o in orders)])
    if "beam" in metrics:
        rows.append(["beam", *(f"{metrics['beam']['by_order'].get(o, float('nan')):.3f}" for o in orders)])
    cost = metrics["cost"]
    cost_rows = [
        [f"{kind} {unit}", *(_fmt(cost[str(n)][kind][unit]) for n in ns)]
        for kind in ("bon", "majority")
        for unit in ("tokens", "tflops")
    ]
    tables = [by_n, format_table([f"N={n_max} by order", *orders], rows)]
    tables.append(format_table(["per question", *(f"N={n}" for n in ns)], cost_rows))
    if "beam" in cost:
        tables.append(
            f"beam search per question: {_fmt(cost['beam']['tokens'])} tokens, {_fmt(cost['beam']['tflops'])} TFLOPs"
        )
    return "\n\n".join(tables)


def cmd_scale_eval(args: argparse.Namespace) -> int:
    config = config_from_args(ScaleEvalConfig, args)
    folder = claim_out(config.out, "stories scale-eval", config, args.overwrite, args.resume)
    with folder.run():
        metrics, samples, traces = run_scale_eval(config)
        write_jsonl(folder.path / "traces.jsonl", traces)
        task = f"stories/scale-eval/{config.data}"
        path = write_results(folder.path, task, dataclasses.asdict(config), metrics, samples)
        title = f"{config.data}: policy {Path(config.policy).name}, verifier {Path(config.verifier).name}"
        plot_scaling(metrics, folder.path / "scaling.png", title)
    print(scale_tables(metrics, config.ns))
    if "verifier_step_accuracy" in metrics:
        print("\nthe PBM on these pools, against the checker's labels (Table 4 on the policy's own traces):")
        print(step_accuracy_table(metrics["verifier_step_accuracy"]))
    print(path)
    return 0
