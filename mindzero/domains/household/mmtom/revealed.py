"""Contents told when the person opens a container, the way a storyteller walks through a flat:
"He opens the fridge - inside, two cupcakes - and closes it.", "opened the sixth cabinet, which had
an apple in it, and closed it", "Then he opened the first cabinet: empty as well.", "opened it; two
wine glasses were in there.", "(It's empty too.)", "If she does, she'll find a book inside."

The reader takes descriptions as the apartment at the start and the person's sentences as actions
in order, so :func:`move_revealed_contents` takes each such reveal out of its action sentence and
puts it after that sentence as a description that names the container ("The sixth cabinet has an
apple in it."). "It" is the last piece of furniture named before. A label that says the rest is
what the person did not open ("What he didn't open: ...", "- not that she opens any of them") is
dropped: the rest describes the apartment, it is no action."""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from mindzero.domains.household.mmtom.lexicon import alternatives, lexicon, text_note

#: Words that may stand between an article and a piece of furniture ("the second kitchen cabinet").
MODIFIERS = (
    r"(?:\d{1,2}(?:st|nd|rd|th)|kitchen|bathroom|bedroom|living|room|left|right|other|same|big|small|top|bottom)"
)
#: A sentence (up to its end mark and closing quote or bracket) or the rest of a line.
SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+[\"')\]]*|$)")
#: "it's empty as well", "nothing inside", "bare", "empty too": a container with nothing in it.
EMPTY = re.compile(
    r"^(?:(?:it|this one|that one)(?:'s| is| was)\s+)?(?:(?:also|completely|totally|quite|all)\s+)?"
    r"(?:empty|nothing|bare)\b(?:\s+(?:inside|in it|in there|as well|too|also|either|again|this time))*$",
    re.I,
)
#: Words around a list of contents that say no more than "in it": "two plates were in there".
IN_IT = re.compile(
    r"^(?:inside|in there|in it)\s*[:,]?\s*|\s*(?:(?:were|was|are|is|sat|sit|lay|lie)\s+)?(?:inside|in there|in it)$"
    r"|\s+(?:as well|too|also)$",
    re.I,
)
#: A verb of going to a place: the sentence after may tell what is in it ("(It's empty too.)").
REACHES = re.compile(
    r"\b(?:walk|go|goes|went|head|approach|move|step|come|came|get|got|make|made|start|begin|began|wake|woke)\w*\b",
    re.I,
)
#: The start of a sentence that says what there is, with no room named: "There's a sofa there, ..."
THERE = re.compile(r"^\s*(?:and\s+)?(?=there(?:'s| is| are| was| were)\b)", re.I)
#: A tag question that makes a statement sound like a question: "it was empty as well, wasn't it?"
TAG = re.compile(
    r",\s*(?:wasn't|isn't|didn't|doesn't|hasn't|hadn't|weren't|aren't) (?:it|she|he|they|there)\s*\?$", re.I
)
#: The same question at the end of the opening sentence: "she opened it - and what do you think was inside?"
ASKS_INSIDE = re.compile(
    r"\s*[-–—,;]?\s*(?:and )?what (?:do you think |d'you think )?(?:was|is|were) (?:inside|in it|in there)\s*\?$", re.I
)
#: A question the next sentence answers with the contents: "What's inside? A cupcake and a plate."
WONDER = re.compile(r"^\W*(?:and\s+|so\s+)?what(?:'s| is| was| did \w+ find) (?:inside|in it|in there|there)\W*$", re.I)
#: A room's furniture told as a picture, right after the person went in: "Picture it: a stove, four cabinets ..."
PICTURE = re.compile(r"^(?P<lead>\s*)(?:picture it|imagine it|picture this|imagine this|you'd see|inside)\s*[:,-]\s*"
                     r"(?P<list>.+)$", re.I | re.S)
#: Labels of what the person left shut: "What he didn't open:", "Things she never opened -".
NOT_OPENED = re.compile(
    r"^\W*(?:what|the things?|things|everything|stuff|the rest|the places?|containers?)\s+(?:that\s+)?\w+\s+"
    r"(?:didn't|did not|hasn't|has not|haven't|never|doesn't|does not|won't|will not)\s+(?:yet\s+)?"
    r"(?:open(?:ed)?|look(?:ed)? in(?:to|side)?|touch(?:ed)?|check(?:ed)?)(?:\s+(?:yet|at all|that day))?"
    r"\s*(?:[:,]|\s[-–—])\s*",
    re.I,
)
#: An aside that the person opens none of them: "- not that she opens any of them", ", not that he opened it".
NONE_OPENED = re.compile(
    r"\s*(?:[-–—,;]\s*)?not that \w+ (?:opens?|opened|touch(?:es|ed)?|looks? in(?:side|to)?) (?:any of )?"
    r"(?:them|it|those|these)\b",
    re.I,
)


