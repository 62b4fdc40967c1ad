"""Rendering of Household states: text in the form of paper Fig. 9 (the assistance prompt's
``[current state]``, ``[key action history]`` and ``[human's next action]``), a character map,
and a top-down RGB plan for people."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mindzero.envs.household.world import GRAB, HUMAN, LOC, OPEN, POS, PUTIN, PUTON, SWITCHON, Action, State, World

#: Letters of the rooms in :func:`render_grid`.
ROOM_LETTERS = {"bathroom": "a", "bedroom": "b", "kitchen": "k", "livingroom": "l"}
#: Actions listed in the key action history (walks and waits are not key actions).
KEY_VERBS = frozenset({GRAB, PUTON, PUTIN, OPEN, SWITCHON})


def _counted(names: Sequence[str]) -> str:
    return ", ".join(f"{n} {name}" for name, n in sorted(Counter(names).items()))


def render_state(world: World, state: State) -> str:
    """Rooms, their furniture and what each piece supports or contains (the full state), where the
    human is, what it is close to and what it holds."""
    apt = world.apartment
    lines = [f"The apartment has {len(apt.rooms)} rooms: {', '.join(apt.rooms)}."]
    for r, room in enumerate(apt.rooms):
        pieces = [f for f in range(world.F) if apt.furniture_room[f] == r]
        lines.append(f"The {room} has {_counted([apt.furniture[f] for f in pieces])}.")
        for f in pieces:
            inside = [world.object_name(o) for o in range(world.n) if state[LOC + o] == f]
            if inside:
                verb = "supports" if world.surface[f] else "contains"
                lines.append(f"- The {apt.furniture[f]} {verb} {_counted(inside)}.")
    lines.append(f"Human is in the {apt.rooms[world.room_of(state, HUMAN)]}.")
    near = world.close_to(state, HUMAN)
    if near >= 0:
        things = [apt.furniture[near], *(world.object_name(o) for o in range(world.n) if state[LOC + o] == near)]
        lines.append(f"Human is close to {_counted(things)}.")
    held = [world.object_name(o) for o in world.holding(state, HUMAN)]
    lines.append(f"Human is holding {_counted(held) if held else 'nothing'}.")
    return "\n".join(lines)


def render_transcript(world: World, state: State, history: Sequence[Action], next_action: Action | None) -> str:
    """Fig. 9's three sections: the state, the human's key actions so far, its next action."""
    keys = [world.action_sentence("Human", a) for a in history if a[0] in KEY_VERBS]
    parts = ["[current state]", render_state(world, state), "", "[key action history]"]
    parts.append("\n".join(keys) if keys else "Human has not taken any key action yet.")
    if next_action is not None:
        parts += ["", "[human's next action]", world.action_sentence("Human", next_action)]
    return "\n".join(parts)


def render_grid(world: World, state: State) -> str:
    """A top-down character map: ``H`` human, ``R`` helper (``B`` both on one cell), ``#``
    furniture, else the room's letter (:data:`ROOM_LETTERS`), blank outside rooms."""
    apt = world.apartment
    grid = [[" "] * apt.width for _ in range(apt.height)]
    for i, (x, y) in enumerate(apt.cells):
        grid[y][x] = ROOM_LETTERS[apt.rooms[apt.cell_room[i]]]
    for cell in apt.furniture_cell:
        x, y = apt.cells[cell]
        grid[y][x] = "#"
    human, helper = state[POS], state[POS + 1]
    for cell, mark in ((human, "H"), (helper, "R")):
        x, y = apt.cells[cell]
        grid[y][x] = "B" if human == helper else mark
    return "\n".join("".join(row) for row in grid)


