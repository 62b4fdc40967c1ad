"""Household's QA task: MMToM-style questions (paper §5.3) answered (a) or (b), trained by SSRL.

Rows are questions generated on the bundled *train* apartments (:mod:`.mmtom.generate`) with their
labels dropped; the reward of an answer is the inverse-planning model's log P(story | option) +
log P(option) (:func:`~mindzero.domains.household.mmtom.model.option_scores`, read back from the
question text as a user's question would be) — the MindZero reward with one particle, as for
GridWorld QA. Held-out questions for the learning curve come from the two *test* apartments and
keep the labelling model's answer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.parsing import option_answer
from mindzero.core.results import read_jsonl
from mindzero.domains.base import RewardContext, TrainData
from mindzero.domains.household.mmtom.generate import TYPES, generate
from mindzero.domains.household.mmtom.model import MMToMModel, option_scores
from mindzero.domains.household.mmtom.reader import read_question
from mindzero.envs.household.apartment import TEST_APARTMENTS, TRAIN_APARTMENTS

#: An option the story rules out (likelihood 0) scores this far below the other option, in nats:
#: finite, as GRPO advantages need, and below every option the story allows.
RULED_OUT = math.log(1e-6)


@lru_cache(maxsize=4096)
def question_scores(text: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(log P(story | option), log P(option)) of options (a), (b) of a question text, in nats;
    a ruled-out option gets the other's log-likelihood + :data:`RULED_OUT`."""
    try:
        reading = read_question(text)
    except UserError as err:
        raise UserError(f"cannot read question {text[:60]!r}...: {err}") from None
    logliks, logpriors, _ = option_scores(reading, MMToMModel())
    finite = [ll for ll in logliks if math.isfinite(ll)]
    logliks = [ll if math.isfinite(ll) else min(finite) + RULED_OUT for ll in logliks]
    return tuple(logliks), tuple(logpriors)


def generated_questions(apartments: tuple[str, ...], n: int, seed: int) -> list[dict]:
    """About ``n`` generated questions, the seven types in turn, with ids; labels kept."""
    per_type = max(1, math.ceil(n / len(TYPES)))
    rows = list(generate(apartments, per_type, seed, MMToMModel()))
    return [{**row, "id": f"mmtom-gen-{seed}-{k}", "split": "generated"} for k, row in enumerate(rows[:n])]


class QATask:
    """Answer an MMToM-style question (a) or (b); reward = paper Eq. 4 with one particle."""

    kind = "qa"
    choice_tokens = ("a", "b")
    columns = ("question",)
    completion_tokens = 4  # "a" or "(a)"

    def rows(self, data: TrainData) -> list[dict]:
        """Generated questions on the train apartments (``data.episodes`` of them), or those of
        ``data.path`` (rows with a ``question``); labels are dropped either way."""
        raw = read_jsonl(data.path) if data.path else generated_questions(TRAIN_APARTMENTS, data.episodes, data.seed)
        for k, row in enumerate(raw):
            if not isinstance(row.get("question"), str):
                raise UserError(f"row {k}: needs a 'question' text")
        return [
            {"prompt": row["question"], "question": row["question"], "id": str(row.get("id", k))}
            for k, row in enumerate(raw)
        ]

    def context(self, row: Mapping[str, Any], human: HumanParams) -> RewardContext:
        logliks, logpriors = question_scores(row["question"])
        return RewardContext(logliks, logpriors, {0: 0, 1: 1}, option_answer)

    def random_completion(self, row: Mapping[str, Any], n_particles: int, rng: np.random.Generator) -> str:
        """A letter drawn at random: the answer format, nothing about the question."""
        return "a" if rng.random() < 0.5 else "b"


def heldout_questions(n: int, seed: int) -> list[dict]:
    """Generated questions on the test apartments, labelled by the model, for learning curves."""
    rows = generated_questions(TEST_APARTMENTS, n, 1_000_003 + seed)
    return [{**row, "question_type": f"{row['question_type']:.1f}"} for row in rows]
