"""GridWorld "Construction" layouts: grid, obstacles, objects, start cells.

Coordinates are (x, y) with up = +y; cell index ``i = y * width + x``. A layout is immutable;
everything that moves during an episode lives in :class:`mindzero.envs.gridworld.world.WorldState`.

Text format (``Layout.to_text`` / ``parse_layout``): one grid row per line, top row (largest y)
first; ``.`` free, ``#`` obstacle, ``H`` human start, ``P`` helper start, ``0``–``9`` objects
(an object may not share a cell with a start). After a blank line, one legend line per object:
``0: red square``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra

from mindzero.core.errors import UserError, clip

COLORS = ("red", "green", "blue", "yellow", "orange", "purple", "pink", "brown", "cyan", "gray")
SHAPES = ("square", "circle", "triangle", "star", "diamond")

#: Move deltas (dx, dy) in action order stay, up, down, left, right.
MOVE_DELTAS = ((0, 0), (0, 1), (0, -1), (-1, 0), (1, 0))

#: Distance used for unreachable cells: larger than any path, small enough for float maths.
UNREACHABLE = 10_000


@lru_cache(maxsize=64)
def _grid_moves(width: int, height: int) -> np.ndarray:
    """``[i, m]``: cell reached from ``i`` by move ``m`` on an empty ``width`` × ``height`` grid
    (moves off the grid stay put); a layout's obstacles are applied on top. Read-only."""
    cells = np.arange(width * height)
    x, y = cells % width, cells // width
    table = np.empty((len(cells), len(MOVE_DELTAS)), dtype=np.int64)
    for m, (dx, dy) in enumerate(MOVE_DELTAS):
        inside = (0 <= x + dx) & (x + dx < width) & (0 <= y + dy) & (y + dy < height)
        table[:, m] = np.where(inside, cells + dy * width + dx, cells)
    table.setflags(write=False)
    return table


@dataclass(frozen=True)
class GridObject:
    """An object a human can pick up: a distinct (color, shape) pair."""

    color: str
    shape: str

    @property
    def label(self) -> str:
        return f"{self.color} {self.shape}"

    def __post_init__(self) -> None:
        if self.color not in COLORS:
            raise UserError(f"unknown color {self.color!r}; choose from {', '.join(COLORS)}")
        if self.shape not in SHAPES:
            raise UserError(f"unknown shape {self.shape!r}; choose from {', '.join(SHAPES)}")


