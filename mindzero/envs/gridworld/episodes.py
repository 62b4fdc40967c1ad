"""Episodes: a layout plus the human's (hidden) goal; seeded generation under a protocol.

Two protocols (:data:`PROTOCOLS`) filter generated episodes here:

- ``quick``: the noise-free solo plan takes between ``min_plan`` and ``max_plan`` ticks (paper
  App. B.1), so that there is time to infer the goal and the human alone finishes well within the
  assistance limit (50). T_alone ≈ 25 ticks.
- ``ambiguous`` (this project's ``paper`` protocol before the reference generator was read):
  long episodes whose start keeps the goal ambiguous (T_alone ≈ 32–36): 15 of every 40 episodes
  use the empty layout; both goal objects are more than :data:`AMBIGUOUS_SEPARATION` moves apart
  and from the human; picking takes at least :data:`AMBIGUOUS_PHASE_TICKS` ticks and putting as
  many more; the noise-free human finishes within the tick limit; and its first
  :data:`AMBIGUOUS_MOVES` moves are also shortest moves towards an object outside the goal.

The reference implementation's own generator (``reference`` protocol) needs exact inference, so
its filter lives in :mod:`mindzero.domains.gridworld.protocol`; its layouts, objects and goal
draw are here (:func:`reference_layout`, :func:`far_pairs`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.results import iter_jsonl, read_text
from mindzero.envs.gridworld.human import HumanModel, free_neighbor_distance
from mindzero.envs.gridworld.layout import (
    COLORS,
    FAMILIES,
    SHAPES,
    UNREACHABLE,
    GridObject,
    Layout,
    check_reachable,
    generate_layout,
    parse_layout,
    place_on_walls,
    random_walls,
)
from mindzero.envs.gridworld.world import Action, Goal, WorldState, goal_achieved, step

PROTOCOLS = ("ambiguous", "quick")
#: Ambiguous protocol: goal objects farther apart than this (moves), and farther from the human start.
AMBIGUOUS_SEPARATION = 7
#: Ambiguous protocol: least ticks of each phase — walk to and pick the first object; carry and put.
AMBIGUOUS_PHASE_TICKS = 6
#: Ambiguous protocol: shortest moves the human's start shares with a path to a non-goal object.
AMBIGUOUS_MOVES = 3
#: Ambiguous and reference protocols: ``k % 40 < 15`` episodes are drawn on the empty layout.
EMPTY_SHARE = (15, 40)

#: Reference protocol: goal objects farther apart than this (moves), and farther from the human
#: (build_gw_asst_dataset.py ``_goal_candidates``).
REFERENCE_SEPARATION = 6
#: Reference protocol: wall counts of its layout files 0..25 (0 the empty one).
REFERENCE_WALLS = (0,) + (10,) * 10 + (15,) * 10 + (20,) * 5
#: Reference protocol: seed of our regenerated wall sets (the same for every episode seed, as the
#: reference reads the same files whatever its seed).
REFERENCE_WALL_SEED = 2024
#: Reference protocol: the 8 colours of every episode's objects, which share one of 3 shapes.
REFERENCE_COLORS = ("red", "blue", "green", "orange", "purple", "pink", "yellow", "brown")
REFERENCE_SHAPES = ("circle", "square", "star")


@dataclass(frozen=True)
class Episode:
    """A layout and the human's goal (object indices, ``goal[0] < goal[1]``)."""

    layout: Layout
    goal: Goal
    episode_id: str = ""

    def initial_state(self) -> WorldState:
        return WorldState.initial(self.layout)

    def _first_other(self) -> tuple[int, int]:
        """(the goal object the human handles first — the nearer, ties the lower — and the other)."""
        lay, (a, b) = self.layout, self.goal
        h, ca, cb = lay.index(lay.human_start), lay.index(lay.object_cells[a]), lay.index(lay.object_cells[b])
        return (a, b) if lay.distance[h, ca] <= lay.distance[h, cb] else (b, a)

    def phase_ticks(self) -> tuple[int, int]:
        """Ticks of the noise-free solo plan's two phases: walk to the first object and pick it;
        carry it (a pause after every move but the last, since the put comes before the pause) and put."""
        lay = self.layout
        first, other = (lay.index(lay.object_cells[k]) for k in self._first_other())
        carry = max(0, int(lay.distance[first, other]) - 1)
        return int(lay.distance[lay.index(lay.human_start), first]) + 1, max(0, 2 * carry - 1) + 1

    def plan_length(self) -> int:
        """Ticks of the noise-free solo plan."""
        return sum(self.phase_ticks())

    def fits_ambiguous_protocol(self, max_ticks: int = 50) -> bool:
        """Whether the ambiguous protocol keeps this episode (module docstring)."""
        lay = self.layout
        h = lay.index(lay.human_start)
        cells = [lay.index(c) for c in lay.object_cells]
        a, b = (cells[k] for k in self.goal)
        if min(lay.distance[a, b], lay.distance[h, a], lay.distance[h, b]) <= AMBIGUOUS_SEPARATION:
            return False
        if min(self.phase_ticks()) < AMBIGUOUS_PHASE_TICKS or self.plan_length() > max_ticks:
            return False
        first = cells[self._first_other()[0]]
        k = AMBIGUOUS_MOVES  # a cell k moves out that is on shortest paths to the first object and to a decoy
        on_way = (lay.distance[h] == k) & (lay.distance[first] == lay.distance[h, first] - k)
        decoys = [c for j, c in enumerate(cells) if j not in self.goal]
        return bool(any((on_way & (lay.distance[c] == lay.distance[h, c] - k)).any() for c in decoys))

    def reachable(self) -> bool:
        """Whether the human can walk to both goal objects and to a free cell next to each (where it
        puts the other one): without, the goal can never be achieved."""
        lay = self.layout
        h = lay.index(lay.human_start)
        cells = np.array([lay.index(lay.object_cells[g]) for g in self.goal])
        occupied = self.initial_state().ground_mask(lay.n_cells)
        to_objects = lay.dist(cells, h)
        return bool(
            (to_objects < UNREACHABLE).all() and (free_neighbor_distance(lay, h, cells, occupied) < UNREACHABLE).all()
        )

    def to_dict(self) -> dict:
        return {"episode_id": self.episode_id, "layout": self.layout.to_text(), "goal": list(self.goal)}

    @classmethod
    def from_dict(cls, row: dict) -> Episode:
        goal = tuple(sorted(int(g) for g in row["goal"]))
        return cls(parse_layout(row["layout"]), goal, row.get("episode_id", ""))  # type: ignore[arg-type]


