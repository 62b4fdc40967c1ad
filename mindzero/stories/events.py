"""Story lines as typed events, with one renderer and one parser for the Hi-ToM sentence templates.

Rendering and parsing live side by side so that ``parse_line(e.render()) == e`` is testable for every
event kind; the official Hi-ToM file and our generator share the same templates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mindzero.core.errors import UserError


def _join_names(names: tuple[str, ...]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True)
class Enter:
    """Agents enter a room together; the waiting room is where communication happens."""

    agents: tuple[str, ...]
    room: str

    def render(self) -> str:
        return f"{_join_names(self.agents)} entered the {self.room}."


@dataclass(frozen=True)
class ObjectAt:
    """'The O is in the C.': everyone present learns where the object is."""

    obj: str
    container: str

    def render(self) -> str:
        return f"The {self.obj} is in the {self.container}."


@dataclass(frozen=True)
class Move:
    """'A moved the O to the C.': seen by everyone in the room."""

    agent: str
    obj: str
    container: str

    def render(self) -> str:
        return f"{self.agent} moved the {self.obj} to the {self.container}."


@dataclass(frozen=True)
class Stay:
    """'A made no movements and stayed in the R for 1 minute.': no effect on beliefs."""

    agent: str
    room: str

    def render(self) -> str:
        return f"{self.agent} made no movements and stayed in the {self.room} for 1 minute."


@dataclass(frozen=True)
class Exit:
    """'A exited the R.': the agent observes nothing in the room afterwards."""

    agent: str
    room: str

    def render(self) -> str:
        return f"{self.agent} exited the {self.room}."


DISTRACTOR_KINDS = ("saw a", "lost his", "likes the", "dislikes the")


@dataclass(frozen=True)
class Distractor:
    """'X saw a cat.', 'X lost his watch.', 'X likes the C.', 'X dislikes the O.': no effect."""

    agent: str
    kind: str
    thing: str

    def render(self) -> str:
        return f"{self.agent} {self.kind} {self.thing}."


@dataclass(frozen=True)
class PublicClaim:
    """'A publicly claimed that O is in the C.' (optionally '... now.'): heard by everyone."""

    speaker: str
    obj: str
    container: str

    def render(self) -> str:
        return f"{self.speaker} publicly claimed that {self.obj} is in the {self.container}."


@dataclass(frozen=True)
class PrivateTell:
    """'A privately told B that the O is in the C.': only A and B know it happened."""

    speaker: str
    listener: str
    obj: str
    container: str

    def render(self) -> str:
        return f"{self.speaker} privately told {self.listener} that the {self.obj} is in the {self.container}."


Event = Enter | ObjectAt | Move | Stay | Exit | Distractor | PublicClaim | PrivateTell

_NAME = r"[A-Z][A-Za-z]*"
_THING = r"[A-Za-z][A-Za-z0-9_\-]*"
_PATTERNS: tuple[tuple[re.Pattern, type], ...] = tuple(
    (re.compile(p + r"$"), cls)
    for p, cls in (
        (rf"(?P<agents>{_NAME}(?:, {_NAME})*(?: and {_NAME})?) entered the (?P<room>{_THING})\.", Enter),
        (rf"The (?P<obj>{_THING}) is in the (?P<container>{_THING})\.", ObjectAt),
        (rf"(?P<agent>{_NAME}) moved the (?P<obj>{_THING}) to the (?P<container>{_THING})\.", Move),
        (
            rf"(?P<agent>{_NAME}) made no movements and stayed in the (?P<room>{_THING}) "
            r"for 1 minute\.",
            Stay,
        ),
        (rf"(?P<agent>{_NAME}) exited the (?P<room>{_THING})\.", Exit),
        (rf"(?P<agent>{_NAME}) (?P<kind>saw a|lost his|likes the|dislikes the) (?P<thing>{_THING})\.", Distractor),
        (
            rf"(?P<speaker>{_NAME}) publicly claimed that (?:the )?(?P<obj>{_THING}) is in the "
            rf"(?P<container>{_THING})(?: now)?\.",
            PublicClaim,
        ),
        (
            rf"(?P<speaker>{_NAME}) privately told (?P<listener>{_NAME}) that (?:the )?(?P<obj>{_THING}) "
            rf"is in the (?P<container>{_THING})(?: now)?\.",
            PrivateTell,
        ),
    )
)


def parse_line(text: str) -> Event | None:
    """Parse one story sentence (no line number); None when it matches no template."""
    text = text.strip()
    for pattern, cls in _PATTERNS:
        m = pattern.match(text)
        if m is None:
            continue
        fields = m.groupdict()
        if cls is Enter:
            names = re.split(r", | and ", fields["agents"])
            return Enter(tuple(names), fields["room"])
        return cls(**fields)
    return None


_NUMBERED = re.compile(r"^\s*(\d+)\s+(.*\S)\s*$")


def parse_story(story: str) -> list[Event]:
    """Parse a numbered Hi-ToM story ('1 X entered the R.' per line) into events.

    Blank lines, an instruction preamble before line 1, and a trailing '***' marker are skipped;
    any other line that is not a known template raises UserError naming its line number and text,
    because a silently skipped event would change every later belief.
    """
    events: list[Event] = []
    started = False
    for lineno, raw in enumerate(story.splitlines(), start=1):
        line = raw.strip()
        if not line or line == "***":
            continue
        m = _NUMBERED.match(line)
        if m is None:
            if not started:
                continue  # preamble such as "Read the following story ..."
            raise UserError(f"story line {lineno}: unparseable (no line number): {line!r}")
        started = True
        event = parse_line(m.group(2))
        if event is None:
            raise UserError(f"story line {lineno}: unparseable sentence: {line!r}")
        events.append(event)
    if not events:
        raise UserError("story has no numbered lines")
    return events


@dataclass(frozen=True)
class Question:
    """'Where is the O really?' (chain ()) or 'Where does A think B thinks ... the O is?'."""

    chain: tuple[str, ...]
    obj: str

    @property
    def order(self) -> int:
        return len(self.chain)

    def render(self) -> str:
        if not self.chain:
            return f"Where is the {self.obj} really?"
        if len(self.chain) == 1:
            return f"Where does {self.chain[0]} really think the {self.obj} is?"
        rest = " thinks ".join(self.chain[1:])
        return f"Where does {self.chain[0]} think {rest} thinks the {self.obj} is?"


_Q_ZERO = re.compile(rf"Where is the (?P<obj>{_THING}) really\?$")
_Q_CHAIN = re.compile(
    rf"Where does (?P<first>{_NAME}) (?:really )?think (?P<rest>(?:{_NAME} thinks )*)the (?P<obj>{_THING}) is\?$"
)


def parse_question(text: str) -> Question:
    """Parse a Hi-ToM question of order 0-4; raises UserError on anything else."""
    text = text.strip()
    m = _Q_ZERO.match(text)
    if m:
        return Question((), m.group("obj"))
    m = _Q_CHAIN.match(text)
    if m:
        rest = tuple(n for n in m.group("rest").split(" thinks ") if n.strip())
        return Question((m.group("first"), *(n.strip() for n in rest)), m.group("obj"))
    raise UserError(f"unparseable question: {text!r}")
