"""GridWorld dynamics: two agents (human, helper) acting simultaneously on a :class:`Layout`.

A tick: both agents move (walls and borders block; agents may share a cell; a carried object
moves with its carrier), then pick/put resolve, the human before the helper. Pick takes an
uncarried object on the agent's cell; put fails on a cell that already holds an object on the
ground. A goal is an unordered pair of objects; it is achieved when both lie on the ground at
Manhattan distance 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from itertools import combinations

import numpy as np

from mindzero.envs.gridworld.layout import Layout


class Action(IntEnum):
    STAY = 0
    UP = 1
    DOWN = 2
    LEFT = 3
    RIGHT = 4
    PICK = 5
    PUT = 6


N_ACTIONS = len(Action)
N_MOVES = 5
ACTION_NAMES = tuple(a.name.lower() for a in Action)

Goal = tuple[int, int]


def goal_pairs(n_objects: int) -> list[Goal]:
    """All unordered object pairs ``(i, j)`` with ``i < j`` (28 for 8 objects), in a fixed order."""
    return list(combinations(range(n_objects), 2))


@dataclass(frozen=True)
class WorldState:
    """Everything that changes during an episode (cells are layout indices).

    ``objects[k]`` is the cell of object ``k``, or its carrier's cell while carried.
    ``human_rest``: the human moved while carrying last tick and must pause now.
    """

    human: int
    helper: int
    objects: tuple[int, ...]
    human_carry: int = -1
    helper_carry: int = -1
    human_rest: bool = False
    t: int = 0

    @classmethod
    def initial(cls, layout: Layout) -> WorldState:
        return cls(
            human=layout.index(layout.human_start),
            helper=layout.index(layout.helper_start),
            objects=tuple(layout.index(c) for c in layout.object_cells),
        )

    def on_ground(self, k: int) -> bool:
        return k != self.human_carry and k != self.helper_carry

    def ground_object_at(self, cell: int) -> int:
        """Index of the object lying on the ground at ``cell``, or -1."""
        for k, c in enumerate(self.objects):
            if c == cell and self.on_ground(k):
                return k
        return -1

    def ground_mask(self, n_cells: int) -> np.ndarray:
        """Boolean mask over cells: True where an object lies on the ground."""
        mask = np.zeros(n_cells, dtype=bool)
        mask[list(self.objects)] = True
        for k in (self.human_carry, self.helper_carry):
            if k >= 0 and self.ground_object_at(self.objects[k]) < 0:
                mask[self.objects[k]] = False
        return mask


def goal_achieved(state: WorldState, goal: Goal, layout: Layout) -> bool:
    a, b = goal
    if not (state.on_ground(a) and state.on_ground(b)):
        return False
    (xa, ya), (xb, yb) = layout.cell(state.objects[a]), layout.cell(state.objects[b])
    return abs(xa - xb) + abs(ya - yb) == 1


def step(layout: Layout, state: WorldState, human_action: int, helper_action: int) -> WorldState:
    """Advance one tick. Invalid picks/puts are no-ops; blocked moves leave the agent in place."""
    human, helper = state.human, state.helper
    if human_action < N_MOVES:
        human = int(layout.next_cell[human, human_action])
    if helper_action < N_MOVES:
        helper = int(layout.next_cell[helper, helper_action])
    objects = list(state.objects)
    human_carry, helper_carry = state.human_carry, state.helper_carry
    if human_carry >= 0:
        objects[human_carry] = human
    if helper_carry >= 0:
        objects[helper_carry] = helper

    def ground_at(cell: int) -> int:
        for k, c in enumerate(objects):
            if c == cell and k != human_carry and k != helper_carry:
                return k
        return -1

    if human_action == Action.PICK and human_carry < 0:
        human_carry = ground_at(human)
    elif human_action == Action.PUT and human_carry >= 0 and ground_at(human) < 0:
        human_carry = -1
    if helper_action == Action.PICK and helper_carry < 0:
        helper_carry = ground_at(helper)
    elif helper_action == Action.PUT and helper_carry >= 0 and ground_at(helper) < 0:
        helper_carry = -1
    moved_carrying = state.human_carry >= 0 and human_action in (
        Action.UP,
        Action.DOWN,
        Action.LEFT,
        Action.RIGHT,
    )
    return WorldState(human, helper, tuple(objects), human_carry, helper_carry, moved_carrying, state.t + 1)


@dataclass(frozen=True)
class Observation:
    """What an online reasoner sees each tick: the state before, and the human's action in it."""

    state: WorldState
    human_action: int
