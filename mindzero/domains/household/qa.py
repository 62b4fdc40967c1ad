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

from mindzero.core.errors import UserError, clip, plural
from mindzero.core.human import HumanParams
from mindzero.core.parsing import option_answer
from mindzero.core.results import read_jsonl
from mindzero.domains.base import RewardContext, TrainData
from mindzero.domains.household.mmtom.generate import TYPES, generate
from mindzero.domains.household.mmtom.model import MMToMModel, option_scores
from mindzero.domains.household.mmtom.reader import Reading, read_question
from mindzero.domains.household.ssrl import PROMPT_STYLES
from mindzero.envs.household.apartment import TEST_APARTMENTS, TRAIN_APARTMENTS

#: An option the story rules out (likelihood 0) scores this far below the other option, in nats:
#: finite, as GRPO advantages need, and below every option the story allows.
RULED_OUT = math.log(1e-6)


@lru_cache(maxsize=4096)
def _reading(text: str) -> Reading:
    """A question read once: its ``facts`` prompt and its reward both need the reading (a text the
    reader refuses raises each time; errors are not cached)."""
    return read_question(text)


@lru_cache(maxsize=4096)
def question_scores(text: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(log P(story | option), log P(option)) of options (a), (b) of a question text, in nats;
    a ruled-out option gets the other's log-likelihood + :data:`RULED_OUT`."""
    try:
        reading = _reading(text)
    except UserError as err:
        raise UserError(f"cannot read question {text[:60]!r}...: {err}") from None
    logliks, logpriors, _ = option_scores(reading, MMToMModel())
    finite = [ll for ll in logliks if math.isfinite(ll)]
    logliks = [ll if math.isfinite(ll) else min(finite) + RULED_OUT for ll in logliks]
    return tuple(logliks), tuple(logpriors)


def facts_prompt(question: str) -> str:
    """A short word encoding of what the inverse-planning model reads in a question (the ``facts``
    prompt style; why: a small model trained from scratch cannot find the few facts that matter in
    a 780-token story, as GridWorld's ``anchored`` style found). Read from the text by the reader,
    no label in it:

    - the question: ``belief in|out`` (what option (a) says of the object ``g`` in container ``c``)
      or ``goal`` with the two options' objects ``a``/``b`` (and ``given a|b`` for 2.1's premise
      about the place marked ``x``);
    - each room the person is in (``room``, from the start), with the marked objects on its
      surfaces (what the person sees there) and ``c`` where the queried container is in it;
    - each walk (``to``): ``c``/``x`` for the queried place, ``box`` for a container, ``open`` and
      what the person saw inside, or the marked objects on a surface; the last walk ends the line.

    A question the reader cannot read, or with an unread sentence the answer may depend on, is a
    :class:`UserError` (never a guess from a partial reading; an answerer counts it ``unreadable``).
    """
    try:
        reading = _reading(question)
    except UserError as err:
        raise UserError(f"prompt style facts cannot read question {question[:60]!r}...: {err}") from None
    if blockers := reading.blockers():  # as the model reasoner: an answer never rests on a partial reading
        n, unread = len(blockers), "; ".join(clip(b["text"], 80) for b in blockers[:2])
        raise UserError(f"prompt style facts: {n} unread {plural('sentence', n)} may change the answer: {unread}")
    scene, story, q = reading.scene, reading.story, reading.query
    belief = q.kind == "belief"
    marks = {q.goal: "g"} if belief else dict(zip(q.options, "ab"))
    words = ["belief", "in" if q.inside == 0 else "out"] if belief else ["goal"]
    if q.given is not None:
        words += ["given", marks.get(q.given[0], "o")]

    def held(pid: str) -> list[str]:
        return sorted(m for cls, m in marks.items() if scene.holds(pid, cls))

    def room(name: str) -> list[str]:
        here = [p for p, place in scene.places.items() if place.room == name]
        seen = sorted({m for p in here if not scene.places[p].container for m in held(p)})
        return ["room", *seen, *(["c"] if belief and scene.places[q.place].room == name else [])]

    words += room(story.start)
    cur = story.start
    for visit in story.visits:
        if visit.room != cur:
            words += room(visit.room)
            cur = visit.room
        if visit.place is None:
            continue
        words.append("to")
        words += ["c"] if belief and visit.place == q.place else []
        words += ["x"] if q.given is not None and visit.place == q.given[1] else []
        if scene.places[visit.place].container:
            words += ["box", "open", *held(visit.place)] if visit.opened else ["box"]
        else:
            words += held(visit.place)
    return " ".join(words)


def qa_prompt(question: str, style: str) -> str:
    """The prompt of a question: the text itself (``full``, ``compact``: MMToM-QA's question already
    says how to answer) or :func:`facts_prompt` (``facts``)."""
    if style not in PROMPT_STYLES:
        raise UserError(f"unknown prompt style {style!r}; use one of {', '.join(PROMPT_STYLES)}")
    return facts_prompt(question) if style == "facts" else question


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
        ``data.path`` (rows with a ``question``), prompted in ``data.prompt_style``; labels are dropped."""
        raw = read_jsonl(data.path) if data.path else generated_questions(TRAIN_APARTMENTS, data.episodes, data.seed)
        for k, row in enumerate(raw):
            if not isinstance(row.get("question"), str):
                raise UserError(f"row {k}: needs a 'question' text")
        return [
            {
                "prompt": qa_prompt(row["question"], data.prompt_style),
                "question": row["question"],
                "id": str(row.get("id", k)),
            }
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
