"""Household tasks and episodes: goals as predicate counts sampled from task templates, per
apartment and seed.

A goal puts 2–6 objects of 1–3 classes on or inside one target (paper Fig. 9: task name, objects
with counts, target). The same sampler is the prior proposal of SMC inference.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mindzero.core.errors import UserError, clip, plural
from mindzero.envs.household.apartment import (
    OBJECT_CLASSES,
    TEST_APARTMENTS,
    TRAIN_APARTMENTS,
    Apartment,
    bundled_apartment,
    load_apartment,
)
from mindzero.envs.household.world import Goal, State, World, goal_text

#: task name -> (target furniture class, room the target must be in or None, object classes it uses)
TASKS: dict[str, tuple[str, str | None, tuple[str, ...]]] = {
    "setup_table": ("kitchentable", None, ("plate", "cutleryfork", "waterglass", "wineglass")),
    "put_dishwasher": ("dishwasher", None, ("plate", "cutleryfork", "waterglass", "wineglass", "dishbowl")),
    "put_fridge": ("fridge", None, ("apple", "pudding", "salmon", "cupcake", "condimentbottle")),
    "prepare_food": ("stove", None, ("salmon", "cupcake", "apple", "pudding")),
    "watch_tv": ("coffeetable", "livingroom", ("remotecontrol", "chips", "condimentbottle", "waterglass")),
}
MIN_OBJECTS, MAX_OBJECTS, MAX_CLASSES, MAX_PER_CLASS = 2, 6, 3, 3


@dataclass(frozen=True)
class Template:
    """A task as this apartment can hold it: its target and the classes (with counts) it may use."""

    task: str
    target: int
    classes: tuple[tuple[str, int], ...]


@lru_cache(maxsize=32)
def templates(apartment: Apartment) -> tuple[Template, ...]:
    """The tasks this apartment supports (a unique target, ≥ 2 usable objects)."""
    out = []
    counts = {c: apartment.object_classes.count(c) for c in set(apartment.object_classes)}
    for task, (target_class, room, pool) in TASKS.items():
        targets = apartment.find(target_class, room)
        classes = tuple((c, min(counts[c], MAX_PER_CLASS)) for c in pool if counts.get(c))
        if len(targets) == 1 and sum(n for _, n in classes) >= MIN_OBJECTS:
            out.append(Template(task, targets[0], classes))
    return tuple(out)


def sample_goal(apartment: Apartment, rng: np.random.Generator, template: Template | None = None) -> Goal:
    """A goal from a task template (uniform over the apartment's tasks unless given): 1–3 classes,
    1–3 objects each, 2–6 in all."""
    options = templates(apartment)
    if not options:
        raise UserError(f"apartment {apartment.name}: no task fits it (needs a unique target and its objects)")
    template = template or options[int(rng.integers(len(options)))]
    while True:
        k = int(rng.integers(1, min(MAX_CLASSES, len(template.classes)) + 1))
        picked = rng.choice(len(template.classes), size=k, replace=False)
        counts = tuple(
            sorted((template.classes[i][0], int(rng.integers(1, template.classes[i][1] + 1))) for i in picked)
        )
        if MIN_OBJECTS <= sum(n for _, n in counts) <= MAX_OBJECTS:
            return template.task, template.target, counts


@lru_cache(maxsize=32)
def all_goals(apartment: Apartment) -> tuple[Goal, ...]:
    """Every goal :func:`sample_goal` can draw in this apartment (a few hundred): the hypothesis
    space of exact inference and of the SSRL reward."""
    goals = []
    for t in templates(apartment):
        for k in range(1, min(MAX_CLASSES, len(t.classes)) + 1):
            for combo in itertools.combinations(sorted(t.classes), k):
                for counts in itertools.product(*(range(1, m + 1) for _, m in combo)):
                    if MIN_OBJECTS <= sum(counts) <= MAX_OBJECTS:
                        goals.append((t.task, t.target, tuple((c, n) for (c, _), n in zip(combo, counts))))
    return tuple(goals)


def check_goal(world: World, goal: Goal) -> None:
    """One-line :class:`UserError` for a goal this apartment cannot reach."""
    task, target, counts = goal
    if task not in TASKS or not 0 <= target < world.F:
        raise UserError(f"impossible goal {goal!r}: unknown task or target")
    if not (world.surface[target] or world.container[target]):
        raise UserError(f"impossible goal: nothing can be put on or inside the {world.apartment.furniture[target]}")
    for cls, n in counts:
        have = len(world.class_objects.get(cls, ()))
        if n < 1:
            raise UserError(
                f"impossible goal {goal_text(world, goal)}: a count must be at least 1, got {n} {plural(cls, n)}"
            )
        if n > have:
            things = "no" if have == 0 else have
            raise UserError(
                f"impossible goal {goal_text(world, goal)}: {world.apartment.name} has {things} {plural(cls, have)}"
            )


@dataclass(frozen=True)
class Episode:
    """One assistance episode: an apartment, the human's hidden goal and the initial state."""

    episode_id: str
    apartment: Apartment
    goal: Goal
    start: tuple[int, ...]

    def initial_state(self) -> State:
        return list(self.start)


@lru_cache(maxsize=32)
def world_of(apartment: Apartment) -> World:
    """The :class:`World` of an apartment (built once)."""
    return World(apartment)


def make_episode(apartment: Apartment, seed: int, goal: Goal | None = None) -> Episode:
    """An episode drawn from ``seed``: each object on or in a random one of its possible places,
    both agents at random room centres, and a goal (sampled unless given) that is not already met
    for any of its classes. Same apartment and seed, same episode."""
    world = world_of(apartment)
    rng = np.random.default_rng([seed, 15])
    locations = []
    for mask in apartment.object_places:
        places = [f for f in range(world.F) if mask >> f & 1]
        locations.append(places[int(rng.integers(len(places)))])
    rooms = len(apartment.rooms)
    human = apartment.node_cell[world.F + int(rng.integers(rooms))]
    helper = apartment.node_cell[world.F + int(rng.integers(rooms))]
    state = world.initial_state(human, helper, locations)
    if goal is not None:
        check_goal(world, goal)
    for _ in range(1000):
        candidate = goal or sample_goal(apartment, rng)
        placed = world.placed(state, candidate)
        if all(placed[c] < n for c, n in candidate[2]):
            return Episode(f"{apartment.name}-s{seed}", apartment, candidate, tuple(state))
        if goal is not None:
            raise UserError(f"impossible goal {goal_text(world, goal)}: already met at the start of seed {seed}")
    raise UserError(f"apartment {apartment.name}: no unmet goal found for seed {seed}")


def split_episodes(names: tuple[str, ...], n: int, seed: int) -> list[Episode]:
    """``n`` episodes per apartment, seeds ``seed``, ``seed + 1``, …"""
    return [make_episode(bundled_apartment(name), seed + k) for name in names for k in range(n)]


_PREDICATE = r"\s*(on|inside)\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*:\s*(\d+)\s*"


def parse_goal(text: str, apartment: Apartment) -> Goal:
    """A goal from predicate counts, ``on(plate, kitchentable): 2, on(cutleryfork, kitchentable): 1``
    (one target, as every task has); a one-line :class:`UserError` for text that is not one, an
    unknown object class, or a goal the apartment cannot reach."""
    if not re.fullmatch(f"{_PREDICATE}(,{_PREDICATE})*", text):
        raise UserError(f"goal {clip(text)!r} is not predicate counts like 'on(plate, kitchentable): 2'")
    matches = re.findall(_PREDICATE, text)
    targets = {m[2] for m in matches}
    if len(targets) != 1:
        raise UserError(f"goal {clip(text)!r} names several targets ({', '.join(sorted(targets))}); a task has one")
    counts: dict[str, int] = {}
    for _, cls, _, n in matches:
        if cls not in OBJECT_CLASSES:
            raise UserError(f"goal {clip(text)!r}: unknown object class {cls!r}")
        counts[cls] = counts.get(cls, 0) + int(n)
    target_class = targets.pop()
    fitting = [t for t in templates(apartment) if apartment.furniture[t.target] == target_class]
    if not fitting:
        raise UserError(f"impossible goal {clip(text)!r}: no task of {apartment.name} puts things at a {target_class}")
    template = fitting[0]
    goal = (template.task, template.target, tuple(sorted(counts.items())))
    check_goal(world_of(apartment), goal)
    return goal


#: Tick limit of a Household episode (the human alone or helped; ``household assist --max-steps``).
EPISODE_TICKS = 250
#: The bundled apartments by split: train on five, test on two.
SPLITS = {"train": TRAIN_APARTMENTS, "test": TEST_APARTMENTS}


def benchmark_episodes(
    split: str = "test",
    episodes: int = 10,
    episode_seed: int = 0,
    apartment: str | None = None,
    goal: str | None = None,
) -> list[Episode]:
    """The episodes of ``household assist`` (and of the browser app, which replays them):
    ``episodes`` per apartment — the ``apartment`` file, else the split's bundled ones — from
    seed ``episode_seed`` on, every one with the fixed ``goal`` if given."""
    apartments = [load_apartment(apartment)] if apartment else [bundled_apartment(n) for n in SPLITS[split]]
    out = []
    for apt in apartments:
        fixed = parse_goal(goal, apt) if goal else None
        out += [make_episode(apt, episode_seed + k, fixed) for k in range(episodes)]
    return out
