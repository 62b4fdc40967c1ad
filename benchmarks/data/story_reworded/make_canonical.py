"""Build ``canonical.jsonl``: the stories that people reword for the story reader's robustness set.

Deterministic (seed 20261205): 12 Hi-ToM-style stories (one room per chapter, claims and
distractors) and 12 multi-room stories, of one and two chapters, each with its five belief
questions (orders 0-4) and the engine's answers. The rewordings (``reworded_*.jsonl``) keep every
event and question and so every answer; ``benchmarks/bench_story_reader.py`` reads them.

    python benchmarks/data/story_reworded/make_canonical.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from mindzero.stories.generator import generate_stories  # noqa: E402

SEED = 20261205
PER_MODE_AND_LENGTH = 6


def main() -> None:
    rows = []
    for mode in ("hitom", "multiroom"):
        for length in (1, 2):
            stories = generate_stories(PER_MODE_AND_LENGTH, seed=SEED + length, lengths=(length,), mode=mode)
            for story in stories:
                rows.append(
                    {
                        "id": f"{mode}-{length}-{len(rows):02d}",
                        "mode": mode,
                        "lines": list(story.lines),
                        "questions": [q.render() for q in story.questions],
                        "answers": list(story.answers),
                    }
                )
    out = HERE / "canonical.jsonl"
    out.write_text("".join(json.dumps(row) + "\n" for row in rows))
    print(f"{len(rows)} stories, {sum(len(r['questions']) for r in rows)} questions -> {out}")


if __name__ == "__main__":
    main()
