"""Story sentences in a user's own words, rewritten into the Hi-ToM templates the engine reads.

A person writing a Sally-Anne story says "Anna and Ben are in the kitchen.", "Anna puts the apple
into the red box.", "Ben leaves the kitchen." or "Where does Ben believe the apple is?"; the engine
reads "Anna and Ben entered the kitchen.", "Anna moved the apple to the red_box.", "Ben exited the
kitchen." and "Where does Ben think the apple is?". :func:`canonical` makes that rewrite for the
wordings below (a container or object of several words becomes one name joined by "_", as Hi-ToM
writes "blue_treasure_chest"); anything else is left to the templates, which refuse it. Every
rewrite is reported by :func:`~mindzero.stories.events.read_story`, so what was read is visible.
"""

from __future__ import annotations

import re

#: An agent's name: capitalised, not a pronoun or an article ("She left." names nobody); the
#: templates' too (:mod:`mindzero.stories.events`).
NAME = r"(?!(?:He|She|They|It|We|I|You|The|A|An|There|Then)\b)[A-Z][A-Za-z]*"
_NAMES = rf"(?P<agents>{NAME}(?:, {NAME})*,? (?:and|&) {NAME}|{NAME})"
#: A word of a thing's name: lower case, not a joining word ("a cat and a dog" is two things).
_WORD = r"(?!(?:and|or|from|to|into|in|inside|onto|out|up|away|down|off|first|now)\b)[a-z][a-z0-9_-]*"
#: A thing's name: up to three such words ("big red box").
_PHRASE = _WORD + r"(?: " + _WORD + r"){0,2}"


def _thing(group: str) -> str:
    """A thing after an optional article or owner ("Sally's basket": ``group``_owner), its name
    captured as ``group``."""
    return rf"(?:the |a |an |his |her |their |(?P<{group}_owner>{NAME})'s )?(?P<{group}>{_PHRASE})"


_END = r"\s*[.!]?$"

#: (pattern, template) pairs; the template's fields are the pattern's groups.
_REWRITES: tuple[tuple[re.Pattern, str], ...] = tuple(
    (re.compile("^" + pattern + _END), template)
    for pattern, template in (
        (
            rf"{_NAMES} (?:enters|entered|walks into|walked into|goes into|went into|comes into|came into|"
            rf"steps into|stepped into|arrives in|arrived in|are in|were in|are standing in|were standing in|"
            rf"goes to|went to|go to|walks to|walked to|walk to|heads to|headed to|head to|moves to|moved to|"
            rf"returns to|returned to|return to|comes to|came to|come to) "
            rf"{_thing('room')}",
            "{agents} entered the {room}.",
        ),
        (
            rf"(?P<agent>{NAME}) (?:was in|is standing in|was standing in|stands in) {_thing('room')}",
            "{agent} is in the {room}.",
        ),
        (
            rf"(?P<agent>{NAME}) (?:exits|leaves|left|goes out of|went out of|walks out of|walked out of|"
            rf"steps out of|stepped out of|gets out of|got out of) {_thing('room')}",
            "{agent} exited the {room}.",
        ),
        (
            rf"(?P<agent>{NAME}) (?:moves|puts|put|places|placed|transfers|transferred|shifts|shifted|relocates|"
            rf"relocated|hides|hid|drops|dropped|stashes|stashed|moved) {_thing('obj')}"
            rf"(?: from {_thing('source')})? (?:to|into|in|inside|onto) {_thing('container')}",
            "{agent} moved the {obj} to the {container}.",
        ),
        (
            rf"(?P<agent>{NAME}) (?:takes|took|grabs|grabbed|removes|removed|picks up|picked up) {_thing('obj')}"
            rf"(?: out)?(?: (?:out of|from) {_thing('source')})? and "
            rf"(?:puts|put|places|placed|moves|moved|drops|dropped|hides|hid) (?:it|them) (?:in|into|inside|onto|to) "
            rf"{_thing('container')}",
            "{agent} moved the {obj} to the {container}.",
        ),
        (
            rf"(?:The|the|A|a|An|an) (?P<obj>{_PHRASE}) (?:is|was|sits|sat|lies|"
            rf"lay|is lying|was lying|is sitting|was sitting) (?:in|inside) {_thing('container')}",
            "The {obj} is in the {container}.",
        ),
        (
            rf"There (?:is|was|'s) (?:a |an |the )?(?P<obj>{_PHRASE}) "
            rf"(?:in|inside) {_thing('container')}",
            "The {obj} is in the {container}.",
        ),
        (
            rf"(?P<agent>{NAME}) (?:stayed|stays|remained|remains|waited|waits) in {_thing('room')}"
            r"(?: for [a-z0-9 ]+)?",
            "{agent} made no movements and stayed in the {room} for 1 minute.",
        ),
        (
            rf"(?P<speaker>{NAME}) (?:privately told|secretly told|quietly told|whispered to) (?P<listener>{NAME}) "
            rf"that {_thing('obj')} (?:is|was) (?:in|inside) {_thing('container')}",
            "{speaker} privately told {listener} that the {obj} is in the {container}.",
        ),
        (
            rf"(?P<speaker>{NAME}) (?:told everyone|told the others|told everybody|announced|announced to everyone|"
            rf"publicly said|publicly announced|claimed publicly|publicly stated) "
            rf"(?:that )?{_thing('obj')} (?:is|was) (?:in|inside) {_thing('container')}",
            "{speaker} publicly claimed that {obj} is in the {container}.",
        ),
        # questions: "believe" for "think", "Where is the O now?" for "really"
        (
            rf"Where (?P<head>does {NAME} (?:really )?)(?:believe|reckon|suppose) "
            rf"(?P<rest>(?:{NAME} (?:thinks|believes) )*){_thing('obj')} is\?",
            "Where {head}think {rest}the {obj} is?",
        ),
        (rf"Where is {_thing('obj')} (?:now|actually|at the end)\?", "Where is the {obj} really?"),
        (
            rf"Where (?:would|should|does|will) (?P<agent>{NAME}) (?:look|search) for {_thing('obj')}(?: first)?\?",
            "Where will {agent} look for the {obj}?",
        ),
    )
)


