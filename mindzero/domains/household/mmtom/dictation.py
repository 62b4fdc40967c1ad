"""Sentence breaks for stories told without punctuation: dictated to a phone ("okay so the
kitchen has a fridge and two cabinets the first cabinet has an apple um mary is in the bedroom she
walks to the kitchen so which is more likely option a ... option b ..."), or typed as one run-on.

The reader reads sentence by sentence: which room a description sentence is about, whether a
sentence tells an action, where the question starts. A run-on gives it one sentence for all of
that. :func:`punctuate_run_ons` cuts such a stretch where a speaker starts something new, and
only there:

- a room's description ("in the living room there's ...", "the bedroom has ...");
- the person starting to act ("mary is in the ...", "then she walks to ...");
- a discourse marker ("okay so", "alright so", "anyway");
- the question: spoken labels "option a" / "option b" become "(a)" / "(b)", and a "Question:"
  heading goes where the question starts ("so which is more likely", "if mary has been ...").

Hesitations ("um", "uh") are dropped. Punctuated text is left exactly as it is; what was changed
is noted for :attr:`Reading.unread` (part ``dictation``: it blocks nothing)."""

from __future__ import annotations

import re
from functools import cache

from mindzero.domains.household.mmtom.lexicon import alternatives, lemma, lexicon, text_note

#: Words in a row without ".", "!" or "?" that make a stretch a run-on (MMToM sentences: 10–35).
RUN_ON_WORDS = 40
#: A word between "the" and its place that is not a preposition or article ("the top kitchen").
PLAIN = r"(?!(?:in|on|inside|under|a|an|of|with|there|has|have|had|is|are|was|were)\b)[a-z-]+ "
#: Verbs of a description's subject ("the kitchen has ...").
HAS = r"(?:has|have|had|contains|holds|houses|stores|keeps|features|'s got|got)\b"
HESITATION = re.compile(r"\s*\b(?:um+|uh+|erm+|er|hmm+|uhm)\b,?", re.I)
#: Discourse markers that start something new ("okay so mary is ...").
MARKER = re.compile(r"\b(?:(?:okay|ok|alright|all right|right) so|so anyway|anyway|and so yeah|so yeah|oh and)\b", re.I)
#: "from the left" after a place ("the fourth cabinet from the left has ...").
FROM_SIDE = r"(?: from (?:the )?(?:left|right)(?: to right)?)?"
#: Words that tie a room to what comes before it ("she is in the kitchen", "the cabinet in the
#: kitchen"): a room after one of them is not where a new description starts.
TIED = r"(?<!\bis )(?<!\bs )(?<!\bwas )(?<!\bof )(?<!\bto )(?<!\binto )(?<!\bfrom )(?<!\btowards )(?<!\btoward )"
#: Words that may go before an acting person and begin their sentence ("and then she walks").
LEADS = r"(?:and )?(?:(?:then|next|after that|finally|now) )?"
#: Where a spoken question starts, searched back from its first option.
QUESTION_START = re.compile(
    r"\b(?:so )?(?:if|suppose|assuming|given that|say|which|what|is it|does|do you think|would you say|question)\b",
    re.I,
)
PREMISE_START = re.compile(r"\b(?:so )?(?:if|suppose|assuming|given that)\b", re.I)
SPOKEN_LABEL = re.compile(r"\b(?:option|choice)\s+([a-e])\b", re.I)


def _acting_verbs() -> str:
    verbs = set(lexicon().verbs["walk"]) | {"is", "was", "'s", "starts", "begins", "stands", "sits", "opens"}
    forms = {v for v in verbs if " " not in v} | {v + "s" for v in lexicon().verbs["walk"] if " " not in v}
    forms |= {"goes", "heads", "approaches", "walks", "moves", "proceeds", "returns", "enters", "leaves"}
    return alternatives(forms)


#: "and"s in one comma-less sentence that make it a child's chain ("a sofa and a desk and a book is
#: on the sofa and ..."), read as a run-on however short.
CHAINED_ANDS = 4


def _run_on(text: str) -> bool:
    """Whether some stretch of ``text`` has :data:`RUN_ON_WORDS` words without an end mark (".",
    "!", "?", ";", ":") and few commas (a writer's long sentence has one every few words), or
    :data:`CHAINED_ANDS` "and"s and no comma."""
    parts = [part.split() for part in re.split(r"[.!?;:]+(?:\s|$)", text)]
    chained = any(words.count("and") >= CHAINED_ANDS and not any("," in w for w in words) for words in parts)
    return chained or any(
        len(words) >= RUN_ON_WORDS and sum(w.endswith(",") for w in words) < len(words) / 15 for words in parts
    )


def _names(text: str) -> set[str]:
    """Words that may name the person: not known to the lexicon, and just before a verb of being
    or walking ("mary is in", "tom walks")."""
    acting = re.compile(rf"\b([a-z][a-z'-]+) (?:{_acting_verbs()})\b", re.I)
    known = lexicon().known
    stop = {"she", "he", "they", "it", "that", "there", "which", "who", "what", "this", "one", "and", "then"}
    words = {m[1].lower() for m in acting.finditer(text)}
    return {w for w in words if lemma(w) not in known and w not in stop}


