"""Inventories and logs written as data (a smart-home export, a script's dump) rewritten into the
one line form the reader takes, ``KITCHEN > fridge: plate, cupcake; microwave: empty``:

- ``[KITCHEN] fridge={plate, cupcake}; stove`` (a bracketed room, contents in braces);
- ``kitchen/fridge: plate`` and ``kitchen/: fridge, stove`` (a path);
- ``#1: empty #2: plate`` (cabinet items with no separator between them);
- a log line's number or time stamp (``#07``, ``[14:02:27]``), which says only when;
- "#8: same" (the last action again at that place) as "#8: the same";
- the end of each such line, and of each log line ("walks towards kitchen"), as a sentence end.

Only these forms are touched, a line at a time; prose is left exactly as it is. Counts written
``2 x item``, ``item x2`` and ``item (2)`` are read by the lexicon itself."""

from __future__ import annotations

import re
from functools import cache

from mindzero.domains.household.mmtom.lexicon import alternatives, lexicon, text_note

#: "fridge={plate, cupcake}" → "fridge: plate, cupcake".
BRACES = re.compile(r"\s*=\s*\{([^{}]*)\}")
#: A log line's number or time stamp before what happened ("#07 ", "[14:02:27] ", "3. ", "01 "; not
#: a count: "2 apples").
TIME = r"\d{1,2}:\d{2}(?::\d{2})?"
STAMP = re.compile(rf"^(\s*)(?:#\d{{1,4}}|\[{TIME}\]|{TIME}|\d{{1,3}}[.)]|0\d{{1,3}})\s+(?=\S)")
TIMED = re.compile(rf"^\s*\[?{TIME}\]?\s")
#: "stove=EMPTY" → "stove: empty".
EMPTY = re.compile(r"\s*=\s*(?:empty|none|nothing)\b", re.I)
#: "#1 empty, #2 empty, #7 apple" → "#1: empty, ..." (on a line of two or more such items; not
#: "#3 and #5 are empty").
BARE_ITEM = re.compile(r"(#\d{1,2})\s+(?=(?:empty|nothing|an?|one|two|three|\d+)\b|(?P<word>[a-z]+))", re.I)
#: A numbered list item that is a sentence about the person ("1. She's in the bathroom.", "2. Then
#: Tom walks ..."): its number, like a log line's, says only when.
NUMBERED_SENTENCE = re.compile(
    r"^\s*\d{1,3}[.)]\s+(?:(?:she|he|they|i|then|and|finally|next|after that|later)\b|[A-Z][a-z]+(?:'s)? "
    r"(?:is|was|goes|went|walks|walked|heads|headed|opens|opened|starts|started|comes|came)\b)",
    re.I,
)
#: "#8: same", "microwave: same": the last action again, at the place before the colon.
SAME = re.compile(r":\s*same\b(?! (?:as|kind|type|room|one|place|thing)\b)", re.I)
#: A log line that starts with what the person did ("walks towards kitchen", "opens fridge").
EVENT = re.compile(r"^\s*(?:walks|starts|opens|closes|shuts|approaches|goes|heads|moves|is about to|enters)\b", re.I)
#: A cabinet item "#2:" that follows the one before without a separator (not "cabinet #2:").
CABINET_ITEM = re.compile(r"(?<=[^\s|;,:])\s+(?=#\d{1,2}\s*:)")
FURNITURE_END = re.compile(r"(?:cabinet|cupboard|cab|drawer)s?$", re.I)


@cache
def _rooms() -> str:
    return alternatives(lexicon().rooms)


def _heads() -> list[tuple[re.Pattern, str]]:
    """(pattern, replacement) for a line's room heading: "[KITCHEN] ", "kitchen/: ", "kitchen/fridge"."""
    rooms = _rooms()
    return [
        (re.compile(rf"^(\s*)\[\s*({rooms})\s*\]\s*:?\s*", re.I), r"\1\2 > "),
        (re.compile(rf"^(\s*)({rooms})\s*/\s*:?\s+", re.I), r"\1\2 > "),
        (re.compile(rf"^(\s*)({rooms})\s*/\s*(?=\w)", re.I), r"\1\2 > "),
    ]


def _bare_item(m: re.Match) -> str:
    """"#7 apple" → "#7: apple" when what follows is an object or "empty"; else unchanged."""
    word = m["word"]
    if word is not None and not any(name.split()[0] == word.lower() for name in lexicon().objects):
        return m[0]
    return f"{m[1]}: "


def rewrite_notation(text: str) -> tuple[str, list[dict]]:
    """(the text with its data-like lines in the reader's line form, one note saying which)."""
    out, changed = [], []
    for number, line in enumerate(text.split("\n"), start=1):
        stamped = STAMP.sub(r"\1", line)
        told = EVENT.match(stamped) or TIMED.match(line) or NUMBERED_SENTENCE.match(line)
        new = stamped if told else line  # not "#3 - an apple", a cabinet
        for head, replacement in _heads():
            new = head.sub(replacement, new, count=1)
        new = SAME.sub(": the same", EMPTY.sub(": empty", BRACES.sub(r": \1", new)))
        if len(re.findall(r"#\d", new)) > 1:
            new = BARE_ITEM.sub(_bare_item, new)
        new = CABINET_ITEM.sub(lambda m, text=new: m[0] if FURNITURE_END.search(text[: m.start()]) else " | ", new)
        if (new != line or EVENT.match(new)) and new.strip() and new.rstrip()[-1] not in ".!?:;":
            new = new.rstrip() + "."  # one entry a line: the next line does not continue it
        changed += [number] if new != line else []
        out.append(new)
    if not changed:
        return text, []
    why = f"{len(changed)} lines read as data (e.g. line {changed[0]} as {out[changed[0] - 1].strip()[:60]!r})"
    return "\n".join(out), [text_note(changed[0], "notation", text.split("\n")[changed[0] - 1][:80], why)]