def _one_name(phrase: str) -> str:
    """ "red box" -> "red_box": a name of several words as one token, as Hi-ToM writes them."""
    return re.sub(r"[\s-]+", "_", phrase.strip())


#: Words that say when or how, not what: dropped before matching ("Then Anna quietly moves the apple
#: back into the box." is "Anna moved the apple to the box.").
_LEADING = re.compile(r"^(?:Then|Next|Later|After that|Afterwards|Meanwhile|Finally|Now|Soon),?\s+")
_ADVERBS = re.compile(r"\s+(?:back|again|quickly|carefully|quietly|secretly|slowly|also|just|immediately|then|later)\b")


#: Pronouns a sentence may start with for the person the sentence before was about.
_PRONOUN = re.compile(r"^(?:He|She)\b")


#: Leaving without saying which room ("Sally leaves the room.", "Bob exited."): the room they are in.
_LEFT = re.compile(
    rf"^(?P<agent>{NAME}) (?:exited|exits|left|leaves|went out|goes out|walked out|walks out)"
    r"(?: of)?(?: the room)?[.!]?$"
)


def canonical(sentence: str, subject: str | None = None, rooms: dict[str, str] | None = None) -> str | None:
    """The template sentence a paraphrase means, or None when it matches none of the wordings.
    ``subject``: the one agent the sentence before was about, whom a leading "He" / "She" means;
    ``rooms``: the room each agent is in, which "X left (the room)." leaves."""
    text = re.sub(r"\s+", " ", sentence.strip())
    if not text.startswith("Where "):
        text = _ADVERBS.sub("", _LEADING.sub("", text))
        if subject is not None:
            text = _PRONOUN.sub(subject, text)
        if (left := _LEFT.match(text)) and left["agent"] in (rooms or {}):
            return f"{left['agent']} exited the {rooms[left['agent']]}."
    for pattern, template in _REWRITES:
        m = pattern.match(text)
        if m is None:
            continue
        fields = {k: v for k, v in m.groupdict().items() if v is not None}
        for key in ("room", "obj", "container"):
            if key in fields:
                fields[key] = _one_name(" ".join(filter(None, (fields.get(f"{key}_owner"), fields[key]))))
        if "agents" in fields:
            fields["agents"] = re.sub(r",? (?:and|&) ", " and ", fields["agents"])
        if "rest" in fields:
            fields["rest"] = re.sub(r" believes ", " thinks ", fields["rest"])
        return template.format(**fields)
    return None


def sentences(line: str) -> list[str]:
    """A line's sentences: a user may write a whole story on one line."""
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", line.strip()) if s]
