"""DEL-ToM reasoning traces (paper App. A): render the gold trace, check a model-written one.

A trace has one ``## Step i ##`` block per story line — the restated line, its effect on
beliefs, and "<A> thinks <B> thinks ... the O is in [c]" (``[Null]`` before the location is
known) — and ends with ``Final Answer: [c]``. The checker labels each step with the DEL-ToM
rule: a step is correct iff its bracketed value equals the engine's label at that line and every
earlier step was correct. It must never raise: model output is arbitrary text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mindzero.stories.events import Question
from mindzero.stories.semantics import WAITING_ROOM, StoryWorld, story_agents
from mindzero.stories.templates import Distractor, Enter, Event, Exit, IsIn, Move, ObjectAt, PublicClaim, Stay

NULL = "Null"


def belief_sentence(question: Question, value: str | None) -> str:
    """'Owen thinks Liam thinks the celery is in [green_bucket]'; order 0: 'The celery is in [...]'."""
    shown = f"[{value if value is not None else NULL}]"
    if not question.chain:
        return f"The {question.obj} is in {shown}"
    return " thinks ".join(question.chain) + f" thinks the {question.obj} is in {shown}"


def _effect(event: Event, world: StoryWorld) -> str:
    """What the line does to beliefs, read from the world before the line."""
    if isinstance(event, (Enter, IsIn)):
        if event.room == WAITING_ROOM:
            return "Everyone meets in the waiting room; no effect on beliefs."
        names = event.agents
        return f"{', '.join(names)} {'are' if len(names) > 1 else 'is'} present in the {event.room}."
    present = world.witnesses(event)
    if isinstance(event, (ObjectAt, Move)) and not present:
        return "Nobody is present to observe this."
    if isinstance(event, ObjectAt):
        return f"Everyone present ({', '.join(present)}) observes this."
    if isinstance(event, Move):
        return f"Only {', '.join(present)} are present; they all see this move."
    if isinstance(event, Exit):
        return f"{event.agent} no longer observes the {event.room}; {event.agent}'s beliefs are frozen."
    if isinstance(event, (Stay, Distractor)):
        return "No effect on beliefs."
    if isinstance(event, PublicClaim):
        return "Everyone hears this; listeners who left before the speaker believe it."
    return (  # PrivateTell
        f"Only {event.speaker} and {event.listener} know about this; "
        f"{event.listener} believes it iff they left before {event.speaker}."
    )


def render_gold_trace(events: Sequence[Event], question: Question, labels: Sequence[str | None]) -> str:
    """The correct trace for ``question``; ``labels[i]`` is the chain's belief after line i + 1."""
    if len(labels) != len(events):
        raise ValueError("one label per story line is required")
    blocks = []
    world = StoryWorld(story_agents(events), events)
    for i, (event, value) in enumerate(zip(events, labels), start=1):
        blocks.append(f"## Step {i} ##\n{event.render()}\n{_effect(event, world)}\n{belief_sentence(question, value)}")
        world.apply(event)
    final = labels[-1] if labels else None
    blocks.append(f"Final Answer: [{final if final is not None else NULL}]")
    return "\n\n".join(blocks) + "\n"


@dataclass(frozen=True)
class StepLabel:
    """One parsed step: its position, the number the trace gave it, the line it is checked against."""

    index: int
    number: int | None
    line: int | None
    value: str | None
    expected: str | None
    correct: bool
    reason: str


@dataclass(frozen=True)
class TraceCheck:
    steps: tuple[StepLabel, ...]
    final_answer: str | None
    final_correct: bool
    #: index (0-based, in trace order) of the first incorrect step; None when all are correct
    first_error: int | None

    @property
    def step_labels(self) -> list[int]:
        """0/1 per step, the PBM training target."""
        return [int(s.correct) for s in self.steps]


