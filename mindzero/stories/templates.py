"""The Hi-ToM sentence templates as typed events: one renderer and one parser side by side.

Rendering and parsing live together so that ``parse_line(e.render()) == e`` is testable for every
event kind; the official Hi-ToM file, our generator and the own-words reader
(:mod:`mindzero.stories.paraphrase`, which rewrites a sentence into these templates) share them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: An agent's name in the templates: capitalised, not a pronoun or an article ("She left." names
#: nobody) (the reader refuses a sentence that names none).
NOT_NAMES = (
    "He She They It We I You The A An There Then After Afterwards Finally Later Next Now Meanwhile Soon Once When "
    "While Before Lastly Thereafter Subsequently Eventually Suddenly Also Still"
)
#: Letters of any alphabet but lower-case ASCII start a name ("José", "Zoë", "Anne-Marie"); a
#: lower-case word is never one.
_NAME_PART = r"(?![a-z])[^\W\d_][^\W\d_]*"
NAME = rf"(?!(?:{'|'.join(NOT_NAMES.split())})\b){_NAME_PART}(?:-{_NAME_PART})*"


#: The rooms of Hi-ToM's stories (and of our generator's): a thing is never put "in the kitchen".
ROOMS = (
    "attic",
    "back_yard",
    "basement",
    "bathroom",
    "bedroom",
    "cellar",
    "closet",
    "crawlspace",
    "den",
    "dining_room",
    "front_yard",
    "garage",
    "garden",
    "hall",
    "hallway",
    "kitchen",
    "laundry",
    "living_room",
    "lounge",
    "office",
    "pantry",
    "patio",
    "playroom",
    "porch",
    "staircase",
    "study",
    "sunroom",
    "TV_room",
    "workshop",
)


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


#: Distractor verbs; the first four are Hi-ToM's, the preferences carry no location either.
DISTRACTOR_KINDS = ("saw a", "lost his", "likes the", "dislikes the", "loves the", "hates the")


@dataclass(frozen=True)
class IsIn:
    """'A is in the R.': the agent is (now) in the room; if it was elsewhere, it entered it."""

    agent: str
    room: str

    @property
    def agents(self) -> tuple[str, ...]:
        """The entrants, as for :class:`Enter`."""
        return (self.agent,)

    def render(self) -> str:
        return f"{self.agent} is in the {self.room}."


@dataclass(frozen=True)
class Distractor:
    """'X saw a cat.', 'X lost his watch.', 'X likes/dislikes/loves/hates the C.': no effect."""

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


Event = Enter | IsIn | ObjectAt | Move | Stay | Exit | Distractor | PublicClaim | PrivateTell

THING = r"[A-Za-z][A-Za-z0-9_\-]*"
_PATTERNS: tuple[tuple[re.Pattern, type], ...] = tuple(
    (re.compile(p + r"$"), cls)
    for p, cls in (
        (rf"(?P<agents>{NAME}(?:, {NAME})*(?: and {NAME})?) entered the (?P<room>{THING})\.", Enter),
        (rf"The (?P<obj>{THING}) is in the (?P<container>{THING})\.", ObjectAt),
        (rf"(?P<agent>{NAME}) moved the (?P<obj>{THING}) to the (?P<container>{THING})\.", Move),
        (
            rf"(?P<agent>{NAME}) made no movements and stayed in the (?P<room>{THING}) "
            r"for 1 minute\.",
            Stay,
        ),
        (rf"(?P<agent>{NAME}) exited the (?P<room>{THING})\.", Exit),
        (rf"(?P<agent>{NAME}) is in the (?P<room>{THING})\.", IsIn),
        (rf"(?P<agent>{NAME}) (?P<kind>{'|'.join(DISTRACTOR_KINDS)}) (?P<thing>{THING})\.?", Distractor),
        (
            rf"(?P<speaker>{NAME}) publicly claimed that (?:the )?(?P<obj>{THING}) is in the "
            rf"(?P<container>{THING})(?: now)?\.",
            PublicClaim,
        ),
        (
            rf"(?P<speaker>{NAME}) privately told (?P<listener>{NAME}) that (?:the )?(?P<obj>{THING}) "
            rf"is in the (?P<container>{THING})(?: now)?\.",
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


def move_people(rooms: dict[str, str], event: Event) -> None:
    """Update ``rooms`` (agent -> room) for one event: entering one room leaves the one before."""
    if isinstance(event, Enter | IsIn):
        rooms.update(dict.fromkeys(event.agents, event.room))
    elif isinstance(event, Exit):
        rooms.pop(event.agent, None)
