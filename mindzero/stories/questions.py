"""Belief questions in a user's words ("According to Ann, where will Bob look for the pear?"): which
chain of believers and which object they ask about. Read with the clause reader's tokens, spelling
and names (:mod:`mindzero.stories.paraphrase`, which reads a story's sentences) and the story's context."""

from __future__ import annotations

from mindzero.stories.paraphrase import ADVERBS, NEGATION, Clause, Context, is_name, respell, tokenize

_BELIEF = frozenset(
    "think thinks thought believe believes believed reckon reckons suppose supposes expect expects look looks "
    "search searches searching looking assume assumes guess guesses according opinion view mind imagine "
    "imagines figure figures consider considers feel feels go hunting hunt per belief beliefs understanding "
    "thinking believing expecting assuming goes going knows concerned fancy fancies fancied conceive conceives "
    "conceived supposed imagined persuaded".split()
)
#: Words after a name's "'s" that still ask that person's belief ("in Ann's opinion").
_OPINION = frozenset("opinion view mind head eyes perspective point guess idea".split())
#: Words that make a belief question ask the reader, i.e. where the object really is.
_READER = frozenset("you story text narrator".split())
_BEGINNING = (
    "at the beginning",
    "at the start",
    "originally",
    "initially",
    "at first",
    "in the first place",
    "to begin with",
    "to start with",
)


def read_question(text: str, context: Context | None = None) -> tuple[tuple[str, ...], str, str] | None:
    """(belief chain, object, form) a question in a user's words asks: the names in the order
    written, each a belief ("Where does A believe B thinks ...", "According to A, where will B look
    for ...") — or none: where the object really is, or was at the beginning. The object is one the
    story names (``context.objects``), else the thing after "the" / "his" / "her". None for anything
    else (no "where" / "which container" / "place", a negation, no object, a name with no belief verb)."""
    context = context or Context()
    tokens = tokenize(respell(text, context).replace("?", " "))
    low = [t.lower() for t in tokens]
    asks = {"where", "whither", "container", "place", "location", "whereabouts", "receptacle"}
    if NEGATION & set(low) or not asks & set(low):
        return None
    names = [t.removesuffix("'s").removesuffix("'") for t in tokens]
    if context.agents:  # the story's people; with no story, any capitalised word not the question's own
        names = [n for n in names if n in context.agents]
    else:
        names = [n for i, n in enumerate(names) if i > 0 and is_name(n, context.agents) and n.lower() not in _BELIEF]
    owned = [low[k + 1] for k, t in enumerate(tokens[:-1]) if t.endswith(("'s", "'")) and t[:1].isupper()]
    if any(word not in _BELIEF | _OPINION for word in owned):
        return None  # "Where does Sally's mother think ...": someone the story does not name
    obj = _asked_object(tokens, context)
    if obj is None:
        return None
    beginning = any(b in " ".join(low) for b in _BEGINNING)
    if not names:
        if set(low) & _BELIEF and not set(low) & _READER:
            return None  # "Where does she / everyone / the teacher think ...": a belief of whom?
        return (), obj, "beginning" if beginning else "think"
    if not set(low) & _BELIEF or beginning or not _each_believes(tokens, set(names)):
        return None  # "Where did Sally put it?"; "... think it was at the beginning?" (a past belief)
    return tuple(names), obj, "think"


#: Words between a believer's name and the belief word ("Sally would search", "Jackson that").
_BELIEF_GAP = frozenset("will would does did do is was really also still to be that actually first then going".split())


def _each_believes(tokens: list[str], names: set[str]) -> bool:
    """Whether each believer after the first is one: the next word (past "will", "would", "that",
    ...) is a belief word, another name, a comma or the end — not an action ("Where does Sally think
    Anne put it?" asks no belief of Anne's) nor "and" ("Where do Sally and Anne each think ...?":
    two questions); and, with two names or more, no "she thinks" (which of them?)."""
    low = [t.lower() for t in tokens]
    named = [t for t in tokens if t in names]
    if len(set(named)) > 1 and any(
        w in ("he", "she", "they") and low[k + 1 : k + 2] and low[k + 1] in _BELIEF for k, w in enumerate(low)
    ):
        return False
    first = named[0] if named else None
    for k, token in enumerate(tokens):
        if token not in names or token == first:
            continue
        j = k + 1
        while j < len(low) and low[j] in _BELIEF_GAP | ADVERBS:
            j += 1
        if j < len(low) and low[j] not in _BELIEF and low[j] != "," and tokens[j] not in names:
            return False
    return True


def _asked_object(tokens: list[str], context: Context) -> str | None:
    """The object a question asks about: the one the story names whose words it has (the longest),
    else the thing after a determiner, else "it" for the object named last, else the story's only
    object ("Which container will Sally search first?")."""
    text = (
        " " + " ".join(t.lower().removesuffix("'s").removesuffix("'") for t in tokens) + " "
    )  # "the radish's location"
    named = [o for o in context.objects if f" {o.lower().replace('_', ' ')} " in text]
    named = [o for o in named if not any(o != other and o in other for other in named)]  # "sweet potato", not "potato"
    if len(named) > 1:
        return None  # "the ball and the marble": which one?
    if named:
        return named[0]
    low = [t.lower() for t in tokens]
    for i, word in enumerate(low):
        if word in ("the", "his", "her", "their") and i + 1 < len(low):
            c = Clause(tokens, context)
            c.i = i
            found = c.thing()
            if found and found.lower() not in {"beginning", "start", "end", "story", "first_place"}:
                return found
    if {"it", "them"} & set(low):
        return context.obj
    searching = set(low) & {"look", "looks", "looking", "search", "searches", "searching", "container", "find"}
    return next(iter(context.objects)) if len(context.objects) == 1 and searching else None  # "Where will Sally look?"
