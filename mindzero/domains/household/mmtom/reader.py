"""A deterministic reader of household stories and questions (MMToM-QA's text questions and
stories people write in their own words).

A story describes an apartment ("The kitchen is equipped with four cabinets, a fridge, ...",
"The third cabinet from the left houses a wine glass, while the second contains a plate."), then
what a person does ("She proceeds to the kitchen, heads towards the fridge, opens it, then closes
it, and finally walks towards the third kitchen cabinet."), then a question with options. The
language layer (:mod:`.lexicon`: spaCy tokens, lemmas and phrase matches over our domain lexicon)
finds the *mentions* of each sentence; this module builds from them:

- a :class:`Scene`: places (``room/furniture`` or ``kitchen/kitchencabinet/3``) and the objects
  at each place;
- a :class:`Story`: the start room and the ordered visits (a room, or a place and whether it was
  opened and closed);
- a :class:`Query`: a belief question (goal class, container, which option says "inside") or a
  goal question (two or more goal classes, and 2.1's condition "thinks there isn't a G inside C").

A sentence is *read* when every word in it is part of a mention or a word the lexicon knows and
its objects can be assigned to places; any other sentence is listed in :attr:`Reading.unread`
with its line and unknown words — never silently dropped. :meth:`Reading.blockers` says which of
them the answer depends on.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace

from mindzero.core.errors import UserError
from mindzero.core.spelling import with_apostrophes
from mindzero.domains.household.mmtom.addressed import describe_for_onlooker
from mindzero.domains.household.mmtom.corrections import resolve_corrections
from mindzero.domains.household.mmtom.dictation import punctuate_run_ons
from mindzero.domains.household.mmtom.email_thread import unwrap_thread
from mindzero.domains.household.mmtom.formats import rewrite_formats
from mindzero.domains.household.mmtom.lexicon import (
    NEGATING,
    Mention,
    bracketed_tokens,
    display_name,
    lemma,
    lexicon,
    mentions,
    pipeline,
    spelling_fixes,
    text_note,
    unknown,
    unknown_words,
)
from mindzero.domains.household.mmtom.notation import rewrite_notation
from mindzero.domains.household.mmtom.report import strip_report_form
from mindzero.domains.household.mmtom.revealed import move_revealed_contents
from mindzero.domains.household.mmtom.shorthand import expand_shorthand
from mindzero.domains.household.mmtom.structured import rewrite_structured
from mindzero.domains.household.mmtom.transcript import read_transcript

#: What a report calls the person it observes ("The participant walked to the kitchen"): the person.
ROLE_NOUNS = frozenset({"subject", "participant", "resident", "occupant", "patient", "client", "tenant"})

#: Nouns a room word may qualify without anyone walking there ("his kitchen activities").
ROOM_AS_MODIFIER = frozenset({"tour", "activity", "routine", "search", "exploration", "errand", "task", "chore"})

#: Furniture kinds that hide their contents until opened (Watch-And-Help); the rest are surfaces.
CONTAINER_KINDS = lexicon().containers
#: Words that may stand between "opens" and the place it opens ("opens and then closes the stove").
OPEN_THE = frozenset(
    {"and", "then", "subsequently", "the", "a", "an", "up", "door", "of", "carefully", "slowly", "both"}
)
#: Words that may join the places one "opens" or "does the same with" acts on ("opens the fridge, and
#: then the microwave", "the same with the stove, and then with the oven");
#: any other word between two places (a verb: "opens the fridge, then heads to the stove") ends it.
LISTED = frozenset(
    {",", "and", "then", "the", "a", "an", "also", "both", "plus", "&", "finally", "next", "with", "as", "well"}
)
#: Furniture that names its room ("the bathroom cabinet", "the fridge").
IMPLIED_ROOM = {"bathroomcabinet": "bathroom"} | {kind: "kitchen" for kind in lexicon().kitchen_only}
#: Negations of a question's options ("is not inside", "isn't", "no").
NEGATIONS = frozenset({"not", "n't", "no", "never", "nowhere", "nothing"})
#: Words (lemmas, lower case) that turn a belief question round in ways the reader does not model
#: ("does she doubt ...", "is the fridge missing ...", "anywhere but the fridge", "is he unaware
#: ..."): such a question is refused, never answered the wrong way round.
POLARITY_WORDS = frozenset({"doubt", "unaware", "miss", "lack", "absent", "elsewhere", "except", "besides",
                            "mistaken", "wrong", "forget", "unsure", "uncertain", "unlikely", "but", "other"})
#: Where each part of a story starts ("Actions taken by Mary:", "Question:") when it is labelled.
#: Titles before a name ("Mrs. Okafor enters ...").
TITLES = frozenset({"mr", "mr.", "mrs", "mrs.", "ms", "ms.", "dr", "dr.", "prof", "prof.", "miss", "grandpa",
                    "grandma"})  # fmt: skip
#: A line that ends a part of a text: a rule ("---", "***") or a Markdown heading.
SECTION_BREAK = re.compile(r"^[ \t]*(?:[-*_]{3,}[ \t]*$|#{1,6}[ \t])", re.M)
#: "Actions taken by Mary:", or a line heading a log: "Log - Mary", "--- events, Nadia ---", "What
#: Linda did:", "Jennifer - log" (every sentence after it is the person's action).
ACTIONS_HEAD = re.compile(
    r"actions taken by\s+([A-Za-z][\w'-]*)\s*:"
    r"|^[ \t]*-*[ \t]*(?:log|events?|actions?|activity|timeline)[ \t]*(?:[-–—:,(]|for|of|by)[ \t]*([A-Za-z][\w'-]*)"
    r"[ \t]*\)?[ \t]*-*[ \t]*:?[ \t]*$"
    r"|^[ \t]*what ([A-Za-z][\w'-]*) did[ \t]*:?[ \t]*$"
    r"|^[ \t]*([A-Za-z][\w-]*)(?:'s)?[ \t]*[-–—:]?[ \t]*(?:log|events|actions|activity|timeline)[ \t]*:?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
QUESTION_HEAD = re.compile(
    r"(?:\bquestion|^\s*q)\s*(?::|-|–)|^[ \t]*(?:[IVX]+\.|\d+\.|part [IVX\d]+\.?)?[ \t]*question[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
DESCRIPTION_HEAD = re.compile(r"^\s*what'?s inside the apartment\s*:", re.IGNORECASE)
#: An option label: "(a)", "a)", "A.", "b:" — preceded by a start, a space or a bracket.
OPTION_LABEL = re.compile(r"(?:(?<=\s)|^)\(?([a-eA-E])(?:\)|[.:](?=\s))")
#: Sentences that begin a question's premise ("Suppose she wants a plate.").
PREMISE_WORDS = frozenset({"if", "suppose", "assume", "assuming", "given", "say", "imagine", "presume", "let"})
PRONOUNS = frozenset({"she", "he", "they"})
#: Words that refer to the person ("she", an exam's "the subject"): a sentence with one tells what they do.
PERSONAL = frozenset({"she", "he", "him", "herself", "himself", "subject", "individual", "protagonist"})
#: A story told by the person ("I was in the kitchen. I opened the fridge."): read when no one else is named.
FIRST_PERSON = re.compile(r"\bI(?: was| am|'m| walked| went| opened| headed| started)\b")
#: People other than the one the story follows: a sentence naming one may tell their action, not the person's.
OTHER_PEOPLE = frozenset(
    "sister brother mother father mom mum dad friend roommate flatmate housemate wife husband son daughter "
    "partner boyfriend girlfriend neighbour neighbor guest someone somebody child kid dog cat".split()
)
#: Verbs of walking that mark a sentence as an action even without a subject ("Goes to the fridge.").
WALKS = frozenset(lexicon().verbs["walk"]) - {"make", "way", "set", "near", "pass", "cross", "turn", "shift",
                                              "direct", "continue", "come", "reach", "head off", "trip", "run"}
#: Verbs of a sentence that tells what the person did: walking, opening, closing.
ACTION_VERBS = WALKS | {p for kind in ("open", "close") for p in lexicon().verbs[kind] if " " not in p}
#: Words that say the person goes by a place without visiting it ("ignoring the fridge", "walks past
#: the stove", "skips the first cabinet", "without opening the fridge", "instead of the microwave").
PASSING = frozenset(
    {"ignore", "past", "pass", "bypass", "skip", "without", "avoid", "disregard", "overlook", "instead"}
)
#: Words that may stand between a passing word and the place it passes.
PASSING_THE = frozenset(
    {"the", "a", "an", "by", "of", "over", "right", "open", "opening", "check", "checking", "touch", "touching",
     "look", "looking", "in", "into", "at", "go", "going", "to"}
)  # fmt: skip
#: A premise about what the person wants ("Robert has been trying to get a book.").
GOAL_PHRASE = re.compile(
    r"\b(?:trying to (?:get|find|fetch)|looking for|searching for|wants?|is after|is seeking|"
    r"(?:thinks|believes) (?:that )?there(?: is|'s) no|(?:does not|doesn't) (?:think|believe))\b",
    re.I,
)
#: Words of a sentence that asks, even without "?" ("Determine which one of the following statements
#: is more likely to be true.").
ASKING = re.compile(r"\b(?:more|most) (?:likely|probable|plausible)\b|\bwhich (?:one )?of the following\b", re.I)
#: Words of a line that only says how to answer ("Just answer a or b.").
ANSWER_WORDS = frozenset("answer answers respond reply please with either a b or just only letter the one".split())
#: Words of a question about what the person wants ("What is she trying to get?").
GOAL_WORDS = frozenset("get want wants wanted look looking search searching seek seeking find fetch grab after goal "
                       "need needs retrieve take trying hunt hunting".split())
#: Verbs (lemmas) of a premise about what the person thinks ("Sam thinks there is a cupcake in the
#: fridge."): a sentence with one and no action is the question's, never a fact about the apartment.
BELIEF_VERBS = frozenset(
    f"{stem}{end}" for stem in ("think", "believe", "expect", "reckon", "assume", "suppose") for end in ("", "s")
) | {"thought", "believed", "expected", "reckoned", "assumed", "supposed"}
#: Words of such a premise, verbs or not ("Sam is sure the fridge holds a cupcake").
BELIEF_WORDS = BELIEF_VERBS | {"sure", "certain", "convinced"}
#: Verbs of a question about what the person wants that need "for" ("What is he going for?").
GOING_FOR = re.compile(r"\b(?:go|goes|going|reach|reaches|reaching|hunt|hunts|hunting) for\b", re.I)
@dataclass(frozen=True)
class Place:
    """A piece of furniture: ``id`` is ``room/kind`` or ``room/kind/index`` (kitchen cabinets)."""

    id: str
    room: str
    kind: str

    @property
    def container(self) -> bool:
        return self.kind in CONTAINER_KINDS


def place_id(room: str, kind: str, index: int | None = None) -> str:
    """``room/kind`` or ``room/kind/index``; a "cabinet" in the kitchen or bathroom is theirs."""
    kind = {"kitchen": "kitchencabinet", "bathroom": "bathroomcabinet"}.get(room, kind) if kind == "cabinet" else kind
    room = "bathroom" if kind == "bathroomcabinet" else room  # "... ; bathroom cabinet – empty" wherever it is said
    index = index if kind == "kitchencabinet" else None  # only kitchen cabinets are numbered
    return f"{room}/{kind}" if index is None else f"{room}/{kind}/{index}"


@dataclass
class Scene:
    """The apartment at the start: rooms, places, and object class counts at each place."""

    rooms: list[str] = field(default_factory=list)
    places: dict[str, Place] = field(default_factory=dict)
    objects: dict[str, Counter] = field(default_factory=dict)

    def add_place(self, room: str, kind: str, index: int | None = None) -> str:
        pid = place_id(room, kind, index)
        room, kind = pid.split("/")[:2]
        if pid not in self.places:
            self.places[pid] = Place(pid, room, kind)
            self.objects[pid] = Counter()
        if room not in self.rooms:
            self.rooms.append(room)
        return pid

    def holds(self, pid: str, cls: str) -> bool:
        return self.objects.get(pid, Counter())[cls] > 0

    def to_json(self) -> dict:
        return {"rooms": self.rooms, "places": {p: dict(sorted(c.items())) for p, c in self.objects.items()}}


@dataclass(frozen=True)
class Visit:
    """One step of the story: the person walks into ``room`` or to ``place`` (then ``room`` is its
    room); ``opened``/``closed``: they opened / closed it there (seeing inside)."""

    room: str
    place: str | None = None
    opened: bool = False
    closed: bool = False


@dataclass
class Story:
    person: str
    start: str
    visits: list[Visit] = field(default_factory=list)

    def to_json(self) -> dict:
        steps = [v.place + (" (opened)" if v.opened else "") if v.place else f"room {v.room}" for v in self.visits]
        return {"person": self.person, "start": self.start, "visits": steps}


@dataclass(frozen=True)
class Query:
    """``kind`` 'belief': does the person think ``goal`` is inside ``place``? ``inside`` is the option
    (0 = a, 1 = b) that says it is. ``kind`` 'goal': which of ``options`` (two or more classes) is the goal?
    ``given``: 2.1's premise (class, place) the person thinks does *not* hold that class."""

    kind: str
    goal: str | None = None
    place: str | None = None
    inside: int | None = None
    options: tuple[str, ...] | None = None
    given: tuple[str, str] | None = None
    open_choice: bool = False  # the options are every object of the apartment


