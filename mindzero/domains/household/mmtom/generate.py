"""MMToM-style questions of our own, generated on the bundled Household apartments.

Why: a consistency test of the reader and the answerer (and training data that is not the
MMToM-QA test set). Each question is an apartment with objects placed at random among the places
their class may start at, a person whose goal class and belief bits are drawn from
:class:`~mindzero.domains.household.mmtom.model.MMToMModel`'s prior and who walks by that model's
search policy, written in MMToM-QA's style, with one of the seven question types; the label is the
model's answer on the *symbolic* state (not on the text), and questions whose posterior is within
``margin`` of ½ are skipped. The model reasoner reading the text back must then score 1.0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np

from mindzero.domains.household.mmtom.lexicon import display_name, lexicon
from mindzero.domains.household.mmtom.model import MMToMModel, answer, belief_prior, choice_weights
from mindzero.domains.household.mmtom.reader import Query, Reading, Scene, Story, Visit
from mindzero.envs.household.apartment import bundled_apartment

TYPES = ("1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "2.4")
NAMES = ("Alice", "Brian", "Chloe", "Derek", "Fiona", "Gavin", "Helen", "Isaac", "Julia", "Kevin")
ROOM_TEXT = {"bedroom": "bedroom", "kitchen": "kitchen", "livingroom": "living room", "bathroom": "bathroom"}
KIND_TEXT = {
    "fridge": "fridge",
    "microwave": "microwave",
    "stove": "stove",
    "dishwasher": "dishwasher",
    "bathroomcabinet": "bathroom cabinet",
    "cabinet": "cabinet",
    "kitchentable": "kitchen table",
    "coffeetable": "coffee table",
    "desk": "desk",
    "sofa": "sofa",
    "bookshelf": "bookshelf",
    "kitchencounter": "kitchen counter",
}
ORDINAL_TEXT = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
COUNT_TEXT = ("no", "a", "two", "three", "four", "five", "six", "seven", "eight")
PLURAL = {"bag of chips": "bags of chips", "bottle of wine": "bottles of wine", "wine glass": "wine glasses"}
PLURAL |= {"water glass": "water glasses"}
#: Display name of each object class (the reader's first name for it).
OBJECT_TEXT = {cls: display_name(cls) for cls in set(lexicon().objects.values())}


def make_scene(apartment: str, rng: np.random.Generator) -> Scene:
    """The apartment's furniture (TVs left out) and each object at a random one of its places."""
    apt = bundled_apartment(apartment)
    scene, ids = Scene(), []
    cabinets = 0
    for f, kind in enumerate(apt.furniture):
        room = apt.rooms[apt.furniture_room[f]]
        if kind == "tv":
            ids.append(None)
            continue
        index = None
        if kind == "kitchencabinet":
            cabinets += 1
            index = cabinets
        ids.append(scene.add_place(room, kind, index))
    for cls, mask in zip(apt.object_classes, apt.object_places):
        options = [ids[f] for f in range(apt.n_furniture) if mask >> f & 1 and ids[f] is not None]
        if options:
            scene.objects[options[int(rng.integers(len(options)))]][cls] += 1
    return scene


def _objects_text(counts: Counter) -> str:
    parts = []
    for cls, n in sorted(counts.items()):
        name = OBJECT_TEXT[cls]
        if n == 1:
            parts.append(("an " if name[0] in "aeiou" else "a ") + name)
        else:
            parts.append(f"{COUNT_TEXT[n]} {PLURAL.get(name, name + 's')}")
    if len(parts) <= 2:
        return " and ".join(parts)
    return ", ".join(parts[:-1]) + f", and {parts[-1]}"


def _there(counts: Counter) -> str:
    return "there is" if sum(counts.values()) == 1 else "there are"


def place_text(scene: Scene, pid: str) -> str:
    place = scene.places[pid]
    if place.kind == "kitchencabinet":
        return f"{ORDINAL_TEXT[int(pid.rsplit('/', 1)[1]) - 1]} kitchen cabinet"
    return KIND_TEXT[place.kind]


