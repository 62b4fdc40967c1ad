"""Parsers and handlers of ``mindzero stories pbm-data | pbm-eval | scale-eval`` (added to the stories area).

Heavy imports (torch, transformers) happen inside the handlers only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mindzero.core.config import add_dataclass_flags, config_from_args
from mindzero.core.errors import UserError
from mindzero.tasks.stories_scale import ScaleEvalConfig


def story_lengths(text: str) -> tuple[int, ...]:
    """argparse type of ``--lengths``: comma-separated chapters per story, each 1, 2 or 3."""
    try:
        values = tuple(int(x) for x in text.split(","))
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected comma-separated lengths, got {text!r}") from err
    if not values or any(v not in (1, 2, 3) for v in values):
        raise argparse.ArgumentTypeError("story lengths must be among 1, 2, 3")
    return values


def add_pbm_verbs(verbs: argparse._SubParsersAction) -> None:
    """Register the PBM data, PBM evaluation and scaling evaluation verbs."""
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
    data.set_defaults(func=_pbm_data)

    ev = verbs.add_parser("pbm-eval", help="PBM step-level accuracy per belief order (DEL-ToM Table 4)")
    ev.add_argument("--pbm", required=True, help="PBM folder (train pbm's OUT/final or OUT/checkpoint-N)")
    ev.add_argument("--data", help="stepwise JSONL to evaluate (e.g. train pbm's OUT/heldout.jsonl)")
    ev.add_argument("--stories", type=int, default=10, help="without --data: generate this many stories")
    ev.add_argument("--seed", type=int, default=12345, help="without --data: story seed (not the training seed)")
    ev.add_argument("--batch-size", type=int, default=8, help="traces per forward pass")
    ev.add_argument("--threshold", type=float, default=0.5, help="score above which a step counts as correct")
    ev.add_argument("--out", required=True, help="output folder (results.json, samples.jsonl)")
    ev.set_defaults(func=_pbm_eval)

    sc = verbs.add_parser(
        "scale-eval",
        help="Best-of-N / weighted BoN / majority / beam search accuracy vs N (DEL-ToM Fig. 3)",
        description="Sample a pool of DEL-ToM traces per question with --policy (synthetic or a model), score "
        "every step with --verifier (oracle or a PBM folder), and report accuracy per order for every N, "
        "aggregation and strategy. Writes OUT/results.json, samples.jsonl, traces.jsonl, scaling.png.",
    )
    add_dataclass_flags(sc, ScaleEvalConfig)
    sc.set_defaults(func=_scale_eval)


def _pbm_data(args: argparse.Namespace) -> int:
    from mindzero.core.results import atomic_write_text
    from mindzero.pbm.data import gold_and_corrupted_rows, policy_rows, questions_from_stories
    from mindzero.stories.export import write_hf_dataset, write_jsonl_rows
    from mindzero.stories.generator import generate_stories

    if args.stories < 1:
        raise UserError("--stories must be at least 1")
    questions = list(questions_from_stories(generate_stories(args.stories, args.seed, args.lengths, progress=True)))
    rows: list[dict] = []
    if args.source in ("gold", "both"):
        rows += gold_and_corrupted_rows(questions, args.corruptions, args.seed)
    if args.source in ("policy", "both"):
        from mindzero.llm import load_backend

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


def _pbm_eval(args: argparse.Namespace) -> int:
    from mindzero.core.results import read_jsonl, write_results
    from mindzero.pbm.data import gold_and_corrupted_rows, questions_from_stories
    from mindzero.pbm.model import ProcessBeliefModel, read_pbm_config, step_accuracy
    from mindzero.stories.generator import generate_stories

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
    print(f"{'order':<10}{'step acc':>10}")
    for k, v in acc["by_order"].items():
        print(f"{k:<10}{v:>10.4f}")
    print(f"{'avg':<10}{acc['avg']:>10.4f}")
    print(f"correct steps {acc['correct_steps']:.4f}, wrong steps {acc['wrong_steps']:.4f}, {metrics['n_steps']} steps")
    print(path)
    return 0


def _scale_eval(args: argparse.Namespace) -> int:
    from mindzero.tasks.stories_scale import format_table, write_scale_eval

    config = config_from_args(ScaleEvalConfig, args)
    path, metrics = write_scale_eval(config)
    print(format_table(metrics, config.ns))
    print(path)
    return 0