@dataclass
class Reading:
    scene: Scene
    story: Story
    query: Query
    sentences: int
    unread: list[dict]  # line, part, text, unknown words, why, object classes / furniture it names

    def blockers(self) -> list[dict]:
        """The unread sentences the answer may depend on: any of the actions, and description
        sentences that name an object class or a furniture kind the question is about."""
        q = self.query
        if q.open_choice:  # "what is she trying to get?": any object the description names may be it
            objects = lexicon().classes
            return [u for u in self.unread if u["acts"] and (u["part"] == "actions" or set(u["names"]) & objects)]
        about = {q.goal, *(q.options or ()), *(q.given[:1] if q.given else ())} - {None}
        for pid in (q.place, q.given[1] if q.given else None):
            if pid is not None:
                kind = self.scene.places[pid].kind
                about |= {kind, "cabinet"} if "cabinet" in kind else {kind}
        return [u for u in self.unread if (u["part"] == "actions" and u["acts"]) or about & set(u["names"])]

    def to_json(self) -> dict:
        q = self.query
        return {
            "scene": self.scene.to_json(),
            "story": self.story.to_json(),
            "query": {k: v for k, v in vars(q).items() if v is not None},
            "sentences": self.sentences,
            "unread": self.unread,
        }

@dataclass
class _Sentence:
    """One sentence: its tokens (a spaCy span), its mentions, its line in the input (1-based)."""

    tokens: object
    found: list[Mention]
    line: int
    part: str  # description | actions

    @property
    def text(self) -> str:
        return self.tokens.text.strip()

    def unread(self, unknown: list[str], why: str = "", acts: bool | None = None, named: bool = True) -> dict:
        """The record of an unread sentence (or of a skipped aside: ``acts`` and ``named`` False).
        ``names``: the object classes and furniture kinds it names, an ambiguous word's candidates
        included ("there is a glass too" may be about the wine glass or the water glass)."""
        names = {m.name for m in self.found if m.kind in ("obj", "places") and m.name}
        names |= {c for m in self.found for c in m.candidates}
        # acts: it names a room, a place, an object or an action (a sentence that names none — "She
        # hums a tune." — cannot change where the person went)
        acts = any(m.kind != "filler" for m in self.found) if acts is None else acts
        return {
            "line": self.line, "part": self.part, "text": self.text, "unknown": unknown, "why": why,
            "names": sorted(names) if named else [], "acts": acts,
        }


#: The start of a line that is an item of its own, never the wrapped rest of the line before:
#: a bullet ("- ", "* ", "1. "), a label ("kitchen: ...", "cabinet 2 -- ...") or a heading of at
#: most three words ("living room").
ITEM_START = re.compile(
    r"(?:[-*•+]\s|\d+[.)]\s|[a-z][\w ]{0,30}?(?::|\s(?:--?|[–—>])\s)|[a-z]+(?: [a-z]+){0,2}[ \t]*(?:\n|$))"
)


#: Longest line of a hard-wrapped text (characters): editors and mail wrap at 72-100. A text with
#: a longer line is not wrapped, so its line breaks end sentences even without punctuation; in a
#: wrapped one, a line under :data:`SHORT_LINE` of the longest ends its paragraph.
WRAP_WIDTH = 120
SHORT_LINE = 0.6


#: A line that asks the question with both options ("if linda thinks ... (a) ... (b) ..."): never
#: the wrapped rest of the line before.
ASKED_LINE = re.compile(
    r"(?:if|which|what|suppose|assuming|given|is|does|do|did|was|would|so|question)\b[^\n]*\(a\)[^\n]*\(b\)", re.I
)


def _segments(text: str, cut: int) -> list[tuple[int, str]]:
    """(offset, text) of the lines a story is made of: a line break ends a sentence unless the next
    line continues it (starts in lower case after a line without end punctuation in a hard-wrapped
    text, :data:`WRAP_WIDTH`, and is no :data:`ITEM_START` nor :data:`ASKED_LINE`: wrapped prose);
    offset ``cut`` (where a heading stood) always ends one."""
    out, start = [], 0
    longest = max(len(line.strip()) for line in text.split("\n"))
    for m in re.finditer(r"\n", text):
        before, after = text[start : m.start()].rstrip(), text[m.end() :].lstrip(" \t")
        heading = m.end() <= cut <= m.end() + len(text[m.end() :]) - len(after)
        line = before[before.rfind("\n") + 1 :]
        continues = before and before[-1] not in ".!?:;" and after[:1].islower() and not heading
        wrapped = longest <= WRAP_WIDTH and len(line.strip()) >= SHORT_LINE * longest
        continues = continues and wrapped and not ASKED_LINE.match(after)
        continues = continues and not ITEM_START.match(after)
        if not continues:
            out.append((start, text[start : m.start()]))
            start = m.end()
    out.append((start, text[start:]))
    return [(offset, seg) for offset, seg in out if seg.strip()]


def _spans(text: str, cut: int) -> list[tuple[int, object]]:
    """(offset of its segment, sentence span) of every sentence of ``text`` (:func:`_segments`)."""
    nlp, _ = pipeline()
    return [(offset, _trim(s)) for offset, seg in _segments(text, cut) for s in nlp(seg).sents if s.text.strip()]


def _trim(sent):
    """A sentence without the line breaks and spaces spaCy leaves at its start."""
    k = 0
    while k < len(sent) - 1 and sent[k].is_space:
        k += 1
    return sent[k:]


def _question_like(sent) -> bool:
    """A sentence of a question block: it asks ("?", options), states the premise ("Suppose she
    wants a plate.", "Robert has been trying to get a book.") or says how to answer ("Answer a or b.")."""
    words = [t.lower_ for t in sent if t.is_alpha]
    if "?" in sent.text or OPTION_LABEL.search(sent.text) or (words and words[0] in PREMISE_WORDS):
        return True
    if words and set(words) <= ANSWER_WORDS or ASKING.search(sent.text):
        return True
    # a premise names no action: "Not finding what he wants, he closes it and turns to the fridge." acts
    premise = GOAL_PHRASE.search(sent.text) or any(t.lower_ in BELIEF_VERBS for t in sent)
    return bool(premise) and not any(t.lemma_ in ACTION_VERBS for t in sent)


