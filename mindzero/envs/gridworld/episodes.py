"""Episodes: a layout plus the human's (hidden) goal; seeded generation under a protocol.

Two protocols (:data:`PROTOCOLS`) filter generated episodes:

- ``quick``: the noise-free solo plan takes between ``min_plan`` and ``max_plan`` ticks (paper
  App. B.1), so that there is time to infer the goal and the human alone finishes well within the
  assistance limit (50). T_alone ≈ 25 ticks.
- ``paper``: the published MindZero evaluation's generator, whose episodes are longer and harder
  (T_alone ≈ 32–36): 15 of every 40 episodes use the empty layout; both goal objects are more
  than :data:`PAPER_SEPARATION` moves apart and from the human; picking takes at least
  :data:`PAPER_PHASE_TICKS` ticks and putting as many more; the noise-free human finishes within
  the tick limit; and its first :data:`PAPER_AMBIGUOUS_MOVES` moves are also shortest moves
  towards an object outside the goal, so the early trajectory does not give the goal away.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.results import read_text
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.layout import (
    COLORS,
    FAMILIES,
    SHAPES,
    Layout,
    check_reachable,
    generate_layout,
    parse_layout,
)
from mindzero.envs.gridworld.world import Action, Goal, WorldState, goal_achieved, step

PROTOCOLS = ("paper", "quick")
#: Paper protocol: goal objects farther apart than this (moves), and farther from the human start.
PAPER_SEPARATION = 7
#: Paper protocol: least ticks of each phase — walk to and pick the first object; carry and put.
PAPER_PHASE_TICKS = 6
#: Paper protocol: shortest moves the human's start shares with a path to a non-goal object.
PAPER_AMBIGUOUS_MOVES = 3
#: Paper protocol: ``k % 40 < 15`` episodes are drawn on the empty layout family.
PAPER_EMPTY_SHARE = (15, 40)


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

    def fits_paper_protocol(self, max_ticks: int = 50) -> bool:
        """Whether the published evaluation's generator keeps this episode (module docstring)."""
        lay = self.layout
        h = lay.index(lay.human_start)
        cells = [lay.index(c) for c in lay.object_cells]
        a, b = (cells[k] for k in self.goal)
        if min(lay.distance[a, b], lay.distance[h, a], lay.distance[h, b]) <= PAPER_SEPARATION:
            return False
        if min(self.phase_ticks()) < PAPER_PHASE_TICKS or self.plan_length() > max_ticks:
            return False
        first = cells[self._first_other()[0]]
        k = PAPER_AMBIGUOUS_MOVES  # a cell k moves out that is on shortest paths to the first object and to a decoy
        on_way = (lay.distance[h] == k) & (lay.distance[first] == lay.distance[h, first] - k)
        decoys = [c for j, c in enumerate(cells) if j not in self.goal]
        return bool(any((on_way & (lay.distance[c] == lay.distance[h, c] - k)).any() for c in decoys))

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
    the ``protocol``'s filters keep (the paper protocol's tick limit is ``max_plan``)."""
    if family is not None and family not in FAMILIES:
        raise UserError(f"unknown layout family {family!r}; choose from {', '.join(FAMILIES)}")
    if protocol not in PROTOCOLS:
        raise UserError(f"unknown protocol {protocol!r}; choose from {', '.join(PROTOCOLS)}")
    n_obstacles = None if family is None else FAMILIES[family]
    for _ in range(max_tries):
        layout = generate_layout(rng, size, size, n_objects, n_obstacles, colors, shapes)
        i, j = sorted(int(k) for k in rng.choice(n_objects, size=2, replace=False))
        episode = Episode(layout, (i, j), episode_id)
        if protocol == "paper" and episode.fits_paper_protocol(max_plan):
            return episode
        if protocol == "quick" and min_plan <= episode.plan_length() <= max_plan:
            return episode
    wanted = "the paper protocol's filters" if protocol == "paper" else f"a plan of {min_plan}..{max_plan} ticks"
    raise UserError(f"no episode with {wanted} in {max_tries} tries (family {family}, {size}x{size})")


def generated_episode(
    k: int, seed: int, family: str | None = None, prefix: str = "ep", protocol: str = "quick", **kwargs
) -> Episode:
    """Episode ``k`` of :func:`generate_episodes`: it depends only on ``(seed, k)``. Under the paper
    protocol, episodes without a ``family`` use the empty layout for ``k % 40 < 15``."""
    if protocol == "paper":
        kwargs.setdefault("max_plan", 50)
        if family is None and k % PAPER_EMPTY_SHARE[1] < PAPER_EMPTY_SHARE[0]:
            family = "empty"
    rng = np.random.default_rng([seed, k])
    return generate_episode(rng, family, episode_id=f"{prefix}{seed}-{k:04d}", protocol=protocol, **kwargs)


def generate_episodes(n: int, seed: int, family: str | None = None, prefix: str = "ep", **kwargs) -> list[Episode]:
    """``n`` episodes; episode ``k`` depends only on ``(seed, k)`` (stable under changes of n)."""
    return [generated_episode(k, seed, family, prefix, **kwargs) for k in range(n)]


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
