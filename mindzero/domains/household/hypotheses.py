"""Household goal particles in and out: paper Fig. 9's schema (task name, objects with counts,
target, p), a short word form for models trained from scratch, and a parser that never raises.

A particle names a goal of the episode's apartment (:func:`all_goals`): its task's target, and
object classes with counts that the task uses. Duplicate object types in a particle are added up;
duplicate goals are merged (probabilities summed); every p is floored before renormalising so a
goal the model wrote down never gets zero mass.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from enum import Enum

from pydantic import BaseModel, Field, ValidationError

from mindzero.core.errors import clip
from mindzero.core.parsing import ParseResult, bare_json, json_candidates
from mindzero.core.posterior import normalise_weights
from mindzero.core.reward import entropy
from mindzero.envs.household.apartment import Apartment
from mindzero.envs.household.episodes import TASKS, all_goals, templates
from mindzero.envs.household.world import Goal

TaskName = Enum("TaskName", {t: t for t in sorted(TASKS)}, type=str)
ObjectType = Enum("ObjectType", {c: c for c in sorted({c for _, _, pool in TASKS.values() for c in pool})}, type=str)
TargetType = Enum("TargetType", {t: t for t in sorted({target for target, _, _ in TASKS.values()})}, type=str)


class Object(BaseModel):
    type: ObjectType
    count: int = Field(ge=1)


class Target(BaseModel):
    type: TargetType


class GoalParticle(BaseModel):
    task_name: TaskName
    objects: list[Object] = Field(min_length=1)
    target: Target
    p: float = Field(ge=0, le=1, description="Probability of the goal proposal")


class GoalParticles(BaseModel):
    particles: list[GoalParticle]


#: The word form (prompt style ``facts``): ``kitchentable plate 2 waterglass 1 0.60 ; fridge apple 1
#: 0.40`` — per particle the target furniture, the object classes with counts, then p; the task is the
#: target's (each task has its own). Why the target and not the task name: it is how the prompt says
#: what was put where (``put kitchentable plate 2``), so a model can copy the evidence.
_WORD_PARTICLE = r" *[a-z_]+(?: +[a-z]+ +\d+)+ +(?:\d+(?:\.\d*)?|\.\d+) *"
_WORD_FORM = re.compile(rf"{_WORD_PARTICLE}(?:;{_WORD_PARTICLE})*;? *")
#: The one spelling :func:`format_household_particles` writes in the word form (``canonical``).
_CANONICAL_WORDS = re.compile(r"[a-z_]+(?: [a-z]+ \d)+ \d\.\d\d(?: ; [a-z_]+(?: [a-z]+ \d)+ \d\.\d\d)*")


def particle_form(style: str) -> str:
    """How answers to prompts of this style write particles: ``words`` for ``facts``, else ``json``."""
    return "words" if style == "facts" else "json"


#: Target furniture -> its task (one task per target).
TASK_OF_TARGET = {target: task for task, (target, _, _) in TASKS.items()}


def _word_particles(text: str) -> list[GoalParticle] | str:
    """The particles of a text in the word form (known to match it), or why they are not valid."""
    particles = []
    for k, part in enumerate(p for p in text.split(";") if p.strip()):
        target, *pairs, p = part.split()
        if target not in TASK_OF_TARGET:
            return f"particle {k}: {clip(target)} is no task's target ({', '.join(TASK_OF_TARGET)})"
        try:
            objects = [Object(type=c, count=int(n)) for c, n in zip(pairs[::2], pairs[1::2])]
            task = TASK_OF_TARGET[target]
            particles.append(GoalParticle(task_name=task, objects=objects, target=Target(type=target), p=p))
        except ValidationError as err:
            first = err.errors()[0]
            return f"particle {k}: {first['msg']}: {clip(str(first.get('input')))}"
    return particles


def particles_schema() -> str:
    """Compact JSON Schema of :class:`GoalParticles`, as embedded in the Fig. 9 prompt."""
    return json.dumps(GoalParticles.model_json_schema(), separators=(",", ":"))


def _goal(particle: GoalParticle, apartment: Apartment, space: frozenset) -> Goal | str:
    """The goal a particle names, or why it names none of this apartment."""
    task = particle.task_name.value
    template = next((t for t in templates(apartment) if t.task == task), None)
    if template is None:
        return f"task {task} does not fit apartment {apartment.name}"
    if apartment.furniture[template.target] != particle.target.type.value:
        target = apartment.furniture[template.target]
        return f"task {task} puts things at the {target}, not the {particle.target.type.value}"
    counts: dict[str, int] = {}
    for obj in particle.objects:
        counts[obj.type.value] = counts.get(obj.type.value, 0) + obj.count
    goal = (task, template.target, tuple(sorted(counts.items())))
    if goal not in space:
        return f"{task} with {dict(goal[2])} is not a goal of this apartment (classes, counts 1-3, 2-6 objects)"
    return goal


def parse_household_particles(
    text: object, apartment: Apartment, n_particles: int | None = None, p_floor: float = 1e-3
) -> ParseResult:
    """Parse a model's goal particles against the apartment's goal space (module docstring);
    ``n_particles``: how many were asked for (another count is a failure)."""
    if not isinstance(text, str):
        return ParseResult(False, reason=f"not text: {type(text).__name__}")
    if _WORD_FORM.fullmatch(text):
        particles = _word_particles(text)
        if isinstance(particles, str):
            return ParseResult(False, reason=particles)
        canonical = _CANONICAL_WORDS.fullmatch(text) is not None
    elif text.split()[:1] and text.split()[0] in TASK_OF_TARGET:  # meant as the word form
        return ParseResult(False, reason=f"not the word form 'target class count ... p ; ...': {clip(text)}")
    else:
        reason = "no JSON object found"
        for candidate in json_candidates(text):
            if not candidate:
                continue
            try:
                particles = GoalParticles.model_validate_json(candidate).particles
            except ValidationError as err:
                first = err.errors()[0]
                if first["type"].startswith("json_"):
                    reason = f"invalid JSON: {first['msg']}"
                    continue
                return ParseResult(False, reason=f"schema: {'.'.join(map(str, first['loc']))}: {first['msg']}")
            break
        else:
            return ParseResult(False, reason=reason)
        canonical = bare_json(text)
    if not particles:
        return ParseResult(False, reason="no particles")
    if n_particles is not None and len(particles) != n_particles:
        return ParseResult(False, reason=f"{len(particles)} particles, asked for {n_particles}")
    space = frozenset(all_goals(apartment))
    weights: dict[Goal, float] = {}
    for k, particle in enumerate(particles):
        goal = _goal(particle, apartment, space)
        if isinstance(goal, str):
            return ParseResult(False, reason=f"particle {k}: {goal}")
        weights[goal] = weights.get(goal, 0.0) + max(particle.p, p_floor)
    hypotheses, probs = normalise_weights(weights)
    merged = len(particles) - len(hypotheses)
    notes = [f"merged {merged} duplicate goal(s)"] if merged else []
    return ParseResult(True, hypotheses, probs, None, len(particles), merged, notes, entropy(probs), canonical)


def format_household_particles(
    goals: Sequence[Goal], probs: Sequence[float], apartment: Apartment, form: str = "json"
) -> str:
    """The text a model should write for these goals, in the JSON or the word form (inverse of
    :func:`parse_household_particles`)."""
    if form == "words":
        return " ; ".join(
            f"{apartment.furniture[target]} {' '.join(f'{c} {n}' for c, n in counts)} {float(p):.2f}"
            for (_, target, counts), p in zip(goals, probs)
        )
    particles = [
        {
            "task_name": task,
            "objects": [{"type": c, "count": n} for c, n in counts],
            "target": {"type": apartment.furniture[target]},
            "p": round(float(p), 2),
        }
        for (task, target, counts), p in zip(goals, probs)
    ]
    return json.dumps({"particles": particles}, separators=(",", ":"))
