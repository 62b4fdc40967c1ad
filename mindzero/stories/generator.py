"""Hi-ToM-style story generator whose answers and per-line labels come from the DEL engine.

Follows the Hi-ToM generator's recipe: 5 agents, 3 rooms with 5 containers each (15 containers,
all offered as choices), chapters of 5, 3 and 4 agents (a story of length n uses the first n), each
agent in turn moves the chapter's object or stays and then leaves; everyone then meets in the
waiting room where, in "Tell" stories, the chapter's communication form happens. Distractor lines
are inserted before any line with probability ``noise``. The question object is the first
chapter's object; one question per order 0–4. ``mode="multiroom"`` drops the chapters: agents walk
between rooms one by one (:func:`generate_multiroom_story`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import permutations

from tqdm import tqdm

from mindzero.stories.events import Question
from mindzero.stories.semantics import WAITING_ROOM, StorySimulator, StoryWorld
from mindzero.stories.templates import (
    DISTRACTOR_KINDS,
    ROOMS,
    Distractor,
    Enter,
    Event,
    Exit,
    IsIn,
    Move,
    ObjectAt,
    PrivateTell,
    PublicClaim,
    Stay,
)

NAMES = (
    "Abigail",
    "Aiden",
    "Alexander",
    "Amelia",
    "Aria",
    "Ava",
    "Avery",
    "Benjamin",
    "Carter",
    "Charlotte",
    "Chloe",
    "Elizabeth",
    "Ella",
    "Emily",
    "Emma",
    "Ethan",
    "Evelyn",
    "Hannah",
    "Isabella",
    "Isla",
    "Jack",
    "Jackson",
    "Jacob",
    "Lily",
    "Liam",
    "Logan",
    "Lucas",
    "Mason",
    "Mia",
    "Mila",
    "Nathan",
    "Noah",
    "Olivia",
    "Owen",
    "Sophia",
    "William",
)
OBJECTS = (
    "apple",
    "asparagus",
    "banana",
    "beans",
    "broccoli",
    "cabbage",
    "carrot",
    "celery",
    "cherry",
    "corn",
    "cucumber",
    "eggplant",
    "grapefruit",
    "grapes",
    "lemon",
    "lettuce",
    "lime",
    "melon",
    "onion",
    "orange",
    "peach",
    "pear",
    "peas",
    "persimmon",
    "pineapple",
    "plum",
    "potato",
    "pumpkin",
    "radish",
    "spinach",
    "strawberry",
    "sweet_potato",
    "tangerine",
    "tomato",
    "turnip",
    "watermelon",
)
CONTAINER_KINDS = (
    "basket",
    "bathtub",
    "bottle",
    "box",
    "bucket",
    "container",
    "crate",
    "cupboard",
    "drawer",
    "envelope",
    "pantry",
    "suitcase",
    "treasure_chest",
)
CONTAINERS = tuple(f"{c}_{k}" for c in ("red", "green", "blue") for k in CONTAINER_KINDS)
ANIMALS = ("cat", "dog", "monkey", "mouse")
ITEMS = ("watch", "gloves", "phone")

#: Story modes: Hi-ToM's chapters, or free movement between rooms (``generate_multiroom_story``).
MODES = ("hitom", "multiroom")
#: (agents in the chapter, whether a "Tell" story communicates after it), per story length.
CHAPTER_PLAN = {1: ((5, True),), 2: ((5, False), (3, True)), 3: ((5, True), (3, False), (4, True))}
MAX_ORDER = 4


@dataclass
class GeneratedStory:
    """A story with its questions, gold answers and per-line belief labels (engine output)."""

    story_id: int
    length: int
    tell: bool
    agents: tuple[str, ...]
    containers: tuple[str, ...]
    events: list[Event]
    questions: list[Question]
    answers: list[str | None] = field(default_factory=list)
    #: labels[q][i] = belief of question q's chain after line i + 1 (None = not yet known)
    labels: list[list[str | None]] = field(default_factory=list)
    max_worlds: int = 1

    @property
    def lines(self) -> list[str]:
        return [e.render() for e in self.events]

    def story_text(self) -> str:
        return "\n".join(f"{i} {line}" for i, line in enumerate(self.lines, start=1))

    def choices_text(self) -> str:
        return ", ".join(f"{chr(65 + i)}. {c}" for i, c in enumerate(self.containers))


def _chapter(
    rng: random.Random,
    agents: list[str],
    everyone: Sequence[str],
    room: str,
    obj: str,
    location: dict[str, str],
    room_containers: Sequence[str],
    tell: bool,
) -> list[Event]:
    """One chapter: enter, state location, each agent moves or stays then exits, communication."""
    k = len(agents)
    start = location[obj]
    targets = [start, *rng.sample([c for c in room_containers if c != start], k - 1)]
    out: list[Event] = [Enter(tuple(agents), room), ObjectAt(obj, start)]
    for i, agent in enumerate(agents):
        if rng.random() < 0.5:
            dest = targets[(i + 1) % k]
            out.append(Move(agent, obj, dest))
            location[obj] = dest
        else:
            out.append(Stay(agent, room))
        out.append(Exit(agent, room))
    out.append(Enter(tuple(agents), WAITING_ROOM))
    if tell:
        out.extend(_communication(rng, agents, everyone, obj, location[obj], room_containers))
    return out


def _communication(
    rng: random.Random, a: list[str], everyone: Sequence[str], obj: str, truth: str, room_containers: Sequence[str]
) -> list[Event]:
    """Hi-ToM's communication forms for chapters of 3, 4 and 5 agents (a[i] exited i-th)."""
    c0, c1 = rng.sample(list(room_containers), 2)
    outsiders = [x for x in everyone if x not in a]
    k = len(a)
    if k == 5:
        form = rng.randrange(3)
        if form == 0:
            return [PublicClaim(a[2], obj, c0), PrivateTell(a[4], a[2], obj, c1)]
        if form == 1:
            return [PublicClaim(a[3], obj, c0), PrivateTell(a[4], a[0], obj, truth)]
        return [PrivateTell(a[2], a[0], obj, c0), PrivateTell(a[1], a[3], obj, c1)]
    form = rng.randrange(4) if outsiders else rng.randrange(2)
    last = a[-1]
    if form == 0:
        return [PublicClaim(a[1], obj, c0), PrivateTell(last, a[2] if k == 4 else a[1], obj, c1)]
    if form == 1:
        return [PublicClaim(a[2], obj, c0), PrivateTell(a[0], last, obj, c1)]
    if form == 2:
        return [PublicClaim(a[0], obj, c0), PrivateTell(last, rng.choice(outsiders), obj, truth)]
    return [PrivateTell(a[1], a[2], obj, c0), PrivateTell(last, rng.choice(outsiders), obj, truth)]


