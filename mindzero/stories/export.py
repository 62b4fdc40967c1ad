"""Export generated stories as JSONL rows (one per question) and as a Hugging Face dataset.

Rows carry everything a PBM or a prompt needs: the numbered story, question, choices, gold answer,
per-line labels for the question's chain and the gold DEL-ToM trace. Same seed ⇒ same bytes:
keys are sorted and the Hugging Face dataset gets a fingerprint derived from the rows.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator

from mindzero.core.errors import UserError
from mindzero.core.outputs import atomic_path
from mindzero.stories.generator import GeneratedStory
from mindzero.stories.traces import render_gold_trace


def question_rows(story: GeneratedStory, semantics: str) -> Iterator[dict]:
    """One row per question of the story."""
    text, choices, lines = story.story_text(), story.choices_text(), story.lines
    for q, labels, answer in zip(story.questions, story.labels, story.answers):
        yield {
            "id": f"{story.story_id}-{q.order}",
            "story_id": story.story_id,
            "story_length": story.length,
            "deception": story.tell,
            "question_order": q.order,
            "story": text,
            "lines": lines,
            "question": q.render(),
            "chain": list(q.chain),
            "object": q.obj,
            "choices": choices,
            "answer": answer,
            "labels": labels,
            "gold_trace": render_gold_trace(story.events, q, labels),
            "semantics": semantics,
        }


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a file's bytes (for the manifest and the dataset fingerprint), read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_hf_dataset(path: str | os.PathLike, rows: list[dict], fingerprint: str) -> None:
    """Save a ``datasets.Dataset`` to disk, whole or not at all (``datasets`` is in the optional ``llm`` extra)."""
    try:
        import datasets
        import pyarrow as pa
    except ImportError as err:  # pragma: no cover - depends on the installed extras
        raise UserError("the Hugging Face export needs `pip install mindzero[llm]` (datasets, pyarrow)") from err
    table = pa.Table.from_pylist(rows)
    ds = datasets.Dataset(table, fingerprint=fingerprint[:16])
    with atomic_path(path) as tmp:
        ds.save_to_disk(str(tmp))
