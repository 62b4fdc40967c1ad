"""Rendering of GridWorld states: an RGB image like the paper's figures, ASCII, and the text
transcript of paper Fig. 11 (the input of text-only reasoners).

Image conventions: up = +y, so image row 0 is the *top* of the grid (largest y). The helper is
the red robot and the human the green robot (paper Figs. 6, 7); the human's past cells are drawn
as a trace that fades (lighter) with age; a carried object is drawn small on its carrier inside a
white ring. Drawing happens at ``SUPERSAMPLE`` times the size and is box-downsampled, which
anti-aliases edges while keeping flat regions (e.g. a cell centre) at their exact colour.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mindzero.core.results import atomic_write_bytes
from mindzero.envs.gridworld.layout import MOVE_DELTAS, Layout
from mindzero.envs.gridworld.world import ACTION_NAMES, N_MOVES, WorldState

#: RGB of each color name in ``layout.COLORS``; chosen to be distinct on a white background.
OBJECT_RGB: dict[str, tuple[int, int, int]] = {
    "red": (230, 40, 40),
    "green": (40, 175, 60),
    "blue": (40, 95, 225),
    "yellow": (245, 205, 20),
    "orange": (250, 135, 20),
    "purple": (140, 60, 185),
    "pink": (245, 125, 195),
    "brown": (140, 85, 35),
    "cyan": (30, 200, 215),
    "gray": (135, 135, 135),
}

HUMAN_RGB = (46, 160, 67)
HELPER_RGB = (214, 39, 40)
BACKGROUND_RGB = (255, 255, 255)
GRID_RGB = (200, 200, 200)
BORDER_RGB = (110, 110, 110)
OBSTACLE_RGB = (64, 64, 72)
OUTLINE_RGB = (30, 30, 30)
TEXT_RGB = (40, 40, 40)
#: Trail colour of the newest step; older steps are mixed towards white down to ``TRAIL_MIN``.
TRAIL_RGB = HUMAN_RGB
TRAIL_MIN = 0.18
SUPERSAMPLE = 3


def _margin(cell_px: int) -> int:
    """Height (px) of the title band and width of the coordinate margins."""
    return max(12, cell_px // 2)


def pixel_center(
    layout: Layout, cell: tuple[int, int], cell_px: int = 48, title: str | None = None, coords: bool = True
) -> tuple[int, int]:
    """(row, col) in the output image of the centre of grid cell (x, y) — for tests and overlays."""
    m = _margin(cell_px)
    top = m if title is not None else 0
    left = m if coords else 0
    x, y = cell
    return top + (layout.height - 1 - y) * cell_px + cell_px // 2, left + x * cell_px + cell_px // 2


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _shape(draw: ImageDraw.ImageDraw, shape: str, cx: float, cy: float, size: float, fill, width: int) -> None:
    """Draw ``shape`` centred at (cx, cy) inside a ``size``-px box, outlined."""
    r = size / 2
    if shape == "square":
        draw.rectangle((cx - 0.85 * r, cy - 0.85 * r, cx + 0.85 * r, cy + 0.85 * r), fill, OUTLINE_RGB, width)
    elif shape == "circle":
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill, OUTLINE_RGB, width)
    elif shape == "triangle":
        h = r * math.sqrt(3) / 2 * 1.1
        draw.polygon(
            [(cx, cy - r), (cx + 1.05 * r, cy + h * 0.85), (cx - 1.05 * r, cy + h * 0.85)], fill, OUTLINE_RGB, width
        )
    elif shape == "star":
        pts = []
        for k in range(10):
            rad = r * (1.0 if k % 2 == 0 else 0.45)
            ang = -math.pi / 2 + k * math.pi / 5
            pts.append((cx + rad * math.cos(ang), cy + 0.08 * r + rad * math.sin(ang)))
        draw.polygon(pts, fill, OUTLINE_RGB, width)
    elif shape == "diamond":
        draw.polygon([(cx, cy - r), (cx + 0.8 * r, cy), (cx, cy + r), (cx - 0.8 * r, cy)], fill, OUTLINE_RGB, width)
    else:
        raise ValueError(f"unknown shape {shape!r}")


def _robot(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, color, width: int) -> None:
    """A robot glyph (antenna, head with eyes, body, wheels) centred in a ``size``-px box."""
    s = size
    # antenna
    draw.line((cx, cy - 0.50 * s, cx, cy - 0.32 * s), OUTLINE_RGB, width)
    draw.ellipse((cx - 0.07 * s, cy - 0.56 * s, cx + 0.07 * s, cy - 0.42 * s), color, OUTLINE_RGB, width)
    # wheels
    for wx in (-0.24, 0.24):
        draw.ellipse(
            (cx + (wx - 0.11) * s, cy + 0.30 * s, cx + (wx + 0.11) * s, cy + 0.50 * s), OUTLINE_RGB, OUTLINE_RGB, 1
        )
    # body and head
    draw.rounded_rectangle(
        (cx - 0.38 * s, cy + 0.00 * s, cx + 0.38 * s, cy + 0.40 * s), 0.08 * s, color, OUTLINE_RGB, width
    )
    draw.rounded_rectangle(
        (cx - 0.30 * s, cy - 0.34 * s, cx + 0.30 * s, cy + 0.02 * s), 0.10 * s, color, OUTLINE_RGB, width
    )
    # eyes
    for ex in (-0.13, 0.13):
        draw.ellipse(
            (cx + (ex - 0.075) * s, cy - 0.24 * s, cx + (ex + 0.075) * s, cy - 0.09 * s), "white", OUTLINE_RGB, 1
        )
        draw.ellipse((cx + (ex - 0.03) * s, cy - 0.19 * s, cx + (ex + 0.03) * s, cy - 0.13 * s), OUTLINE_RGB)


#: Placement inside a cell, keyed by (number of robots, ground object present): robot centres,
#: robot size, object centre, object size (fractions of the cell side).
_SLOTS: dict[tuple[int, bool], tuple[list[tuple[float, float]], float, tuple[float, float], float]] = {
    (0, True): ([], 0.0, (0.5, 0.5), 0.66),
    (1, False): ([(0.5, 0.5)], 0.86, (0.0, 0.0), 0.0),
    (2, False): ([(0.28, 0.36), (0.72, 0.66)], 0.62, (0.0, 0.0), 0.0),
    (1, True): ([(0.36, 0.40)], 0.62, (0.75, 0.73), 0.40),
    (2, True): ([(0.27, 0.36), (0.73, 0.36)], 0.50, (0.5, 0.80), 0.34),
}


def _trail_color(age_rank: int, n: int) -> tuple[int, int, int]:
    """Colour of trail step ``age_rank`` (0 = oldest) of ``n``: mixed towards white with age."""
    strength = 1.0 if n <= 1 else TRAIL_MIN + (1.0 - TRAIL_MIN) * age_rank / (n - 1)
    return tuple(round(255 - strength * (255 - c)) for c in TRAIL_RGB)  # type: ignore[return-value]


def render_rgb(
    layout: Layout,
    state: WorldState,
    trail: Sequence[int] = (),
    cell_px: int = 48,
    title: str | None = None,
    coords: bool = True,
) -> np.ndarray:
    """Image of ``state`` as an (H, W, 3) uint8 array; ``cell_px`` is the side of a cell in pixels.

    ``trail``: the human's past cell indices, oldest first (usually ending at its current cell).
    ``title``: optional text line above the grid (e.g. ``"t=12"``). ``coords``: x labels below and
    y labels left of the grid, so positions in a transcript can be read off the picture.
    """
    ss = SUPERSAMPLE
    c = cell_px * ss
    m = _margin(cell_px) * ss
    top = m if title is not None else 0
    left = m if coords else 0
    width_px = left + layout.width * c
    height_px = top + layout.height * c + (m if coords else 0)
    img = Image.new("RGB", (width_px, height_px), BACKGROUND_RGB)
    draw = ImageDraw.Draw(img)
    line_w = max(1, c // 48)
    outline_w = max(1, c // 40)

    def box(cell: tuple[int, int]) -> tuple[int, int, int, int]:
        x, y = cell
        x0 = left + x * c
        y0 = top + (layout.height - 1 - y) * c
        return x0, y0, x0 + c, y0 + c

    def center(index: int) -> tuple[float, float]:
        x0, y0, x1, y1 = box(layout.cell(index))
        return (x0 + x1) / 2, (y0 + y1) / 2

    for cell in layout.obstacles:
        draw.rectangle(box(cell), OBSTACLE_RGB)
    for k in range(layout.width + 1):
        draw.line((left + k * c, top, left + k * c, top + layout.height * c), GRID_RGB, line_w)
    for k in range(layout.height + 1):
        draw.line((left, top + k * c, left + layout.width * c, top + k * c), GRID_RGB, line_w)
    draw.rectangle((left, top, left + layout.width * c, top + layout.height * c), None, BORDER_RGB, 2 * line_w)

    # Trail: segments and dots, oldest first so newer (darker) steps are drawn on top.
    n = len(trail)
    for i in range(n):
        col = _trail_color(i, n)
        if i > 0 and trail[i] != trail[i - 1]:
            draw.line((*center(trail[i - 1]), *center(trail[i])), col, max(2, c // 10))
        cx, cy = center(trail[i])
        r = c * 0.09
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), col)

    # Cell contents: ground object and robots share a cell through fixed slots.
    ground = {cell: k for k, cell in enumerate(state.objects) if state.on_ground(k)}
    robots: dict[int, list[tuple[tuple[int, int, int], int]]] = {}
    robots.setdefault(state.human, []).append((HUMAN_RGB, state.human_carry))
    robots.setdefault(state.helper, []).append((HELPER_RGB, state.helper_carry))
    for cell in sorted(set(ground) | set(robots)):
        x0, y0, _, _ = box(layout.cell(cell))
        here = robots.get(cell, [])
        obj = ground.get(cell, -1)
        robot_slots, robot_size, obj_slot, obj_size = _SLOTS[(len(here), obj >= 0)]
        if obj >= 0:
            o = layout.objects[obj]
            ox, oy = obj_slot
            _shape(draw, o.shape, x0 + ox * c, y0 + oy * c, obj_size * c, OBJECT_RGB[o.color], outline_w)
        for (color, carry), (rx, ry) in zip(here, robot_slots):
            cx, cy = x0 + rx * c, y0 + ry * c
            _robot(draw, cx, cy, robot_size * c, color, outline_w)
            if carry >= 0:
                o = layout.objects[carry]
                r = 0.26 * robot_size * c
                mx, my = cx + 0.30 * robot_size * c, cy + 0.22 * robot_size * c
                draw.ellipse((mx - r, my - r, mx + r, my + r), "white", OUTLINE_RGB, max(1, outline_w))
                _shape(draw, o.shape, mx, my, 1.3 * r, OBJECT_RGB[o.color], max(1, outline_w // 2))

    if coords:
        font = _font(max(8, int(m * 0.55)))
        for x in range(layout.width):
            draw.text((left + x * c + c / 2, top + layout.height * c + m / 2), str(x), TEXT_RGB, font, anchor="mm")
        for y in range(layout.height):
            draw.text((left / 2, top + (layout.height - 1 - y) * c + c / 2), str(y), TEXT_RGB, font, anchor="mm")
    if title is not None:
        draw.text((left + 2 * ss, top / 2), title, TEXT_RGB, _font(max(8, int(m * 0.6))), anchor="lm")
    small = img.reduce(ss)
    return np.asarray(small, dtype=np.uint8).copy()


def save_png(array: np.ndarray, path: str | os.PathLike) -> None:
    """Save an (H, W, 3) uint8 image as PNG, atomically (no half-written file on interruption)."""
    buf = io.BytesIO()
    Image.fromarray(np.asarray(array, dtype=np.uint8), "RGB").save(buf, format="PNG", optimize=True)
    atomic_write_bytes(path, buf.getvalue())


def render_ascii(layout: Layout, state: WorldState) -> str:
    """Paper Fig. 11 "ASCII state": top row (largest y) first; ``.`` free, ``#`` obstacle, ``H``
    human, ``P`` helper, ground objects by index digit (carried ones are not on the grid).
    Where things share a cell the first of H, P, object is shown."""
    chars = [["." for _ in range(layout.width)] for _ in range(layout.height)]
    for x, y in layout.obstacles:
        chars[y][x] = "#"
    for k, cell in enumerate(state.objects):
        if state.on_ground(k):
            x, y = layout.cell(cell)
            chars[y][x] = str(k)
    for mark, cell in (("P", state.helper), ("H", state.human)):
        x, y = layout.cell(cell)
        chars[y][x] = mark
    return "\n".join("".join(row) for row in reversed(chars))


def _list_words(words: Sequence[str]) -> str:
    if len(words) <= 2:
        return " and ".join(words)
    return ", ".join(words[:-1]) + ", and " + words[-1]


def intro(layout: Layout) -> str:
    """The task description shared by the paper's GridWorld prompts (Figs. 6, 7, 11)."""
    objects = _list_words([o.label for o in layout.objects])
    return (
        "You are a helper agent in a GridWorld environment. You are the red robot, and the Human is "
        f"the green robot. There are multiple objects: {objects}. The Human's goal is to place two of "
        "the objects next to each other. The Human can move up, down, left, right, or stay, and can "
        "pick up an object when standing on it and not holding one, and can put down an object when "
        "holding one and the cell is empty. The Human's action trajectory so far is shown in the image."
    )


