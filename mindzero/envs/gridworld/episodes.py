"""Episodes: a layout plus the human's (hidden) goal; seeded generation with the paper's filters.

Generated episodes are filtered for a sufficient trajectory length (paper App. B.1): the
noise-free solo plan takes between ``min_plan`` and ``max_plan`` ticks, so that there is time
to infer the goal and the human alone still finishes well within the assistance limit (50).
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


@dataclass(frozen=True)
class Episode:
    """A layout and the human's goal (object indices, ``goal[0] < goal[1]``)."""

    layout: Layout
    goal: Goal
    episode_id: str = ""

    def initial_state(self) -> WorldState:
        return WorldState.initial(self.layout)

    def plan_length(self) -> int:
        """Ticks of the noise-free solo plan: walk, pick, carry (a pause after every move but the
        last, since the put comes before the pause), put."""
        lay, (a, b) = self.layout, self.goal
        cells = [lay.index(c) for c in lay.object_cells]
        h = lay.index(lay.human_start)
        first, other = (a, b) if lay.distance[h, cells[a]] <= lay.distance[h, cells[b]] else (b, a)
        carry = max(0, int(lay.distance[cells[first], cells[other]]) - 1)
        return int(lay.distance[h, cells[first]]) + 1 + max(0, 2 * carry - 1) + 1

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
) -> Episode:
    """Draw a layout (``family`` from ``FAMILIES`` or None for U(0, 20) obstacles) and a goal."""
    if family is not None and family not in FAMILIES:
        raise UserError(f"unknown layout family {family!r}; choose from {', '.join(FAMILIES)}")
    n_obstacles = None if family is None else FAMILIES[family]
    for _ in range(max_tries):
        layout = generate_layout(rng, size, size, n_objects, n_obstacles, colors, shapes)
        i, j = sorted(int(k) for k in rng.choice(n_objects, size=2, replace=False))
        episode = Episode(layout, (i, j), episode_id)
        if min_plan <= episode.plan_length() <= max_plan:
            return episode
    raise UserError(f"no episode with a plan of {min_plan}..{max_plan} ticks in {max_tries} tries")


def generated_episode(k: int, seed: int, family: str | None = None, prefix: str = "ep", **kwargs) -> Episode:
    """Episode ``k`` of :func:`generate_episodes`: it depends only on ``(seed, k)``."""
    return generate_episode(np.random.default_rng([seed, k]), family, episode_id=f"{prefix}{seed}-{k:04d}", **kwargs)


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