def generate_episode(
    rng: np.random.Generator,
    family: str | None = None,
    n_objects: int = 8,
    size: int = 10,
    min_plan: int = 12,
    max_plan: int = 36,
    colors: tuple[str, ...] = COLORS,
    shapes: tuple[str, ...] = SHAPES,
    episode_id: str = "",
    max_tries: int = 500,
    protocol: str = "quick",
) -> Episode:
    """Draw a layout (``family`` from ``FAMILIES`` or None for U(0, 20) obstacles) and a goal that
    the ``protocol``'s filters keep (the ambiguous protocol's tick limit is ``max_plan``)."""
    if family is not None and family not in FAMILIES:
        raise UserError(f"unknown layout family {family!r}; choose from {', '.join(FAMILIES)}")
    if protocol not in PROTOCOLS:
        raise UserError(f"unknown protocol {protocol!r}; choose from {', '.join(PROTOCOLS)}")
    n_obstacles = None if family is None else FAMILIES[family]
    for _ in range(max_tries):
        layout = generate_layout(rng, size, size, n_objects, n_obstacles, colors, shapes)
        i, j = sorted(int(k) for k in rng.choice(n_objects, size=2, replace=False))
        episode = Episode(layout, (i, j), episode_id)
        if protocol == "ambiguous" and episode.fits_ambiguous_protocol(max_plan):
            return episode
        if protocol == "quick" and min_plan <= episode.plan_length() <= max_plan:
            return episode
    wanted = (
        "the ambiguous protocol's filters" if protocol == "ambiguous" else f"a plan of {min_plan}..{max_plan} ticks"
    )
    raise UserError(f"no episode with {wanted} in {max_tries} tries (family {family}, {size}x{size})")


