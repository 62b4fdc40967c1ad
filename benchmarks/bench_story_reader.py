"""The story reader on stories people wrote in their own words: coverage beside accuracy.

    python benchmarks/bench_story_reader.py [--show N]

Reads ``benchmarks/data/story_reworded/``: ``canonical.jsonl`` (24 generated stories in the
templates' words, 5 belief questions each, orders 0-4, answered by the engine) and each
``reworded_<author>.jsonl`` (the same stories and questions rewritten by hand in one author's
habits, README.md there). For every set it prints

- stories read: share of stories whose every sentence was read (a story with an unread sentence is
  refused, as ``stories ask`` refuses it, and its questions count as wrong);
- sentences read: share of sentences read when unread ones are skipped (``--ignore-unknown``);
- questions read: share of questions understood;
- accuracy: answers equal to the engine's answers on the canonical story, over all questions;
- accuracy read: the same over the questions of stories read (a wrong answer here is a misreading,
  worse than a refusal; so is a story read into events the engine finds impossible);
- acc. skip: accuracy over all questions when unread sentences are skipped (``stories ask
  --ignore-unknown``): what a user gets who accepts the risk.

``--show N`` prints the first N unread sentences and questions of each set (for development sets
only: README.md names the held-out ones).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mindzero.core.errors import UserError  # noqa: E402
from mindzero.stories.ask import ask  # noqa: E402
from mindzero.stories.events import read_question, read_story, story_context  # noqa: E402

DATA = Path(__file__).parent / "data" / "story_reworded"
#: Sets kept out of development: --show never prints them, --dev skips them (README.md there).
HELD_OUT = {"child", "texting", "southasian", "report", "eastasian", "british", "assistant", "bedtime", "screenplay",
            "dictated", "gamemaster", "thread", "victorian", "commentator"}  # fmt: skip


def same(a: str | None, b: str | None) -> bool:
    """Answers match up to case and the "_" / space of several-word names."""
    norm = lambda s: None if s is None else s.lower().replace(" ", "_")  # noqa: E731
    return norm(a) == norm(b)


def story_text(row: dict) -> str:
    return row["text"] if "text" in row else "\n".join(row["lines"])


def _right(story, questions: list, gold: list) -> int:
    """Questions the story's events answer as the canonical story does (0 for all when the engine
    finds the events impossible: a misreading, or a question about someone the story lacks)."""
    try:
        answers = iter(a["answer"] for a in ask(story.events, [q for q in questions if q is not None])["answers"])
    except UserError:
        return 0
    return sum(q is not None and same(next(answers), g) for q, g in zip(questions, gold))


def evaluate(rows: list[dict], show: int) -> dict:
    n_q = sum(len(r["questions"]) for r in rows)
    stories_read = questions_read = right = right_read = asked_read = sentences = unread = right_skipping = 0
    shown: list[str] = []
    seconds = 0.0
    for row in rows:
        text = story_text(row)
        start = time.perf_counter()
        try:
            loose = read_story(text, ignore_unknown=True)
        except UserError:  # not one sentence read
            loose = None
        seconds += time.perf_counter() - start
        sentences += loose.sentences_read + len(loose.ignored) if loose else len(text.split(". "))
        unread += len(loose.ignored) if loose else len(text.split(". "))
        try:
            story = read_story(text)
        except UserError as err:
            story = None
            if len(shown) < show:
                shown.append(f"{row['id']}: {err}")
        stories_read += story is not None
        questions = []
        for q in row["questions"]:
            try:
                questions.append(read_question(q, context=story_context(loose) if loose else None))
            except UserError as err:
                questions.append(None)
                if len(shown) < show:
                    shown.append(f"{row['id']}: {err}")
        questions_read += sum(q is not None for q in questions)
        right_skipping += _right(loose, questions, row["answers"]) if loose else 0
        if story is None:
            continue
        asked_read += len(row["questions"])
        ok = _right(story, questions, row["answers"])
        right += ok
        right_read += ok
    return {
        "stories": len(rows),
        "stories_read": stories_read / len(rows),
        "sentences_read": 1 - unread / max(sentences, 1),
        "questions_read": questions_read / n_q,
        "accuracy": right / n_q,
        "accuracy_read": right_read / asked_read if asked_read else None,
        "accuracy_skipping": right_skipping / n_q,
        "ms_per_story": 1000 * seconds / len(rows),
        "shown": shown,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print the first N unread sentences/questions per set")
    parser.add_argument("--dev", action="store_true", help="only the development sets (not the held-out ones)")
    args = parser.parse_args()
    sets = [DATA / "canonical.jsonl", *sorted(DATA.glob("reworded_*.jsonl"))]
    columns = ("stories", 8), ("read", 8), ("sentences", 11), ("questions", 11), ("accuracy", 10), ("acc. read", 11)
    columns += (("acc. skip", 11),)
    print(f"{'set':<20}" + "".join(f"{name:>{width}}" for name, width in columns) + f"{'ms/story':>10}")
    for path in sets:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        name = path.stem.removeprefix("reworded_")
        if args.dev and name in HELD_OUT:
            continue
        m = evaluate(rows, 0 if name in HELD_OUT else args.show)
        acc_read = "-" if m["accuracy_read"] is None else f"{m['accuracy_read']:.3f}"
        print(
            f"{name:<20}{m['stories']:>8}{m['stories_read']:>8.3f}{m['sentences_read']:>11.3f}"
            f"{m['questions_read']:>11.3f}{m['accuracy']:>10.3f}{acc_read:>11}{m['accuracy_skipping']:>11.3f}"
            f"{m['ms_per_story']:>10.1f}"
        )
        for line in m["shown"]:
            print("    " + line)
    print(long_story_times())


def long_story_times() -> str:
    """Seconds to read a story in own words of 400 and of 4,000 sentences: reading must stay linear
    in a story's length (each sentence's context is kept up to date, not rebuilt)."""
    seconds = {}
    for n in (400, 4000):
        text = "Anne walks into the kitchen. She heads to the den. " * (n // 2)
        start = time.perf_counter()
        read_story(text)
        seconds[n] = time.perf_counter() - start
    ratio = seconds[4000] / seconds[400]
    return (
        f"long stories: 400 sentences {seconds[400]:.2f} s, 4,000 sentences {seconds[4000]:.2f} s "
        f"({ratio:.1f}x; linear = 10x)"
    )


if __name__ == "__main__":
    main()
