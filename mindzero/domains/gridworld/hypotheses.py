"""GridWorld hypotheses in, hypotheses out: the goal-particle schema the model writes, and a
parser that never raises.

The schema (paper Fig. 7) is ``{"particles": [{"object1": {"color", "shape"}, "object2": {...},
"p": ...}]}``; its JSON Schema is embedded in prompts. Models trained from scratch on ``relative``
prompts, where each object carries a letter, write the same particles in the *letter form*
``A C 0.30 ; B C 0.70`` (object letters, probability; :func:`format_letter_particles`): a
3-layer model learns to copy one letter in minutes, not to bind a colour to its shape.
:func:`parse_goal_particles` accepts strict JSON, then a fenced block, then the outermost braces;
validates against the episode's objects; merges duplicate pairs (probabilities summed); floors and
renormalises p. Every failure is data: a :class:`ParseResult` with ``ok=False`` and a ``reason``.

The pydantic models are the schema and the validator. The SSRL reward parses every rollout, so
output that is already in the validator's output form (checked in plain Python on
``pydantic_core.from_json``, the validator's own JSON parser) skips building model instances;
everything else goes through the validator, so both paths accept and reject the same strings.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Sequence
from functools import lru_cache

from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from pydantic_core import from_json

from mindzero.core.parsing import ParseResult, bare_json, json_candidates
from mindzero.core.posterior import normalise_weights
from mindzero.core.reward import entropy


class Object(BaseModel):
    color: str
    shape: str


class GoalParticle(BaseModel):
    object1: Object
    object2: Object
    p: float = Field(ge=0, le=1, description="Probability of the goal proposal")


class GoalParticles(BaseModel):
    particles: list[GoalParticle]


def particles_schema() -> str:
    """Compact JSON Schema of :class:`GoalParticles`, as embedded in prompts."""
    return json.dumps(GoalParticles.model_json_schema(), separators=(",", ":"))


_ADAPTER = TypeAdapter(GoalParticles)


_Index = dict[tuple[str, str], int]
_Pairs = dict[tuple[str, str, str, str], tuple[int, int]]
_Goals = tuple[dict[tuple[int, int], float], int]  # floored weights summed per sorted object-index pair; particles


def _key(color: str, shape: str) -> tuple[str, str]:
    return color.strip().lower(), shape.strip().lower()


@lru_cache(maxsize=1024)
def _object_index(objects: tuple[tuple[str, str], ...]) -> tuple[_Index, _Pairs]:
    """(object index by (color, shape), both as given and normalised (case, spaces); sorted goal
    pair by (color1, shape1, color2, shape2) of two distinct objects exactly as given)."""
    exact = {(c, s): i for i, (c, s) in enumerate(objects)}
    index = {_key(c, s): i for i, (c, s) in enumerate(objects)} | exact
    pairs = {(*a, *b): (min(i, j), max(i, j)) for a, i in exact.items() for b, j in exact.items() if i != j}
    return index, pairs


def _match(particles: list[dict], index: _Index, n_particles: int | None, p_floor: float) -> _Goals | str:
    """Goal pairs and floored weights of validated particles, or why they name no valid goal."""
    if not particles:
        return "no particles"
    if n_particles is not None and len(particles) != n_particles:
        return f"{len(particles)} particles, asked for {n_particles}"
    merged: dict[tuple[int, int], float] = {}
    for n, particle in enumerate(particles):
        ids = []
        for obj in (particle["object1"], particle["object2"]):
            color, shape = obj["color"], obj["shape"]
            k = index.get((color, shape))
            if k is None:
                k = index.get(_key(color, shape))
            if k is None:
                return f"particle {n}: unknown object {color} {shape}"
            ids.append(k)
        i, j = ids
        if i == j:
            return f"particle {n}: object1 and object2 are the same object"
        pair = (i, j) if i < j else (j, i)
        merged[pair] = merged.get(pair, 0.0) + max(particle["p"], p_floor)
    return merged, len(particles)


def _plain_match(candidate: str, pairs: _Pairs, n_particles: int | None, p_floor: float) -> _Goals | None:
    """What :func:`_match` gives for ``candidate`` when it is JSON that the validator accepts unchanged
    (a number 0 ≤ p ≤ 1; extra keys ignored) and whose particles all name two distinct objects
    exactly as given; else None, and the validator decides. Saves building model instances."""
    try:
        particles = from_json(candidate)["particles"]
        if not particles or (n_particles is not None and len(particles) != n_particles):
            return None
        merged: dict[tuple[int, int], float] = {}
        for particle in particles:
            o1, o2, p = particle["object1"], particle["object2"], particle["p"]
            pair = pairs[o1["color"], o1["shape"], o2["color"], o2["shape"]]  # keys are str: values too
            if not 0 <= p <= 1:  # a number or a bool, as the validator takes; else TypeError
                return None
            merged[pair] = merged.get(pair, 0.0) + (p if p > p_floor else p_floor)
    except (ValueError, TypeError, KeyError):  # not JSON; not a list of objects where expected; no such key
        return None
    return merged, len(particles)


def _goals(text: str, index: tuple[_Index, _Pairs], n_particles: int | None, p_floor: float) -> _Goals | str:
    """:func:`_match` on the first candidate that parses as JSON (a schema error is final), or why none does."""
    plain = _plain_match(text, index[1], n_particles, p_floor)  # the usual output: just the JSON object
    # Otherwise the candidates below, each read by the fast path (unless it is ``text``, just read)
    # and then by the validator.
    if plain is not None:
        return plain
    last_error = "no JSON object found"
    for candidate in json_candidates(text):
        if not candidate:
            continue
        plain = None if candidate == text else _plain_match(candidate, index[1], n_particles, p_floor)
        if plain is not None:
            return plain
        try:
            particles = _ADAPTER.validate_json(candidate).model_dump()["particles"]
        except ValidationError as err:
            first = err.errors()[0]
            if first["type"].startswith("json_"):
                last_error = f"invalid JSON: {first['msg']}"
                continue
            loc = ".".join(str(x) for x in first["loc"])
            return f"schema: {loc}: {first['msg']}"
        return _match(particles, index[0], n_particles, p_floor)
    return last_error


#: Object letters of the letter form: the k-th object of a scene is ``OBJECT_LETTERS[k]``.
OBJECT_LETTERS = string.ascii_uppercase
#: Separated by plain spaces only: ``\s`` would also take tabs, form feeds and the control
#: characters \x1c-\x1f, which a policy paid for its own entropy learned to write before every
#: answer (free varied spellings of one answer, docs/ssrl.md).
_PARTICLE = r" *([A-Z]) +([A-Z]) +(\d+(?:\.\d*)?|\.\d+) *"
_LETTER_FORM = re.compile(rf"{_PARTICLE}(?:;{_PARTICLE})*;? *")
_LETTER_PARTICLE = re.compile(_PARTICLE)
#: The one spelling :func:`format_letter_particles` writes (single spaces, two decimals): the
#: canonical letter form (``ParseResult.canonical``); the parser also reads looser spellings.
_CANONICAL_LETTERS = re.compile(r"[A-Z] [A-Z] \d\.\d\d(?: ; [A-Z] [A-Z] \d\.\d\d)*")


def _letter_goals(text: str, n_objects: int, n_particles: int | None, p_floor: float) -> _Goals | str:
    """:func:`_match` for the letter form (already known to match :data:`_LETTER_FORM`)."""
    particles = [m.groups() for m in _LETTER_PARTICLE.finditer(text)]
    if n_particles is not None and len(particles) != n_particles:
        return f"{len(particles)} particles, asked for {n_particles}"
    merged: dict[tuple[int, int], float] = {}
    for n, (a, b, p) in enumerate(particles):
        i, j = OBJECT_LETTERS.index(a), OBJECT_LETTERS.index(b)
        if max(i, j) >= n_objects:
            return f"particle {n}: unknown object {OBJECT_LETTERS[max(i, j)]}"
        if i == j:
            return f"particle {n}: object1 and object2 are the same object"
        if float(p) > 1:
            return f"particle {n}: p = {p} is above 1"
        pair = (i, j) if i < j else (j, i)
        merged[pair] = merged.get(pair, 0.0) + max(float(p), p_floor)
    return merged, len(particles)


def parse_goal_particles(
    text: object,
    objects: Sequence[tuple[str, str]],
    n_particles: int | None = None,
    p_floor: float = 1e-3,
) -> ParseResult:
    """Parse a model's goal particles (the JSON schema or the letter form) against the episode's
    objects ``[(color, shape), ...]``.

    Goals are returned as sorted object-index pairs ``(i, j)``, matching ``goal_pairs``.
    ``n_particles``: how many particles were asked for; another count is a failure (a model that
    writes one particle when asked for eight dodges the task, and under the SSRL reward a shorter
    answer is a safer one: fewer chances of an invalid particle).
    ``p_floor``: every particle keeps at least this probability before renormalising, so a
    hypothesis the model wrote down is never given exactly zero mass.
    """
    if not isinstance(text, str):
        return ParseResult(False, reason=f"not text: {type(text).__name__}")
    try:
        index = _object_index(objects)  # a tuple of (color, shape) tuples is its own cache key
    except TypeError:  # lists are not hashable
        index = _object_index(tuple(map(tuple, objects)))
    if _LETTER_FORM.fullmatch(text):
        found = _letter_goals(text, len(objects), n_particles, p_floor)
        canonical = _CANONICAL_LETTERS.fullmatch(text) is not None
    else:
        found = _goals(text, index, n_particles, p_floor)
        canonical = bare_json(text)
    if isinstance(found, str):
        return ParseResult(False, reason=found)
    weights, written = found
    try:
        hypotheses, probs = normalise_weights(weights)
    except ValueError:  # only reachable with p_floor = 0
        return ParseResult(False, reason="probabilities sum to 0")
    merged = written - len(hypotheses)
    notes = [f"merged {merged} duplicate pair(s)"] if merged else []
    return ParseResult(True, hypotheses, probs, None, written, merged, notes, entropy(probs), canonical)


def format_goal_particles(
    goals: Sequence[tuple[int, int]], probs: Sequence[float], objects: Sequence[tuple[str, str]], digits: int = 4
) -> str:
    """The JSON a model should write for these particles (inverse of :func:`parse_goal_particles`)."""
    particles = [
        GoalParticle(
            object1=Object(color=objects[i][0], shape=objects[i][1]),
            object2=Object(color=objects[j][0], shape=objects[j][1]),
            p=round(float(p), digits),
        )
        for (i, j), p in zip(goals, probs)
    ]
    return GoalParticles(particles=particles).model_dump_json()


def format_letter_particles(goals: Sequence[tuple[int, int]], probs: Sequence[float], digits: int = 2) -> str:
    """The letter form of these particles: ``A C 0.30 ; B C 0.70`` (objects by their prompt letter)."""
    return " ; ".join(
        f"{OBJECT_LETTERS[i]} {OBJECT_LETTERS[j]} {float(p):.{digits}f}" for (i, j), p in zip(goals, probs)
    )
