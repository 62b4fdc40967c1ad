"""Two-option question answering about a person's mind, for any domain: accuracy overall, per
question type and per split.

Rows carry ``id``, ``split``, ``question_type``, ``answer`` ('a' or 'b') and whatever the domain
needs to replay the question (:meth:`Domain.qa_option_probs`, :meth:`Domain.qa_prompt`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def evaluate_qa(
    domain: Domain,
    rows: Sequence[Mapping[str, Any]],
    reasoner_name: str,
    human: HumanParams,
    seed: int = 0,
    progress: bool = True,
) -> tuple[dict, list[dict]]:
    """Answer each question with a posterior-producing reasoner; ties are broken by a seeded coin."""
    if not rows:
        raise UserError("no questions to evaluate")
    rng = np.random.default_rng(seed)
    samples = []
    for row in tqdm(rows, desc=f"qa-eval[{reasoner_name}]", disable=not progress, leave=False):
        sample = _identity(row)
        reasoner = domain.reasoner(reasoner_name, int(rng.integers(2**31)), human)
        probs = domain.qa_option_probs(row, reasoner)
        best = np.flatnonzero(probs == probs.max())
        choice = "ab"[int(best[0]) if len(best) == 1 else int(rng.integers(2))]
        samples.append(
            {**sample, "prediction": choice, "option_probs": probs.tolist(), "correct": choice == row["answer"]}
        )
    return qa_metrics(samples), samples


def evaluate_qa_llm(rows: Sequence[Mapping[str, Any]], answerer: Any, seed: int = 0) -> tuple[dict, list[dict]]:
    """Answer each question with an :class:`~mindzero.inference.llm.LLMQAAnswerer`; an answer
    naming no option is wrong."""
    if not rows:
        raise UserError("no questions to evaluate")
    identities = [_identity(row) for row in rows]
    records = answerer.answer(rows, seed=seed)
    samples = [
        {**sample, **record, "correct": record["prediction"] == sample["answer"]}
        for sample, record in zip(identities, records)
    ]
    metrics = qa_metrics(samples)
    metrics.update(answerer.stats.metrics())
    return metrics, samples


def qa_metrics(samples: list[dict]) -> dict:
    """Accuracy overall, per question type and per split."""

    def acc(rows: list[dict]) -> float:
        return float(np.mean([r["correct"] for r in rows]))

    metrics = {"accuracy": acc(samples), "n": len(samples)}
    for key in ("question_type", "split"):
        for value in sorted({r[key] for r in samples}):
            metrics[f"accuracy_{key}_{value}"] = acc([r for r in samples if r[key] == value])
    return metrics