def _named_again(text: str, head: re.Match) -> bool:
    """Whether the name an actions heading gives is named again in the text: a person who acts,
    not "Timeline (Saturday)"."""
    name = next(name for name in head.groups() if name)
    return bool(re.search(rf"\b{re.escape(name)}\b", text[: head.start()] + text[head.end() :], re.I))


def _layout(text: str) -> tuple[list[tuple[int, object]], str, str | None, int]:
    """(the story's sentences, the question at its end or "", the person a heading names, where
    the heading's actions start (or the text's end)). The question is what follows "Question:" /
    "Q:", else the run of question-like sentences that ends the text and holds its last '?' or
    option label."""
    person, acts_from = None, len(text)
    head = next((h for h in ACTIONS_HEAD.finditer(text) if _named_again(text, h)), None)
    if head:
        person, acts_from = next(name for name in head.groups() if name), head.end()
        person = person.title() if person.islower() else person  # "ravi - log"
        text = text[: head.start()] + " " * len(head[0]) + text[head.end() :]  # keeps offsets and lines
    text = DESCRIPTION_HEAD.sub(lambda m: " " * len(m[0]), text)
    if q := QUESTION_HEAD.search(text):
        return _spans(text[: q.start()], acts_from), text[q.end() :], person, acts_from
    spans = _spans(text, acts_from)
    asks = [k for k, (_, s) in enumerate(spans) if "?" in s.text or OPTION_LABEL.search(s.text)]
    if not asks:
        return spans, "", person, acts_from
    k = asks[-1]
    while k > 0 and _question_like(spans[k - 1][1]):
        k -= 1
    offset, first = spans[k]
    return spans[:k], text[offset + first.start_char :], person, acts_from


def _fillers(sent: _Sentence) -> set[int]:
    """Tokens of read phrases and skipped asides: words that mean nothing more."""
    return {i for m in sent.found if m.kind == "filler" for i in range(m.start, m.end)}


def _is_action(sent: _Sentence, names: set[str]) -> bool:
    """Whether a sentence tells what the person does (names them, or has a verb of walking, opening
    or closing) rather than how the apartment is. Words of a read phrase ("going from left to
    right") do not count."""
    toks, covered = sent.tokens, _fillers(sent)
    furniture_ends = {m.end for m in sent.found if m.kind in ("places", "vague")}  # "the cabinets go: ..."
    words = [(i, t) for i, t in enumerate(toks) if i not in covered]
    # not walks: "the milk's gone" (absent), "for your visit" (a noun)
    nouns = ("your", "my", "his", "her", "their", "our", "a", "the")
    still = {i for i, t in words if t.lower_ == "gone" and i and toks[i - 1].lower_ in ("is", "'s", "are", "was")}
    still |= {i for i, t in words if i and toks[i - 1].lower_ in nouns}
    # an arrow before any room or place is a walk ("-> fridge", "Tom -> kitchen"); after one it may
    # list what the room holds ("Bedroom -> 2 desks, a sofa")
    first_place = min((m.start for m in sent.found if m.kind in ("room", "places")), default=len(toks))
    arrows = {
        i for i, t in words if i < first_place and (t.text == "→" or (t.text == ">" and toks[i - 1].text in ("-", "=")))
    }
    walks = any((t.lemma_ in WALKS or i in arrows) and i not in furniture_ends | still for i, t in words)
    if _room_list(sent) and {t.lower_ for _, t in words} & (HAVING | {"there", "there's", "have", "got"}):
        return False  # "His flat has a bedroom, a kitchen and a bathroom.", "when you come over there's a ..."
    if walks or any(m.kind in ("open", "close", "about") for m in sent.found):
        return True
    if any(t.lemma_ in ("start", "begin") for _, t in words) and any(m.kind == "room" for m in sent.found):
        return True  # "- starts in the bathroom" (a trace's line, no name)
    if _room_list(sent):
        return False  # "A bedroom, a kitchen and a bathroom."
    # the person as subject, not as owner ("Anna's kitchen has ...")
    owner = {i for i, t in words if i + 2 < len(toks) and toks[i + 1].lower_ in ("'s", "’s") and (i + 2 in
             {m.start for m in sent.found if m.kind != "filler"} or toks[i + 2].lower_ in HOMES)}
    return any((t.lower_ in names and i not in owner) or t.lower_ in PERSONAL for i, t in words)


#: What a person owns that is the whole apartment ("Thomas's house has a kitchen and ...").
HOMES = frozenset({"house", "flat", "apartment", "home", "place", "condo", "unit"})


def _room_list(sent: _Sentence) -> bool:
    """Whether a sentence's rooms are a list ("a bedroom, a kitchen and a bathroom")."""
    rooms = [m for m in sent.found if m.kind == "room"]
    between = [sent.tokens[a.end : b.start] for a, b in zip(rooms, rooms[1:])]
    return len(rooms) > 1 and all(all(t.lower_ in (",", "and", "a", "an", "the", "&") for t in g) for g in between)


def _sentence(offset: int, span, full: str, part: str, context: frozenset[str]) -> _Sentence:
    line = full.count("\n", 0, offset + span.start_char) + 1
    return _Sentence(span, mentions(span, context), line, part)


def _context(text: str) -> frozenset[str]:
    """Object classes the text names unambiguously (to read "glass" when only wine glasses exist)."""
    nlp, matcher = pipeline()
    labels = {nlp.vocab.strings[m] for m, _, _ in matcher(nlp(text))}
    return frozenset(label.split("|")[1] for label in labels if label.startswith("obj|"))


#: Marks that set off an aside ("Charles, who is still in his pajamas, is in the kitchen.").
ASIDE_MARKS = frozenset({",", "(", ")", "-", "–", "—", ";"})


def _skip_asides(sent: _Sentence, names: set[str], notes: list[dict]) -> None:
    """Asides that name nothing the reader knows and hold words it does not ("wearing his lucky
    cap", "(humming a song)") are skipped, each noted in ``notes``; an aside with a negation is not,
    unless all it negates is unknown ("(no milk, but a salmon)": milk is no object of the world)."""
    toks, cuts = sent.tokens, [-1] + [i for i, t in enumerate(sent.tokens) if t.text in ASIDE_MARKS]
    for lo, hi in zip([c + 1 for c in cuts], [*cuts[1:], len(toks)]):
        piece = toks[lo:hi]
        named = any(m.start < hi and m.end > lo and m.kind != "filler" for m in sent.found)
        negation = next((i for i, t in enumerate(piece) if t.lower_ in NEGATING), None)
        negates_known = negation is not None and not all(
            unknown(t, names) or t.is_punct or t.lower_ in ("a", "an", "the", "any") for t in piece[negation + 1 :]
        )
        if named or not any(unknown(t, names) for t in piece) or negates_known:
            continue
        sent.found.append(Mention("filler", lo, hi))
        words = [t.text for t in piece if unknown(t, names)]
        notes.append(sent.unread(words, f"aside skipped: {piece.text!r}", acts=False, named=False))


def _skip_passed(sent: _Sentence, notes: list[dict]) -> None:
    """Places the person goes by without visiting ("Ignoring the fridge, he heads for the stove",
    "walks past the fridge to the stove", "without opening it") become read phrases, each noted in
    ``notes``; the rest of the sentence is read as usual. A negated passing ("does not skip") is
    left alone, so the sentence stays unread."""
    toks = sent.tokens
    for k, tok in enumerate(toks):
        if tok.lemma_.lower() not in PASSING and tok.lower_ not in PASSING:
            continue
        if any(t.lower_ in NEGATIONS for t in toks[max(0, k - 3) : k]):
            continue
        end = k + 1
        while end < len(toks) and toks[end].lower_ in PASSING_THE:
            end += 1
        target = next((m for m in sent.found if m.start == end and m.kind in ("places", "room")), None)
        if target is not None:
            end = target.end
        elif tok.lower_ == "without" and end < len(toks) and toks[end].lower_ in ("it", "them"):
            end += 1  # "goes to the fridge and, without opening it, walks on": a visit, nothing opened
        else:
            continue
        sent.found[:] = [m for m in sent.found if m.end <= k or m.start >= end]  # "opening" opens nothing
        sent.found.append(Mention("filler", k, end))
        notes.append(sent.unread([], f"passed, not visited: {toks[k:end].text!r}", acts=False, named=False))


def read_scene(sentences: list[_Sentence], names: set[str] = frozenset()) -> tuple[Scene, list[dict]]:
    """(scene, unread sentences) of the apartment description (``names``: the person's, who may
    own it: "thomas's house has ...")."""
    scene, room, unread, previous = Scene(), None, [], []
    for sent in sentences:
        _skip_asides(sent, set(), unread)
        if unknown := unknown_words(sent.tokens, sent.found, set(names)):
            unread.append(sent.unread(unknown))
            continue
        rooms = [m.name for m in sent.found if m.kind == "room"]
        if rooms and not any(m.kind in ("places", "obj") for m in sent.found):
            scene.rooms += [r for r in dict.fromkeys(rooms) if r not in scene.rooms]  # "it has a kitchen, ..."
            room = rooms[0] if len(set(rooms)) == 1 else room  # "Bedroom:" heads the lines after it
            continue
        implied = [IMPLIED_ROOM[m.name] for m in sent.found if m.kind == "places" and m.name in IMPLIED_ROOM]
        # "Cupboard 1 has a cupcake": only the kitchen's cabinets are numbered
        implied += ["kitchen" for m in sent.found if m.kind == "places" and m.name == "cabinet"
                    and any(index is not None for _, index, _ in m.places)]  # fmt: skip
        if rooms or implied:
            room = (rooms or implied)[0]
        if room is None:
            unread.append(sent.unread([], "no room named yet"))
            continue
        read = _assign(room, sent, previous)
        if read is None:
            unread.append(sent.unread([], "objects not given one place"))
            continue
        places, pairs, room = read
        last = _cabinet_number(scene, -1, False)  # "the last one on the right": the last of those counted so far
        known = {"kitchen/kitchencabinet/-1": f"kitchen/kitchencabinet/{last}"} if last else {}
        places = [(w, k, last if i == -1 and place_id(w, k, i) in known else i) for w, k, i in places]
        pairs = [(known.get(pid, pid), obj) for pid, obj in pairs]
        if any(i is not None and i < 1 and place_id(w, k, i) != f"{w}/{k}" for w, k, i in places):
            unread.append(sent.unread([], "'the last' cabinet before any says how many there are"))
            continue
        for where, kind, index in places:
            scene.add_place(where, kind, index)
        previous = [place_id(where, kind, index) for where, kind, index in places[-1:]] or previous
        for pid, obj in pairs:
            scene.objects[pid][obj.name] += obj.count
    return scene, unread


