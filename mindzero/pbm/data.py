"""Belief questions, the DEL-ToM prompt (paper App. A) and stepwise PBM data.

A :class:`BeliefQuestion` carries what a model reads (numbered story sentences, question, choices)
and what the engine labels (one event per sentence), so the DEL engine gives the gold answer and a
belief label after every line whatever the prose looks like. Stepwise rows follow the TRL
"stepwise supervision" shape — ``prompt``, ``completions`` (one string per step), ``labels`` (one
bool per step) — and every label comes from :func:`mindzero.stories.traces.check_trace`, whether
the trace was sampled from a policy or derived from the gold trace by a systematic corruption.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from tqdm import tqdm

from mindzero.core.errors import UserError
from mindzero.stories.events import Question, parse_question, parse_story
from mindzero.stories.generator import GeneratedStory
from mindzero.stories.semantics import WAITING_ROOM, engine_labels
from mindzero.stories.templates import Enter, Event, Exit, Move, ObjectAt, PrivateTell, PublicClaim
from mindzero.stories.traces import FINAL_PATTERN, STEP_PATTERN, check_trace, render_gold_trace

CORRUPTIONS = (
    "wrong_container",
    "reality_bias",
    "missed_exit",
    "missed_observation",
    "communication_misapplied",
    "skipped_step",
    "misquoted_line",
)
"""Systematic mistakes applied to gold traces (see :func:`corrupt_trace`)."""


@dataclass
class BeliefQuestion:
    """One question about one story: the text a model reads and the events the engine labels."""

    id: str
    story_id: str
    order: int
    lines: tuple[str, ...]
    """Story sentences as shown to the model, one per event (Hi-ToM templates or free prose)."""
    events: tuple[Event, ...]
    question: Question
    question_text: str
    containers: tuple[str, ...]
    """The answer choices, in order."""
    labels: tuple[str | None, ...]
    """The chain's belief after each line (engine output; None = not yet known)."""
    answer: str | None
    """The gold answer: the engine's last label (for official data under ``hitom``, the released label)."""
    meta: dict = field(default_factory=dict)
    semantics: str = "hitom"
    """The semantics behind ``labels`` (corruptions re-run the engine with it)."""

    def story_text(self) -> str:
        return "\n".join(f"{i} {line}" for i, line in enumerate(self.lines, start=1))

    def choices_text(self) -> str:
        return ", ".join(f"{chr(65 + i)}. {c}" for i, c in enumerate(self.containers))


def questions_from_stories(stories: Iterable[GeneratedStory], semantics: str = "hitom") -> Iterator[BeliefQuestion]:
    """Every question of generated stories (labels already computed by the generator, under ``semantics``)."""
    for s in stories:
        for q, labels, answer in zip(s.questions, s.labels, s.answers):
            yield BeliefQuestion(
                id=f"gen-{s.story_id}-{q.order}",
                story_id=str(s.story_id),
                order=q.order,
                lines=tuple(s.lines),
                events=tuple(s.events),
                question=q,
                question_text=q.render(),
                containers=tuple(s.containers),
                labels=tuple(labels),
                answer=answer,
                meta={"story_length": s.length, "deception": s.tell},
                semantics=semantics,
            )


_CHOICE = re.compile(r"(?:^|,\s*)[A-Z]\.\s*([^,]+)")


