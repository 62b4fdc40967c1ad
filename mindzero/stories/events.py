"""Story lines as typed events, with one renderer and one parser for the Hi-ToM sentence templates.

Rendering and parsing live side by side so that ``parse_line(e.render()) == e`` is testable for every
event kind; the official Hi-ToM file and our generator share the same templates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mindzero.core.errors import UserError, clip
from mindzero.stories.paraphrase import NAME, Context, read_sentence, sentences
from mindzero.stories.paraphrase import read_question as _question_in_words


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

_NAME = NAME
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
        (rf"(?P<agent>{_NAME}) is in the (?P<room>{_THING})\.", IsIn),
        (rf"(?P<agent>{_NAME}) (?P<kind>{'|'.join(DISTRACTOR_KINDS)}) (?P<thing>{_THING})\.?", Distractor),
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


@dataclass
class StoryText:
    """A story read from text: its events with their own line numbers, any questions, the file
    lines ignored on request (``ignore_unknown``) and the sentences read in other words than the
    templates' (file line, as written, as read: :mod:`mindzero.stories.paraphrase`)."""

    events: list[Event]
    numbers: list[int]
    questions: list[Question]
    ignored: list[int]
    reworded: list[tuple[int, str, str]] = field(default_factory=list)
    about: tuple[str, ...] | None = None  # whom the last sentence in a user's words was about ("She ...")
    predicate: tuple[str, ...] = ()  # what the last sentence said of them ("Mila does the same.")
    sentences_read: int = 0  # statements read (questions aside), whatever events they made
    holding: tuple[str, str] | None = None  # (who, what) a sentence took and the next must put somewhere


def read_story(text: str, ignore_unknown: bool = False) -> StoryText:
    """Read a story, numbered ('1 X entered the R.') or not (any number of sentences a line), with
    optional 'Where ...?' questions. A sentence in other words than the templates' is read as the
    templates it means (:func:`~mindzero.stories.paraphrase.read_sentence`) and listed in
    ``reworded``.

    In a numbered story, text before line 1 (an instruction preamble) is skipped; blank lines and a
    '***' marker always are. Any other sentence that is not a known template raises UserError
    naming its line and text, because a silently skipped event would change every later belief;
    with ``ignore_unknown`` such lines are skipped and listed in ``ignored``.
    """
    lines = [(n, raw.strip()) for n, raw in enumerate(text.splitlines(), start=1)]
    lines = [(n, line) for n, line in lines if line and line != "***"]
    numbered = any(_NUMBERED.match(line) for _, line in lines)
    story = StoryText([], [], [], [])
    started = not numbered
    for lineno, line in lines:
        m = _NUMBERED.match(line)
        if numbered and m is None and not started:
            continue  # preamble such as "Read the following story ..."
        started = True
        for sentence in [m.group(2)] if m else sentences(line):
            if sentence.startswith("Where ") or sentence.endswith("?"):
                question = parse_question_or_none(sentence)
                if question is None:  # in other words: read, and noted as read
                    question = read_question(sentence, f"line {lineno}: ", story_context(story))
                    story.reworded.append((lineno, sentence, question.render()))
                story.questions.append(question)
                continue
            events = _read(sentence, lineno, story) if (m or not numbered) else None
            if events is None:
                if ignore_unknown:
                    story.ignored.append(lineno)
                    continue
                what = "unparseable (no line number)" if numbered and m is None else "unparseable sentence"
                raise UserError(
                    f"story line {lineno}: {what}: {clip(sentence)!r} (the wordings read: docs/stories.md; "
                    "--ignore-unknown skips such lines)"
                )
            story.sentences_read += 1
            for event in events:
                story.events.append(event)
                story.numbers.append(int(m.group(1)) if m else len(story.events))
    if story.holding is not None:
        raise UserError(f"the {story.holding[1]} {story.holding[0]} took is put nowhere (the story ends)")
    if not story.events:
        raise UserError("story has no sentences")
    return story


def _read(sentence: str, lineno: int, story: StoryText) -> list[Event] | None:
    """The events of a sentence: a template, else the templates it means in a user's words
    (:func:`~mindzero.stories.paraphrase.read_sentence`, noted in ``story.reworded``)."""
    read = parse_line(sentence)
    if read is not None and story.holding is None:  # a template sentence: no context needed (Hi-ToM's)
        story.about, story.predicate = None, ()
        return [read]
    context = story_context(story)
    meant = read_sentence(sentence, context)
    if meant is None or (meant and story.holding is not None and context.holding == story.holding):
        return None  # "Ann took the pear." then any event but putting it somewhere: not readable
    events = [parse_line(m) for m in meant]
    if any(e is None for e in events):
        return None
    story.about, story.predicate, story.holding = context.subject, context.predicate, context.holding
    story.reworded.append((lineno, sentence, " ".join(meant)))
    return events