#: Words and marks that end a clause of a description ("Kitchen: a fridge - the fridge holds ...").
CLAUSE_MARKS = frozenset({";", ":", "/", "|", "-", "–", "—", "while", "whereas", "whilst"})


def _clauses(sent: _Sentence) -> list[tuple[int, int]]:
    """Token ranges of a description sentence's clauses: breaks at :data:`CLAUSE_MARKS`, ", but",
    ", with", and "and" before a new statement ("..., and the microwave holds ...", "... and there is ...")."""
    toks, cuts = sent.tokens, [0]
    for i, t in enumerate(toks):
        prev = toks[i - 1].lower_ if i else ""
        nxt = toks[i + 1].lower_ if i + 1 < len(toks) else ""
        if t.lower_ in CLAUSE_MARKS or (t.lower_ in ("but", "with") and prev == ","):
            cuts.append(i)
        elif t.lower_ == "and" and nxt in ("the", "there", "inside", "in", "on", "lastly", "its"):
            left = [m for m in sent.found if cuts[-1] <= m.start < i and m.kind in ("places", "obj")]
            said = left and any(tok.is_alpha and tok.lower_ not in ("the", "a", "an") for tok in toks[left[-1].end : i])
            told = next((m for m in sent.found if m.kind == "places" and m.start == i + 2), None)
            states = told is not None and told.end < len(toks) and toks[told.end].lower_ in HAVING | {"'s", "got"}
            # "The microwave and the stove have a salmon each": one subject, no new statement
            subject = bool(left) and all(m.kind == "places" for m in left) and not any(
                tok.lower_ in HAVING for tok in toks[cuts[-1] : i]
            )
            # "... a desk and a cabinet and in the cabinet there are ...": a place that says what it holds
            where = next((m for m in sent.found if m.kind == "places" and m.start == i + 3), None)
            placed = nxt in ("in", "on", "inside") and where is not None and where.end < len(toks)
            placed = placed and toks[where.end].lower_ in ("there", "there's", "you", ",")
            # "..., and the ...", "the X is empty and the Y holds ...", "a couch and a desk and the cupboard's got"
            there = nxt == "there" and i + 2 < len(toks) and toks[i + 2].lower_ in ("'s", "is", "are", "s")
            if prev == "," or said or (states and not subject) or placed or there:
                cuts.append(i)
    return list(zip(cuts, [*cuts[1:], len(toks)]))


def _assign(
    room: str, sent: _Sentence, previous: list[str]
) -> tuple[list[tuple[str, str, int | None]], list[tuple[str, Mention]], str] | None:
    """((room, kind, index) of the places named, (place id, object mention) pairs, the room last
    named) of a description sentence starting in ``room``, or None when an object cannot be given
    one place. ``previous``: the places of the sentence before
    ("A book is also stored there.").

    Clauses, then comma-separated pieces: a piece naming only objects gives them to the places of
    the piece before (or, at the start, the next). Within a piece, places and objects come in runs:
    a piece that starts with objects gives each run of them to the run of places after it ("a book
    rests on the desk and a plate on the sofa"); one that starts with places gives each run of
    objects to the places before it ("the fridge holds a plate"). A run of several places takes
    objects only when "each", "both" or "respectively" says how, or when a relative word ("with",
    "which", "containing") ties them to the last place ("a sofa with a book on it")."""
    named: list[tuple[str, str, int | None]] = []
    pairs: list[tuple[str, Mention]] = []
    toks = sent.tokens
    named_here = False  # whether a clause of this sentence has named a place yet
    tail: list[str] = []  # the places of the last place the clause before named ("1" in "(1: a bowl, 2: ...")
    for lo, hi in _clauses(sent):
        # "the bedroom has a desk, and the bathroom has a cabinet": each clause in the room it names
        room = next((m.name for m in sent.found if lo <= m.start < hi and m.kind == "room"), room)
        clause = [m for m in sent.found if lo <= m.start < hi and m.kind in ("places", "obj")]
        words = {t.lower_ for t in toks[lo:hi]}
        cuts = [i for i in range(lo, hi) if toks[i].text == "," and not any(m.start <= i < m.end for m in clause)]
        owner: list[str] = []
        orphans: list[Mention] = []
        objects_led = False  # whether the last piece with a place named its objects before it
        for a, b in zip([lo, *cuts], [*cuts, hi]):
            found = [m for m in clause if a <= m.start < b]
            # "one in the bedroom with a book, one in the living room with ...": each piece in its room
            room = next((m.name for m in sent.found if a <= m.start < b and m.kind == "room"), room)
            if not found:
                continue
            relative = {t.lower_ for t in toks[a : found[0].start]} & {"which", "latter"}
            if all(m.kind == "obj" for m in found):
                heading = toks[lo].text in (":", "-", "–", "—")
                closing = any(t.text == ")" for t in toks[a:b])  # "a fridge (no milk, but a salmon), ..."
                # "... a desk — two glasses and an apple in the cabinet, ...": their own place comes later
                placed_later = any(m.kind == "places" and m.start >= b and toks[max(m.start - 2, 0)].lower_ in
                                   ("in", "on", "inside") for m in clause)  # fmt: skip
                if not owner and a == lo and (heading or closing) and tail and not placed_later:
                    owner = tail  # "1: a bowl, a plate, 2: ...": the place just before the colon or bracket
                if not owner or objects_led:
                    # "two books on the sofa, and a plate and a cup on the table": objects that led
                    # the piece before lead this one too, so they wait for the place after them
                    orphans += found
                    continue
                given = _give(owner[-1:] if relative else owner, found, words, tied=False)
                given = None if given is None else ([], given)
            else:
                lead = {t.lower_ for t in toks[a : found[0].start]}
                if objects_led and orphans and found[0].kind == "places" and not lead & WHERE_WORDS:
                    # "... on the sofa, with a plate, and the desk beside it empty": the list went on,
                    # no objects lead this place, so the waiting ones are the sofa's (but "..., and
                    # another salmon, along with a plate, is in the stove": the stove's)
                    waiting = _give(owner, orphans, words, tied=False)
                    if waiting is None:
                        return None
                    pairs += waiting
                    orphans = []
                given = _runs(room, found, words, toks, orphans)
                objects_led = found[0].kind == "obj" and not relative
                orphans = []
            if given is None:
                return None
            new_places, new_pairs = given
            named += [(room, kind, index) for kind, index in new_places]
            pairs += new_pairs
            # the next pieces' objects go where the last of these went ("which contains a plate, a cup, ...")
            last = [p for p, o in new_pairs if o is new_pairs[-1][1]] if new_pairs else []
            owner = last or [place_id(room, *ki) for ki in new_places] or owner
        if orphans and objects_led and (given := _give(owner, orphans, words, tied=False)) is not None:
            pairs += given  # no place after them: "a book on the desk, and a plate" (on the desk)
            orphans = []
        if orphans:
            # "... also stored there", "it holds ...", or "Fridge: an apple" — after a colon or dash
            # only when this sentence named the place before it (never a place of an earlier line)
            pronoun = bool(words & {"there", "it", "its"})
            heading = toks[lo].text in (":", "-", "–", "—") and named_here
            given = _give(previous, orphans, words, tied=False) if pronoun or heading else None
            if given is None:
                return None
            pairs += given
        previous = owner or previous  # "... has a coffee table; a book is on it"
        named_here = named_here or bool(owner)
        last = next((m for m in reversed(clause) if m.kind == "places"), None)
        tail = [place_id(room, *ki) for ki in _expand(last, room)] if last else []
    return named, pairs, room


#: Words before a place that say the objects before them are at it ("..., is in the stove").
WHERE_WORDS = frozenset({"in", "on", "inside", "atop", "within", "under", "into", "onto", "is", "are", "was", "were",
                         "sits", "sit", "sat", "lies", "lie", "lay", "rests", "rest", "stands", "stand", "stood"})


def _runs(room: str, found: list[Mention], words: set[str], toks, orphans: list[Mention]):
    """(places, pairs) of a piece with places: its runs of places and objects paired by the piece's
    order (``orphans``, objects of earlier pieces, go with its first places), or None."""
    runs: list[list[Mention]] = []
    for m in found:
        if runs and runs[-1][0].kind == m.kind:
            runs[-1].append(m)
        else:
            runs.append([m])
    if orphans:
        runs = [list(orphans), *runs] if runs[0][0].kind == "places" else [[*orphans, *runs[0]], *runs[1:]]
    named = [ki for run in runs if run[0].kind == "places" for m in run for ki in _expand(m, room)]
    pairs: list[tuple[str, Mention]] = []
    objects_first = runs[0][0].kind == "obj"
    for k in range(0, len(runs), 2):
        first, second = runs[k], runs[k + 1] if k + 1 < len(runs) else None
        objects, place_run = (first, second) if objects_first else (second, first)
        if objects_first and place_run is None:
            place_run = runs[k - 1]  # objects after the last places: "... on the sofa, with a book"
        if not objects:
            continue
        places = [place_id(room, ki, i) for m in place_run for ki, i in _expand(m, room)]
        tied = not objects_first and _tied(toks, place_run[-1].end, objects[0].start)
        given = _give(places, objects, words, tied)
        if given is None:
            return None
        pairs += given
    return named, pairs


