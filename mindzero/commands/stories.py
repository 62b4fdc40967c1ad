"""``mindzero stories generate|hitom-eval|pbm-data|pbm-eval|scale-eval`` — DEL-labelled stories and PBM search."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mindzero.stories.semantics import SEMANTICS
from mindzero.tasks.stories_cli import story_lengths

DEFAULT_HITOM = "../shared/data/hitom/Hi-ToM_data.json"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``stories`` area with its verbs."""
    area = subparsers.add_parser("stories", help="DEL-labelled theory-of-mind stories (Hi-ToM style)")
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
    gen.set_defaults(func=_generate)

    ev = verbs.add_parser("hitom-eval", help="answer the official Hi-ToM questions with the DEL engine")
    ev.add_argument("--data", default=DEFAULT_HITOM, help="path to Hi-ToM_data.json")
    ev.add_argument("--out", required=True, help="output folder (results.json, samples.jsonl, disagreements.jsonl)")
    ev.add_argument("--semantics", choices=SEMANTICS, default="hitom")
    ev.set_defaults(func=_hitom_eval)

    from mindzero.tasks.stories_cli import add_pbm_verbs

    add_pbm_verbs(verbs)


def _generate(args: argparse.Namespace) -> int:
    from mindzero.core.errors import UserError
    from mindzero.core.results import atomic_write_text
    from mindzero.stories.export import question_rows, write_hf_dataset, write_jsonl_rows
    from mindzero.stories.generator import generate_stories

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


def _hitom_eval(args: argparse.Namespace) -> int:
    from mindzero.core.results import write_jsonl, write_results
    from mindzero.stories.hitom import evaluate, load_hitom

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
    print(f"{'subset':<28}{'accuracy':>10}")
    print(f"{'overall':<28}{acc['overall']:>10.4f}")
    print(f"{'one-chapter CoT (DEL-ToM)':<28}{acc['one_chapter_cot']:>10.4f}")
    for group in ("by_order", "by_length", "by_tell", "by_prompting_type"):
        for key, value in acc[group].items():
            print(f"{group[3:] + ' ' + key:<28}{value:>10.4f}")
    print(f"disagreements: {metrics['n_disagreements']} {metrics['disagreements_by_cause']}")
    print(path)
    return 0