def transcript(
    layout: Layout, state_history: Sequence[WorldState], actions: Sequence[int], question: str | None = None
) -> str:
    """Text transcript of paper Fig. 11 for text-only reasoners.

    ``state_history``: states s_0..s_t (``len(actions) + 1`` of them); ``actions``: the human's
    actions a_1..a_t, action ``t`` leading from ``state_history[t-1]`` to ``state_history[t]``.
    Positions are (x, y) with up = +y; objects are listed at their current cells.
    """
    if len(state_history) != len(actions) + 1:
        raise ValueError(f"need len(actions) + 1 states, got {len(state_history)} for {len(actions)} actions")
    state = state_history[-1]
    deltas = {name: MOVE_DELTAS[a] if a < N_MOVES else (0, 0) for a, name in enumerate(ACTION_NAMES)}
    order = ("up", "down", "left", "right", "stay", "pick", "put")
    agents = [f"- Human pos: {layout.cell(state.human)}", f"- Helper pos: {layout.cell(state.helper)}"]
    if state.human_carry >= 0:
        agents.append(f"- Human holding: {layout.objects[state.human_carry].label}")
    if state.helper_carry >= 0:
        agents.append(f"- Helper holding: {layout.objects[state.helper_carry].label}")
    objects = {o.label: layout.cell(state.objects[k]) for k, o in enumerate(layout.objects)}
    steps = [
        f"t={t}: {ACTION_NAMES[a]}({deltas[ACTION_NAMES[a]][0]},{deltas[ACTION_NAMES[a]][1]})"
        for t, a in enumerate(actions, start=1)
    ]
    cells = [layout.cell(s.human) for s in state_history[1:]]
    positions = [f"t={t}: ({x},{y})" for t, (x, y) in enumerate(cells, start=1)]
    lines = [
        intro(layout),
        "",
        "State and trajectory details:",
        "Agents:",
        *agents,
        "Obstacles:",
        str(sorted(layout.obstacles)),
        "Objects (by label):",
        str(objects),
        "Action deltas (dx,dy):",
        str({name: deltas[name] for name in order}),
        "Action trajectory (human, name+delta):",
        "; ".join(steps) if steps else "(none yet)",
        "Action trajectory (human positions):",
        "; ".join(positions) if positions else "(none yet)",
        "ASCII state:",
        f"Step {len(actions)}",
        render_ascii(layout, state),
    ]
    if question is not None:
        lines += ["", question]
    return "\n".join(lines)