class _Patterns(NamedTuple):
    place: re.Pattern  # a piece of furniture named: "the second kitchen cabinet"
    opening: re.Pattern  # an opening of it, or of "it"
    reveals: list[re.Pattern]  # what may follow an opening and tell the contents
    follow: re.Pattern  # a sentence that tells the contents of "it": "(It's empty too.)"
    things: re.Pattern  # an object word
    room_aside: re.Pattern  # a room with its furniture told in an aside
    room: re.Pattern  # "the kitchen"


@cache
def _patterns() -> _Patterns:
    """The patterns of this module that are built from the lexicon."""
    lex = lexicon()
    furniture = alternatives([*lex.furniture, "cabinet", "cupboard"])
    place = (
        rf"(?:the|a|an|his|her|their|that|this)\s+(?:(?:{alternatives(lex.ordinals)}|{MODIFIERS})\s+){{0,3}}"
        rf"(?:{furniture})(?!\w)"
    )
    opening = re.compile(
        rf"\b(?:open(?:s|ed|ing)?|pull(?:s|ed)? open|unlock(?:s|ed)?)\s+(?P<what>it\b|{place})", re.I
    )
    contents = r"(?P<x>[^-–—.;:()]+?)"
    reveals = [
        re.compile(rf"^\s*[-–—]+\s*{contents}\s*(?:[-–—]+|(?=[.!?]|$))", re.I),  # " - nothing inside - "
        re.compile(rf"^\s*\(\s*{contents}\s*\)", re.I),  # " (empty) "
        re.compile(rf"^\s*[:;]\s*{contents}(?=[.!?]|$)", re.I),  # ": empty as well.", "; two plates were in there."
        re.compile(rf"^\s*,?\s*and there(?:'s| is| are| was| were)\s+{contents}(?=[.!?]|$)", re.I),  # ", and there's"
        re.compile(  # ", which had an apple in it," ", finding two books inside"
            r"^\s*,?\s*(?:(?:which|that)\s+(?:had|has|held|holds|contained|contains)|to find|finding"
            rf"|and (?:finds?|found)|revealing)\s+{contents}"
            r"(?=\s*,\s*(?:and|then)\b|\s+(?:and|then)\s+(?:closes|closed|shuts|shut)\b|[.!?]|$)",
            re.I,
        ),
    ]
    follow = re.compile(  # "(It's empty too.)", "Inside: two cupcakes.", "If she does, she'll find a book inside."
        r"^\W*(?:(?:if (?:he|she|they) (?:does|did|do)\b[^,]*,\s*)?(?:he|she|they)(?:'ll| will| would|'d)?\s+"
        r"(?:find|see)\s+|it(?:'s| is| was)\s+(?=(?:also |completely |totally )?(?:empty|bare)\b)"
        r"|inside\s*[:,]\s*(?!the\b)|it (?:has|had|holds|held)\s+|(?=(?:nothing|empty)\b))(?P<x>[^()]+?)[\s.!)]*$",
        re.I,
    )
    things = re.compile(rf"\b(?:{alternatives([*lex.objects, *lex.ambiguous])})(?:s|es)?\b", re.I)
    room_aside = re.compile(  # "starts off in the bathroom - just a cabinet in there, empty -"
        rf"\b(?P<room>the (?:{alternatives(lex.rooms)}))\s*[-–—]+\s*"
        rf"(?P<x>[^-–—.;()]*?\b(?:{furniture})s?\b[^-–—.;()]*?)\s*(?:[-–—]+\s*|(?=[.!?]|$))",
        re.I,
    )
    room = re.compile(rf"\bthe (?:{alternatives(lex.rooms)})\b", re.I)
    return _Patterns(re.compile(place, re.I), opening, reveals, follow, things, room_aside, room)


def _described(container: str, told: str) -> str | None:
    """The sentence that says what ``told`` says of the container, or None when it says no contents."""
    things = _patterns().things
    told = told.strip(" ,")
    name = re.sub(r"^(?:his|her|their|that|this|a|an)\s+", "the ", container, flags=re.I)
    name = name[0].upper() + name[1:]
    if EMPTY.match(told.split(",")[0].strip()):  # "empty as well, for what it's worth"
        return f"{name} is empty."
    listed = told
    while (shorter := IN_IT.sub("", listed).strip(" ,")) != listed:
        listed = shorter
    if not things.search(listed) or re.search(r"\b(?:he|she|they|her|him|walks?|goes|went|opens?|closes?)\b", listed,
                                              re.I):  # fmt: skip
        return None
    return f"{name} has {listed} in it."


def move_revealed_contents(text: str) -> tuple[str, list[dict]]:
    """The text with contents told on opening moved out of the action into a description of their
    own (module docstring); a note for each line changed."""
    if not re.search(r"\bopen|\binside\b|\bin there\b|\bin it\b|\bfind\b", text, re.I):
        return text, []
    walk, lines, notes = _Walk(), text.split("\n"), []
    for number, line in enumerate(lines, start=1):
        read = [walk.read(m.group()) for m in SENTENCE.finditer(line) if m.group()]
        if any(changed for _, changed in read):
            lines[number - 1] = "".join(sentence for sentence, _ in read)
            notes.append(text_note(number, "format", line[:80], "contents told on opening read as a description"))
    return "\n".join(lines), notes