@dataclass(frozen=True, eq=False)
class Layout:
    """Static part of an episode. Object ``k`` starts at cell ``object_cells[k]``."""

    width: int
    height: int
    obstacles: frozenset[tuple[int, int]]
    objects: tuple[GridObject, ...]
    object_cells: tuple[tuple[int, int], ...]
    human_start: tuple[int, int]
    helper_start: tuple[int, int]
    name: str = field(default="")

    def __post_init__(self) -> None:
        if len(self.objects) != len(self.object_cells):
            raise UserError("layout: every object needs exactly one cell")
        if len({(o.color, o.shape) for o in self.objects}) != len(self.objects):
            raise UserError("layout: objects must have distinct (color, shape)")
        for cell in (*self.object_cells, self.human_start, self.helper_start):
            if not self.inside(cell):
                raise UserError(f"layout: cell {cell} is outside the {self.width}x{self.height} grid")
            if cell in self.obstacles:
                raise UserError(f"layout: cell {cell} is an obstacle")
        if len(set(self.object_cells)) != len(self.object_cells):
            raise UserError("layout: two objects share a cell")

    # --- geometry -------------------------------------------------------------------------
    @property
    def n_cells(self) -> int:
        return self.width * self.height

    def inside(self, cell: tuple[int, int]) -> bool:
        x, y = cell
        return 0 <= x < self.width and 0 <= y < self.height

    def index(self, cell: tuple[int, int]) -> int:
        return cell[1] * self.width + cell[0]

    def cell(self, index: int) -> tuple[int, int]:
        return (int(index) % self.width, int(index) // self.width)

    @cached_property
    def blocked(self) -> np.ndarray:
        """Boolean mask over cell indices: True for obstacles."""
        mask = np.zeros(self.n_cells, dtype=bool)
        for c in self.obstacles:
            mask[self.index(c)] = True
        return mask

    @cached_property
    def next_cell(self) -> np.ndarray:
        """``next_cell[i, m]``: cell reached from ``i`` by move ``m`` (walls and borders block)."""
        moves = _grid_moves(self.width, self.height)
        table = np.where(self.blocked[moves], np.arange(self.n_cells)[:, None], moves)
        table.setflags(write=False)
        return table

    @cached_property
    def neighbors(self) -> np.ndarray:
        """``neighbors[i, m]``: the free cell one move ``m`` (up, down, left, right) away from ``i``, or -1."""
        moved = self.next_cell[:, 1:]
        table = np.where(moved != np.arange(self.n_cells)[:, None], moved, -1)
        table.setflags(write=False)
        return table

    @cached_property
    def graph(self) -> csr_array:
        """The move graph for ``scipy.sparse.csgraph``: an edge from each free cell to each free cell
        one move away. Undirected in effect (every move can be undone), so distances are symmetric."""
        edge = (self.neighbors >= 0) & ~self.blocked[:, None]
        indptr = np.concatenate([[0], np.cumsum(edge.sum(axis=1))]).astype(np.int32)  # csgraph's index type
        indices = self.neighbors[edge].astype(np.int32)
        return csr_array((np.ones(len(indices)), indices, indptr), shape=(self.n_cells, self.n_cells))

    @cached_property
    def _distance_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(shortest-path rows, filled on demand: shape (n_cells + 1, n_cells); which rows are filled).
        The extra last row, which index -1 (``neighbors`` padding) reads, is all ``UNREACHABLE``."""
        table = np.full((self.n_cells + 1, self.n_cells), UNREACHABLE, dtype=np.int64)
        filled = np.zeros(self.n_cells + 1, dtype=bool)
        filled[-1] = True
        return table, filled

    def dist(self, sources: np.ndarray | int, targets: np.ndarray | int | slice = slice(None)) -> np.ndarray:
        """Shortest-path lengths in moves from ``sources`` to ``targets`` (cell indices; arrays
        broadcast; source -1 reads ``UNREACHABLE``); ``UNREACHABLE`` where no path exists.

        A source's row is computed on first use (breadth-first, ``scipy.sparse.csgraph``) and kept:
        a reward scores thousands of prompts on new layouts and needs the rows of a few cells
        (objects, their neighbours), not all pairs. Since ``dist(a, b) == dist(b, a)``, callers
        put the cells whose rows they reuse on the source side."""
        table, filled = self._distance_rows
        missing = ~filled[sources]
        if missing.any():
            cells = np.asarray(sources)[missing]  # a repeated cell is searched twice, harmlessly
            rows = dijkstra(self.graph, indices=cells, unweighted=True)
            rows[:, self.blocked] = np.inf  # a source on an obstacle reached only itself
            table[cells] = np.nan_to_num(rows, posinf=UNREACHABLE)
            filled[cells] = True
        return table[sources, targets]

    @cached_property
    def distance(self) -> np.ndarray:
        """All-pairs shortest-path lengths in moves, shape (n_cells, n_cells); ``UNREACHABLE`` where
        no path exists. For users that need most rows (the helper); the rest use :meth:`dist`."""
        table = self.dist(np.arange(self.n_cells))
        table.setflags(write=False)
        return table

    @cached_property
    def is_connected(self) -> bool:
        """Every free cell reaches every other, i.e. the human's start reaches every free cell.
        The objects' rows come in the same search: the human model reads them next."""
        sources = np.array([self.index(c) for c in (self.human_start, *self.object_cells)])
        return bool((self.dist(sources[:, None], np.flatnonzero(~self.blocked))[0] < UNREACHABLE).all())

    # --- text -----------------------------------------------------------------------------
    def to_text(self) -> str:
        rows = []
        marks = {c: str(k) for k, c in enumerate(self.object_cells)}
        for y in range(self.height - 1, -1, -1):
            row = []
            for x in range(self.width):
                c = (x, y)
                if c in self.obstacles:
                    row.append("#")
                elif c in marks:
                    row.append(marks[c])
                elif c == self.human_start:
                    row.append("H")
                elif c == self.helper_start:
                    row.append("P")
                else:
                    row.append(".")
            rows.append("".join(row))
        legend = [f"{k}: {o.label}" for k, o in enumerate(self.objects)]
        return "\n".join(rows) + "\n\n" + "\n".join(legend) + "\n"


#: What a person may write for a cell besides the canonical ``.``, ``#``, ``H``, ``P``: an
#: obstacle as ``X``, the human and helper in lower case, an empty cell as ``_``.
_CELL_SPELLINGS = {"X": "#", "x": "#", "h": "H", "p": "P", "_": "."}
#: A legend line: "0: red square", "0 - a Red Square.", "1) blue circles", "2 = the grey star".
_LEGEND = re.compile(r"^(\d+)\s*[:=)\-–.]\s*(?:(?:a|an|the)\s+)?([A-Za-z]+)\s+([A-Za-z]+)\s*[.,;]?$")


def _spaced(rows: list[str]) -> bool:
    """Whether grid rows are written with a space between cells ("H . . 0")."""
    return all(len(r) % 2 == 1 and set(r[1::2]) == {" "} for r in rows) and any(len(r) > 1 for r in rows)


def parse_layout(text: str, name: str = "") -> Layout:
    """Parse the text format; errors name the 1-based line and column. Also read: cells spaced
    apart ("H . . 0"), ``X`` for an obstacle, ``h`` / ``p``, ``_`` for empty; legend lines as
    "0 - a Red Square." or "1) blue circles" (one colour and one shape, any case)."""
    where = f"{name}: " if name else ""
    lines = text.splitlines()
    grid_lines: list[str] = []
    i = 0
    while i < len(lines) and lines[i].strip():
        grid_lines.append(lines[i].rstrip())
        i += 1
    if not grid_lines:
        raise UserError(f"{where}line 1, column 1: empty layout (expected grid rows)")
    if _spaced(grid_lines):
        grid_lines = [r[::2] for r in grid_lines]
    grid_lines = ["".join(_CELL_SPELLINGS.get(ch, ch) for ch in r) for r in grid_lines]
    width, height = len(grid_lines[0]), len(grid_lines)
    obstacles, human, helper = set(), None, None
    object_at: dict[int, tuple[int, int]] = {}
    for row_no, row in enumerate(grid_lines):
        if len(row) != width:
            raise UserError(
                f"{where}line {row_no + 1}, column {min(len(row), width) + 1}: "
                f"row has {len(row)} cells, expected {width}"
            )
        y = height - 1 - row_no
        for x, ch in enumerate(row):
            if ch == ".":
                continue
            if ch == "#":
                obstacles.add((x, y))
            elif ch == "H" and human is None:
                human = (x, y)
            elif ch == "P" and helper is None:
                helper = (x, y)
            elif ch.isdigit() and int(ch) not in object_at:
                object_at[int(ch)] = (x, y)
            else:
                raise UserError(f"{where}line {row_no + 1}, column {x + 1}: unexpected or repeated character {ch!r}")
    if human is None or helper is None:
        raise UserError(f"{where}line 1, column 1: grid needs one 'H' (human) and one 'P' (helper)")
    legend: dict[int, GridObject] = {}
    for line_no in range(i + 1, len(lines)):
        line = lines[line_no].strip()
        if not line:
            continue
        m = _LEGEND.match(line)
        if m is None:
            raise UserError(
                f"{where}line {line_no + 1}, column 1: expected '<digit>: <color> <shape>', got {clip(line)!r}"
            )
        k, color, shape = int(m[1]), m[2].lower(), m[3].lower()
        color = "gray" if color == "grey" else color
        shape = shape[:-1] if shape.endswith("s") and shape[:-1] in SHAPES else shape  # "blue circles"
        try:
            legend[k] = GridObject(color, shape)
        except UserError as err:
            raise UserError(f"{where}line {line_no + 1}, column {m.start(2) + 1}: {err}") from None
    if sorted(object_at) != list(range(len(object_at))) or set(legend) != set(object_at):
        raise UserError(
            f"{where}line {i + 2}, column 1: objects in the grid {sorted(object_at)} and the legend "
            f"{sorted(legend)} must match and be numbered from 0"
        )
    return Layout(
        width=width,
        height=height,
        obstacles=frozenset(obstacles),
        objects=tuple(legend[k] for k in range(len(legend))),
        object_cells=tuple(object_at[k] for k in range(len(object_at))),
        human_start=human,
        helper_start=helper,
        name=name,
    )


def check_reachable(layout: Layout) -> None:
    """Reject a layout whose human cannot walk to every object: its goals could never be reached
    and every episode would only run out of ticks."""
    start = layout.index(layout.human_start)
    for k, cell in enumerate(layout.object_cells):
        if layout.dist(start, layout.index(cell)) >= UNREACHABLE:
            name = layout.name or "layout"
            raise UserError(f"{name}: the human cannot reach object {k} ({layout.objects[k].label})")


#: Layout families of the paper's generator: number of obstacles.
FAMILIES = {"empty": 0, "obstacles10": 10, "obstacles15": 15, "obstacles20": 20}


def generate_layout(
    rng: np.random.Generator,
    width: int = 10,
    height: int = 10,
    n_objects: int = 8,
    n_obstacles: int | None = None,
    colors: tuple[str, ...] = COLORS,
    shapes: tuple[str, ...] = SHAPES,
    max_tries: int = 1000,
) -> Layout:
    """Random connected layout; objects never 4-adjacent to each other nor on start cells.

    ``n_obstacles=None`` draws uniformly from 0..20 as in paper App. B.1.
    """
    pairs = [(c, s) for c in colors for s in shapes]
    if n_objects > len(pairs):
        raise UserError(f"{n_objects} objects need distinct (color, shape); only {len(pairs)} exist")
    if n_obstacles is None:
        n_obstacles = int(rng.integers(0, 21))
    # Each object blocks its own cell and up to 4 neighbours for the next object.
    if n_obstacles + 2 + 5 * n_objects > width * height:
        raise UserError(
            f"impossible config: {n_objects} objects (non-adjacent) and {n_obstacles} obstacles "
            f"do not fit in a {width}x{height} grid"
        )
    cells = [(x, y) for y in range(height) for x in range(width)]
    for _ in range(max_tries):
        order = rng.permutation(len(cells))
        obstacles = frozenset(cells[j] for j in order[:n_obstacles])
        rest = [cells[j] for j in order[n_obstacles:]]
        human, helper = rest[0], rest[1]
        placed: list[tuple[int, int]] = []
        for c in rest[2:]:
            if len(placed) == n_objects:
                break
            if all(abs(c[0] - p[0]) + abs(c[1] - p[1]) > 1 for p in placed):
                placed.append(c)
        if len(placed) < n_objects:
            continue
        chosen = rng.choice(len(pairs), size=n_objects, replace=False)
        layout = Layout(
            width=width,
            height=height,
            obstacles=obstacles,
            objects=tuple(GridObject(*pairs[j]) for j in chosen),
            object_cells=tuple(placed),
            human_start=human,
            helper_start=helper,
        )
        if layout.is_connected:
            return layout
    raise UserError(f"could not generate a connected layout in {max_tries} tries; use fewer obstacles")


def random_walls(rng: np.random.Generator, width: int, height: int, n_walls: int, max_tries: int = 1000) -> frozenset:
    """``n_walls`` wall cells drawn uniformly, redrawn until the free cells are connected (the
    reference implementation's fixed layout files were made this way)."""
    cells = [(x, y) for y in range(height) for x in range(width)]
    if n_walls > len(cells) // 2:
        raise UserError(f"{n_walls} walls leave too little room on a {width}x{height} grid; use a larger --size")
    for _ in range(max_tries):
        walls = frozenset(cells[j] for j in rng.choice(len(cells), size=n_walls, replace=False))
        free = [c for c in cells if c not in walls]
        probe = Layout(width, height, walls, (), (), free[0], free[-1])
        if probe.is_connected:
            return walls
    raise UserError(f"could not draw {n_walls} connected walls on {width}x{height} in {max_tries} tries")


def place_on_walls(
    rng: np.random.Generator,
    width: int,
    height: int,
    walls: frozenset,
    objects: tuple[GridObject, ...],
    max_tries: int = 200,
) -> Layout:
    """Start cells and object cells on fixed walls, as the reference env places them: two distinct
    free cells for the human and the helper, then the objects greedily on a shuffle of the other
    free cells, never 4-adjacent to each other."""
    free = [(x, y) for y in range(height) for x in range(width) if (x, y) not in walls]
    for _ in range(max_tries):
        order = rng.permutation(len(free))
        placed: list[tuple[int, int]] = []
        for j in order[2:]:
            c = free[j]
            if all(abs(c[0] - p[0]) + abs(c[1] - p[1]) > 1 for p in placed):
                placed.append(c)
                if len(placed) == len(objects):
                    return Layout(width, height, walls, objects, tuple(placed), free[order[0]], free[order[1]])
    raise UserError(f"could not place {len(objects)} non-adjacent objects among {len(free)} free cells")
