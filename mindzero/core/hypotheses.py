"""Hypotheses in, hypotheses out: the goal-particle schema the model writes, and a parser that
never raises.

The schema (paper Fig. 7) is ``{"particles": [{"object1": {"color", "shape"}, "object2": {...},
"p": ...}]}``; its JSON Schema is embedded in prompts. :func:`parse_goal_particles` accepts strict
JSON, then a fenced block, then the outermost braces; validates against the episode's objects;
merges duplicate pairs (probabilities summed); floors and renormalises p. Every failure is data:
a :class:`ParseResult` with ``ok=False`` and a ``reason``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from mindzero.core.posterior import Posterior


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
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)


@dataclass(frozen=True)
class ParseResult:
    """Outcome of parsing one model output. ``posterior`` is None exactly when ``ok`` is False."""

    ok: bool
    posterior: Posterior | None = None
    reason: str | None = None
    n_particles: int = 0
    merged: int = 0  # duplicate pairs merged into one
    notes: list[str] = field(default_factory=list)


def _candidates(text: str) -> Iterator[str]:
    """Strings that may hold the JSON object, most literal first (computed lazily)."""
    yield text.strip()
    for match in _FENCE.findall(text):
        yield match.strip()
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        yield text[start : end + 1]


def _load(text: str) -> tuple[GoalParticles | None, str]:
    last_error = "no JSON object found"
    for candidate in _candidates(text):
        if not candidate:
            continue
        try:
            return _ADAPTER.validate_json(candidate), ""
        except ValidationError as err:
            first = err.errors()[0]
            if first["type"].startswith("json_"):
                last_error = f"invalid JSON: {first['msg']}"
            else:
                loc = ".".join(str(x) for x in first["loc"])
                return None, f"schema: {loc}: {first['msg']}"
    return None, last_error


def _key(color: str, shape: str) -> tuple[str, str]:
    return color.strip().lower(), shape.strip().lower()


@lru_cache(maxsize=1024)
def _object_index(objects: tuple[tuple[str, str], ...]) -> dict[tuple[str, str], int]:
    """Object index by (color, shape), both as given and normalised (case, spaces)."""
    index = {_key(c, s): i for i, (c, s) in enumerate(objects)}
    index.update({(c, s): i for i, (c, s) in enumerate(objects)})
    return index


def parse_goal_particles(
    text: object,
    objects: Sequence[tuple[str, str]],
    max_particles: int | None = None,
    p_floor: float = 1e-3,
) -> ParseResult:
    """Parse a model's goal particles against the episode's objects ``[(color, shape), ...]``.

    Goals are returned as sorted object-index pairs ``(i, j)``, matching ``goal_pairs``.
    ``p_floor``: every particle keeps at least this probability before renormalising, so a
    hypothesis the model wrote down is never given exactly zero mass.
    """
    if not isinstance(text, str):
        return ParseResult(False, reason=f"not text: {type(text).__name__}")
    parsed, error = _load(text)
    if parsed is None:
        return ParseResult(False, reason=error)
    if not parsed.particles:
        return ParseResult(False, reason="no particles")
    if max_particles is not None and len(parsed.particles) > max_particles:
        return ParseResult(False, reason=f"too many particles: {len(parsed.particles)} > {max_particles}")
    index = _object_index(tuple(tuple(o) for o in objects))
    goals, weights = [], []
    for n, particle in enumerate(parsed.particles):
        ids = []
        for obj in (particle.object1, particle.object2):
            k = index.get((obj.color, obj.shape))
            if k is None:
                k = index.get(_key(obj.color, obj.shape))
            if k is None:
                return ParseResult(False, reason=f"particle {n}: unknown object {obj.color} {obj.shape}")
            ids.append(k)
        if ids[0] == ids[1]:
            return ParseResult(False, reason=f"particle {n}: object1 and object2 are the same object")
        goals.append(tuple(sorted(ids)))
        weights.append(max(particle.p, p_floor))
    posterior = Posterior.from_weights(goals, weights)
    merged = len(goals) - len(posterior.hypotheses)
    notes = [f"merged {merged} duplicate pair(s)"] if merged else []
    return ParseResult(True, posterior, None, len(goals), merged, notes)


def format_goal_particles(
    goals: Sequence[tuple[int, int]], probs: Sequence[float], objects: Sequence[tuple[str, str]]
) -> str:
    """The JSON a model should write for these particles (inverse of :func:`parse_goal_particles`)."""
    particles = [
        GoalParticle(
            object1=Object(color=objects[i][0], shape=objects[i][1]),
            object2=Object(color=objects[j][0], shape=objects[j][1]),
            p=round(float(p), 4),
        )
        for (i, j), p in zip(goals, probs)
    ]
    return GoalParticles(particles=particles).model_dump_json()