def questions_from_hitom(
    records: Sequence[dict], semantics: str = "hitom", one_chapter_cot: bool = True
) -> list[BeliefQuestion]:
    """Official Hi-ToM records as belief questions (default: the DEL-ToM one-chapter CoT subset).

    Under ``hitom`` the gold answer is the released label (the engine agrees on the whole subset);
    under ``del`` it is the engine's, and the released one is kept as ``meta["released_answer"]``.
    """
    out = []
    for rec in records:
        if one_chapter_cot and not (rec["story_length"] == 1 and rec.get("prompting_type") == "CoTP"):
            continue
        try:
            events = parse_story(rec["story"])
            question = parse_question(rec["question"])
        except UserError as err:
            raise UserError(f"sample_id {rec['sample_id']}: {err}") from err
        lines = [
            line.split(" ", 1)[1].strip() for line in rec["story"].strip().splitlines() if line.strip()[:1].isdigit()
        ]
        labels = engine_labels(events, question, semantics)
        out.append(
            BeliefQuestion(
                id=f"hitom-{rec['sample_id']}",
                story_id=hashlib.sha1(rec["story"].strip().encode()).hexdigest()[:10],
                order=int(rec["question_order"]),
                lines=tuple(lines),
                events=tuple(events),
                question=question,
                question_text=rec["question"].strip(),
                containers=tuple(c.strip() for c in _CHOICE.findall(rec.get("choices", ""))),
                labels=tuple(labels),
                answer=rec["answer"] if semantics == "hitom" else labels[-1],
                meta={k: rec.get(k) for k in ("sample_id", "story_length", "deception", "prompting_type")}
                | ({} if semantics == "hitom" else {"released_answer": rec["answer"]}),
                semantics=semantics,
            )
        )
    return out


# --- the DEL-ToM prompt (paper App. A) -------------------------------------------------------

INSTRUCTIONS = (
    "Here is a story that unfolds in chronological order.\n\n"
    "You will be asked a question about the story, which may involve either: (1) Locating an object, "
    "or (2) Inferring an agent's mental state (e.g., what A thinks B thinks C thinks).\n\n"
    "To solve it, think step-by-step. At each step, repeat the current line from the story, then explain "
    "its effect on beliefs. Use [Null] if someone does not yet have knowledge. If a belief chain cannot be "
    "formed (e.g., some agent exited too early), freeze belief at the last available step.\n\n"
    "In public or private communication:\n"
    "- The speaker believes the listener will believe the claim. If the listener exited the room earlier "
    "than the speaker, they will believe it.\n\n"
    'If the question is zero-order (e.g., "Where is X really?"), then in each step, only track the actual '
    'location of the object (e.g., "X is in [Y]"). You do not need to track nested beliefs.\n\n'
    'Write one block per story line, "## Step i ##", the line, its effect, and the belief in brackets; '
    'finish with "Final Answer: [container]".'
)
"""The DEL-ToM instructions (paper App. A), with the output format spelled out."""

_EXAMPLE_EVENTS: tuple[Event, ...] = (
    Enter(("Amelia", "Chloe", "Liam"), "TV_room"),
    ObjectAt("celery", "red_envelope"),
    Exit("Amelia", "TV_room"),
    Move("Chloe", "celery", "green_bucket"),
    Exit("Chloe", "TV_room"),
    Move("Liam", "celery", "red_bathtub"),
)
_EXAMPLE_QUESTION = Question(("Liam", "Chloe"), "celery")


def example_block() -> str:
    """A worked example in the trace format, rendered from engine labels (never hand-typed)."""
    labels = engine_labels(_EXAMPLE_EVENTS, _EXAMPLE_QUESTION)
    story = "\n".join(f"{i} {e.render()}" for i, e in enumerate(_EXAMPLE_EVENTS, start=1))
    trace = render_gold_trace(_EXAMPLE_EVENTS, _EXAMPLE_QUESTION, labels)
    return f"Here is an example:\n\n{story}\n\n{_EXAMPLE_QUESTION.render()}\n\n{trace}"


def policy_messages(q: BeliefQuestion, with_example: bool = True) -> list[dict[str, str]]:
    """The chat prompt a policy model answers with a DEL-ToM trace."""
    parts = [INSTRUCTIONS]
    if with_example:
        parts.append(example_block())
    parts.append(f"Story:\n{q.story_text()}\n\nQuestion: {q.question_text}\nChoices: {q.choices_text()}")
    return [{"role": "user", "content": "\n\n".join(parts)}]


def pbm_problem(q: BeliefQuestion) -> str:
    """The problem text a PBM reads before the steps: story and question, no instructions."""
    return f"Story:\n{q.story_text()}\n\nQuestion: {q.question_text}\n"


# --- steps ------------------------------------------------------------------------------------


