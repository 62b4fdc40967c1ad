"""Household in the browser: the person's contextual actions, why an impossible one is refused, and
the state as the person sees it (paper Fig. 10: the room, the furniture and objects in view with
their relations and open/closed states, holdings, goal progress, the helper).

Action names are the verb and its arguments: ``noop``, ``walk kitchen`` (a room), ``walk f3`` (a
piece of furniture), ``open f3``, ``close f3``, ``switchon f3``, ``grab o7``, ``putback o7 f3``
(on a surface), ``putin o7 f3`` (inside an open container); ``f<k>`` and ``o<k>`` index the
apartment's furniture and objects. A name that is none of these is :class:`UnknownAction` (400);
a well-formed action whose VirtualHome preconditions fail is :class:`BadMove` (409), with the
reason. The person sees what the simulated human sees (its room's furniture, the objects there not
inside a closed container, what agents there hold); the whole plan, the helper and the goal's
progress are always shown.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from mindzero.core.results import to_jsonable
from mindzero.envs.household.episodes import Episode, benchmark_episodes, world_of
from mindzero.envs.household.render import AGENT_RGB, LABELS, ROOM_RGB
from mindzero.envs.household.world import (
    CLOSE,
    GRAB,
    HELPER,
    HUMAN,
    LOC,
    NOOP,
    OPEN,
    OPENED,
    POS,
    PUTIN,
    PUTON,
    SWITCHED,
    SWITCHON,
    VERBS,
    WALK,
    Action,
    Goal,
    State,
    World,
)
from mindzero.web.games import VIEWS, BadMove, UnknownAction

#: Button groups, in the order the page shows them.
GROUPS = ("here", "this room", "rooms", "elsewhere", "wait")
#: Words of the verbs acting on one piece of furniture.
WORDS = {OPEN: "open", CLOSE: "close", SWITCHON: "switch on"}
#: Arguments of each verb: ``f`` furniture, ``o`` object, ``n`` a walk target (room or furniture).
ARGS = {NOOP: "", WALK: "n", OPEN: "f", CLOSE: "f", SWITCHON: "f", GRAB: "o", PUTON: "of", PUTIN: "of"}


def furniture_names(world: World) -> list[str]:
    """Furniture in words, numbered where a class repeats (``cabinet 1``, ``cabinet 2``)."""
    classes = world.apartment.furniture
    seen: dict[str, int] = {}
    names = []
    for c in classes:
        seen[c] = seen.get(c, 0) + 1
        names.append(f"{c} {seen[c]}" if classes.count(c) > 1 else c)
    return names


def object_names(world: World) -> list[str]:
    """Objects in words, numbered within their class (``plate 1``, ``plate 2``)."""
    seen: dict[str, int] = {}
    names = []
    for c in world.apartment.object_classes:
        seen[c] = seen.get(c, 0) + 1
        names.append(f"{c} {seen[c]}")
    return names


def _index(arg: str, prefix: str, limit: int) -> int | None:
    """``k`` of an argument ``<prefix><k>`` with ``k`` in [0, limit) written plainly, else None."""
    digits = arg[len(prefix) :] if arg.startswith(prefix) else ""
    plain = digits.isascii() and digits.isdigit() and str(int(digits)) == digits
    return int(digits) if plain and int(digits) < limit else None


def refusal(world: World, state: State, action: Action) -> str:
    """Why ``action`` is impossible for the person now (it fails :meth:`World.valid`)."""
    verb, x, y = action
    pos = state[POS + HUMAN]
    furniture, objects = furniture_names(world), object_names(world)
    if verb == WALK:
        return f"you are already at the {world.apartment.node_name(x) if x >= world.F else furniture[x]}"
    if verb in (PUTON, PUTIN) and x not in world.holding(state, HUMAN):
        return f"you are not holding the {objects[x]}"
    target = y if verb in (PUTON, PUTIN) else x
    if verb != GRAB and world.fcell[target] != pos:
        return f"you are not at the {furniture[target]}: walk to it first"
    is_open = bool(state[OPENED] >> target & 1)
    if verb in (OPEN, CLOSE) and not world.container[x]:
        return f"the {furniture[x]} does not open or close"
    if verb in (OPEN, CLOSE):
        return f"the {furniture[x]} is already {'open' if is_open else 'closed'}"
    if verb == SWITCHON:
        if not world.switch[x]:
            return f"the {furniture[x]} cannot be switched on"
        return f"close the {furniture[x]} first" if is_open else f"the {furniture[x]} is already on"
    if verb == GRAB:
        if len(world.holding(state, HUMAN)) == 2:
            return "both your hands are full: put something down first"
        if state[LOC + x] == -1:
            return f"you already hold the {objects[x]}"
        return f"the {objects[x]} is not within your reach here"  # where it is may be hidden from the person
    if verb == PUTON:
        return f"the {furniture[y]} is not a surface: put things inside it"
    if not world.container[y]:
        return f"nothing goes inside the {furniture[y]}: put things on it"
    return f"the {furniture[y]} is closed: open it first"


class HouseholdView:
    """:class:`~mindzero.web.games.GameView` of Household (module docstring)."""

    domain = "household"
    actions = VERBS

    def episodes(self, run_config: dict) -> Sequence[Episode]:
        """As ``household assist`` makes them: ``episodes`` per apartment (``apartment`` file, else
        the ``split``'s bundled ones) from seed ``episode_seed``, with a fixed ``goal`` if given."""
        keys = ("split", "episodes", "episode_seed", "apartment", "goal")
        return benchmark_episodes(**{k: run_config[k] for k in keys if k in run_config})

    def action(self, episode: Episode, state: State, name: str) -> Action:
        world = world_of(episode.apartment)
        action = self._parse(world, name)
        if not world.valid(state, HUMAN, action):
            raise BadMove(refusal(world, state, action))
        return action

    def _parse(self, world: World, name: str) -> Action:
        verb, *args = name.split(" ")
        if verb not in VERBS or len(args) != len(ARGS[VERBS.index(verb)]):
            forms = "noop, walk ROOM|f<k>, open|close|switchon f<k>, grab o<k>, putback|putin o<k> f<k>"
            raise UnknownAction(f"unknown action {name[:80]!r}; actions are {forms}")
        code, values = VERBS.index(verb), []
        for kind, arg in zip(ARGS[VERBS.index(verb)], args):
            if kind == "n" and arg in world.apartment.rooms:
                values.append(world.F + world.apartment.rooms.index(arg))
                continue
            index = _index(arg, "o", world.n) if kind == "o" else _index(arg, "f", world.F)
            if index is None:
                what = "object" if kind == "o" else "room or furniture" if kind == "n" else "furniture"
                raise UnknownAction(f"{arg[:40]!r} in {name[:80]!r} is no {what} of this apartment")
            values.append(index)
        return (code, *values, *[0] * (2 - len(values)))  # type: ignore[return-value]

    def action_name(self, episode: Episode, action: Action) -> str:
        verb, x, y = action
        args = []
        for kind, value in zip(ARGS[verb], (x, y)):
            if kind == "n" and value >= episode.apartment.n_furniture:
                args.append(episode.apartment.node_name(value))
            else:
                args.append(f"{'o' if kind == 'o' else 'f'}{value}")
        return " ".join([VERBS[verb], *args])

    def choices(self, episode: Episode, state: State) -> list[dict]:
        """Every action the person can take now, as labelled buttons grouped by :data:`GROUPS`."""
        world = world_of(episode.apartment)
        furniture, objects = furniture_names(world), object_names(world)
        room = world.room_of(state, HUMAN)
        out = []
        for action in world.valid_actions(state, HUMAN):
            verb, x, y = action
            if verb == NOOP:
                group, label = "wait", "wait"
            elif verb == WALK and x >= world.F:
                group, label = "rooms", f"go to the {world.apartment.node_name(x)}"
            elif verb == WALK:
                group = "this room" if world.apartment.furniture_room[x] == room else "elsewhere"
                label = f"walk to the {furniture[x]}"
            elif verb == GRAB:
                group, label = "here", f"grab the {objects[x]}"
            elif verb in (PUTON, PUTIN):
                group, label = "here", f"put the {objects[x]} {'on' if verb == PUTON else 'inside'} the {furniture[y]}"
            else:
                group, label = (
                    "here",
                    f"{ {OPEN: 'open', CLOSE: 'close', SWITCHON: 'switch on'}[verb] } the {furniture[x]}",
                )
            out.append({"action": self.action_name(episode, action), "label": label, "group": group})
        return sorted(out, key=lambda c: GROUPS.index(c["group"]))

    def state_json(self, episode: Episode, state: State) -> dict:
        apt = episode.apartment
        world = world_of(apt)
        furniture, objects = furniture_names(world), object_names(world)
        room = world.room_of(state, HUMAN)
        _, seen = world.visible(state, HUMAN)
        holder = {-1: "human", -2: "helper"}

        def place(o: int) -> dict:
            loc = state[LOC + o]
            if loc < 0:
                return {"relation": "held", "place": None, "held_by": holder[loc]}
            return {"relation": "on" if world.surface[loc] else "inside", "place": f"f{loc}", "held_by": None}

        def agent(a: int) -> dict:
            near = world.close_to(state, a)
            return {
                "cell": list(apt.cells[state[POS + a]]),
                "room": apt.rooms[world.room_of(state, a)],
                "near": f"f{near}" if near >= 0 else None,
                "holding": [objects[o] for o in world.holding(state, a)],
                "rgb": list(AGENT_RGB[a]),
            }

        def furniture_json(f: int) -> dict:
            in_view = apt.furniture_room[f] == room
            kind = "container" if world.container[f] else "surface" if world.surface[f] else "switch"
            return {
                "id": f"f{f}",
                "name": furniture[f],
                "short": LABELS.get(apt.furniture[f], apt.furniture[f]),
                "kind": kind,
                "cell": list(apt.cells[apt.furniture_cell[f]]),
                "room": apt.rooms[apt.furniture_room[f]],
                "in_view": in_view,
                "goal_target": f == episode.goal[1],
                "open": world.is_open(state, f) if in_view and world.container[f] else None,
                "on": bool(state[SWITCHED] >> f & 1) if in_view and world.switch[f] else None,
            }

        placed = world.placed(state, episode.goal)
        predicates = [
            {
                "text": f"{relation(world, episode.goal)}({cls}, {furniture[episode.goal[1]]})",
                "placed": min(placed[cls], n),
                "needed": n,
            }
            for cls, n in episode.goal[2]
        ]
        return {
            "apartment": apt.name,
            "width": apt.width,
            "height": apt.height,
            "rooms": [
                {"name": name, "rect": list(rect), "rgb": list(ROOM_RGB[name]), "here": r == room}
                for r, (name, rect) in enumerate(zip(apt.rooms, apt.room_rects))
            ],
            "doors": [[list(apt.cells[a]), list(apt.cells[b])] for a, b in apt.doors],
            "furniture": [furniture_json(f) for f in range(world.F)],
            "objects": [{"id": f"o{o}", "name": objects[o], "class": apt.object_classes[o], **place(o)} for o in seen],
            "names": {
                **{f"f{f}": name for f, name in enumerate(furniture)},
                **{f"o{o}": name for o, name in enumerate(objects)},
            },
            "human": agent(HUMAN),
            "helper": agent(HELPER),
            "progress": {
                "predicates": predicates,
                "satisfied": sum(p["placed"] for p in predicates),
                "needed": sum(p["needed"] for p in predicates),
            },
        }

    def goal_json(self, episode: Episode) -> dict:
        world = world_of(episode.apartment)
        _, target, counts = episode.goal
        things = " and ".join(f"{n} {cls}" for cls, n in counts)
        text = f"Put {things} {relation(world, episode.goal)} the {furniture_names(world)[target]}."
        return {"hypothesis": to_jsonable(episode.goal), "text": text}

    def label(self, episode: Episode, hypothesis: Hashable) -> str:
        _, target, counts = hypothesis  # type: ignore[misc]
        where = furniture_names(world_of(episode.apartment))[target]
        return f"{', '.join(f'{n} {cls}' for cls, n in counts)} → {where}"


def relation(world: World, goal: Goal) -> str:
    """``on`` or ``inside``: how the goal's objects rest at its target."""
    return "on" if world.surface[goal[1]] else "inside"


VIEWS[HouseholdView.domain] = HouseholdView()