def _give(places: list[str], objects: list[Mention], words: set[str], tied: bool) -> list | None:
    """(place, object) pairs giving ``objects`` to ``places``, or None when it is not clear which
    gets which."""
    if not places:
        return None
    if len(places) == 1 or words & {"each", "both"}:
        return [(p, o) for p in places for o in objects]
    if "respectively" in words and len(places) == len(objects):
        return list(zip(places, objects))
    if tied:
        return [(places[-1], o) for o in objects]
    return None


#: Words after a place that tie the objects after them to that place alone.
TIES = frozenset({"with", "w/", "which", "where", "containing", "housing", "holding", "filled", "stocked", "topped",
                  "adorned", "laden", "storing", "featuring", "displaying", "bearing", "carrying", "that", "whose"})


def _tied(toks, start: int, end: int) -> bool:
    """Whether a relative word stands between a place (ending at ``start``) and its objects."""
    return any(t.lower_ in TIES for t in toks[start:end])


def _expand(m: Mention, room: str) -> list[tuple[str, int | None]]:
    """A furniture mention's places; ``N cabinets`` in the kitchen lists cabinets 1..N (a count of
    other furniture names one place of that kind)."""
    if m.numbered and room == "kitchen" and m.name == "cabinet":
        return [("cabinet", i + 1) for i in range(m.count)]
    return [(kind, index) for kind, index, _ in m.places]


def _cabinet_number(scene: Scene, index: int, from_right: bool) -> int | None:
    """A kitchen cabinet's number from the left: ``index`` -1 is the last one."""
    count = sum(1 for p in scene.places.values() if p.kind == "kitchencabinet")
    if index == -1 or from_right:
        if count == 0:
            return None
        return count if index == -1 else count + 1 - index
    return index


def _resolve(
    scene: Scene, kind: str, index: int | None, from_right: bool, room: str, create: bool = True
) -> str | None:
    """The place id a story mention names: kitchen cabinets by ordinal; "a cabinet" in the room the
    person is in (or the only non-kitchen cabinet, or the room's one kitchen cabinet); others by
    kind, preferring the current room.
    ``create``: a kitchen cabinet or appliance the description did not name is added (the actions
    name it); a question only names places that exist."""
    if kind == "cabinet" and index is not None:
        number = _cabinet_number(scene, index, from_right)
        if number is None or number < 1:
            return None
        pid = f"kitchen/kitchencabinet/{number}"
        if pid in scene.places or not create:
            return pid if pid in scene.places else None
        return scene.add_place("kitchen", "cabinet", number)
    if kind == "cabinet":
        here = [p for p in scene.places.values() if p.kind in ("cabinet", "bathroomcabinet") and p.room == room]
        anywhere = [p for p in scene.places.values() if p.kind == "cabinet"]
        numbered = [p for p in scene.places.values() if p.kind == "kitchencabinet" and p.room == room]
        pick = here or anywhere or numbered
        return pick[0].id if len(pick) == 1 else None
    here = [p for p in scene.places.values() if p.kind == kind and p.room == room]
    anywhere = [p for p in scene.places.values() if p.kind == kind]
    pick = here or anywhere
    if not pick and kind in lexicon().kitchen_only and create:
        return scene.add_place("kitchen", kind)  # an appliance the description's unread sentence named
    return pick[0].id if len(pick) == 1 else None


def _object_place(scene: Scene, cls: str, room: str | None) -> list[str]:
    """The one place of ``room`` a walk "towards the apple" goes to: the place holding the class, or
    the one in view (a surface) if several hold it; [] if the description gives none."""
    held = [p for p, c in scene.objects.items() if cls and c[cls] and scene.places[p].room == room]
    seen = [p for p in held if not scene.places[p].container]
    return held if len(held) == 1 else seen if len(seen) == 1 else []


def _qualifies(toks, place: Mention, room: Mention) -> bool:
    """Whether a room mention just after a place says where the place is ("the fridge in the kitchen")."""
    between = [t.lower_ for t in toks[place.end : room.start]]
    return between in (["in", "the"], ["in"], ["of", "the"], ["inside", "the"])


#: Words between a verb and the room it places the person in ("starts out in the", "is still at").
PLACING = frozenset({"in", "at", "inside", "the", "out", "off", "still", "currently", "initially", "first", "now"})


def _walked_before(sent: _Sentence, m: Mention) -> bool:
    """Whether the person walks to room mention ``m`` ("heads to the kitchen") rather than is in it
    ("is standing in the kitchen", "Mark's moves: starts in the bathroom"): a verb of being right
    before it says they are there; otherwise any verb of walking before it (outside read phrases
    and asides) says they walk."""
    k = m.start - 1
    while k >= 0 and sent.tokens[k].lower_ in PLACING:
        k -= 1
    if k >= 0 and sent.tokens[k].lemma_ in lexicon().verbs["start"] and k < m.start - 1:
        return False
    covered = _fillers(sent)
    return any(t.lemma_ in WALKS for i, t in enumerate(sent.tokens[: m.start]) if i not in covered)


def read_story(
    sentences: list[_Sentence], scene: Scene, person: str, names: set[str], people: frozenset[str] = frozenset()
) -> tuple[Story, list[dict]]:
    """(story, unread sentences) of what ``person`` did (``names``: words that name them;
    ``people``: names of others, :func:`_other_names`)."""
    if not sentences:
        raise UserError("no sentence says what the person does (name them: 'Maria is in the kitchen. She ...')")
    story = Story(person, "")
    room, unread = None, []
    earlier: list[int] = []  # the places the sentence before visited (indices in story.visits)
    for sent in sentences:
        _skip_asides(sent, names, unread)
        _skip_passed(sent, unread)
        each = _for_each(sent)
        if BACKWARD.match(sent.tokens.text) or _past_perfect(sent):
            unread.append(sent.unread([], "told out of order ('before that', 'had opened'): where does it go?"))
            continue  # "She walks to the fridge. Before that, she had opened the microwave." was read in text order
        others = [t.text for t in sent.tokens if t.lower_ in OTHER_PEOPLE | people]
        if others and not any(t.lower_ in names | PERSONAL for t in sent.tokens):
            unread.append(sent.unread(others, "names someone else: whose action is it?"))
            continue  # "His sister opens the fridge." was read as the person opening it ("Leo and his dog" is Leo)
        if unknown := unknown_words(sent.tokens, sent.found, names | people):
            unread.append(sent.unread(unknown))
            continue
        trial, why = _visits(sent, scene, story, room, earlier if each else None)
        if why == NO_START and (first := _first_room(sent, scene, room)):
            # "Sam walks into the kitchen." with no start given: start where the story first puts them
            story.start = first
            unread.append(sent.unread([], f"no sentence says where they start: read as {first}", False, False))
            trial, why = _visits(sent, scene, story, room)  # no start yet, so no visit before this sentence's
            if not why and trial[0][:1] == [Visit(first)]:
                trial[0].pop(0)  # walking into the room they start in
        if why:
            unread.append(sent.unread([], why))
            continue
        earlier = [j for j in range(len(story.visits), len(trial[0])) if trial[0][j].place]
        story.visits, story.start, room = trial
    if not story.start:
        first = next((u for u in unread if u["part"] == "actions" and u["acts"]), None)
        hint = f" (line {first['line']}, {first['text'][:60]!r}: {first['why'] or first['unknown']})" if first else ""
        raise UserError(f"actions of {story.person!r}: no sentence says which room they start in{hint}")
    return story, unread


#: A sentence that tells what happened before the one before it.
BACKWARD = re.compile(
    r"^\s*(?:before (?:that|this|then|doing so|this happened)|earlier(?: on)?|prior to (?:that|this))\b", re.I
)


def _past_perfect(sent: _Sentence) -> bool:
    """Whether an action is told in the past perfect ("she had opened the microwave"): before the
    sentence before it, in a story told in the past or present."""
    toks, acts = sent.tokens, {"open", "close", *WALKS}
    participle = [i for i, t in enumerate(toks) if t.lemma_ in acts and t.lower_ != t.lemma_]  # "opened", "gone"
    return any(i and "had" in {t.lower_ for t in toks[max(i - 3, 0) : i]} for i in participle)


#: "For each cabinet, he opens it ...": what follows is done at every place the sentence before visited.
FOR_EACH = re.compile(r"^\s*for (?:each|every)(?: one)?(?: of (?:them|these|those|the \w+)| \w+)?\s*,", re.I)


def _for_each(sent: _Sentence) -> bool:
    """Whether the sentence opens with :data:`FOR_EACH`; its words then become a read phrase (the
    "cabinet" in "For each cabinet," names no place of its own)."""
    m = FOR_EACH.match(sent.tokens.text)
    if m is None:
        return False
    end = next(i for i, t in enumerate(sent.tokens) if t.idx - sent.tokens.start_char >= m.end() - 1) + 1
    sent.found[:] = [f for f in sent.found if f.start >= end]
    sent.found.append(Mention("filler", 0, end))
    return True