def split_steps(trace: object) -> list[str]:
    """Step blocks of a trace, cut exactly where :func:`check_trace` cuts (never raises)."""
    text = trace if isinstance(trace, str) else ""
    final = None
    for m in FINAL_PATTERN.finditer(text):
        final = m
    body = text[: final.start()] if final else text
    markers = list(STEP_PATTERN.finditer(body))
    return [
        body[m.start() : markers[i + 1].start() if i + 1 < len(markers) else len(body)].strip()
        for i, m in enumerate(markers)
    ]


#: The fields of a stepwise row that PBM training and evaluation read.
STEPWISE_FIELDS = {
    "id": str,
    "story_id": str,
    "question_order": int,
    "prompt": str,
    "completions": list,
    "labels": list,
}


def stepwise_row(q: BeliefQuestion, trace: str, source: str) -> dict:
    """One PBM row: the problem, the trace's steps and the checker's label for each step."""
    check = check_trace(trace, q.labels, q.answer)
    steps = split_steps(trace)
    return {
        "id": q.id,
        "story_id": q.story_id,
        "question_order": q.order,
        "prompt": pbm_problem(q),
        "completions": steps,
        "labels": [s.correct for s in check.steps],
        "final_answer": check.final_answer,
        "answer": q.answer,
        "final_correct": check.final_correct,
        "source": source,
        "trace": trace,
        "line_labels": list(q.labels),
    }


def upto_first_error(labels: Sequence) -> list:
    """A trace's step labels up to and including its first wrong step (all of them when none is wrong).

    By the prefix rule every later step is wrong too, so those labels say where the trace went wrong, not
    whether the later steps' own beliefs are right."""
    flags = [bool(y) for y in labels]
    return list(labels[: flags.index(False) + 1]) if False in flags else list(labels)


# --- corruptions ------------------------------------------------------------------------------


def _carry(labels: list[str | None], k: int, value: str | None) -> list[str | None]:
    """Replace the label at k and every following line that kept the same gold value."""
    out = list(labels)
    i = k
    while i < len(labels) and labels[i] == labels[k]:
        out[i] = value
        i += 1
    return out


def _presence(events: Sequence[Event]) -> list[set[str]]:
    """Who is in the current chapter's room at each line (before the line's own effect)."""
    present: set[str] = set()
    out = []
    for e in events:
        if isinstance(e, Enter) and e.room != WAITING_ROOM:
            present = set(e.agents)
        out.append(set(present))
        if isinstance(e, Exit):
            present.discard(e.agent)
    return out


def corrupt_labels(q: BeliefQuestion, kind: str, rng: random.Random) -> list[str | None] | None:
    """Wrong per-line beliefs that make a typical mistake, or None when the story offers none.

    - ``wrong_container``: a random wrong container at a random line, carried forward;
    - ``reality_bias``: from some line on, the object's real location instead of the chain's belief;
    - ``missed_exit``: a chain agent who had left is treated as seeing a later move;
    - ``missed_observation``: a chain agent who was present is treated as missing a move;
    - ``communication_misapplied``: a claim changes a belief it should not, or is ignored where it counts.
    """
    labels = list(q.labels)
    n = len(labels)
    if n == 0:
        return None
    chain = set(q.question.chain)
    if kind == "wrong_container":
        k = rng.randrange(n)
        wrong = [c for c in q.containers if c != labels[k]]
        return _carry(labels, k, rng.choice(wrong)) if wrong else None
    if kind == "reality_bias":
        real = engine_labels(q.events, Question((), q.question.obj), q.semantics)
        ks = [i for i in range(n) if real[i] != labels[i]]
        if not ks:
            return None
        k = rng.choice(ks)
        return labels[:k] + real[k:]
    present = _presence(q.events)
    if kind in ("missed_exit", "missed_observation"):
        options = []
        for i, e in enumerate(q.events):
            if not isinstance(e, (Move, ObjectAt)):
                continue
            for a in sorted(chain):
                here = a in present[i] or getattr(e, "agent", None) == a
                if kind == "missed_exit" and not here:
                    options.append((i, frozenset({a}), frozenset()))
                if kind == "missed_observation" and here:
                    options.append((i, frozenset(), frozenset({a})))
        rng.shuffle(options)
        for i, also, unseen in options:
            wrong = engine_labels(q.events, q.question, q.semantics, i, also, unseen)
            if wrong != labels:
                return wrong
        return None
    if kind == "communication_misapplied":
        options = [i for i, e in enumerate(q.events) if isinstance(e, (PublicClaim, PrivateTell))]
        rng.shuffle(options)
        for j in options:
            before = labels[j - 1] if j else None
            if labels[j] != before:
                return _carry(labels, j, before)
            claimed = q.events[j].container
            if claimed != labels[j]:
                return _carry(labels, j, claimed)
        return None
    raise ValueError(f"unknown corruption {kind!r}; choose from {CORRUPTIONS}")