STEP_PATTERN = re.compile(
    r"(?:#+[ \t]*step[ \t]*(\d{1,6})?[^\n#]{0,20}#+)|(?:^[ \t]*step[ \t]+(\d{1,6})[ \t]*:?[ \t]*$)", re.I | re.M
)
"""A step marker: ``## Step n ##`` (also inline) or a bare ``Step n`` line; group 1 or 2 is n."""
FINAL_PATTERN = re.compile(r"final[ \t]+answer[ \t]*:?[ \t]*(.*)", re.I)
"""``Final Answer: ...``; a trace's last match ends its steps."""
_BRACKET = re.compile(r"\[([^\[\]\n]{0,200})\]")
_NULLS = {"null", "none", "unknown", "nowhere", "", "n/a"}


def normalise(value: str | None) -> str | None:
    """Compare containers loosely: case, surrounding 'the', spaces vs underscores; Null → None."""
    if value is None:
        return None
    v = value.strip().strip(".").strip().lower()
    if v.startswith("the "):
        v = v[4:]
    v = re.sub(r"[\s\-]+", "_", v.strip())
    return None if v in _NULLS else v


def value_span(segment: str) -> tuple[int, int] | None:
    """(start, end) characters of the last ``[value]``'s inside in a step block; None without one."""
    matches = list(_BRACKET.finditer(segment))
    return matches[-1].span(1) if matches else None


def number_span(segment: str) -> tuple[int, int] | None:
    """(start, end) characters of the first step marker's number in a step block; None without one."""
    marker = STEP_PATTERN.search(segment)
    if marker is None or not (marker.group(1) or marker.group(2)):
        return None
    return marker.span(1) if marker.group(1) else marker.span(2)


def step_number(segment: str) -> int | None:
    """The number of a step block's first step marker; None without one."""
    span = number_span(segment)
    return int(segment[span[0] : span[1]]) if span else None


def _value(segment: str) -> tuple[bool, str | None]:
    """(found, value): the last bracketed value in a step block."""
    span = value_span(segment)
    if span is None:
        return False, None
    return True, normalise(segment[span[0] : span[1]])


def check_trace(trace: object, labels: Sequence[str | None], answer: str | None = None) -> TraceCheck:
    """Label every step of a model-written trace; never raises, whatever ``trace`` is.

    Step k is matched to story line k by its number. A step whose number is missing, repeated,
    out of order or beyond the story, or that skips a line, or has no ``[value]``, is incorrect —
    and, by the DEL-ToM rule, so is every step after the first incorrect one.
    """
    text = trace if isinstance(trace, str) else ""
    expected_labels = [normalise(v) for v in labels]
    answer_n = normalise(answer) if answer is not None else (expected_labels[-1] if expected_labels else None)
    final_match = None
    for m in FINAL_PATTERN.finditer(text):
        final_match = m
    body = text[: final_match.start()] if final_match else text
    final_answer = None
    if final_match is not None:
        ok, final_answer = _value(final_match.group(1))
        if not ok:
            final_answer = normalise(final_match.group(1).split("\n")[0])
    markers = list(STEP_PATTERN.finditer(body))
    steps: list[StepLabel] = []
    prefix_ok = True
    first_error = None
    last_line = 0
    for i, m in enumerate(markers):
        end = markers[i + 1].start() if i + 1 < len(markers) else len(body)
        segment = body[m.end() : end]
        raw = m.group(1) or m.group(2)
        number = int(raw) if raw else None
        found, value = _value(segment)
        line = expected = None
        if number is None:
            reason = "step has no number"
        elif number <= last_line:
            reason = f"step {number} repeated or out of order"
        elif number > len(expected_labels):
            reason = f"step {number} is beyond the story's {len(expected_labels)} lines"
        else:
            line = number
            expected = expected_labels[number - 1]
            if number != last_line + 1:
                reason = f"line(s) {last_line + 1}-{number - 1} skipped"
            elif not found:
                reason = "no [value] in step"
            elif value != expected:
                reason = f"value [{value}] but the label is [{expected}]"
            else:
                reason = "ok"
            last_line = number
        correct = prefix_ok and reason == "ok"
        if prefix_ok and not correct:
            prefix_ok, first_error = False, i
        elif not prefix_ok and reason == "ok":
            reason = "an earlier step is wrong"
        steps.append(StepLabel(i, number, line, value, expected, correct, reason))
    final_correct = final_answer is not None and final_answer == answer_n
    return TraceCheck(tuple(steps), final_answer, final_correct, first_error)