def _break(text: str, at: int) -> str:
    """``text`` with a sentence end before offset ``at`` (none if one is already there)."""
    before = text[:at].rstrip()
    if not before or before[-1] in ".!?:;":
        return text
    return f"{before}. {text[at:].lstrip()}"


def _question(text: str, people: str) -> tuple[str, str | None]:
    """(the story, the question with its spoken option labels written "(a)", "(b)") of a line
    whose speaker says both "option a" and "option b"; else (the line, None). ``people``: a regex
    of the person's names ("is priya looking for ..." starts a question)."""
    labels = {m[1].lower() for m in SPOKEN_LABEL.finditer(text)}
    if not {"a", "b"} <= labels or re.search(r"\bquestion\s*:", text, re.I):
        return text, None
    text = SPOKEN_LABEL.sub(lambda m: f"({m[1].lower()})", text)
    first = text.index("(a)")
    asked = re.compile(rf"\b(?:so )?(?:is|does|did|was|has|would|will) (?:{people})\b", re.I)
    starts = sorted(m.start() for cue in (QUESTION_START, asked) for m in cue.finditer(text, 0, first))
    at = starts[-1] if starts else first
    premise = [m.start() for m in PREMISE_START.finditer(text, max(0, at - 200), at)]
    at = premise[-1] if premise else at
    return text[:at], text[at:]


@cache
def _openers() -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    """Regexes of what opens a description sentence: (a room or a place as subject: "the kitchen
    has ...", "the third and fourth cabinets are empty"; a place first: "in the kitchen there's
    ...", "on one of the tables there's ..."; "there's ...")."""
    rooms, furniture = alternatives(lexicon().rooms), alternatives([*lexicon().furniture, "one"])
    subject = re.compile(
        rf"{TIED}(?<!\bin )(?<!\bon )(?<!\binside )\b(?:and )?(?:then )?(?:"
        rf"(?:the )?(?:{rooms})(?: (?:just |also |only )?{HAS}|'s got\b)"
        rf"|the (?:{PLAIN}){{0,9}}?(?:{furniture})s?{FROM_SIDE}"
        rf"(?: (?:each |both |all |just |also |only )?{HAS}| is\b| are\b|'s (?:got|empty|full)\b))",
        re.I,
    )
    placed = re.compile(
        rf"{TIED}\b(?:and )?(?:then )?(?:over )?(?:in|on|inside|under) (?:one of )?the (?:(?!the\b){PLAIN}){{0,3}}?"
        rf"(?:{rooms}|{furniture})s? (?:theres?|we|you|i|it)\b",
        re.I,
    )
    return subject, placed, re.compile(rf"\b(?:and )?there(?:'s|s| is| are)\b|{_objects_placed()}", re.I)


def _objects_placed() -> str:
    """A regex of a clause that starts with objects and says where they are ("and a book is on the
    sofa", "a wine glass and another book are on the table")."""
    objects = alternatives([*lexicon().objects, *lexicon().ambiguous])
    det = r"(?:a|an|another|one|two|three|four|five|\d+)"
    item = rf"{det} (?:{objects})(?:s|es)?"
    return rf"(?<=\band ){item}(?: and {item})* (?:is|are|sits?|lies?|lays?) (?:on|in|inside)\b"


def _cuts(story: str, person: re.Pattern) -> list[int]:
    """Offsets in ``story`` where a new sentence starts, last first."""
    subject, placed, there = _openers()
    spans = [m.span() for m in placed.finditer(story)]
    cuts = {m.start() for cue in (MARKER, subject, person) for m in cue.finditer(story)} | {a for a, _ in spans}
    cuts |= {m.start() for m in there.finditer(story) if not any(a <= m.start() < b for a, b in spans)}
    return sorted(cuts, reverse=True)


def punctuate_run_ons(text: str) -> tuple[str, list[dict]]:
    """(the text with sentence breaks added to its run-on lines, a note per changed line)."""
    if not _run_on(text):
        return text, []
    people = alternatives(_names(text) | {"she", "he"})
    person = re.compile(rf"\b{LEADS}(?:{people}) (?:(?:then|first|now|just) )?(?:{_acting_verbs()})\b", re.I)
    out, notes = [], []
    for number, line in enumerate(text.split("\n"), start=1):
        if not _run_on(line):
            out.append(line)
            continue
        story, question = _question(HESITATION.sub("", line).strip(), people)
        cuts = _cuts(story, person)
        for at in cuts:
            story = _break(story, at)
        out.append(story if question is None else f"{_break(story, len(story))} Question: {question}")
        why = f"read as dictated: {len(cuts)} sentence breaks added"
        why += "" if question is None else ", the question from " + repr(question[:30])
        notes.append(text_note(number, "dictation", line[:80], why))
    return "\n".join(out), notes
