"""A formal report's form around the story (a care home's observation report, a study's session
log, a security firm's incident report): header fields ("Report no.: EG-0417", "Observer: K.
Okafor", "Date of session: 27/09/2023"), headings in capitals ("1. PREMISES", "ASSESSMENT
REQUESTED"), sign-offs ("Countersigned: L. Brennan", "Report completed by R. Lindqvist") and
counts with their figure in brackets ("two (2) plates"). :func:`strip_report_form` leaves the
premises, the observations and the question: the names of observers and signatories are no
person of the story (the first reading took "Brennan" for the person), and "two (2)" is two.
The person called "the subject" or "the participant" is the reader's business (``ROLE_NOUNS``)."""

from __future__ import annotations

import re
from functools import cache

from mindzero.domains.household.mmtom.lexicon import alternatives, lexicon, room_words, text_note

#: The first word of a form's field label ("Report no.:", "Date of session:", "Observer:").
FIELDS = (
    "report|record|ref|reference|case|incident|file|form|date|time|observer|observers|observed by|observation type|"
    "location|address|unit|site|category|type|session type|session date|protocol|shift|badge|status|priority|"
    "distribution|cc|classification|page|subject|participant|resident|client|patient|occupant|prepared|reviewed|checked|"
    "signed|signature|countersigned|approved|author|written|compiled|submitted|witness|witnesses|duration|weather"
)
FIELD = re.compile(rf"^\s*(?:{FIELDS})\b[\w .'/()-]{{0,30}}:\s*\S.*$", re.I)
#: Words of an action, which a header field's value never has.
ACTS = re.compile(r"\b(?:walk|went|goes|go|open|close|shut|proceed|move|approach|enter|head)\w*", re.I)
#: A sign-off line: "Report completed by R. Lindqvist; checked by ...", "Signed, A. Moreau".
SIGNED = re.compile(
    r"^\s*(?:report\s+)?(?:completed|prepared|written|compiled|reviewed|checked|signed|countersigned|approved|"
    r"submitted|filed)(?:\s+by\b|\s*,)",
    re.I,
)
#: A heading in capitals, perhaps numbered or lettered: "1. PREMISES", "B) OBSERVATIONS (mm:ss)".
CAPITALS = re.compile(r"^\s*(?:(?:\d{1,2}|[A-Z])[.)]\s+)?[A-Z][A-Z0-9 /&,'-]{2,}(?:\s*\([^()]*\))?\s*:?\s*$")
#: A numbered paragraph's number: "A.2  Bedroom. ...", "A1  Kitchen. ...", "3.1 The subject ...".
PARAGRAPH = re.compile(r"^\s*(?:[A-Z]\.?\d{1,2}|\d{1,2}\.\d{1,2})\.?\s+")


def strip_report_form(text: str) -> tuple[str, list[dict]]:
    """The text without a report's form (module docstring) and its paragraph numbers ("A.2"), with
    a note per line left out; a text that is no report (fewer than two header fields, headings or
    sign-offs) comes back unchanged but for "two (2)"."""
    lines = text.split("\n")
    form = [k for k, line in enumerate(lines) if _field(line) or SIGNED.match(line) or _heading(line)]
    if len(form) < 2:
        form = []
    notes = [text_note(k + 1, "format", lines[k][:80], "a report's form left out") for k in form]
    kept = ["" if k in form else PARAGRAPH.sub("", line) if form else line for k, line in enumerate(lines)]
    out = "\n".join(kept)
    numbers = lexicon().numbers
    figured = _figured().sub(lambda m: m[1] if numbers[m[1].lower()] == int(m[2]) else m[0], out)
    if figured != out:
        first = next(k for k, (a, b) in enumerate(zip(out.split("\n"), figured.split("\n"))) if a != b)
        notes.append(text_note(first + 1, "format", kept[first][:80], "counts with their figure ('two (2)') read once"))
    return figured, notes


@cache
def _figured() -> re.Pattern:
    """A count with its figure: "two (2)", "eight (8)"."""
    return re.compile(rf"\b({alternatives(lexicon().numbers)})\s*\((\d{{1,2}})\)", re.I)


def _field(line: str) -> bool:
    """A header field: a known label and a short value that tells no action ("Observer: K. Okafor",
    not "Observations: the subject walked to the kitchen")."""
    field = FIELD.match(line)
    value = line.partition(":")[2]
    return bool(field) and len(value) <= 80 and not ACTS.search(value)


def _heading(line: str) -> bool:
    """A heading in capitals that names no room ("KITCHEN" over a paragraph is the room's)."""
    return bool(CAPITALS.match(line)) and sum(c.isalpha() for c in line) > 3 and not room_words().search(line)