def scene_text(scene: Scene) -> str:
    rooms = [ROOM_TEXT[r] for r in scene.rooms]
    lines = [f"What's inside the apartment: The apartment consists of a {', '.join(rooms[:-1])}, and {rooms[-1]}."]
    for room in scene.rooms:
        pids = [p for p, place in scene.places.items() if place.room == room]
        kinds = Counter(scene.places[p].kind for p in pids)
        furniture = [
            f"{COUNT_TEXT[n]} cabinets" if k == "kitchencabinet" else "a " + KIND_TEXT[k] for k, n in kinds.items()
        ]
        listed = furniture[0] if len(furniture) == 1 else ", ".join(furniture[:-1]) + f", and {furniture[-1]}"
        sentences = [f"The {ROOM_TEXT[room]} is equipped with {listed}."]
        for pid in pids:
            place, counts = scene.places[pid], +scene.objects[pid]
            name = place_text(scene, pid)
            if counts and place.container:
                sentences.append(f"Inside the {name}, {_there(counts)} {_objects_text(counts)}.")
            elif counts:
                sentences.append(f"On the {name}, {_there(counts)} {_objects_text(counts)}.")
            elif place.container:
                sentences.append(f"The {name} is empty.")
        lines.append(" ".join(sentences))
    return " \n".join(lines) + " \n"


def story_text(scene: Scene, story: Story) -> str:
    person = story.person
    she = "She" if person in NAMES[::2] else "He"
    out = [f"Actions taken by {person}: {person} is situated in the {ROOM_TEXT[story.start]}."]
    cur = story.start
    for k, visit in enumerate(story.visits):
        last = k == len(story.visits) - 1
        if visit.place is None:
            out.append(f"{she} walks towards the {ROOM_TEXT[visit.room]}.")
            cur = visit.room
            continue
        head = f"{she} heads towards the {place_text(scene, visit.place)}"
        if visit.room != cur:
            head = (
                f"{she} proceeds to the {ROOM_TEXT[visit.room]} and heads towards the {place_text(scene, visit.place)}"
            )
        cur = visit.room
        if visit.opened:
            out.append(f"{head}, opens it, and then closes it.")
        elif last and scene.places[visit.place].container:
            out.append(f"{head} and is about to open it.")
        else:
            out.append(f"{head}.")
    return " ".join(out) + " \n"


def simulate(
    scene: Scene, goal: str, bits: np.ndarray, start: str, steps: int, model: MMToMModel, rng: np.random.Generator
) -> list[Visit]:
    """Walks of the model's searcher: a room choice, then (having seen its surfaces) a place choice;
    a container it reaches is opened unless it is the last walk; stops where it knows ``goal`` is."""
    ids = list(scene.places)
    room = np.array([scene.places[p].room for p in ids])
    container = np.array([scene.places[p].container for p in ids])
    truth = np.array([scene.holds(p, goal) for p in ids])
    seen = (room == start) & ~container
    cur, visits = start, []
    while len(visits) < steps:
        weights = choice_weights(np.where(seen, truth, bits)[None], room, cur, model.beta)[0]
        if rng.random() < model.epsilon or weights.sum() == 0:
            weights = np.ones(len(ids))
        t = int(rng.choice(len(ids), p=weights / weights.sum()))
        if room[t] != cur:
            cur = str(room[t])
            seen |= (room == cur) & ~container
            weights = choice_weights(np.where(seen, truth, bits)[None], room, cur, model.beta)[0]
            if weights.sum() == 0 or weights[room == cur].sum() == 0:
                visits.append(Visit(cur))
                continue
            here = weights * (room == cur)
            t = int(rng.choice(len(ids), p=here / here.sum()))
        if visits and visits[-1].place == ids[t]:
            continue  # a random walk back to where they stand: not a walk
        last = len(visits) == steps - 1 or bool(truth[t])
        opened = bool(container[t]) and not last
        visits.append(Visit(cur, ids[t], opened, opened))
        seen[t] |= opened
        if last:
            break
    return visits


