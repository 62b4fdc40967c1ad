"""A writer's corrections of themselves ("two plates, no wait, three plates", "on the coffee
table, sorry, on the sofa", "Susan is in the living room, actually no, she's in the kitchen"):
the last word on a fact is the fact. :func:`resolve_corrections` drops what a correction takes
back before the text is read, and only where it can tell what that is:

- after a marker set off by commas or a dash (", no wait,", ", sorry,", ", I mean", ", actually
  no,", ", scratch that,", ", or rather", ", make that", ", no,", " — no,"), or opening the next
  sentence (". Sorry, the fourth."), comes the replacement;
- what it replaces is the phrase of the same kind just before the marker, in the same sentence:
  objects with their count ("a water glass", "three apples", a bare "three"), a place with its preposition ("on
  the coffee table"), a room or place with its article ("the kitchen", "the eighth cabinet"), or,
  when the replacement is a clause of its own ("she's in the kitchen"), the clause before.

A correction whose withdrawn part it cannot find is left as written (and the reader reads what
it can)."""

from __future__ import annotations

import re
from functools import cache

from mindzero.domains.household.mmtom.lexicon import alternatives, lexicon, text_note

#: The marker of a correction after a comma, a dash or a sentence's end (", no wait,", " — sorry,",
#: ", I mean", ". Sorry, ...").
MARKER = re.compile(
    r"(?:,|\s[—–-]+|[.!?])\s*(?:(?:no|oh|oops|erm?)\s*,?\s+)?"
    r"(?:no wait|wait|no sorry|sorry|i mean|actually no|no actually|scratch that|or rather|make that|correction|no)"
    r"(?:\s*,\s*(?:wait|sorry|scratch that|i mean|actually|no))*\s*[,:]?\s+",
    re.I,
)
COUNT = r"(?:a|an|one|two|three|four|five|six|seven|eight|\d+|another|just (?:the )?one)"
PREPOSITION = r"(?:on|in|inside|into|at|under|to|towards?)"
#: A replacement that is a clause of its own: "she's in the kitchen", "he starts in the kitchen".
CLAUSE = re.compile(r"^(?:she|he|they|it|i)(?:'s|'re|'m)?\s+[a-z]+\b|^(?:it's|she's|he's)\b", re.I)


@cache
def _kinds() -> list[tuple[re.Pattern, re.Pattern]]:
    """(what a replacement starts with, the phrase it replaces, which ends where the marker starts)
    for each kind of phrase: objects, a place with its preposition, a place, an ordinal."""
    lex = lexicon()
    things = alternatives([*lex.objects, *lex.ambiguous])
    places = alternatives([*lex.rooms, *lex.furniture, "cabinet", "cupboard", "one"])
    ordinal = rf"(?:the )?(?:{alternatives(lex.ordinals)})"
    place = rf"(?:the|a|an|that|this) (?:(?:{alternatives(lex.ordinals)}|\w+) ){{0,2}}?(?:{places})s?"
    objects = rf"{COUNT} (?:\w+ )?(?:{things})(?:s|es)?"
    kinds = [
        (objects, rf"(?:{objects}|{COUNT})"),  # "three, no, two apples": a bare count
        (rf"{PREPOSITION} {place}", rf"{PREPOSITION} {place}"),
        (place, rf"(?:{place}|{ordinal})"),  # "the second, sorry, the third kitchen cabinet"
        (ordinal, rf"(?:{place}|{ordinal})"),
    ]
    return [(re.compile(rf"^{a}\b", re.I), re.compile(rf"\b{b}\s*$", re.I)) for a, b in kinds]


def _withdrawn(before: str, after: str) -> int | None:
    """Where the phrase that ``after`` replaces starts in ``before`` (the sentence so far, which the
    phrase ends: a correction follows what it corrects), or None."""
    for starts, phrase in _kinds():
        if starts.match(after):
            found = phrase.search(before)
            return found.start() if found else None
    if CLAUSE.match(after):
        cut = max(before.rfind(","), before.rfind("."), before.rfind(";"))
        start = cut + 1 if cut >= 0 else 0
        return start + len(before[start:]) - len(before[start:].lstrip())
    return None


def resolve_corrections(text: str) -> tuple[str, list[dict]]:
    """(the text with what each correction takes back left out, a note per line changed)."""
    notes, out = [], []
    for number, line in enumerate(text.split("\n"), start=1):
        new, changed = line, 0
        while span := _first_correction(new):
            new = new[: span[0]] + new[span[1] :]
            changed += 1
        if changed:
            why = f"{changed} correction(s) by the writer: what each took back left out"
            notes.append(text_note(number, "correction", line[:80], why))
        out.append(new)
    return "\n".join(out), notes


def _first_correction(text: str) -> tuple[int, int] | None:
    """(start, end) of the first correction whose withdrawn words can be placed: from those words
    to the end of the marker; the replacement follows."""
    for m in MARKER.finditer(text):
        before = _sentence(text, m.start())
        at = _withdrawn(before, text[m.end() :])
        if at is not None:
            return m.start() - len(before) + at, m.end()
    return None


def _sentence(text: str, end: int) -> str:
    """The sentence that ends at ``end`` so far (from after the last ".", "!" or "?")."""
    cut = max(text.rfind(".", 0, end), text.rfind("!", 0, end), text.rfind("?", 0, end))
    return text[cut + 1 : end]