class _Walk:
    """What the sentences so far leave for the next one to refer to: the last piece of furniture
    named (what "it" opens), the container the person just opened or went to (what "(It's empty
    too.)" tells of), the room just entered (what "There's a sofa there." describes), and whether
    "What's inside?" waits for its answer."""

    def __init__(self) -> None:
        self.last: str | None = None
        self.reached: str | None = None
        self.entered: str | None = None
        self.wondered = False

    def read(self, sentence: str) -> tuple[str, bool]:
        """(the sentence as the reader should read it, whether it changed)."""
        told = TAG.sub(".", NONE_OPENED.sub("", NOT_OPENED.sub("", sentence)))
        asking = ASKS_INSIDE.search(told)  # "... and she opened it - and what do you think was inside?"
        told = told[: asking.start()] + "." if asking else told
        answer = self._answer(told, asking is not None)
        if answer is not None:
            return answer, True
        described, here = self._room_told(told)
        moved, after = self._reveals(described)
        self._update(moved, here)
        self.wondered = self.wondered or (asking is not None and self.reached is not None)
        out = moved + "".join(f" {a}" for a in after)
        return out, out != sentence or asking is not None

    def _answer(self, sentence: str, asking: bool) -> str | None:
        """The sentence when it only tells what the container just reached holds ("(It's empty
        too.)", the answer to "What's inside?") as a description of it, "" for the question; else None."""
        follow = _patterns().follow
        asked = follow.match(sentence)
        told = sentence.strip() if self.wondered else asked["x"] if asked else None
        self.wondered = bool(WONDER.match(sentence)) and self.reached is not None
        if self.wondered and not asking:
            return ""
        described = _described(self.reached, told) if told and self.reached else None
        return re.match(r"^\s*", sentence).group() + described if described else None

    def _room_told(self, sentence: str) -> tuple[str, re.Match | None]:
        """The sentence with the room just entered written in ("Picture it: a stove, ..." -> "In the
        kitchen there are a stove, ..."; "There's a sofa there." -> "In the den, there's a sofa."),
        and the match that makes it a description of that room, if any."""
        room_named = _patterns().room
        listed = PICTURE.match(sentence)
        if listed and self.entered and not room_named.search(sentence):
            sentence = f"{listed['lead']}In {self.entered} there are {listed['list']}"
        here = THERE.match(sentence) or listed
        if THERE.match(sentence) and self.entered and not room_named.search(sentence):
            adverb = re.compile(r"\s+(?:there|here)\b(?=\s*(?:with|,|[.!?]|$))", re.I)
            rest = adverb.sub("", sentence[here.end() :], count=1)
            sentence = f"{here.group()}In {self.entered}, {rest[0].lower()}{rest[1:]}"
        return sentence, here

    def _reveals(self, sentence: str) -> tuple[str, list[str]]:
        """The sentence without the contents told as a container is opened or a room reached, and
        the descriptions they become."""
        patterns = _patterns()
        place, opening, reveals, room_aside = patterns.place, patterns.opening, patterns.reveals, patterns.room_aside
        after, k = [], 0
        while opened := opening.search(sentence, k):
            what = opened["what"]
            before = list(place.finditer(sentence, 0, opened.start()))
            container = what if what.lower() != "it" else before[-1].group() if before else self.last
            k = opened.end()
            for reveal in reveals:
                shown = reveal.match(sentence[k:])
                said = _described(container, shown["x"]) if shown and container else None
                if said:
                    cut = "" if sentence[k + shown.end() :].lstrip().startswith((",", ".", ";")) else " "
                    sentence = sentence[:k] + cut + sentence[k + shown.end() :].lstrip()
                    after.append(said)
                    break
            if what.lower() != "it":
                self.last = what
        aside = room_aside.search(sentence)
        if aside and not re.search(r"\b(?:he|she|they|opens?|closes?|walks?|goes)\b", aside["x"], re.I):
            rest = sentence[aside.end() :].lstrip()
            sentence = sentence[: aside.end("room")] + ("" if rest[:1] in ".,;!?" else " ") + rest
            room = aside["room"][0].upper() + aside["room"][1:]
            after.append(f"{room} has {aside['x'].strip(' ,')}.")  # the room as the person reaches it
        return sentence, after

    def _update(self, sentence: str, here: re.Match | None) -> None:
        """What the sentence leaves for the next: the furniture named last, the container reached,
        the room entered (kept over the "There's ..." sentences that describe it)."""
        patterns = _patterns()
        place, opening, room_named = patterns.place, patterns.opening, patterns.room
        named = list(place.finditer(sentence))
        self.last = named[-1].group() if named else self.last
        self.reached = self.last if named and (opening.search(sentence) or REACHES.search(sentence)) else None
        rooms = list(room_named.finditer(sentence))
        if rooms and REACHES.search(sentence):
            self.entered = rooms[-1].group()
        elif rooms or not here:
            self.entered = None
