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
from mindzero.domains.household.mmtom.lexicon import display_name
from mindzero.domains.household.mmtom.model import MMToMModel, answer
from mindzero.domains.household.mmtom.reader import Reading, read_question, read_story_text
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
    """:class:`QATotals` plus the reader's counts: sentences, unread sentences, questions answered
    ``unreadable`` (the reader failed, or an unread sentence may change the answer) and ties.
    ``accuracy`` credits a k-way tie 1/k (what a guess among the tied options scores on average)
    and an unreadable question 0; ``coverage`` is answered / asked."""

    def __init__(self) -> None:
        super().__init__()
        self.sentences = self.unread = self.with_unread = self.unreadable = 0
        self.ties = 0

    def read(self, sample: Mapping[str, Any]) -> None:
        self.ties += sample.get("prediction") == "tie"
        self.sentences += sample["sentences"]
        self.unread += len(sample["unread"])
        self.with_unread += bool(sample["unread"])
        self.unreadable += sample.get("prediction") == "unreadable"

    def metrics(self) -> dict:
        metrics = super().metrics()
        answered = self.n - self.unreadable
        return metrics | {
            "coverage": answered / self.n if self.n else 0.0,
            "accuracy_answered": self.correct / answered if answered else 0.0,
            "ties": self.ties,
            "reader_coverage": 1 - self.unread / self.sentences if self.sentences else 0.0,
            "sentences": self.sentences,
            "unread_sentences": self.unread,
            "questions_with_unread_sentences": self.with_unread,
            "questions_unreadable": self.unreadable,
        }


def reading_fields(text: str, strict: bool = False) -> tuple[Reading | None, dict]:
    """(reading, or None when the answer cannot rest on it; the sample's reader fields: sentences,
    unread, blockers (unread sentences the answer depends on), reader_error, state)."""
    try:
        reading = read_question(text, strict=strict)
    except UserError as err:
        if strict:
            raise
        return None, {"sentences": 0, "unread": [], "blockers": [], "reader_error": str(err), "state": None}
    blockers = reading.blockers()
    return None if blockers else reading, {
        "sentences": reading.sentences,
        "unread": reading.unread,
        "blockers": blockers,
        "reader_error": None,
        "state": reading.to_json(),
    }


def decide(probs: Sequence[float], labels: Sequence[str]) -> tuple[str, list[str]]:
    """(prediction, tied labels): the most probable option's label, or "tie" with the labels tied
    at the top (never a coin flip)."""
    top = max(probs)
    best = [label for label, p in zip(labels, probs) if p == top]
    return (best[0] if len(best) == 1 else "tie"), best


def _identity(row: Mapping[str, Any]) -> dict:
    return {k: row[k] for k in ("id", "split", "question_type", "answer")}


def mmtom_samples(
    rows: Sequence[Mapping[str, Any]],
    reasoner: str,
    model: MMToMModel,
    totals: MMToMTotals,
    rng: np.random.Generator,
    strict: bool = False,
) -> Iterator[dict]:
    """Answer ``rows[totals.n:]`` with ``model`` or ``random`` (``rng``'s coin), one sample per
    question, adding each to ``totals``. Under ``model`` a question the reader cannot read is
    answered ``unreadable`` and equal posteriors ``tie``; ``strict``: an unread sentence is an error."""
    if reasoner not in ("model", "random"):
        raise UserError(f"unknown MMToM reasoner {reasoner!r}; use model or random here, llm via mmtom_llm_samples")
    for row in rows[totals.n :]:
        reading, fields = reading_fields(row["question"], strict)
        sample = _identity(row)
        if reasoner == "random":
            choice = "ab"[int(rng.integers(2))]
            coin = {"option_probs": [0.5, 0.5]}
            sample |= {"prediction": choice, "correct": choice == row["answer"], "posterior": coin}
        elif reading is None:
            sample |= {"prediction": "unreadable", "correct": False, "credit": 0.0, "posterior": None}
        else:
            posterior = answer(reading, model)
            choice, tied = decide(posterior["option_probs"], "abcde")
            credit = float(row["answer"] in tied) / len(tied)
            sample |= {"prediction": choice, "correct": choice == row["answer"], "credit": credit}
            sample["posterior"] = posterior
        sample |= fields
        totals.add(sample)
        totals.read(sample)
        yield sample


def mmtom_llm_samples(
    rows: Sequence[Mapping[str, Any]], answerer: Any, totals: MMToMTotals, seed: int = 0, batch: int = 8
) -> Iterator[list[dict]]:
    """Answer ``rows[totals.n:]`` with an LLM answerer, ``batch`` questions per model call (an answer
    naming no option is wrong); each batch's samples are added to ``totals`` and yielded together."""
    for records, chunk in answerer.answers(rows, seed=seed, start=totals.n, batch=batch):
        samples = []
        for row, record in zip(chunk, records):
            _, fields = reading_fields(row["question"])
            sample = {**_identity(row), **record, "correct": record["prediction"] == row["answer"], **fields}
            totals.add(sample)
            totals.read(sample)
            samples.append(sample)
        yield samples


def option_texts(reading: Reading) -> list[str]:
    """What each option of a reading's question says, in words (for people and ``--json``)."""
    q, who = reading.query, reading.story.person
    trying, thinks = ("am trying", "think") if who == "I" else ("is trying", "thinks")  # a story told by the person
    if q.kind == "goal":
        return [f"{who} {trying} to get the {display_name(goal)}" for goal in q.options]
    says = [f"{who} {thinks} the {display_name(q.goal)} is inside {q.place}", f"... is not inside {q.place}"]
    return says if q.inside == 0 else says[::-1]


def ask_household(text: str, questions: Sequence[str], model: MMToMModel, strict: bool = False) -> dict:
    """Answers to questions about one household story: the question at the end of ``text`` (if
    any), then ``questions``. Per question its options, answer (a label, "tie" or "unreadable"),
    posterior and the unread sentences it depends on; and the state the reader built, with every
    unread sentence. A question the reader cannot take is answered ``unreadable`` with its reason
    (an error under ``strict``); a story it cannot take is an error."""
    told = read_story_text(text, tuple(questions), strict)
    asked = [told.question] * bool(told.question) + list(questions)
    if not asked:
        raise UserError("no question: pass --question TEXT or end the story with one")
    answers = []
    for question in asked:
        try:
            reading = told.ask(question)
        except UserError as err:
            if strict:
                raise
            answers.append({"question": question, "answer": "unreadable", "reason": str(err)})
            continue
        entry = {"question": question, "options": option_texts(reading)}
        if blockers := reading.blockers():
            answers.append(entry | {"answer": "unreadable", "reason": "unread sentences", "blockers": blockers})
            continue
        posterior = answer(reading, model)
        choice, _ = decide(posterior["option_probs"], "abcde")
        answers.append(entry | {"answer": choice, "posterior": posterior})
    state = {"scene": told.scene.to_json(), "story": told.story.to_json(), "unread": told.unread}
    return {"answers": answers, "state": state}
