"""Two-option question answering about a person's mind, for any domain: accuracy overall, per
question type and per split.

Rows carry ``id``, ``split``, ``question_type``, ``answer`` ('a' or 'b') and whatever the domain
needs to replay the question (:meth:`Domain.qa_option_probs`, :meth:`Domain.qa_prompt`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from tqdm import tqdm

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.domains.base import Domain

KEYS = ("id", "split", "question_type", "answer")


def _identity(row: Mapping[str, Any]) -> dict:
    missing = [k for k in KEYS if k not in row]
    if missing:
        raise UserError(f"question {row.get('id', '?')}: missing field(s) {', '.join(missing)}")
    return {k: row[k] for k in KEYS}


class QATotals:
    """Accuracy overall, per question type and per split, counted question by question (constant
    memory; a checkpoint of the totals lets an interrupted evaluation continue)."""

    def __init__(self) -> None:
        self.n, self.correct = 0, 0
        self.groups: dict[tuple[str, Any], list[int]] = {}  # (key, value) -> [correct, n]

    def add(self, sample: Mapping[str, Any]) -> None:
        # credit: the answer's expected score where it is not all or nothing (1/k for a k-way tie)
        credit = sample.get("credit", float(bool(sample["correct"])))
        self.n += 1
        self.correct += credit
        for key in ("question_type", "split"):
            group = self.groups.setdefault((key, sample[key]), [0, 0])
            group[0] += credit
            group[1] += 1

    def metrics(self) -> dict:
        metrics = {"accuracy": self.correct / self.n, "n": self.n}
        for key in ("question_type", "split"):
            for value in sorted(v for k, v in self.groups if k == key):
                correct, n = self.groups[key, value]
                metrics[f"accuracy_{key}_{value}"] = correct / n
        return metrics


def qa_samples(
    domain: Domain,
    rows: Sequence[Mapping[str, Any]],
    reasoner_name: str,
    human: HumanParams,
    totals: QATotals,
    rng: np.random.Generator,
    progress: bool = True,
) -> Iterator[list[dict]]:
    """Answer the questions from ``rows[totals.n]`` on with a posterior-producing reasoner, one
    question at a time; ties are broken by ``rng``'s coin. Each answer is added to ``totals`` and
    yielded (as a list of one: a unit of work after which a run may checkpoint)."""
    for row in tqdm(rows[totals.n :], desc=f"qa-eval[{reasoner_name}]", disable=not progress, leave=False):
        sample = _identity(row)
        reasoner = domain.reasoner(reasoner_name, int(rng.integers(2**31)), human)
        probs = domain.qa_option_probs(row, reasoner)
        best = np.flatnonzero(probs == probs.max())
        choice = "ab"[int(best[0]) if len(best) == 1 else int(rng.integers(2))]
        sample = {**sample, "prediction": choice, "option_probs": probs.tolist(), "correct": choice == row["answer"]}
        totals.add(sample)
        yield [sample]


def qa_llm_samples(
    rows: Sequence[Mapping[str, Any]], answerer: Any, totals: QATotals, seed: int = 0, batch: int = 8
) -> Iterator[list[dict]]:
    """Answer the questions from ``rows[totals.n]`` on with an
    :class:`~mindzero.inference.llm.LLMQAAnswerer`, ``batch`` questions per model call (an answer
    naming no option is wrong); each batch's samples are added to ``totals`` and yielded together."""
    for records, chunk in answerer.answers(rows, seed=seed, start=totals.n, batch=batch):
        samples = []
        for row, record in zip(chunk, records):
            sample = _identity(row)
            samples.append({**sample, **record, "correct": record["prediction"] == sample["answer"]})
            totals.add(samples[-1])
        yield samples


def evaluate_qa(
    domain: Domain,
    rows: Sequence[Mapping[str, Any]],
    reasoner_name: str,
    human: HumanParams,
    seed: int = 0,
    progress: bool = True,
) -> tuple[dict, list[dict]]:
    """(metrics, samples) of :func:`qa_samples` over every question, the ties' coin seeded by ``seed``."""
    if not rows:
        raise UserError("no questions to evaluate")
    totals = QATotals()
    units = qa_samples(domain, rows, reasoner_name, human, totals, np.random.default_rng(seed), progress)
    samples = [sample for unit in units for sample in unit]
    return totals.metrics(), samples


def evaluate_qa_llm(rows: Sequence[Mapping[str, Any]], answerer: Any, seed: int = 0) -> tuple[dict, list[dict]]:
    """(metrics with the answerer's costs, samples) of :func:`qa_llm_samples` over every question."""
    if not rows:
        raise UserError("no questions to evaluate")
    totals = QATotals()
    samples = [sample for unit in qa_llm_samples(rows, answerer, totals, seed) for sample in unit]
    return totals.metrics() | answerer.stats.metrics(), samples