def generated_episode(
    k: int, seed: int, family: str | None = None, prefix: str = "ep", protocol: str = "quick", **kwargs
) -> Episode:
    """Episode ``k`` of :func:`generate_episodes`: it depends only on ``(seed, k)``. Under the ambiguous
    protocol, episodes without a ``family`` use the empty layout for ``k % 40 < 15``."""
    if protocol == "ambiguous":
        kwargs.setdefault("max_plan", 50)
        if family is None and k % EMPTY_SHARE[1] < EMPTY_SHARE[0]:
            family = "empty"
    rng = np.random.default_rng([seed, k])
    return generate_episode(rng, family, episode_id=f"{prefix}{seed}-{k:04d}", protocol=protocol, **kwargs)


def generate_episodes(n: int, seed: int, family: str | None = None, prefix: str = "ep", **kwargs) -> list[Episode]:
    """``n`` episodes; episode ``k`` depends only on ``(seed, k)`` (stable under changes of n)."""
    return [generated_episode(k, seed, family, prefix, **kwargs) for k in range(n)]


def reference_layout_id(k: int) -> int:
    """The reference layout file of our episode ``k`` (the reference's episode ``k + 1``): of every
    40, 15 empty (id 0), 10 with 10 walls, 10 with 15 and 5 with 20."""
    index = (k + 1) % EMPTY_SHARE[1]
    return 0 if index < EMPTY_SHARE[0] else index - EMPTY_SHARE[0] + 1


@lru_cache(maxsize=64)
def reference_walls(layout_id: int, size: int) -> frozenset:
    """Our regeneration of the reference's layout file ``layout_id`` (its wall count, uniformly
    drawn connected walls): the files are not shipped here, and the draws depend only on the id."""
    if not 0 <= layout_id < len(REFERENCE_WALLS):
        raise UserError(f"reference layout id {layout_id} is not in 0..{len(REFERENCE_WALLS) - 1}")
    rng = np.random.default_rng([REFERENCE_WALL_SEED, layout_id, size])
    return random_walls(rng, size, size, REFERENCE_WALLS[layout_id])


def reference_layout(rng: np.random.Generator, k: int, size: int = 10, n_objects: int = 8) -> Layout:
    """A layout of the reference's episode distribution for our episode ``k``: its walls, random
    starts and objects on them, and objects of one shape in distinct colours."""
    if n_objects > len(REFERENCE_COLORS):
        raise UserError(f"the reference protocol has {len(REFERENCE_COLORS)} colours; got --n-objects {n_objects}")
    shape = REFERENCE_SHAPES[int(rng.integers(len(REFERENCE_SHAPES)))]
    colors = rng.permutation(len(REFERENCE_COLORS))[:n_objects]
    objects = tuple(GridObject(REFERENCE_COLORS[c], shape) for c in colors)
    return place_on_walls(rng, size, size, reference_walls(reference_layout_id(k), size), objects)


def far_pairs(layout: Layout, separation: int = REFERENCE_SEPARATION) -> list[Goal]:
    """Goal pairs whose objects are more than ``separation`` moves apart and from the human start."""
    cells = np.array([layout.index(c) for c in layout.object_cells])
    dist = layout.dist(cells[:, None], cells[None, :])
    from_human = layout.dist(cells, layout.index(layout.human_start))
    return [
        (i, j)
        for i in range(len(cells))
        for j in range(i + 1, len(cells))
        if min(dist[i, j], from_human[i], from_human[j]) > separation
    ]


def load_layouts(path: str | Path) -> list[Layout]:
    """Layouts from a text file, or from every ``*.txt`` file of a folder (sorted by name)."""
    path = Path(path)
    files = sorted(path.glob("*.txt")) if path.is_dir() else [path]
    if not files:
        raise UserError(f"no layout files (*.txt) in {path}")
    layouts = [parse_layout(read_text(file), name=str(file)) for file in files]
    for layout in layouts:
        check_reachable(layout)
    return layouts