#: Pixels per cell of :func:`render_image`.
CELL_PX = 44
ROOM_RGB = {
    "bathroom": (214, 234, 248),
    "bedroom": (250, 229, 211),
    "kitchen": (234, 250, 220),
    "livingroom": (245, 238, 200),
}
FURNITURE_RGB = {
    "container": (120, 90, 60),
    "open": (200, 160, 110),
    "surface": (150, 150, 150),
    "switch": (60, 60, 90),
}
AGENT_RGB = ((46, 160, 67), (220, 50, 47))  # human green, helper red (as in GridWorld)
#: Furniture labels of :func:`render_image` (at most 6 characters fit a cell).
LABELS = {
    "bathroomcabinet": "bcab",
    "bookshelf": "books",
    "cabinet": "cab",
    "coffeetable": "ctable",
    "dishwasher": "dishw",
    "kitchencabinet": "kcab",
    "kitchencounter": "kcount",
    "kitchentable": "ktable",
    "microwave": "micro",
}


def render_image(world: World, state: State) -> np.ndarray:
    """A top-down plan for people (RGB, ``CELL_PX`` per cell): rooms tinted, walls where rooms meet
    without a door, furniture as labelled squares (containers brown, lighter when open; surfaces
    grey; switchable-only dark) with the number of objects on or in them, the human (green, H) and
    the helper (red, R) as discs with the number of objects they hold."""
    apt = world.apartment
    image = Image.new("RGB", (apt.width * CELL_PX + 1, apt.height * CELL_PX + 1), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=11)
    index = {cell: i for i, cell in enumerate(apt.cells)}
    for i, (x, y) in enumerate(apt.cells):
        box = (x * CELL_PX, y * CELL_PX, (x + 1) * CELL_PX, (y + 1) * CELL_PX)
        draw.rectangle(box, fill=ROOM_RGB[apt.rooms[apt.cell_room[i]]])
    doors = {frozenset(pair) for pair in apt.doors}
    for i, (x, y) in enumerate(apt.cells):  # walls: right and bottom edges between rooms, no door
        for dx, dy in ((1, 0), (0, 1)):
            j = index.get((x + dx, y + dy))
            if j is None or apt.cell_room[j] == apt.cell_room[i] or frozenset((i, j)) in doors:
                continue
            x0, y0 = (x + 1) * CELL_PX if dx else x * CELL_PX, (y + 1) * CELL_PX if dy else y * CELL_PX
            end = (x0, y0 + CELL_PX) if dx else (x0 + CELL_PX, y0)
            draw.line((x0, y0, *end), fill=(40, 40, 40), width=4)
    for f, cell in enumerate(apt.furniture_cell):
        x, y = apt.cells[cell]
        kind = "surface" if world.surface[f] else "switch" if not world.container[f] else "container"
        if kind == "container" and world.is_open(state, f):
            kind = "open"
        pad = 4
        draw.rectangle(
            (x * CELL_PX + pad, y * CELL_PX + pad, (x + 1) * CELL_PX - pad, (y + 1) * CELL_PX - pad),
            fill=FURNITURE_RGB[kind],
        )
        draw.text(
            (x * CELL_PX + 6, y * CELL_PX + 6),
            LABELS.get(apt.furniture[f], apt.furniture[f]),
            fill=(255, 255, 255),
            font=font,
        )
        count = sum(state[LOC + o] == f for o in range(world.n))
        if count:
            draw.text((x * CELL_PX + 6, y * CELL_PX + 22), str(count), fill=(255, 255, 0), font=font)
    for agent, (mark, rgb) in enumerate(zip("HR", AGENT_RGB)):
        x, y = apt.cells[state[POS + agent]]
        shift = 8 * agent if state[POS] == state[POS + 1] else 0
        cx, cy, r = x * CELL_PX + CELL_PX // 2 + shift, y * CELL_PX + CELL_PX // 2 + shift, CELL_PX // 4
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=rgb, outline=(0, 0, 0))
        held = len(world.holding(state, agent))
        draw.text((cx - 4, cy - 6), mark if not held else f"{mark}{held}", fill=(255, 255, 255), font=font)
    return np.asarray(image)
