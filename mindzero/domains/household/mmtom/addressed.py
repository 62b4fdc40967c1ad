"""Stories told to the reader ("You're in Mark's flat. In the kitchen you see a fridge ... Now
watch: Mark walks to ..."): "you" is whoever looks on, never the person whose goal is asked about.

What "you" sees is how the apartment is; :func:`describe_for_onlooker` rewrites it as a plain
description before reading, and only when the text names "you" looking on:

- "In the bedroom you see / notice / can see / count / 'll find ..." → "In the bedroom there is ...";
- "you look inside the cabinet and see ...", "if you open the fridge you'll find ..." → "inside the
  cabinet there is ...", "in the fridge there is ...";
- "when you look, it's empty", "you look inside and it's empty" → "it's empty";
- "You walk into the kitchen and see ..." → "in the kitchen there is ..."; "Then you go into the
  kitchen." → "In the kitchen:"; "You open the cabinet: ..." → "the cabinet: ...";
- "You're (standing) in Mark's flat: ..." / ", which has ..." → "the flat has ..."; the sentence
  "You're in Mark's flat." → nothing;
- "Now watch Mark." / "Now watch:" → nothing (what follows is what Mark does).

Stories in the first person ("I walked to the kitchen") are the person's own and stay as they are.
"""

from __future__ import annotations

import re

from mindzero.domains.household.mmtom.lexicon import text_note

MODAL = r"(?:(?:can|could|will|might|would|should) )?(?:also |then |now )?"
SEES = r"(?:see|notice|spot|find|count|discover|observe|spy|get|'ve got|have)"
YOU = r"you(?:'ll|'d)? "
#: "You walk into the kitchen (and see ...)", "Then you go into the kitchen.": the onlooker moving
#: on; what follows is in that room.
YOU_GO = re.compile(
    r"\b(?:then |next |now |over )?you (?:walk|go|step|head|move|come|wander|pop|stroll)(?: on| over| back)?"
    r" (?:in)?to (?P<room>the (?:\w+ )??\w+)(?: and|,)?(?P<sees> (?:you )?(?:see|notice|spot|find|count))?",
    re.I,
)
#: "You open the cabinet: ...", "You check the cabinets from left to right: ...": the place, then
#: what it holds.
YOU_OPEN = re.compile(r"\byou (?:open|check|look in|look inside|look into|peek into|search|go through) (?=the )", re.I)
#: "you see", "you can see", "you'll find" (the onlooker as the subject of seeing).
YOU_SEE = re.compile(rf"\b{YOU}{MODAL}{SEES}\b(?: that)?", re.I)
#: "you look inside the cabinet and see", "if you open the fridge you'll find": where, then what.
YOU_LOOK = re.compile(
    rf"\b(?:if |when |and )?you (?:look|peek|peer|check|glance|open|lift)"
    rf"(?: (?:inside|in|into|on|at|under|in on))? (?P<place>(?:the|that|this) (?:\w+ ){{0,2}}?\w+?),? "
    rf"(?:and |then )?(?:{YOU})?{MODAL}{SEES}\b",
    re.I,
)
#: "when you look, it's empty", "if you check, ...": no place named, only that someone looked.
YOU_CHECK = re.compile(
    r"\b(?:(?:and )?(?:when|if|once) you|you) (?:look|check|peek|open it|look inside|look in it)(?:,| and)?\s*", re.I
)
#: "Picture this:", "Imagine this:": the onlooker is invited in; nothing is told.
PICTURE = re.compile(r"\b(?:picture|imagine) (?:this|the scene)\s*[:,.]\s*", re.I)
#: "You're in Mark's flat", "You are standing in Mark's apartment".
YOU_ARE_IN = re.compile(
    r"\byou(?:'re| are) (?:standing |sitting |now |right )?(?:in|inside|at) "
    r"(?P<home>(?:[A-Z]\w*'s|the|a) (?:apartment|flat|house|home|place|unit|condo))(?P<then>\s*(?::|, which has|\.|$))",
    re.I | re.M,
)
#: "Now watch Mark." / "Now watch:" / "Watch closely." at the start of a sentence.
WATCH = re.compile(
    r"(?:(?<=^)|(?<=[.!?:]\s)|(?<=\n))\s*(?:now,? |ok(?:ay)?,? |so,? |right,? )?(?:just )?watch"
    r"(?: closely| carefully| this)?(?: [A-Z]\w*)?\s*[:.!]\s*",
    re.I | re.M,
)
#: The onlooker appears at all: one of these must match before anything is rewritten (the reader
#: reads "Inside the fridge, you'll find ..." as it is, as in MMToM-QA's own descriptions).
ONLOOKER = re.compile(
    rf"{YOU_ARE_IN.pattern}|{YOU_LOOK.pattern}|\b{YOU}{MODAL}(?:notice|spot|discover|observe|spy|count)\b",
    re.I | re.M,
)


def _home(m: re.Match) -> str:
    """"You're in Mark's flat: a kitchen, ..." → "the flat has a kitchen, ..."; "You're in
    Mark's flat." → nothing (it says only whose flat it is)."""
    home = re.sub(r"^(?:[A-Z]\w*'s|a)\b", "the", m["home"])  # the person's name would make it an action
    return "" if m["then"].strip() in (".", "") else f"{home} has"


def _as_written(replace):
    """``replace`` with its first letter a capital where the words it replaces started with one
    (a sentence's start stays one)."""

    def sub(m: re.Match) -> str:
        out = replace(m)
        return out[:1].upper() + out[1:] if m[0][:1].isupper() else out

    return sub


def _inside(m: re.Match) -> str:
    return f"in {m['place']} there is"


def describe_for_onlooker(text: str) -> tuple[str, list[dict]]:
    """(the text with what "you" sees told as description, a note if anything changed)."""
    if not ONLOOKER.search(text):
        return text, []
    new = PICTURE.sub("", YOU_ARE_IN.sub(_home, text))
    new = YOU_GO.sub(_as_written(lambda m: f"in {m['room']} there is" if m["sees"] else f"in {m['room']}:"), new)
    new = YOU_LOOK.sub(_as_written(_inside), new)
    new = YOU_OPEN.sub("", new)
    new = YOU_SEE.sub(_as_written(lambda m: "there is"), new)
    new = YOU_CHECK.sub("", new)
    new = WATCH.sub(" ", new)
    if new == text:
        return text, []
    line = next(k for k, (a, b) in enumerate(zip(text.split("\n"), new.split("\n")), start=1) if a != b)
    why = "told to the reader: what 'you' see read as the apartment, 'watch' left out"
    return new, [text_note(line, "onlooker", text.split("\n")[line - 1][:80], why)]