def layout_episode(k: int, layouts: list[Layout], seed: int, min_plan: int = 12, max_plan: int = 36) -> Episode:
    """Episode ``k`` on the given layouts (cycled): its goal is drawn (seeded by ``(seed, k)``) among
    the pairs whose solo plan fits ``min_plan..max_plan`` ticks, or among all pairs if none fits."""
    layout = layouts[k % len(layouts)]
    rng = np.random.default_rng([seed, k])
    pairs = [(i, j) for i in range(len(layout.objects)) for j in range(i + 1, len(layout.objects))]
    if not pairs:
        raise UserError(f"layout {layout.name or k}: needs at least two objects")
    fitting = [g for g in pairs if min_plan <= Episode(layout, g).plan_length() <= max_plan] or pairs
    goal = fitting[int(rng.integers(len(fitting)))]
    return Episode(layout, goal, f"{Path(layout.name).stem or 'layout'}-{seed}-{k:04d}")


#: Fields every line of an episodes file needs (:func:`load_episodes`); the rest are optional.
EPISODE_FIELDS = {"layout_text": str, "goal": list}


def load_episodes(path: str | Path, size: int | None = None) -> list[Episode]:
    """Episodes from a JSONL file, one per line: ``layout_text`` (the layout text format) and
    ``goal`` (two object indices); optional ``episode_id``, ``grid_size`` and ``goal_labels`` are
    checked against the layout. Each line is validated in full, so that a bad file fails at
    once with ``FILE:LINE: what is wrong`` rather than mid-benchmark."""
    episodes = []
    for n, row in iter_jsonl(path, EPISODE_FIELDS, hint="e.g. ../shared/data/gw_reference_episodes/"):
        where = f"{path}:{n}"
        try:
            layout = parse_layout(row["layout_text"])
        except UserError as err:
            raise UserError(f"{where}: layout_text: {err}") from None
        shape = [layout.width, layout.height]
        if row.get("grid_size", shape) != shape:
            raise UserError(f"{where}: grid_size {row['grid_size']} but layout_text is {shape[0]}x{shape[1]}")
        if size is not None and shape != [size, size]:
            raise UserError(f"{where}: layout is {shape[0]}x{shape[1]}; this run expects {size}x{size} (--size)")
        goal = row["goal"]
        n_objects = len(layout.objects)
        if len(goal) != 2 or any(type(g) is not int for g in goal) or goal[0] == goal[1]:
            raise UserError(f"{where}: goal must be two different object indices, got {goal}")
        missing = [g for g in goal if not 0 <= g < n_objects]
        if missing:
            raise UserError(
                f"{where}: goal {goal} names object {missing[0]}; the layout has objects 0..{n_objects - 1}"
            )
        episode = Episode(layout, (min(goal), max(goal)), str(row.get("episode_id", f"{Path(path).stem}-{n}")))
        labels = [layout.objects[g].label for g in goal]
        if row.get("goal_labels", labels) != labels:
            raise UserError(f"{where}: goal_labels {row['goal_labels']} but the goal's objects are {labels}")
        if not episode.reachable():
            raise UserError(
                f"{where}: goal {goal} is unreachable: the human cannot reach both objects and a free cell next to each"
            )
        episodes.append(episode)
    if not episodes:
        raise UserError(f"{path}: no episodes (the file is empty)")
    return episodes


def rollout_alone(
    episode: Episode, human: HumanModel, rng: np.random.Generator, max_steps: int = 100
) -> tuple[list[WorldState], list[int]]:
    """The human acting alone (helper still): states s_0..s_T and actions a_0..a_{T-1}."""
    states, actions = [episode.initial_state()], []
    while len(actions) < max_steps and not goal_achieved(states[-1], episode.goal, episode.layout):
        action = human.sample(states[-1], episode.goal, rng)
        actions.append(action)
        states.append(step(episode.layout, states[-1], action, Action.STAY))
    return states, actions
