"""MMToM-QA (Jin et al., 2024) text questions answered by a reasoner: accuracy overall and per
question type, and how much of the text the rule-based reader understood.

Reasoners: ``model`` (the reader plus Bayesian inverse planning,
:mod:`mindzero.domains.household.mmtom.model`), ``random`` (a fair coin per question) and ``llm``
(the question text as the prompt, answered by :class:`~mindzero.inference.llm.LLMQAAnswerer`).
Every question is read whatever the reasoner, so each sample carries the parsed state and its
unread sentences.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from mindzero.core.errors import UserError
from mindzero.domains.household.mmtom.model import MMToMModel, answer
from mindzero.domains.household.mmtom.reader import Reading, read_question
from mindzero.tasks.qa import QATotals

#: Fields every MMToM-QA row must have (``questions.jsonl`` of the benchmark).
QUESTION_FIELDS = {"question": str, "answer": str, "question_type": (int, float)}
MMTOM_REASONERS = ("model", "random", "llm")


def mmtom_rows(raw: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The benchmark's rows with ``id`` (line order), ``split`` and ``question_type`` as text."""
    rows = []
    for i, row in enumerate(raw):
        if row["answer"] not in ("a", "b"):
            raise UserError(f"question {i}: answer must be 'a' or 'b', got {row['answer']!r}")
        rows.append({**row, "id": str(i), "split": "mmtom", "question_type": f"{row['question_type']:.1f}"})
    return rows


class MMToMTotals(QATotals):
    """:class:`QATotals` plus the reader's counts: sentences, unread sentences, questions it could
    not read at all (answered by a coin under ``model``)."""

    def __init__(self) -> None:
        super().__init__()
        self.sentences = self.unread = self.with_unread = self.unreadable = 0
        self.ties = self.tie_correct = 0

    def read(self, sample: Mapping[str, Any]) -> None:
        if sample.get("tie"):
            self.ties += 1
            self.tie_correct += bool(sample["correct"])
        self.sentences += sample["sentences"]
        self.unread += len(sample["unread"])
        self.with_unread += bool(sample["unread"])
        self.unreadable += sample["reader_error"] is not None

    def metrics(self) -> dict:
        metrics = super().metrics()
        return metrics | {
            "ties": self.ties,
            # the coin's luck taken out: each tie counts one half
            "expected_accuracy": (self.correct - self.tie_correct + self.ties / 2) / self.n if self.n else 0.0,
            "reader_coverage": 1 - self.unread / self.sentences if self.sentences else 0.0,
            "sentences": self.sentences,
            "unread_sentences": self.unread,
            "questions_with_unread_sentences": self.with_unread,
            "questions_unreadable": self.unreadable,
        }


def reading_fields(text: str) -> tuple[Reading | None, dict]:
    """(reading or None, the sample's reader fields: sentences, unread, reader_error, state)."""
    try:
        reading = read_question(text)
    except UserError as err:
        return None, {"sentences": 0, "unread": [], "reader_error": str(err), "state": None}
    return reading, {
        "sentences": reading.sentences,
        "unread": reading.unread,
        "reader_error": None,
        "state": reading.to_json(),
    }


def _identity(row: Mapping[str, Any]) -> dict:
    return {k: row[k] for k in ("id", "split", "question_type", "answer")}


def mmtom_samples(
    rows: Sequence[Mapping[str, Any]], reasoner: str, model: MMToMModel, totals: MMToMTotals, rng: np.random.Generator
) -> Iterator[dict]:
    """Answer ``rows[totals.n:]`` with ``model`` or ``random``, one sample per question (ties and
    unreadable questions: ``rng``'s coin), adding each to ``totals``."""
    if reasoner not in ("model", "random"):
        raise UserError(f"unknown MMToM reasoner {reasoner!r}; use model or random here, llm via mmtom_llm_samples")
    for row in rows[totals.n :]:
        reading, fields = reading_fields(row["question"])
        posterior: dict = {"option_probs": [0.5, 0.5]}
        if reasoner == "model" and reading is not None:
            posterior = answer(reading, model)
        probs = np.array(posterior["option_probs"])
        best = np.flatnonzero(probs == probs.max())
        choice = "ab"[int(best[0]) if len(best) == 1 else int(rng.integers(2))]
        sample = {**_identity(row), "prediction": choice, "correct": choice == row["answer"], "tie": len(best) > 1}
        sample |= fields
        sample["posterior"] = posterior
        totals.add(sample)
        totals.read(sample)
        yield sample


def mmtom_llm_samples(
    rows: Sequence[Mapping[str, Any]], answerer: Any, totals: MMToMTotals, seed: int = 0
) -> Iterator[list[dict]]:
    """Answer ``rows[totals.n:]`` with an LLM answerer batch by batch (an answer naming no option is
    wrong); each batch's samples are added to ``totals`` and yielded together."""
    for records, batch in answerer.answers(rows, seed=seed, start=totals.n):
        samples = []
        for row, record in zip(batch, records):
            _, fields = reading_fields(row["question"])
            sample = {**_identity(row), **record, "correct": record["prediction"] == row["answer"], **fields}
            totals.add(sample)
            totals.read(sample)
            samples.append(sample)
        yield samples