def story_context(story: StoryText) -> Context:
    """What the story so far lets a sentence refer to: the last event's agents, everyone's room,
    the object named last, every agent and every place."""
    last = story.events[-1] if story.events else None
    obj = next((e.obj for e in reversed(story.events) if hasattr(e, "obj")), None)
    places = {getattr(e, "room", None) or getattr(e, "container", None) for e in story.events}
    room = next((e.room for e in reversed(story.events) if hasattr(e, "room")), None)
    subject = story.about if story.about is not None else tuple(a for a in _agents(last) if a)
    return Context(
        subject, _rooms(story.events), obj,
        frozenset(a for e in story.events for a in _agents(e) if a), frozenset(places - {None}), room=room,
        containers=frozenset(e.container for e in story.events if hasattr(e, "container")),
        objects=frozenset(e.obj for e in story.events if hasattr(e, "obj")),
        predicate=story.predicate,
        holding=story.holding,
        group=next((e.agents for e in reversed(story.events) if len(getattr(e, "agents", ())) > 1), ()),
    )  # fmt: skip


def _agents(event: Event | None) -> tuple[str | None, ...]:
    return getattr(event, "agents", None) or (getattr(event, "agent", None) or getattr(event, "speaker", None),)


def _rooms(events: list[Event]) -> dict[str, str]:
    """The room each agent is in after ``events``."""
    rooms: dict[str, str] = {}
    for event in events:
        move_people(rooms, event)
    return rooms


def move_people(rooms: dict[str, str], event: Event) -> None:
    """Update ``rooms`` (agent -> room) for one event: entering one room leaves the one before."""
    if isinstance(event, Enter | IsIn):
        rooms.update(dict.fromkeys(event.agents, event.room))
    elif isinstance(event, Exit):
        rooms.pop(event.agent, None)


def parse_question_or_none(text: str) -> Question | None:
    """A question in the templates' words, or None."""
    try:
        return parse_question(text)
    except UserError:
        return None


def read_question(text: str, where: str = "", context: Context | None = None) -> Question:
    """A question in the templates' words (:func:`parse_question`) or in a user's
    (:func:`~mindzero.stories.paraphrase.read_question`; ``context``: the story's, for "it");
    raises UserError (prefixed by ``where``) on anything else."""
    if (question := parse_question_or_none(text)) is not None:
        return question
    meant = _question_in_words(text, context)
    if meant is None:
        raise UserError(f"{where}unparseable question: {clip(text.strip())!r} (the wordings read: docs/stories.md)")
    return Question(*meant)


def parse_story(story: str) -> list[Event]:
    """The events of a story (see :func:`read_story`)."""
    return read_story(story).events


#: The wordings a question may have (see :class:`Question`); all but ``beginning`` ask for a belief chain.
QUESTION_FORMS = ("think", "look", "search", "beginning")


@dataclass(frozen=True)
class Question:
    """A question about the O: a belief chain (``()`` = where it really is), or where it was at the
    beginning (``form="beginning"``, its first stated location). ``form`` keeps the wording:
    'think' (Where does A think B thinks ...?), 'look' (Where will A look for the O?), 'search'
    (Where does A think that B searches for the O?)."""

    chain: tuple[str, ...]
    obj: str
    form: str = "think"

    @property
    def order(self) -> int:
        return len(self.chain)

    def render(self) -> str:
        if self.form == "beginning":
            return f"Where was the {self.obj} at the beginning?"
        if self.form == "look":
            return f"Where will {self.chain[0]} look for the {self.obj}?"
        if self.form == "search":
            return f"Where does {self.chain[0]} think that {self.chain[1]} searches for the {self.obj}?"
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
_Q_LOOK = re.compile(rf"Where will (?P<a>{_NAME}) look for the (?P<obj>{_THING})\?$")
_Q_SEARCH = re.compile(rf"Where does (?P<a>{_NAME}) think that (?P<b>{_NAME}) searches for the (?P<obj>{_THING})\?$")
_Q_BEGINNING = re.compile(rf"Where was the (?P<obj>{_THING}) at the beginning\?$")


def parse_question(text: str, where: str = "") -> Question:
    """Parse a question of any form in :data:`QUESTION_FORMS`; raises UserError (prefixed by
    ``where``) on anything else."""
    text = text.strip()
    if m := _Q_ZERO.match(text):
        return Question((), m.group("obj"))
    if m := _Q_CHAIN.match(text):
        rest = tuple(n for n in m.group("rest").split(" thinks ") if n.strip())
        return Question((m.group("first"), *(n.strip() for n in rest)), m.group("obj"))
    if m := _Q_LOOK.match(text):
        return Question((m.group("a"),), m.group("obj"), "look")
    if m := _Q_SEARCH.match(text):
        return Question((m.group("a"), m.group("b")), m.group("obj"), "search")
    if m := _Q_BEGINNING.match(text):
        return Question((), m.group("obj"), "beginning")
    raise UserError(f"{where}unparseable question: {clip(text)!r}")