def corrupt_trace(q: BeliefQuestion, kind: str, rng: random.Random) -> str | None:
    """A gold-format trace with one systematic mistake (None when the story offers none).

    ``skipped_step`` drops one step block (never the last); ``misquoted_line`` is the gold trace of the
    story with one line replaced by another of its lines — the step quotes the wrong line and reasons
    on it, as a trace-writing policy does (the checker judges each step's value against the real
    line, so a misquote that leaves the belief unchanged is not an error); the others render the
    gold format with the wrong beliefs of :func:`corrupt_labels`, whose final answer follows the
    wrong last belief.
    """
    if kind == "misquoted_line":
        for _ in range(10 if len(q.events) > 1 else 0):
            k, j = rng.sample(range(len(q.events)), 2)
            events = [*q.events[:k], q.events[j], *q.events[k + 1 :]]
            try:
                return render_gold_trace(events, q.question, engine_labels(events, q.question, q.semantics))
            except UserError:  # the copied line cannot happen there (e.g. an exit of someone absent)
                continue
        return None
    if kind == "skipped_step":
        if len(q.labels) < 2:
            return None
        blocks = render_gold_trace(q.events, q.question, q.labels).split("\n\n")
        del blocks[rng.randrange(len(q.labels) - 1)]  # not the last: a later step must reveal the gap
        return "\n\n".join(blocks)
    wrong = corrupt_labels(q, kind, rng)
    if wrong is None or wrong == list(q.labels):
        return None
    return render_gold_trace(q.events, q.question, wrong)


def gold_and_corrupted(
    q: BeliefQuestion, per_question: int = 2, seed: int = 0, kinds: Sequence[str] = CORRUPTIONS
) -> list[dict]:
    """A question's gold trace plus up to ``per_question`` corrupted traces (distinct kinds)."""
    rng = random.Random(f"{seed}:{q.id}")
    rows = [stepwise_row(q, render_gold_trace(q.events, q.question, q.labels), "gold")]
    for kind in rng.sample(list(kinds), len(kinds)):
        if len(rows) > per_question:
            break
        trace = corrupt_trace(q, kind, rng)
        if trace is not None:
            rows.append(stepwise_row(q, trace, f"corrupt:{kind}"))
    return rows


def gold_and_corrupted_rows(
    questions: Iterable[BeliefQuestion], per_question: int = 2, seed: int = 0, kinds: Sequence[str] = CORRUPTIONS
) -> list[dict]:
    """:func:`gold_and_corrupted` of every question."""
    return [row for q in questions for row in gold_and_corrupted(q, per_question, seed, kinds)]


def policy_batches(
    backend,
    questions: Sequence[BeliefQuestion],
    n: int = 4,
    temperature: float = 0.7,
    max_new_tokens: int = 768,
    seed: int = 0,
    batch: int = 8,
    with_example: bool = True,
    start: int = 0,
) -> Iterator[tuple[int, list[dict]]]:
    """``(next question, rows)`` per batch of questions from ``start`` (a batch boundary) on: ``n``
    traces per question sampled from a policy backend (batch ``lo`` with seed ``seed + lo``),
    every step labelled."""
    starts = range(start, len(questions), batch)
    for lo in tqdm(starts, desc="policy traces", unit="batch", initial=start // batch, mininterval=1.0):
        chunk = questions[lo : lo + batch]
        outs = backend.generate(
            [policy_messages(q, with_example) for q in chunk], n, temperature, max_new_tokens, seed + lo
        )
        yield (
            lo + len(chunk),
            [stepwise_row(q, g.text, f"policy:{backend.name}") for q, gens in zip(chunk, outs) for g in gens],
        )
