"""Stories and questions read into events: Hi-ToM's numbered template lines, or a user's own words
rewritten into the templates (:mod:`mindzero.stories.paraphrase`, :mod:`mindzero.stories.templates`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mindzero.core.errors import UserError, clip
from mindzero.stories.paraphrase import (
    HESITATION,
    Context,
    bracket_notes,
    capitalise_names,
    read_sentence,
    scene_heading,
    script_dialogue,
    sentences,
    story_names,
    thread_marks,
    title_shouted_names,
)
from mindzero.stories.questions import read_question as _question_in_words
from mindzero.stories.templates import NAME, THING, Enter, Event, Exit, IsIn, Move, Stay, move_people, parse_line

_NUMBERED = re.compile(r"^\s*(\d+)\s+(.*\S)\s*$")


def _numbered(text: str) -> bool:
    """Whether a story is numbered ('1 X entered the R.'): any of its lines is."""
    return any(_NUMBERED.match(line.strip()) for line in text.splitlines())


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
    seen: _Seen = field(default_factory=lambda: _Seen(), repr=False, compare=False)  # for story_context
    scripted: bool = False  # a script's scene heading was read ("INT. HALL - DAY")
    scene: str | None = None  # the room the last heading names (None: several, or none usable)
    scene_at: int = 0  # the events before that heading


#: The room of a story that names none ("Sally has a basket. ... Sally goes out for a walk."): everyone
#: it names is there from the start.
IMPLICIT_ROOM = "room"


#: The words a question of where something is (or is believed to be) has.
_ASKS_PLACE = re.compile(r"\b(?:where|whither|which|what place|location|container|receptacle)\b", re.I)

#: A turn to someone already in the story, as a question of nothing: "And Owen?", "What about Ella?".
_ASKED_ABOUT = re.compile(r"^\s*(?:and|and what about|what about|how about)\s+([A-Z][a-z]+)\s*\?+\s*$", re.I)

#: A question without its "?" (a dictated "so where does ben think the radish is").
ASKS_WHERE = re.compile(r"^(?:(?:okay|ok|so|and|now|then)[,]?\s+)*where\b", re.I)


def read_story(text: str, ignore_unknown: bool = False) -> StoryText:
    """Read a story (:func:`_read_story`). A story in own words that names no room — the classic
    Sally-Anne story — is read with everyone it names in one room from the start, and says so in
    ``reworded`` (line 0); if that reading fails too, or names another room, the first error stands.
    Hesitations ("um") are no words of it, and a story without capital letters (dictated) gets its
    names capitalised (:func:`~mindzero.stories.paraphrase.capitalise_names`)."""
    text = bracket_notes(script_dialogue(title_shouted_names(capitalise_names(HESITATION.sub("", thread_marks(text))))))
    try:
        return _read_story(text, ignore_unknown)
    except UserError as error:
        people = story_names(text)
        if _numbered(text) or not people:
            raise
        first = Enter(tuple(people), IMPLICIT_ROOM).render()
        try:
            story = _read_story(first + "\n" + text, ignore_unknown)
        except UserError:
            raise error from None
        if any(isinstance(e, Enter | IsIn) and e.room != IMPLICIT_ROOM for e in story.events):
            raise error from None  # it names rooms after all: the error was another
        story.reworded.insert(0, (0, "(no room is named)", first))
        story.numbers = [n - 1 for n in story.numbers]
        return story


def _read_story(text: str, ignore_unknown: bool = False) -> StoryText:
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
    numbered = _numbered(text)
    story = StoryText([], [], [], [])
    started = not numbered
    for lineno, line in lines:
        m = _NUMBERED.match(line)
        if numbered and m is None and not started:
            continue  # preamble such as "Read the following story ..."
        started = True
        heading = None if numbered else scene_heading(line)
        if heading is not None:  # a script's scene heading or transition: no event; a heading sets the scene
            if heading:
                story.scripted, story.scene_at = True, len(story.events)
                story.scene = (heading[0] or None) if len(heading) == 1 else None
            story.sentences_read += 1
            story.reworded.append((lineno, line, ""))
            continue
        for sentence in [m.group(2)] if m else sentences(line):
            asked = _ASKED_ABOUT.match(sentence)
            if asked and not numbered and asked[1] in story_context(story).agents:
                story.sentences_read += 1  # "And Owen?": a picture book's turn to someone, no event (what
                story.reworded.append((lineno, sentence, ""))  # Owen did is told next, or it is not told)
                continue
            if sentence.endswith("?") and not ASKS_WHERE.match(sentence) and not _ASKS_PLACE.search(sentence):
                # no question of where: a statement ("Noah likes the red pantry??") or a rhetorical question
                # ("Oh, what's this?"), read as a sentence (one that tells nothing is no event)
                sentence = sentence.rstrip("?!").strip() + "."
            elif ASKS_WHERE.match(sentence) or sentence.endswith("?"):
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


@dataclass
class _Seen:
    """What :func:`story_context` needs of a story's events, brought up to date with the events added
    since it last looked: reading a story stays linear in its length (it was quadratic: 25 s for
    4,000 sentences)."""

    count: int = 0  # events taken in
    rooms: dict[str, str] = field(default_factory=dict)
    agents: set[str] = field(default_factory=set)
    places: set[str] = field(default_factory=set)
    containers: set[str] = field(default_factory=set)
    objects: set[str] = field(default_factory=set)
    left: dict[str, str] = field(default_factory=dict)
    obj: str | None = None
    room: str | None = None
    group: tuple[str, ...] = ()

    def catch_up(self, events: list[Event]) -> None:
        for event in events[self.count :]:
            move_people(self.rooms, event)
            self.agents |= {a for a in _agents(event) if a}
            place = getattr(event, "room", None) or getattr(event, "container", None)
            self.places |= {place} if place else set()
            if hasattr(event, "container"):
                self.containers.add(event.container)
            if hasattr(event, "obj"):
                self.objects.add(event.obj)
                self.obj = event.obj
            if hasattr(event, "room"):
                self.room = event.room
            if len(getattr(event, "agents", ())) > 1:
                self.group = event.agents
            if isinstance(event, Exit):
                self.left[event.agent] = event.room
        self.count = len(events)


def story_context(story: StoryText) -> Context:
    """What the story so far lets a sentence refer to: the last event's agents, everyone's room,
    the object named last, every agent and every place."""
    seen = story.seen
    seen.catch_up(story.events)
    last = story.events[-1] if story.events else None
    subject = story.about if story.about is not None else tuple(a for a in _agents(last) if a)
    return Context(
        subject,
        dict(seen.rooms),
        seen.obj,
        frozenset(seen.agents),
        frozenset(seen.places),
        room=seen.room,
        containers=frozenset(seen.containers),
        objects=frozenset(seen.objects),
        predicate=story.predicate,
        holding=story.holding,
        group=seen.group,
        left=dict(seen.left),
        moved=(last.agent, last.obj) if isinstance(last, Move) else None,
        scripted=story.scripted,
        scene=_scene(story),
    )


def _scene(story: StoryText) -> str | None:
    """The room a bare "X enters." goes into under the last scene heading: the heading's one room, as
    long as no one has since entered, stayed or been in another room (the story's events must agree)."""
    if story.scene is None:
        return None
    for event in story.events[story.scene_at :]:
        if isinstance(event, Enter | IsIn | Stay) and event.room != story.scene:
            return None
    return story.scene


def _agents(event: Event | None) -> tuple[str | None, ...]:
    return getattr(event, "agents", None) or (getattr(event, "agent", None) or getattr(event, "speaker", None),)


def parse_question_or_none(text: str) -> Question | None:
    """A question in the templates' words, or None."""
    try:
        return parse_question(text)
    except UserError:
        return None


def read_question(text: str, where: str = "", context: Context | None = None) -> Question:
    """A question in the templates' words (:func:`parse_question`) or in a user's
    (:func:`~mindzero.stories.questions.read_question`; ``context``: the story's, for "it");
    raises UserError (prefixed by ``where``) on anything else."""
    if (question := parse_question_or_none(text)) is not None:
        return question
    text = re.sub(r"^\s*[A-Z][A-Z0-9 ]{1,30}:\s*", "", text)  # a label: "CONTINUITY: where ...?", "Q1: ..."
    # a lead-in: "Let's go to the replay: where ...?", "Run it back — where ...?", "quiz time: where ...?"
    text = re.sub(r"^[^:—–?]{1,60}?(?::|\s[—–-]+)\s*(?=(?:where|whither|which|in what|in which|what place|"
                  r"according)\b)",
                  "", text, flags=re.I)  # fmt: skip
    if context is not None and context.agents and not any(c.isupper() for c in text):
        # a dictated "where does jack think the corn is": the story's people, capitalised
        names = "|".join(sorted((re.escape(a.lower()) for a in context.agents), key=len, reverse=True))
        text = re.sub(rf"\b({names})\b", lambda m: m[1].capitalize(), text)
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


_Q_ZERO = re.compile(rf"Where is the (?P<obj>{THING}) really\?$")
_Q_CHAIN = re.compile(
    rf"Where does (?P<first>{NAME}) (?:really )?think (?P<rest>(?:{NAME} thinks )*)the (?P<obj>{THING}) is\?$"
)
_Q_LOOK = re.compile(rf"Where will (?P<a>{NAME}) look for the (?P<obj>{THING})\?$")
_Q_SEARCH = re.compile(rf"Where does (?P<a>{NAME}) think that (?P<b>{NAME}) searches for the (?P<obj>{THING})\?$")
_Q_BEGINNING = re.compile(rf"Where was the (?P<obj>{THING}) at the beginning\?$")


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