#: Distinct cells of the human's recent path that text views show (the direction is what matters).
PATH_WINDOW = 8


def path_window(layout: Layout, states: Sequence[WorldState], window: int = PATH_WINDOW) -> list[tuple[int, int]]:
    """The human's last ``window`` distinct consecutive cells, oldest first, as (x, y)."""
    cells = [layout.cell(s.human) for s in states]
    return [c for k, c in enumerate(cells) if k == 0 or c != cells[k - 1]][-window:]


def relative_view(layout: Layout, states: Sequence[WorldState], objects: Sequence[int]) -> list[str]:
    """Per object: ``dx dy dx0 dy0`` — its offset from the human's cell now and from the oldest
    cell of :func:`path_window`. Where the human moves shows as the difference of the two, so a
    model needs no arithmetic on absolute coordinates (a tiny model cannot learn it in minutes)."""
    (x0, y0), (x, y) = path_window(layout, states)[0], layout.cell(states[-1].human)
    out = []
    for k in objects:
        ox, oy = layout.cell(states[-1].objects[k])
        out.append(f"{ox - x} {oy - y} {ox - x0} {oy - y0}")
    return out


def distance_view(layout: Layout, states: Sequence[WorldState], objects: Sequence[int]) -> list[str]:
    """Per object: ``d g`` — shortest-path moves from the human's cell to it now, and how many
    moves closer the human got since the oldest cell of :func:`path_window` (negative: farther).
    What goal inference reads from a path, one number each: supervised on the exact pair
    posterior, a scratch model gets closer to it in 200 steps from these (KL 1.38 nats) than
    from :func:`relative_view`'s four offsets (1.66; uniform 2.38), on half the prompt tokens."""
    start, now = layout.index(path_window(layout, states)[0]), states[-1]
    out = []
    for k in objects:
        d, d0 = (int(layout.dist(now.objects[k], cell)) for cell in (now.human, start))
        out.append(f"{d} {d0 - d}")
    return out


def anchored_view(layout: Layout, states: Sequence[WorldState], objects: Sequence[int]) -> list[str]:
    """Per object: ``d g s`` — shortest-path moves from the human's cell to it now, how many moves
    closer the human got since its last pick (since the start before one), and moves from the
    human's start cell to it then (the carried object: 0, how far it has been carried, its start
    distance). What exact inference reads that :func:`distance_view`'s recent window hides: the
    human walks first to the nearer object of its goal pair, so the partner was no nearer at the
    start than the object picked (``s``), and carries the object towards the partner from the pick
    on (``g``). On the assistance protocol's episodes these two, read by rule, name the partner at
    68 % of carrying decisions (exact 78 %; the window's progress 42 %)."""
    picks = [t for t in range(1, len(states)) if states[t].human_carry >= 0 > states[t - 1].human_carry]
    first, now = states[0], states[-1]
    anchor = states[picks[-1]].human if picks else first.human
    out = []
    for k in objects:
        d, d_anchor = (int(layout.dist(now.objects[k], cell)) for cell in (now.human, anchor))
        out.append(f"{d} {d_anchor - d} {int(layout.dist(first.objects[k], first.human))}")
    return out