def _query(kind: str, scene: Scene, story: Story, goal: str, rng: np.random.Generator) -> Query | None:
    """The question of a type, or None where this story cannot ask it."""
    nameable = [
        p
        for p, place in scene.places.items()
        if place.container and (place.kind != "cabinet" or sum(q.kind == "cabinet" for q in scene.places.values()) == 1)
    ]
    final = story.visits[-1].place if story.visits else None
    visited = {v.place for v in story.visits}
    others = sorted({c for counts in scene.objects.values() for c in +counts} - {goal})
    if kind in ("1.1", "1.2"):
        if final not in nameable or story.visits[-1].opened or scene.holds(final, goal) != (kind == "1.1"):
            return None
        return Query("belief", goal=goal, place=final, inside=int(rng.integers(2)))
    if kind == "1.3":
        rest = [p for p in nameable if p not in visited]
        return (
            Query("belief", goal=goal, place=rest[int(rng.integers(len(rest)))], inside=int(rng.integers(2)))
            if rest
            else None
        )
    if not others or final is None:
        return None
    other = others[int(rng.integers(len(others)))]
    if kind == "2.1":
        if final not in nameable:
            return None
        pair = (goal, other) if rng.integers(2) else (other, goal)
        return Query("goal", options=pair, given=(other, final))
    if kind == "2.4" and not any(v.place is None for v in story.visits):
        return None
    if kind == "2.3" and not any(v.opened for v in story.visits):
        return None
    if kind == "2.2" and scene.holds(final, goal):
        return None
    return Query("goal", options=(goal, other) if rng.integers(2) else (other, goal))


def query_text(scene: Scene, person: str, q: Query) -> str:
    end = " Please respond with either a or b."
    if q.kind == "belief":
        g, c = OBJECT_TEXT[q.goal], _question_place(scene, q.place)
        yes, no = (
            f"{person} thinks that the {g} is inside the {c}.",
            f"{person} thinks that the {g} is not inside the {c}.",
        )
        a, b = (yes, no) if q.inside == 0 else (no, yes)
        lead = f"If {person} has been trying to get {_article(g)}, which"
        return f"Question: {lead} one of the following statements is more likely to be true? (a) {a} (b) {b}{end}"
    lead = "Which"
    if q.given is not None:
        thing, where = _article(OBJECT_TEXT[q.given[0]]), _question_place(scene, q.given[1])
        lead = f"If {person} think there isn't {thing} inside the {where}, which"
    a, b = (f"{person} has been trying to get {_article(OBJECT_TEXT[g])}." for g in q.options)
    return f"Question: {lead} one of the following statements is more likely to be true? (a) {a} (b) {b}{end}"


def _article(name: str) -> str:
    return ("an " if name[0] in "aeiou" else "a ") + name


def _question_place(scene: Scene, pid: str) -> str:
    if scene.places[pid].kind == "kitchencabinet":
        n = int(pid.rsplit("/", 1)[1])
        return f"{n}{('st', 'nd', 'rd')[n - 1] if n <= 3 else 'th'} kitchen cabinet"
    return KIND_TEXT[scene.places[pid].kind]


def generate(
    apartments: tuple[str, ...], n: int, seed: int, model: MMToMModel, margin: float = 0.1, max_tries: int = 200
) -> Iterator[dict]:
    """``n`` questions per type (cycling through ``apartments``), each a benchmark-style row with
    ``question``, ``answer``, ``question_type`` and the ``label_posterior``."""
    rng = np.random.default_rng(seed)
    for kind in TYPES:
        made = 0
        for attempt in range(n * max_tries):
            if made == n:
                break
            scene = make_scene(apartments[attempt % len(apartments)], rng)
            present = sorted({c for counts in scene.objects.values() for c in +counts})
            goal = present[int(rng.integers(len(present)))]
            prior = belief_prior([place.kind for place in scene.places.values()], goal, model)
            bits = rng.random(len(scene.places)) < prior
            start = scene.rooms[int(rng.integers(len(scene.rooms)))]
            person = NAMES[int(rng.integers(len(NAMES)))]
            visits = simulate(scene, goal, bits, start, int(rng.integers(1, 6)), model, rng)
            story = Story(person, start, visits)
            query = _query(kind, scene, story, goal, rng) if visits else None
            if query is None:
                continue
            posterior = answer(Reading(scene, story, query, 0, []), model)
            p = posterior["option_probs"][0]
            if abs(p - 0.5) < margin:
                continue
            text = scene_text(scene) + story_text(scene, story) + query_text(scene, person, query)
            made += 1
            yield {
                "question": text,
                "answer": "a" if p > 0.5 else "b",
                "question_type": float(kind),
                "label_posterior": posterior,
            }