def _visits(
    sent: _Sentence,
    scene: Scene,
    story: Story,
    room: str | None,
    each: list[int] | None = None,
) -> tuple[tuple, str]:
    """((visits, start, room) after the sentence, "") or (None, why the sentence cannot be read).
    ``each``: visits "opens it" refers to (a sentence that opens "For each cabinet, ...")."""
    trial, start, cur = list(story.visits), story.start, room
    found = [m for m in sent.found if m.kind != "filler"]
    toks = sent.tokens
    opening = repeating = False  # a pending "opens ..." / "does the same with ..." over the next places
    # indices in trial of the last place mention's visits ("opens it" refers to them)
    group: list[int] = [len(trial) - 1] if trial and trial[-1].place else []
    group = list(each) if each else group
    left = next((m for m in found if m.kind == "room" and _came_from(toks, m)), None)
    if not start and left is not None:  # "comes into the kitchen from the bedroom": starts in the bedroom
        start = cur = left.name
    bracketed = bracketed_tokens(toks)
    room_list = {m.start for m in found if m.kind == "room" and m.start in bracketed}
    for i, m in enumerate(found):
        if m.kind == "room":
            if m.end < len(toks) and toks[m.end].lemma_ in ROOM_AS_MODIFIER:
                continue  # "his kitchen tour", "concluding his kitchen activities": no walk
            if m.start in room_list and len(room_list) > 1:
                continue  # "in the bedroom of her apartment (bedroom, bathroom, kitchen)": the rooms it has
            came_from = _came_from(toks, m)
            if not start and (came_from or not _walked_before(sent, m)):
                start = cur = m.name
                continue
            if came_from:
                continue  # "walks from the kitchen to ...": where they already are
            if i and found[i - 1].kind == "places" and _qualifies(toks, found[i - 1], m):
                continue  # "the first cabinet in the kitchen": which cabinet, not a walk
            if i + 1 < len(found) and found[i + 1].kind == "places" and found[i + 1].start == m.end:
                continue  # "the bedroom cabinet": which cabinet
            if m.name == cur and (not trial or trial[-1].place is None):
                continue  # "... goes to the bedroom, she goes to the bedroom": already there
            cur = m.name
            trial.append(Visit(cur))
            group, opening, repeating = [], False, False
        elif m.kind in ("places", "obj"):
            if m.kind == "obj":
                pids = _object_place(scene, m.name, cur)
                if not pids:
                    continue  # an object whose place the description does not give: a walk in the room
            else:
                at = trial[-1].place if trial else None  # "approaches the fifth cabinet. The cabinet is opened"
                again = at is not None and "cabinet" in scene.places[at].kind and scene.places[at].room == cur
                pids = [
                    at if again and kind == "cabinet" and index is None else _resolve(scene, kind, index, right, cur)
                    for kind, index, right in m.places
                ]
            if not pids or None in pids:
                return None, f"{toks[m.start:m.end].text!r} is not one place of the apartment"
            group = []
            for pid in pids:
                place = scene.places[pid]
                cur = place.room
                flag = opening or repeating
                last = trial[-1] if trial else None
                if last is not None and last.place == pid:
                    trial[-1] = Visit(cur, pid, last.opened or flag, last.closed or flag)
                else:
                    if last is not None and last.place is None and last.room == cur:
                        trial.pop()  # walking into the room on the way to this place
                    trial.append(Visit(cur, pid, flag, flag))
                group.append(len(trial) - 1)
            nxt = found[i + 1] if i + 1 < len(found) else None
            listed = nxt is not None and {t.lower_ for t in toks[m.end : nxt.start]} <= LISTED
            if nxt is None or nxt.kind != "places" or not listed:
                opening = repeating = False  # "opens the stove, closes it / then heads to the microwave"
        elif m.kind == "vague":
            if not any(n.kind == "places" and n.name == "cabinet" for n in found[i + 1 :]):
                return None, f"{toks[m.start:m.end].text!r}: which ones?"  # not "the cabinets — the eighth, ..."
        elif m.kind == "about":
            opening = repeating = False
        elif m.kind == "repeat":
            nxt = found[i + 1] if i + 1 < len(found) else None
            if m.start and toks[m.start - 1].text == ":":  # "#8: the same -> #3 ...": at the place before
                _mark_opened(trial, group, closed=True)
                continue
            if nxt is None or nxt.kind != "places":  # "... moves to the stove, where he does the same"
                _mark_opened(trial, group, closed=True)
            repeating = True
        elif m.kind == "open":
            nxt = found[i + 1] if i + 1 < len(found) else None
            follows = nxt is not None and nxt.kind == "close" and i + 2 < len(found)
            nxt2 = found[i + 2] if follows else nxt
            between = {t.lemma_ for t in toks[m.end : nxt2.start]} - set(lexicon().verbs["close"]) if nxt2 else {"it"}
            if nxt2 is not None and nxt2.kind == "places" and between <= OPEN_THE:
                opening = True  # "opens (and closes) the X"
            elif group:
                if {t.lower_ for t in toks[m.end : m.end + 6]} & {"each", "every", "all", "both"}:
                    # "the eighth, then the fourth, ... — opening and closing each one"
                    own = {j for j in range(len(story.visits), len(trial)) if trial[j].place}
                    group = sorted(own | set(group if own else _unopened_run(trial)))
                _mark_opened(trial, group, closed=False)
            else:
                return None, "opens something no earlier words name"
        elif m.kind == "close":
            _mark_opened(trial, [j for j in group if trial[j].opened], closed=True)
    if not start:
        return None, NO_START
    return (trial, start, cur), ""


NO_START = "before any sentence says where the person starts"


def _unopened_run(visits: list[Visit]) -> list[int]:
    """Indices of the places visited last without opening them ("he goes to the eighth, then the
    fourth ... and he opens and closes each one", told over several sentences)."""
    run = []
    for j in range(len(visits) - 1, -1, -1):
        if visits[j].place and visits[j].opened:
            break
        run += [j] if visits[j].place else []
    return run[::-1]


def _first_room(sent: _Sentence, scene: Scene, room: str | None) -> str | None:
    """The room of the first room, place or located object the sentence names, if any."""
    for m in sent.found:
        if m.kind == "room":
            return m.name
        if m.kind == "places" and None not in (pids := [_resolve(scene, *p, room, create=False) for p in m.places]):
            return scene.places[pids[0]].room
        if m.kind == "obj" and (pids := _object_place(scene, m.name, room)):
            return scene.places[pids[0]].room
    return None


def _came_from(toks, m: Mention) -> bool:
    """Whether room mention ``m`` is where the person comes from ("walks from the kitchen")."""
    return "from" in {t.lower_ for t in toks[max(0, m.start - 2) : m.start]}


def _mark_opened(trial: list[Visit], group: list[int], closed: bool) -> None:
    """Mark the visits ``group`` of ``trial`` opened (and closed, if ``closed``; a close is kept)."""
    for j in group:
        trial[j] = replace(trial[j], opened=True, closed=trial[j].closed or closed)


@dataclass
class _Option:
    """One option of a question: the object classes and places it names, whether it is negated or
    answers the stem with yes / no."""

    text: str
    objects: list[str]
    places: list[Mention]
    negated: bool
    yes_no: str | None


def _option(text: str, context: frozenset[str]) -> _Option:
    nlp, _ = pipeline()
    doc = nlp(text)
    found = mentions(doc, context)
    words = [t.lower_ for t in doc if not t.is_punct]
    yes_no = words[0] if words and words[0] in ("yes", "no") else None
    negated = any(t.lower_ in NEGATIONS for t in doc[1 if yes_no else 0 :])
    objects = [m.name for m in found if m.kind == "obj"]
    if any(m.kind == "obj" and not m.name for m in found):
        objects.append("")  # an ambiguous word: reported as unknown below
    return _Option(text, objects, [m for m in found if m.kind == "places"], negated, yes_no)


def _split_options(text: str) -> tuple[str, list[str]]:
    """(stem, option texts) of a question whose options are labelled a, b, c, ... in order."""
    labels, want = [], "a"
    for m in OPTION_LABEL.finditer(text):
        if m[1].lower() == want:
            labels.append(m)
            want = chr(ord(want) + 1)
    if len(labels) < 2:
        return text, []
    ends = [m.start() for m in labels[1:]] + [len(text)]
    options = [text[m.end() : end] for m, end in zip(labels, ends)]
    options[-1] = re.split(r"(?i)please (?:respond|answer)|answer with", options[-1])[0]
    return text[: labels[0].start()], [o.strip(" \n,;.?") .removesuffix(" or").strip() for o in options]


def _unknown(option: _Option) -> str:
    nlp, _ = pipeline()
    doc = nlp(option.text)
    words = unknown_words(doc, mentions(doc), {t.lower_ for t in doc if t.is_title})
    return f" (unknown words: {', '.join(words)})" if words else ""