def _with_distractors(
    rng: random.Random, events: list[Event], agents, containers, objects, noise: float
) -> list[Event]:
    out: list[Event] = []
    for event in events:
        if rng.random() < noise:
            kind = rng.choice(DISTRACTOR_KINDS[:4])  # Hi-ToM's own four
            thing = {
                "saw a": ANIMALS,
                "lost his": ITEMS,
                "likes the": containers,
                "dislikes the": objects,
            }[kind]
            out.append(Distractor(rng.choice(agents), kind, rng.choice(thing)))
        out.append(event)
    return out


def generate_story(
    rng: random.Random, story_id: int, length: int, tell: bool, noise: float = 0.1, semantics: str = "hitom"
) -> GeneratedStory:
    """One story with one question per order 0–4, answered and labelled line by line by the engine."""
    if length not in CHAPTER_PLAN:
        raise ValueError(f"story length must be 1-3, got {length}")
    agents = rng.sample(NAMES, 5)
    rooms = rng.sample(ROOMS, 3)
    containers = rng.sample(CONTAINERS, 15)
    objects = rng.sample(OBJECTS, 6)
    room_of = {c: rooms[i // 5] for i, c in enumerate(containers)}
    location = {o: containers[(i % 3) * 5 + i // 3] for i, o in enumerate(objects)}  # 2 per room
    events: list[Event] = []
    question_obj = None
    for n_agents, chapter_tell in CHAPTER_PLAN[length]:
        room = rng.choice(rooms)
        here = [o for o in objects if room_of[location[o]] == room]
        obj = rng.choice(here)
        question_obj = question_obj or obj
        order = rng.sample(agents, 5)[:n_agents]
        room_containers = [c for c in containers if room_of[c] == room]
        events += _chapter(rng, order, agents, room, obj, location, room_containers, tell and chapter_tell)
    events = _with_distractors(rng, events, agents, containers, objects, noise)
    questions = [Question(tuple(rng.sample(agents, k)), question_obj) for k in range(MAX_ORDER + 1)]
    story = GeneratedStory(story_id, length, tell, tuple(agents), tuple(containers), events, questions)
    label_story(story, semantics)
    return story


def generate_multiroom_story(
    rng: random.Random, story_id: int, noise: float = 0.1, semantics: str = "hitom"
) -> GeneratedStory:
    """A story without chapters: 4 agents walk in and out of 2-3 rooms one at a time or in pairs
    (re-entering, going from room to room), two objects are stated and moved in their rooms, and
    distractors (preferences among them) are mixed in; one question per order 0-4 about an object.

    No communication: every belief comes from who was in which room at which line.
    """
    agents = rng.sample(NAMES, 4)
    rooms = rng.sample(ROOMS, rng.choice((2, 3)))
    containers = rng.sample(CONTAINERS, 3 * len(rooms))
    per_room = {r: containers[3 * i : 3 * i + 3] for i, r in enumerate(rooms)}
    objects = rng.sample(OBJECTS, 2)
    world = StoryWorld(agents)
    events: list[Event] = []

    def add(event: Event) -> None:
        world.apply(event)
        events.append(event)

    def newcomer(agent: str) -> bool:
        return not any(agent in visits for visits in world.left_at.values())

    for _ in range(rng.randint(12, 20)):
        inside = [a for a in agents if a in world.room_of]
        stated = [o for o in objects if o in world.location]
        unstated = [o for o in objects if o not in world.location]
        moves = [(a, o) for a in inside for o in stated if world.obj_room(o) == world.room_of[a]]
        options = ["enter"] * 3 + ["exit"] * 2 * bool(inside) + ["state"] * 2 * bool(unstated and world.last_entered)
        options += ["move"] * 3 * bool(moves)
        if rng.random() < noise:
            kind = rng.choice(DISTRACTOR_KINDS)
            things = {"saw a": ANIMALS, "lost his": ITEMS}.get(kind, objects)
            add(Distractor(rng.choice(agents), kind, rng.choice(things)))
        choice = rng.choice(options)
        if choice == "enter":
            room = rng.choice(rooms)
            outside = [a for a in agents if world.room_of.get(a) != room]
            if not outside:
                continue
            pool = [a for a in outside if newcomer(a)] or outside
            group = tuple(rng.sample(pool, min(len(pool), rng.choice((1, 1, 2)))))
            add(IsIn(group[0], room) if len(group) == 1 and rng.random() < 0.2 else Enter(group, room))
        elif choice == "exit":
            agent = rng.choice(inside)
            add(Exit(agent, world.room_of[agent]))
        elif choice == "state":
            add(ObjectAt(unstated[0], rng.choice(per_room[world.last_entered])))
        else:
            agent, obj = rng.choice(moves)
            here = [c for c in per_room[world.room_of[agent]] if c != world.location[obj]]
            add(Move(agent, obj, rng.choice(here)))
    for a in filter(newcomer, agents):  # every agent is in the story
        add(IsIn(a, rng.choice(rooms)))
    for o in objects:
        if o not in world.location:  # every object's place is stated, in the room entered last
            add(ObjectAt(o, rng.choice(per_room[world.last_entered])))
    obj = rng.choice(objects)
    sim = StorySimulator(agents, semantics, events)
    for event in events:
        sim.step(event)
    questions = []
    for k in range(MAX_ORDER + 1):  # a chain with a belief where there is one: "unknown" is no choice
        chains = list(permutations(agents, k))
        known = [c for c in chains if sim.belief(c, obj) is not None]
        questions.append(Question(rng.choice(known or chains), obj))
    story = GeneratedStory(story_id, len(rooms), False, tuple(agents), tuple(containers), events, questions)
    label_story(story, semantics)
    return story


def label_story(story: GeneratedStory, semantics: str = "hitom") -> None:
    """Run the engine over the story; fill per-line labels and answers for every question."""
    sim = StorySimulator(story.agents, semantics, story.events)
    labels: list[list[str | None]] = [[] for _ in story.questions]
    for event in story.events:
        changed = sim.step(event)
        for q, row in zip(story.questions, labels):
            row.append(sim.belief(q.chain, q.obj) if changed or not row else row[-1])
    story.labels = labels
    story.answers = [row[-1] for row in labels]
    story.max_worlds = sim.max_worlds


def generate_stories(
    n: int,
    seed: int,
    lengths: Sequence[int] = (1, 2, 3),
    noise: float = 0.1,
    semantics: str = "hitom",
    progress: bool = False,
    start: int = 0,
    mode: str = "hitom",
):
    """Yield stories ``start`` to ``n - 1``; lengths cycle through ``lengths`` and Tell/No_Tell alternate
    (``mode="multiroom"``: :func:`generate_multiroom_story`, ``lengths`` unused).

    Deterministic: story i depends only on (seed, i), so any part of a run is reproducible (a
    resumed run starts at ``start``).
    """
    stories = range(start, n)
    for i in tqdm(stories, desc="stories", unit="story", initial=start, total=n, disable=not progress, mininterval=1.0):
        rng = random.Random(f"{seed}:{i}")
        if mode == "multiroom":
            yield generate_multiroom_story(rng, i, noise, semantics)
            continue
        length = lengths[i % len(lengths)]
        tell = (i // len(lengths)) % 2 == 0
        yield generate_story(rng, i, length, tell, noise, semantics)
