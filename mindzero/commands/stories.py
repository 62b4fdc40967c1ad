"""``mindzero stories generate|hitom-eval|pbm-data|pbm-eval|scale-eval`` — DEL-labelled stories and PBM search."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from mindzero.core.config import add_dataclass_flags, config_from_args
from mindzero.core.errors import UserError
from mindzero.core.results import atomic_write_text, read_jsonl, write_jsonl, write_results
from mindzero.llm import load_backend
from mindzero.pbm.data import gold_and_corrupted_rows, policy_rows, questions_from_stories
from mindzero.pbm.model import ProcessBeliefModel, read_pbm_config, step_accuracy
from mindzero.report.plots import plot_scaling
from mindzero.report.tables import format_table
from mindzero.stories.export import question_rows, write_hf_dataset, write_jsonl_rows
from mindzero.stories.generator import generate_stories
from mindzero.stories.hitom import HITOM_URL, evaluate, load_hitom
from mindzero.stories.semantics import SEMANTICS
from mindzero.tasks.stories_scale import ScaleEvalConfig, run_scale_eval


def story_lengths(text: str) -> tuple[int, ...]:
    """argparse type of ``--lengths``: comma-separated chapters per story, each 1, 2 or 3."""
    try:
        values = tuple(int(x) for x in text.split(","))
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected comma-separated lengths, got {text!r}") from err
    if not values or any(v not in (1, 2, 3) for v in values):
        raise argparse.ArgumentTypeError("story lengths must be among 1, 2, 3")
    return values


def register(areas: argparse._SubParsersAction) -> None:
    """Add the ``stories`` area with its verbs."""
    area = areas.add_parser("stories", help="DEL-labelled theory-of-mind stories (Hi-ToM style)")
    verbs = area.add_subparsers(dest="verb", metavar="VERB")

    gen = verbs.add_parser("generate", help="generate Hi-ToM-style stories with per-line belief labels")
    gen.add_argument("--n", type=int, required=True, help="number of stories (5 questions each, orders 0-4)")
    gen.add_argument("--out", required=True, help="output folder (stories.jsonl, hf/, manifest.json)")
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument(
        "--lengths", type=story_lengths, default=(1, 2, 3), help="chapters per story, cycled (default 1,2,3)"
    )
    gen.add_argument("--noise", type=float, default=0.1, help="probability of a distractor before each line")
    gen.add_argument("--semantics", choices=SEMANTICS, default="hitom")
    gen.add_argument("--no-hf", action="store_true", help="skip the Hugging Face datasets export")
    gen.set_defaults(func=cmd_generate)

    ev = verbs.add_parser("hitom-eval", help="answer the official Hi-ToM questions with the DEL engine")
    ev.add_argument("--data", required=True, help=f"path to the official Hi-ToM_data.json (released at {HITOM_URL})")
    ev.add_argument("--out", required=True, help="output folder (results.json, samples.jsonl, disagreements.jsonl)")
    ev.add_argument("--semantics", choices=SEMANTICS, default="hitom")
    ev.set_defaults(func=cmd_hitom_eval)

    data = verbs.add_parser(
        "pbm-data",
        help="stepwise PBM data: policy-sampled and/or gold + corrupted traces, every step labelled by the checker",
    )
    data.add_argument("--out", required=True, help="output folder (stepwise.jsonl, hf/, manifest.json)")
    data.add_argument("--stories", type=int, default=100, help="generated stories (5 questions each)")
    data.add_argument("--seed", type=int, default=0)
    data.add_argument("--lengths", type=story_lengths, default=(1,), help="chapters per story, cycled (default 1)")
    data.add_argument(
        "--source",
        choices=("gold", "policy", "both"),
        default="gold",
        help="gold: gold + corrupted traces (no model); policy: sampled traces; both",
    )
    data.add_argument("--corruptions", type=int, default=2, help="corrupted traces per question (gold source)")
    data.add_argument("--policy", default="smollm2-135m", help="model spec of the policy (policy source)")
    data.add_argument("--samples", type=int, default=4, help="traces sampled per question (policy source)")
    data.add_argument("--temperature", type=float, default=0.7)
    data.add_argument("--max-new-tokens", type=int, default=1024)
    data.add_argument("--no-hf", action="store_true", help="skip the Hugging Face datasets export")
    data.set_defaults(func=cmd_pbm_data)

    pev = verbs.add_parser("pbm-eval", help="PBM step-level accuracy per belief order (DEL-ToM Table 4)")
    pev.add_argument("--pbm", required=True, help="PBM folder (train pbm's OUT/final or OUT/checkpoint-N)")
    pev.add_argument("--data", help="stepwise JSONL to evaluate (e.g. train pbm's OUT/heldout.jsonl)")
    pev.add_argument("--stories", type=int, default=10, help="without --data: generate this many stories")
    pev.add_argument("--seed", type=int, default=12345, help="without --data: story seed (not the training seed)")
    pev.add_argument("--batch-size", type=int, default=8, help="traces per forward pass")
    pev.add_argument("--threshold", type=float, default=0.5, help="score above which a step counts as correct")
    pev.add_argument("--out", required=True, help="output folder (results.json, samples.jsonl)")
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
    if args.n < 1:
        raise UserError("--n must be at least 1")
    if not 0.0 <= args.noise <= 1.0:
        raise UserError("--noise must be a probability in [0, 1]")
    out = Path(args.out)
    stories = generate_stories(args.n, args.seed, args.lengths, args.noise, args.semantics, progress=True)
    rows = [row for story in stories for row in question_rows(story, args.semantics)]
    digest = write_jsonl_rows(out / "stories.jsonl", rows)
    if not args.no_hf:
        write_hf_dataset(out / "hf", rows, digest)
    manifest = {
        "task": "stories/generate",
        "config": {
            "n": args.n,
            "seed": args.seed,
            "lengths": list(args.lengths),
            "noise": args.noise,
            "semantics": args.semantics,
        },
        "questions": len(rows),
        "stories_jsonl_sha256": digest,
    }
    atomic_write_text(out / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    print(f"{args.n} stories, {len(rows)} questions -> {out / 'stories.jsonl'}")
    return 0


def cmd_hitom_eval(args: argparse.Namespace) -> int:
    records = load_hitom(args.data)
    metrics, samples, disagreements = evaluate(records, args.semantics)
    out = Path(args.out)
    write_jsonl(out / "disagreements.jsonl", disagreements)
    path = write_results(
        out,
        "stories/hitom-eval",
        {"data": str(args.data), "semantics": args.semantics},
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
    if args.stories < 1:
        raise UserError("--stories must be at least 1")
    questions = list(questions_from_stories(generate_stories(args.stories, args.seed, args.lengths, progress=True)))
    rows: list[dict] = []
    if args.source in ("gold", "both"):
        rows += gold_and_corrupted_rows(questions, args.corruptions, args.seed)
    if args.source in ("policy", "both"):
        backend = load_backend(args.policy)
        rows += policy_rows(backend, questions, args.samples, args.temperature, args.max_new_tokens, args.seed)
    out = Path(args.out)
    digest = write_jsonl_rows(out / "stepwise.jsonl", rows)
    if not args.no_hf:
        write_hf_dataset(out / "hf", rows, digest)
    steps = [y for r in rows for y in r["labels"]]
    manifest = {
        "task": "stories/pbm-data",
        "config": {k: v for k, v in vars(args).items() if k != "func"},
        "rows": len(rows),
        "steps": len(steps),
        "correct_step_fraction": sum(steps) / len(steps) if steps else None,
        "stepwise_jsonl_sha256": digest,
    }
    atomic_write_text(out / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True, default=list) + "\n")
    print(f"{len(rows)} traces, {len(steps)} labelled steps ({manifest['correct_step_fraction']:.3f} correct)")
    print(out / "stepwise.jsonl")
    return 0


def step_accuracy_table(acc: dict) -> str:
    """PBM step accuracy per belief order and their mean (``step_accuracy`` metrics; Table 4)."""
    rows = [[order, f"{value:.4f}"] for order, value in acc["by_order"].items()]
    return format_table(["order", "step acc"], [*rows, ["avg", f"{acc['avg']:.4f}"]])


def cmd_pbm_eval(args: argparse.Namespace) -> int:
    read_pbm_config(args.pbm)  # a wrong folder fails before any data work
    if args.data:
        try:
            rows = read_jsonl(args.data)
        except OSError as err:
            raise UserError(f"cannot read {args.data}: {err.strerror}") from None
    else:
        rows = gold_and_corrupted_rows(questions_from_stories(generate_stories(args.stories, args.seed, (1,))))
    pbm = ProcessBeliefModel(args.pbm, batch_size=args.batch_size)
    metrics, samples = step_accuracy(pbm, rows, args.threshold)
    config = {"pbm": args.pbm, "data": args.data, "stories": args.stories, "seed": args.seed}
    path = write_results(args.out, "stories/pbm-eval", config, metrics, samples)
    acc = metrics["step_accuracy"]
    print(step_accuracy_table(acc))
    print(f"correct steps {acc['correct_steps']:.4f}, wrong steps {acc['wrong_steps']:.4f}, {metrics['n_steps']} steps")
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
    metrics, samples, traces = run_scale_eval(config)
    out = Path(config.out)
    write_jsonl(out / "traces.jsonl", traces)
    task = f"stories/scale-eval/{config.data}"
    path = write_results(out, task, dataclasses.asdict(config), metrics, samples)
    title = f"{config.data}: policy {Path(config.policy).name}, verifier {Path(config.verifier).name}"
    plot_scaling(metrics, out / "scaling.png", title)
    print(scale_tables(metrics, config.ns))
    print(path)
    return 0