def read_query(text: str, scene: Scene, room: str, context: frozenset[str]) -> Query:
    """The question: a belief question ("does X think G is inside C?") or a goal question ("is X
    trying to get G1 or G2?", two or more options, or free choice among the objects it names),
    else a :class:`UserError`."""
    text = re.sub(r"\s+", " ", text.replace("’", "'")).strip()
    if not text:
        raise UserError("the story has no question")
    stem_text, option_texts = _split_options(text)
    stem = _option(stem_text, context)
    options = [_option(t, context) for t in option_texts]
    named = {o for opt in options for o in opt.objects}
    if "" in named or "" in stem.objects:
        raise UserError(f"question names an ambiguous object (say which: e.g. 'wine glass'): {text[:80]!r}")
    if len(named) >= 2 or (not options and len(set(stem.objects)) != 1):
        return _goal_query(text, stem, options, scene, room, context)
    goal = (stem.objects or [o for opt in options for o in opt.objects] or [None])[0]
    containers = [p for opt in [*options, stem] for p in opt.places]
    if goal is not None and not containers and "where" in stem_text.lower().split():
        raise UserError(f"'where' questions are not answered yet; ask about one place, e.g. 'Does she think the "
                        f"{display_name(goal)} is in the fridge?'")
    if goal is None or not containers:
        missing = next((o for o in options if not o.objects), stem)
        unknown = _unknown(missing)
        what = "names something the reader does not know" if unknown else "is in an unknown form"
        raise UserError(f"question {what}: {text[:80]!r}{unknown}")
    if not options:  # "Does she think there is a plate in the fridge?": yes or no
        options = [_Option("yes", [], [], False, "yes"), _Option("no", [], [], True, "no")]
    if len(options) != 2:
        raise UserError(f"a belief question needs two options (inside / not inside), got {len(options)}")
    turning = _polarity_words(" ".join([stem.text, *(o.text for o in options)]))
    if turning:
        raise UserError(
            f"cannot tell which answer says the {display_name(goal)} is inside: the question says "
            f"{', '.join(map(repr, turning))}; ask 'Does she think the {display_name(goal)} is in the ...?'"
        )
    inside = [_says_inside(o, stem) for o in options]
    places = {(p.places[0][0], p.places[0][1]) for p in containers}
    if inside[0] == inside[1] or len(places) != 1 or len(containers[0].places) != 1:
        raise UserError("belief question whose options are not 'inside' and 'not inside' one place")
    kind, index, right = containers[0].places[0]
    pid = _resolve(scene, kind, index, right, room, create=False)
    if pid is None:
        raise UserError(f"the question's container {containers[0].text!r} is not one place of the apartment")
    return Query("belief", goal=goal, place=pid, inside=inside.index(True))


def _polarity_words(text: str) -> list[str]:
    """The lower-case words of ``text`` whose lemma is in :data:`POLARITY_WORDS` ("but" only as
    "anywhere but" / "all but", "other" only before "than")."""
    nlp, _ = pipeline()
    toks = [t for t in nlp(text) if t.is_lower]
    found = []
    for i, t in enumerate(toks):
        if t.lemma_ not in POLARITY_WORDS and t.lower_ not in POLARITY_WORDS:
            continue
        before, after = toks[i - 1].lower_ if i else "", toks[i + 1].lower_ if i + 1 < len(toks) else ""
        if (t.lower_ == "but" and before not in ("anywhere", "all", "everywhere")) or (
            t.lower_ == "other" and after != "than"
        ):
            continue
        found.append(t.text)
    return found


def _says_inside(option: _Option, stem: _Option) -> bool:
    """Whether an option says the person thinks the object is inside ("yes" answers the stem)."""
    if option.yes_no is not None:
        return (option.yes_no == "yes") != stem.negated
    return not option.negated


def _words(text: str) -> set[str]:
    """The words of ``text``, in lower case."""
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text)}


def _free_premise(text: str, context: frozenset[str]) -> tuple[_Option, list[str]]:
    """(the premise, the objects asked about) of a goal question without labelled options: the
    premise is the first sentence or clause that names an object, a place and a negation or a belief
    ("Sam thinks there is no cupcake in the fridge. Is he after a cupcake or an apple?"); the objects
    asked about are those of the other parts (all of them when there is no premise)."""
    parts = [_option(part, context) for part in re.split(r"(?<=[.!?;])\s+|,\s*|[()]", text) if part.strip()]
    premise = next((o for o in parts if o.places and o.objects and (o.negated or _words(o.text) & BELIEF_WORDS)), None)
    if premise is None:
        return _Option("", [], [], False, None), [o for part in parts for o in part.objects]
    return premise, [o for part in parts if part is not premise for o in part.objects]


def _goal_query(
    text: str, stem: _Option, options: list[_Option], scene: Scene, room: str, context: frozenset[str]
) -> Query:
    if options:
        for label, opt in zip("abcde", options):
            if len(set(opt.objects)) != 1:
                raise UserError(f"option ({label}) does not name one object: {opt.text[:60]!r}{_unknown(opt)}")
        goals = tuple(opt.objects[0] for opt in options)
        premise = stem
    else:  # free choice: the objects the question names, or every class in the apartment
        premise, asked = _free_premise(text, context)
        goals = tuple(dict.fromkeys(o for o in asked if o)) if len(set(asked)) > 1 else ()
        asks = GOAL_WORDS & _words(text) or GOING_FOR.search(text)
        if not goals and not asks:
            raise UserError(f"question in an unknown form (ask what the person thinks or wants): {text[:80]!r}")
        goals = goals or tuple(sorted({c for counts in scene.objects.values() for c in counts if counts[c]}))
    if len(set(goals)) != len(goals) or len(goals) < 2:
        raise UserError(f"a goal question needs two or more different objects: {text[:80]!r}")
    given = None
    if premise.places and premise.objects and _words(premise.text) & BELIEF_WORDS and not premise.negated:
        raise UserError(
            f"a premise that the person thinks the {display_name(premise.objects[0])} is there is not modelled (only "
            f"'thinks there is no ... in ...'): {premise.text[:80]!r}"
        )
    if premise.places and premise.objects and premise.negated:
        kind, index, right = premise.places[0].places[0]
        pid = _resolve(scene, kind, index, right, room, create=False)
        if pid is None:
            raise UserError(f"the question's container {premise.places[0].text!r} is not one place of the apartment")
        given = (premise.objects[0], pid)
    return Query("goal", options=goals, given=given, open_choice=not options and len(set(stem.objects)) < 2)


def read_question(text: str, strict: bool = False) -> Reading:
    """Read one story with its question into scene, story and query. ``strict``: an unread sentence
    is a :class:`UserError` instead of a note in :attr:`Reading.unread`."""
    told = read_story_text(text, strict=strict)
    if not told.question:
        raise UserError("no question found (a line with '?' or options labelled (a), (b))")
    return told.ask(told.question)


@dataclass
class ToldStory:
    """A story read once (scene, what the person did, unread sentences), ready for questions."""

    scene: Scene
    story: Story
    sentences: int
    unread: list[dict]
    question: str  # the question at the end of the text, or ""
    context: frozenset[str]

    def ask(self, question: str) -> Reading:
        """The reading of one question on this story (a :class:`UserError` if it cannot be read)."""
        last = self.story.visits[-1].room if self.story.visits else self.story.start
        question, _ = _respell(question)
        query = read_query(question, self.scene, last, self.context | _context(question))
        return Reading(self.scene, self.story, query, self.sentences, self.unread)


def read_story_text(text: str, questions: tuple[str, ...] = (), strict: bool = False) -> ToldStory:
    """Read a story (how the apartment is and what the person does, in any order, then perhaps a
    question); ``questions`` asked about it lend their names of the person. Sentences that name the
    person or a verb of walking, opening or closing are actions, in the order told; the others
    describe the apartment as it was at the start. ``strict``: an unread sentence is an error."""
    text, respelled = check_text(text), []
    for rewrite in REWRITES:
        text, notes = rewrite(text)
        respelled += notes
    _check_english(text)
    text, dictated = punctuate_run_ons(text)
    respelled += dictated
    spans, embedded, person, acts_from = _layout(text)
    context = _context(" ".join([text, *questions]))
    story = text[: len(text) - len(embedded)]
    names = set().union(*(_question_names(q, story) for q in [embedded, *questions]))
    names |= {person.lower()} if person else set()
    sentences = [_sentence(offset, span, text, "", context) for offset, span in spans]
    first = _first_name(sentences)
    # the name the question uses most ("Mary", not a "Client Use Only" footer's word)
    asked = " ".join([embedded, *questions])
    person = person or (max(sorted(names), key=lambda n: _words_count(asked, n)).title() if names else first)
    names |= {first.lower()} if first else set()
    # "The subject walked", "10:14  Subject located in the bedroom."
    names |= {r for r in ROLE_NOUNS if re.search(rf"\b[Tt]he {r}\b|\b{r.title()}\b", story)}
    if person is None and FIRST_PERSON.search(story):
        person, names = "I", names | {"i", "me"}  # "I was in the living room. I walked to ..."
    # after an "Actions taken by NAME:" heading every sentence is an action ("In the kitchen.")
    # ... up to a section break ("---", a heading): "What Elizabeth did: ... --- The apartment: ..."
    acts_to = next((m.start() for m in SECTION_BREAK.finditer(text, acts_from)), len(text))
    acting = [
        acts_from <= o + s.tokens.start_char < acts_to or _is_action(s, names) for (o, _), s in zip(spans, sentences)
    ]
    actions, described = [], [replace(s, part="description") for s, a in zip(sentences, acting) if not a]
    for s in (s for s, a in zip(sentences, acting) if a):
        acts, rooms = _split_action(s, names)
        actions += [replace(a, part="actions") for a in acts]
        described += [replace(r, part="description") for r in rooms]
    scene, unread1 = read_scene(described, names)
    story, unread2 = read_story(actions, scene, person or "the person", names, _other_names(sentences, names))
    unread = sorted(respelled + unread1 + unread2, key=lambda u: u["line"])
    if strict and unread:
        u = unread[0]
        why = u["why"] or "unknown words: " + ", ".join(u["unknown"])
        raise UserError(f"line {u['line']}: cannot read {u['text'][:80]!r} ({why})")
    return ToldStory(scene, story, len(sentences), unread, embedded.strip(), context)


def _respell(text: str) -> tuple[str, list[dict]]:
    """The text with its misspelt room, furniture and object words corrected (:func:`spelling_fixes`),
    and a note per correction for ``unread`` (it blocks nothing: the reading says what it assumed)."""
    text = with_apostrophes(text)  # "isnt", "theres": no note (the words are the same)
    fixes = spelling_fixes(text)
    notes = []
    for offset, typed, meant in reversed(fixes):
        text = text[:offset] + meant + text[offset + len(typed) :]
        line = text.count("\n", 0, offset) + 1
        why = f"read {typed!r} as {meant!r} (a misspelling)"
        notes.append(text_note(line, "spelling", typed, why))
    return text, notes[::-1]


