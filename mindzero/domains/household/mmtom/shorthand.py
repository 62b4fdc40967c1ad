"""Abbreviations a writer defines before using them: "living room (LR)", "cab = cabinet",
"K = kitchen", "-> = walks towards" (an engineer's notes, a log's legend).

A definition names a room or a piece of furniture the lexicon knows and a short form it does not
("LR", "cab", "kitch."). :func:`expand_shorthand` writes every later use out in full ("K cab 2"
→ "kitchen cabinet 2", "cabs" → "cabinets") and takes the legend out of the story: a line or
sentence made only of definitions ("Abbreviations: bedroom (BR), cabinet (cab).") says nothing
about the apartment, and a definition among other words ("K: fridge, microwave (MW)") is read as
its full name. Nothing is expanded that the text does not define; each expansion is noted for
:attr:`Reading.unread` (part ``shorthand``: it blocks nothing)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from mindzero.domains.household.mmtom.lexicon import lemma, lexicon, text_note

#: The longest short form taken as an abbreviation (characters).
MAX_SHORT = 6
SHORT = r"[A-Za-z][A-Za-z.#]{0,5}"
QUOTE = r"[\"']?"  # a symbol may be quoted: '"=>" = walks towards'
WALKING = r"walks? (?:towards?|to)|goes to|moves to"
STARTING = r"start(?:ing)? (?:room|location)"
#: Symbols a legend may define, and what they are read as ("-> = walks towards", "@ = starting room").
SYMBOLS = {"->": "walks towards", "→": "walks towards", "=>": "walks towards", "@": "starts in"}
#: A line that is a legend ("LEGEND: @ = starting room; -> = walks towards"): it says nothing about the apartment.
LEGEND_LINE = re.compile(
    r"^[ \t#*/-]*(?:legend|notation|symbols?|key|header|abbreviations?|abbrev|shorthand|defs|definitions|glossary)\b"
    r"[^\n]*=[^\n]*$",
    re.I | re.M,
)
#: Words that may stand in a legend besides its definitions ("Abbreviations: ...", "Rooms: ... and ...").
LEGEND_WORDS = frozenset(
    "abbreviations abbreviation abbrev abbr shorthand short notation legend key glossary defs definitions "
    "where note apartment rooms setup layout and".split()
)


@dataclass(frozen=True)
class Definition:
    short: str
    full: str
    span: tuple[int, int]  # where the definition stands in the text


def _full_names() -> list[str]:
    """Rooms and furniture the lexicon knows, longest first ("coffee table" before "table")."""
    lex = lexicon()
    return sorted({*lex.rooms, *lex.furniture}, key=len, reverse=True)


def _is_short(word: str) -> bool:
    """Whether ``word`` may be an abbreviation: short, no word the lexicon knows, and no option
    label ("inside the microwave (b) ..." defines nothing)."""
    bare = word.rstrip(".").lower()
    if not bare or len(word) > MAX_SHORT or bare in "abcde":
        return False
    return lemma(bare) not in lexicon().known and bare not in lexicon().known


@cache
def _forms() -> list[tuple[re.Pattern, bool]]:
    """(pattern, defines a symbol) of each way of defining: "FULL (SHORT)", "SHORT = FULL",
    "FULL = SHORT", an arrow defined as walking, "@" as the starting room (built once: every story
    read is searched)."""
    names = "|".join(map(re.escape, _full_names()))
    return [
        (re.compile(rf"\b(?P<full>{names})\s*\((?P<short>{SHORT})\)", re.I), False),
        (re.compile(rf"(?<![\w-])(?P<short>{SHORT})\s*=\s*(?P<full>{names})\b", re.I), False),
        (re.compile(rf"\b(?P<full>{names})\s*=\s*(?P<short>{SHORT})(?![\w-])", re.I), False),
        (re.compile(rf"{QUOTE}(?P<short>->|→|=>){QUOTE}\s*=\s*(?P<full>{WALKING})\b", re.I), True),
        (re.compile(rf"{QUOTE}(?P<short>@){QUOTE}\s*(?:=|marks|means)\s*(?:the )?(?P<full>{STARTING})", re.I), True),
    ]


def definitions(text: str) -> list[Definition]:
    """The definitions in ``text`` (:func:`_forms`)."""
    found = []
    for form, arrow in _forms():
        for m in form.finditer(text):
            if arrow or (_is_short(m["short"]) and m["short"].lower() != m["full"].lower()):
                full = SYMBOLS.get(m["short"], m["full"].lower())
                found.append(Definition(m["short"], full, m.span()))
    return sorted(found, key=lambda d: d.span)


def _legend(segment: str, inside: list[Definition], offset: int) -> bool:
    """Whether a segment holds only definitions (after an optional heading word and colon)."""
    rest, cut = [], offset
    for d in inside:
        rest.append(segment[cut - offset : d.span[0] - offset])
        cut = d.span[1]
    rest.append(segment[cut - offset :])
    words = re.findall(r"[A-Za-z]+", " ".join(rest))
    return all(w.lower() in LEGEND_WORDS for w in words)


def _use(short: str) -> re.Pattern:
    """Uses of a short form: a whole word; a lower-case one in any case and as a plural ("cabs").
    A form defined with a dot ("kitch.", or "cab." ending its sentence) is used with or without it,
    the dot taken only where no sentence ends ("kitch. cab 2")."""
    base = short.rstrip(".")
    plural = "s?" if base[-1].isalpha() else ""
    dot = r"(?:\.(?=\s*[a-z0-9]))?" if short.endswith(".") else ""
    flags = 0 if any(c.isupper() for c in base) else re.I
    return re.compile(rf"(?<![\w-]){re.escape(base)}(?P<plural>{plural}){dot}(?![\w-])", flags)


def expand_shorthand(text: str) -> tuple[str, list[dict]]:
    """(the text with its defined abbreviations written out and its legends taken out, one note
    saying which)."""
    found = definitions(text)
    if not found:
        return text, []
    first = {}
    for d in found:
        first.setdefault(d.short, (d.full, text.count("\n", 0, d.span[0]) + 1))
    text = LEGEND_LINE.sub("", text)
    found = definitions(text)  # those left outside the legend lines, where they now stand
    out, cut = [], 0
    for m in re.finditer(r"[^.;\n]+[.;\n]?", text):
        inside = [d for d in found if m.start() <= d.span[0] and d.span[1] <= m.end()]
        if not inside:
            continue
        out.append(text[cut : m.start()])
        if _legend(m[0], inside, m.start()):
            out.append("\n" * m[0].count("\n"))  # keeps line numbers
        else:  # "microwave (MW)" → "microwave"; "MW = microwave" → ""
            piece, at = [], m.start()
            for d in inside:
                piece.append(text[at : d.span[0]])
                piece.append(d.full if text[d.span[0] : d.span[1]].lower().startswith(d.full) else "")
                at = d.span[1]
            out.append("".join(piece) + text[at : m.end()])
        cut = m.end()
    text = "".join(out) + text[cut:]
    for short, (full, _) in first.items():
        if short in SYMBOLS:
            text = text.replace(short, f" {full} ")
        else:
            text = _use(short).sub(lambda u, full=full: full + ("s" if u["plural"] else ""), text)
    said = ", ".join(f"{short!r} as {full!r}" for short, (full, _) in first.items())
    line = min(line for _, line in first.values())
    return text, [text_note(line, "shorthand", said[:80], f"read {said} (defined in the text)")]
