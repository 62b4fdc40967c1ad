"""Apartments: rooms on a cell grid joined by doors, furniture at cells, and the objects' possible
places, loaded from JSON data files and checked field by field.

An apartment file (``apartments/*.json``)::

    {"name": "apt0",
     "rooms": {"kitchen": [x0, y0, x1, y1], "livingroom": [...], ...},   # inclusive cell rectangles
     "doors": [[[x, y], [x2, y2]], ...],        # two 4-adjacent cells of different rooms
     "furniture": [{"class": "fridge", "at": [x, y]}, ...],
     "objects": [{"class": "plate", "count": 2, "places": ["kitchencabinet", "dishwasher"]}, ...]}

An agent moves one cell per tick (a walk is as many ticks as its shortest path has cells, so distance
is time) and is *close to* a piece of furniture when it stands on its cell. ``places`` are furniture
classes; each object starts on or in a random piece of one of them (seeded per episode).
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from mindzero.core.errors import UserError
from mindzero.core.results import read_text

ROOMS = ("bathroom", "bedroom", "kitchen", "livingroom")

#: Furniture capabilities (VirtualHome properties): opens (CONTAINERS), holds objects on top
#: (SURFACES), switches on (SWITCHES).
CONTAINERS = frozenset({"fridge", "dishwasher", "microwave", "stove", "kitchencabinet", "cabinet", "bathroomcabinet"})
SURFACES = frozenset({"kitchentable", "coffeetable", "desk", "sofa", "kitchencounter", "bookshelf"})
SWITCHES = frozenset({"fridge", "dishwasher", "microwave", "stove", "tv"})
FURNITURE_CLASSES = tuple(sorted(CONTAINERS | SURFACES | SWITCHES))

#: Grabbable object classes.
OBJECT_CLASSES = (
    "apple",
    "book",
    "chips",
    "condimentbottle",
    "cupcake",
    "cutleryfork",
    "dishbowl",
    "plate",
    "pudding",
    "remotecontrol",
    "salmon",
    "waterglass",
    "wineglass",
)

#: The bundled apartments: train on the first five, test on the last two.
TRAIN_APARTMENTS = ("apt0", "apt1", "apt2", "apt3", "apt4")
TEST_APARTMENTS = ("apt5", "apt6")


@dataclass(frozen=True)
class Apartment:
    """A loaded apartment with its distance tables.

    ``nodes`` are the walk targets: furniture 0..F-1, then rooms F..F+R-1 (a room's node is its
    centre cell). ``dist[node][cell]``: ticks to walk from ``cell`` to ``node``; ``step[node][cell]``:
    the next cell on a shortest path (ties broken by a fixed neighbour order)."""

    name: str
    width: int
    height: int
    rooms: tuple[str, ...]
    room_rects: tuple[tuple[int, int, int, int], ...]
    cells: tuple[tuple[int, int], ...]  # cell index -> (x, y)
    cell_room: tuple[int, ...]  # cell index -> room index
    doors: tuple[tuple[int, int], ...]  # pairs of cell indices
    furniture: tuple[str, ...]  # furniture index -> class
    furniture_cell: tuple[int, ...]
    furniture_room: tuple[int, ...]
    object_classes: tuple[str, ...]  # object index -> class
    object_places: tuple[int, ...]  # object index -> bitmask of furniture it may start at
    node_cell: tuple[int, ...]
    dist: tuple[tuple[int, ...], ...]
    step: tuple[tuple[int, ...], ...]

    @property
    def n_furniture(self) -> int:
        return len(self.furniture)

    @property
    def n_objects(self) -> int:
        return len(self.object_classes)

    def node_name(self, node: int) -> str:
        return self.furniture[node] if node < self.n_furniture else self.rooms[node - self.n_furniture]

    def find(self, furniture_class: str, room: str | None = None) -> list[int]:
        """Indices of the furniture of a class (in ``room`` if given)."""
        return [
            f
            for f, c in enumerate(self.furniture)
            if c == furniture_class and (room is None or self.rooms[self.furniture_room[f]] == room)
        ]


def _fail(where: str, field: str, message: str) -> UserError:
    return UserError(f"{where}: field '{field}' {message}")


def _cell(value: Any, where: str, field: str) -> tuple[int, int]:
    if not (isinstance(value, list) and len(value) == 2 and all(type(v) is int and v >= 0 for v in value)):
        raise _fail(where, field, f"must be [x, y] with non-negative integers, got {value!r}")
    return value[0], value[1]


def parse_apartment(data: Any, where: str) -> Apartment:
    """Check an apartment's JSON value field by field (one-line :class:`UserError` naming the field)
    and build its cells, rooms and distance tables."""
    if not isinstance(data, dict):
        raise UserError(f"{where}: an apartment must be a JSON object")
    for key in ("name", "rooms", "doors", "furniture", "objects"):
        if key not in data:
            raise _fail(where, key, "is missing")
    name = data["name"]
    if not isinstance(name, str) or not name:
        raise _fail(where, "name", "must be non-empty text")
    if not isinstance(data["rooms"], dict) or not data["rooms"]:
        raise _fail(where, "rooms", "must map room names to [x0, y0, x1, y1]")
    rooms, rects, room_at = [], [], {}
    for room, rect in sorted(data["rooms"].items()):
        field = f"rooms.{room}"
        if room not in ROOMS:
            raise _fail(where, field, f"is not a known room; rooms are {', '.join(ROOMS)}")
        if not (isinstance(rect, list) and len(rect) == 4 and all(type(v) is int and v >= 0 for v in rect)):
            raise _fail(where, field, "must be [x0, y0, x1, y1] with non-negative integers")
        x0, y0, x1, y1 = rect
        if x1 < x0 or y1 < y0:
            raise _fail(where, field, "has x1 < x0 or y1 < y0")
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                if (x, y) in room_at:
                    raise _fail(where, field, f"overlaps room {rooms[room_at[x, y]]} at cell [{x}, {y}]")
                room_at[x, y] = len(rooms)
        rooms.append(room)
        rects.append((x0, y0, x1, y1))
    cells = sorted(room_at, key=lambda c: (c[1], c[0]))
    index = {c: i for i, c in enumerate(cells)}
    neighbours: list[list[int]] = [[] for _ in cells]
    for (x, y), i in index.items():
        for dx, dy in ((0, -1), (0, 1), (-1, 0), (1, 0)):
            j = index.get((x + dx, y + dy))
            if j is not None and room_at[x, y] == room_at[cells[j]]:
                neighbours[i].append(j)
    if not isinstance(data["doors"], list):
        raise _fail(where, "doors", "must be a list of [[x, y], [x, y]] cell pairs")
    doors = []
    for k, door in enumerate(data["doors"]):
        field = f"doors[{k}]"
        if not (isinstance(door, list) and len(door) == 2):
            raise _fail(where, field, "must be a pair of cells [[x, y], [x, y]]")
        a, b = _cell(door[0], where, field), _cell(door[1], where, field)
        if a not in index or b not in index or room_at[a] == room_at[b] or abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
            raise _fail(where, field, "must join two 4-adjacent cells of different rooms")
        neighbours[index[a]].append(index[b])
        neighbours[index[b]].append(index[a])
        doors.append((index[a], index[b]))
    if not isinstance(data["furniture"], list) or not data["furniture"]:
        raise _fail(where, "furniture", "must be a non-empty list")
    furniture, furniture_cell = [], []
    for k, item in enumerate(data["furniture"]):
        field = f"furniture[{k}]"
        if not isinstance(item, dict) or "class" not in item or "at" not in item:
            raise _fail(where, field, 'must be {"class": ..., "at": [x, y]}')
        if item["class"] not in FURNITURE_CLASSES:
            raise _fail(where, f"{field}.class", f"is an unknown furniture class {item['class']!r}")
        cell = _cell(item["at"], where, f"{field}.at")
        if cell not in index:
            raise _fail(where, f"{field}.at", f"{list(cell)} is not inside a room")
        if index[cell] in furniture_cell:
            raise _fail(where, f"{field}.at", f"{list(cell)} already holds other furniture")
        furniture.append(item["class"])
        furniture_cell.append(index[cell])
    if not isinstance(data["objects"], list) or not data["objects"]:
        raise _fail(where, "objects", "must be a non-empty list")
    object_classes, object_places = [], []
    for k, item in enumerate(data["objects"]):
        field = f"objects[{k}]"
        if not isinstance(item, dict) or not {"class", "count", "places"} <= set(item):
            raise _fail(where, field, 'must be {"class": ..., "count": n, "places": [furniture classes]}')
        if item["class"] not in OBJECT_CLASSES:
            raise _fail(where, f"{field}.class", f"is an unknown object class {item['class']!r}")
        if type(item["count"]) is not int or not 1 <= item["count"] <= 8:
            raise _fail(where, f"{field}.count", "must be an integer from 1 to 8")
        if not isinstance(item["places"], list) or not item["places"]:
            raise _fail(where, f"{field}.places", "must be a non-empty list of furniture classes")
        mask = 0
        for place in item["places"]:
            holders = [f for f, c in enumerate(furniture) if c == place]
            if place not in CONTAINERS | SURFACES or not holders:
                raise _fail(where, f"{field}.places", f"names {place!r}, not a container or surface of this apartment")
            for f in holders:
                mask |= 1 << f
        object_classes += [item["class"]] * item["count"]
        object_places += [mask] * item["count"]
    if len(object_classes) > 60:
        raise _fail(where, "objects", "holds more than 60 objects")
    node_cell = [*furniture_cell, *(index[_centre(r)] for r in rects)]
    dist, step = [], []
    for target in node_cell:
        d, s = _bfs(target, neighbours)
        if min(d) < 0:
            unreachable = cells[d.index(-1)]
            raise _fail(where, "doors", f"leave cell {list(unreachable)} unreachable from the rest")
        dist.append(tuple(d))
        step.append(tuple(s))
    return Apartment(
        name=name,
        width=max(x for x, _ in cells) + 1,
        height=max(y for _, y in cells) + 1,
        rooms=tuple(rooms),
        room_rects=tuple(rects),
        cells=tuple(cells),
        cell_room=tuple(room_at[c] for c in cells),
        doors=tuple(doors),
        furniture=tuple(furniture),
        furniture_cell=tuple(furniture_cell),
        furniture_room=tuple(room_at[cells[c]] for c in furniture_cell),
        object_classes=tuple(object_classes),
        object_places=tuple(object_places),
        node_cell=tuple(node_cell),
        dist=tuple(dist),
        step=tuple(step),
    )


def _centre(rect: tuple[int, int, int, int]) -> tuple[int, int]:
    x0, y0, x1, y1 = rect
    return (x0 + x1) // 2, (y0 + y1) // 2


def _bfs(target: int, neighbours: list[list[int]]) -> tuple[list[int], list[int]]:
    """Distances to ``target`` and each cell's next cell towards it (itself at the target)."""
    dist = [-1] * len(neighbours)
    step = list(range(len(neighbours)))
    dist[target] = 0
    queue = deque([target])
    while queue:
        cell = queue.popleft()
        for nb in neighbours[cell]:
            if dist[nb] < 0:
                dist[nb] = dist[cell] + 1
                step[nb] = cell
                queue.append(nb)
    return dist, step


def load_apartment(path: str | Path) -> Apartment:
    """An apartment from a JSON file (errors name the file and the field)."""
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise UserError(f"{path}: not valid JSON ({err.msg}, line {err.lineno})") from None
    return parse_apartment(data, str(path))


def bundled_apartment(name: str) -> Apartment:
    """One of the apartments shipped with mindzero (``apt0`` … ``apt6``)."""
    names = TRAIN_APARTMENTS + TEST_APARTMENTS
    if name not in names:
        raise UserError(f"unknown apartment {name!r}; bundled apartments are {', '.join(names)}")
    text = resources.files("mindzero.envs.household").joinpath(f"apartments/{name}.json").read_text()
    return parse_apartment(json.loads(text), f"apartments/{name}.json")