#: What the text goes through before it is read, in order, each (text) -> (text, notes for ``unread``):
#: pasted formats become prose, a reader addressed as "you" an onlooker, self-corrections their last
#: word, shorthand and notation words, misspellings the words meant.
REWRITES = (
    unwrap_thread,
    rewrite_structured,
    rewrite_formats,
    describe_for_onlooker,
    resolve_corrections,
    expand_shorthand,
    move_revealed_contents,
    strip_report_form,
    read_transcript,
    rewrite_notation,
    _respell,
)


#: Verbs after "the kitchen, which ..." that describe the room, not the person.
HAVING = frozenset({"has", "have", "had", "contains", "contained", "holds", "held", "features", "featured",
                    "is", "was", "houses", "housed", "includes", "included"})


def _split_action(sent: _Sentence, names: set[str]) -> tuple[list[_Sentence], list[_Sentence]]:
    """(actions, descriptions) in an action sentence: its ";" parts classified one by one ("Charles
    was in the bathroom; it has a cabinet, which is empty."), and a room described in passing."""
    toks, cuts = sent.tokens, [i for i, t in enumerate(sent.tokens) if t.text == ";"]
    actions, described = [], []
    for lo, hi in zip([0, *(c + 1 for c in cuts)], [*cuts, len(toks)]):
        part = _slice(sent, lo, hi)
        if not part.tokens.text.strip():
            continue
        if part is not sent and not _is_action(part, names):
            described.append(part)
            continue
        act, room = _split_relative(part)
        for piece in _split_contents(act):
            if piece.part == "description":
                described.append(piece)
            else:
                actions += _after_first(piece)
        described += [room] if room else []
    return actions, described


#: Words that open what a place holds, said as the person reaches it ("opens the fridge, which
#: holds two apples" / "(containing a plate)").
HOLDING = frozenset({"containing", "holding", "housing", "storing"})  # not "with": "to the desk, with a book in hand"


def _split_contents(sent: _Sentence) -> list[_Sentence]:
    """An action sentence that says what a place holds as the person reaches it — "opens the fridge,
    which holds two apples and a salmon, then closes it", "opens the fridge (containing a plate)" —
    as the action before, the description (part "description": the place and what it holds) and the
    action after; else [the sentence]."""
    toks = sent.tokens
    for p in (m for m in sent.found if m.kind == "places"):
        k = p.end
        if k + 2 >= len(toks) or toks[k].text not in (",", "("):
            continue
        word = toks[k + 1].lower_
        tied = word in HOLDING or (word in ("which", "that") and toks[k + 2].lower_ in HAVING | {"there", "there's"})
        if not tied:
            continue
        if toks[k].text == "(":
            end = next((i for i in range(k + 1, len(toks)) if toks[i].text == ")"), None)
            end = None if end is None else end + 1
        else:  # up to "then" or the next action verb, the joining "," / "and" before it left out
            end = next((i for i in range(k + 2, len(toks)) if toks[i].lower_ == "then" or toks[i].lemma_ in ACTION_VERBS
                        or toks[i].text in (".", "!", ";")), len(toks))  # fmt: skip
            while end > k + 2 and toks[end - 1].lower_ in (",", "and"):
                end -= 1
        if end is None or not any(m.kind == "obj" and k < m.start < end for m in sent.found):
            continue
        contents = replace(_slice(sent, p.start, end), part="description")
        pieces = (_slice(sent, 0, k), contents, _slice(sent, end, len(toks)))
        return [piece for piece in pieces if piece.tokens.text.strip()]
    return [sent]


def _after_first(sent: _Sentence) -> list[_Sentence]:
    """"He returns to the living room after opening the fridge": the clause after "after" happened
    first, so it is read first (a sentence that starts with "After ..." is already in order)."""
    toks = sent.tokens
    after = (i for i in range(1, len(toks) - 1) if toks[i].lower_ == "after" and toks[i + 1].lower_.endswith("ing"))
    k = next(after, None)
    if k is None:
        return [sent]
    return [_slice(sent, k + 1, len(toks)), _slice(sent, 0, k)]


def _slice(sent: _Sentence, lo: int, hi: int) -> _Sentence:
    """Tokens ``lo:hi`` of a sentence with the mentions inside them (the sentence itself if whole)."""
    if lo == 0 and hi == len(sent.tokens):
        return sent
    found = [replace(m, start=m.start - lo, end=m.end - lo) for m in sent.found if lo <= m.start and m.end <= hi]
    return _Sentence(sent.tokens[lo:hi], found, sent.line, sent.part)


def _split_relative(sent: _Sentence) -> tuple[_Sentence, _Sentence | None]:
    """An action sentence that also describes a room ("She went to the kitchen, which has a fridge
    and a stove.") as (the action, the description from the room on), else (the sentence, None)."""
    toks = sent.tokens
    for r in (m for m in sent.found if m.kind == "room"):
        k = r.end
        relative = k + 2 < len(toks) and toks[k].text == "," and toks[k + 1].lower_ in ("which", "where")
        if relative and toks[k + 2].lower_ in HAVING | {"there", "there's"}:
            if any(m.kind in ("places", "obj") and m.start > k for m in sent.found):
                return _slice(sent, 0, k), _slice(sent, r.start, len(toks))
    return sent, None


def _first_name(sentences: list[_Sentence]) -> str | None:
    """The person when no heading or question names them: a word the lexicon does not know that
    starts a sentence and is followed by a verb of being or walking ("Maria is ...", and in a story
    typed in lower case "daniel's in the kitchen", unless it is a common word such as "everyone")."""
    verbs = set(lexicon().verbs["start"]) | WALKS
    for s in sentences:
        first, second = s.tokens[0], s.tokens[1] if len(s.tokens) > 1 else s.tokens[0]
        named = first.is_title or (first.is_lower and first.is_alpha and not first.is_stop)
        if not named or first.lemma_ in lexicon().known:
            # "This morning Dev was in the lounge.": a capitalised name after a few words of when
            later = next((i for i in range(1, min(len(s.tokens) - 1, 4)) if s.tokens[i].is_title
                          and s.tokens[i].lemma_ not in lexicon().known), None)  # fmt: skip
            leading = all(t.is_alpha or t.lower_ in TITLES for t in s.tokens[:later]) if later else False
            if leading and s.tokens[later + 1].lemma_ in verbs:
                return s.tokens[later].text
            continue
        # "Maria is ...", or a heading "Sarah: bedroom -> kitchen" (a room and a walk, not "Contents: ...")
        walks = any(t.lemma_ in verbs or t.text in ("->", ">", "→") for t in s.tokens)
        if second.lemma_ in verbs or (second.text == ":" and walks and any(m.kind == "room" for m in s.found)):
            return first.text if first.is_title else first.text.title()
    return None


def _other_names(sentences: list[_Sentence], names: set[str]) -> frozenset[str]:
    """Names of people other than the person, lower case: capitalised words the lexicon does not
    know, inside a sentence ("Anna is in the living room with Ben."): a sentence with only them
    tells someone else's action, and one with the person too is the person's."""
    return frozenset(
        t.lower_
        for s in sentences
        for i, t in enumerate(s.tokens)
        if i and t.is_title and t.is_alpha and t.lower_ not in names and unknown(t, names)
        and s.tokens[i - 1].lower_ not in ("the", "a", "an")
    )  # fmt: skip


def _check_english(text: str) -> None:
    """A :class:`UserError` when most lower-case words are unknown: a story in another language or
    about something else than a home (names, capitalised, are not counted)."""
    nlp, _ = pipeline()
    words = [t for t in nlp.make_doc(text) if t.is_alpha and t.is_lower]
    unknown = [t for t in words if lemma(t.text) not in lexicon().known]
    if words and len(unknown) > len(words) / 2:
        raise UserError(
            f"{len(unknown)} of {len(words)} words are unknown to the reader (e.g. {unknown[0].text!r}): it reads "
            "English stories of rooms, furniture and household objects (docs/mmtom.md lists what it knows)"
        )


def _words_count(text: str, word: str) -> int:
    """How often ``word`` is a whole word of ``text`` (any case)."""
    return len(re.findall(rf"\b{re.escape(word)}\b", text, re.I))


def _question_names(question: str, story: str = "") -> set[str]:
    """The person's name in a question: capitalised words the lexicon does not know, or (for a
    story typed in lower case) unknown words that the story uses too ("is daniel looking for ...")."""
    nlp, _ = pipeline()
    told = _words(story)
    doc = nlp(question)
    # a capital after an end of sentence or line starts a sentence ("... a salmon.\n\nAnswer with a or b.")
    opens = {i + 1 for i, t in enumerate(doc) if t.text in (".", "!", "?", ":") or "\n" in t.whitespace_ + t.text}
    return {
        t.lower_
        for t in doc
        if t.is_alpha and len(t) > 1 and unknown(t, set())  # "(b)", "Unit 12B": no name
        and ((t.is_title and not t.is_sent_start and t.i not in opens) or t.lower_ in told)
    }


#: The longest story the reader takes (characters): MMToM stories are 1–3 thousand.
MAX_STORY_CHARS = 100_000


def check_text(text: str) -> str:
    """The text, or a one-line :class:`UserError` for input no story can be: empty, binary, too long,
    or not English."""
    if not text or not text.strip():
        raise UserError("the story is empty")
    if "\x00" in text or sum(not (c.isprintable() or c.isspace()) for c in text) > len(text) // 100:
        raise UserError("the story is not text (binary bytes)")
    if len(text) > MAX_STORY_CHARS:
        raise UserError(f"the story has {len(text):,} characters; the reader takes at most {MAX_STORY_CHARS:,}")
    letters = [c for c in text if c.isalpha()]
    if not letters or sum(c.isascii() for c in letters) < 0.9 * len(letters):
        raise UserError("the story is not English text (the reader knows English household words only)")
    return text.replace("’", "'")
