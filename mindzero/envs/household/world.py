"""Household dynamics (VirtualHome's symbolic rules) on a compact state: one flat list of ints.

State layout (``World.LOC`` = 10, ``n`` objects)::

    [t, human cell, helper cell, human hand 0, hand 1, helper hand 0, hand 1,
     open containers (bitmask over furniture), switched-on furniture (bitmask),
     the furniture the human last walked towards (-1 before any: what it is fetching),
     location of each object (n: furniture index, or -1 held by the human, -2 by the helper),
     the human's belief of each object's location (n bitmasks: furniture bits, bit F = in the
     human's hands, bit F+1 = in the helper's hands)]

A list of small ints copies in well under a microsecond and its fields read at plain-Python speed,
which is what planning inside inference needs (``benchmarks/bench_household.py`` measures it).

Actions are ``(verb, x, y)`` tuples; preconditions (:meth:`World.valid`):

- ``WALK node``: one cell along a shortest path towards a furniture piece or a room's centre; not
  when already there. A walk of d cells is d ticks.
- ``OPEN f`` / ``CLOSE f``: f is a container, closed / open, the agent is close to it (on its cell).
- ``GRAB o``: o lies on a surface or in an open container the agent is close to; a free hand
  (two hands).
- ``PUTON o f``: the agent holds o, f is a surface it is close to. ``PUTIN o f``: f is an open
  container it is close to.
- ``SWITCHON f``: f switches, is off, is closed if it is a container, the agent is close to it.
- ``NOOP``: always.

Arguments a verb does not use must be 0 (``(NOOP, 0, 0)``, ``(GRAB, o, 0)``), so each action has one
spelling and an observed action is found in :meth:`World.valid_actions` by equality.

Both agents act in one tick: the human's action first, then the helper's, each checked against the
state as it is then (so when both grab one object, the human gets it and the helper's grab fails;
an invalid action does nothing). After the tick the human perceives (the Watch-And-Help rule,
:meth:`World.visible`): it sees the furniture of its room, what any agent in the room holds, and the
objects there that are not inside a closed container. Its belief of an object's location is the
set of places it has not ruled out: seeing the object fixes it; seeing a place without it removes
that place; a belief emptied that way falls back to the object's possible places not in view.
"""

from __future__ import annotations

from collections.abc import Sequence

from mindzero.envs.household.apartment import CONTAINERS, SURFACES, SWITCHES, Apartment

NOOP, WALK, OPEN, CLOSE, GRAB, PUTON, PUTIN, SWITCHON = range(8)
VERBS = ("noop", "walk", "open", "close", "grab", "putback", "putin", "switchon")
HUMAN, HELPER = 0, 1
AGENTS = ("human", "helper")

Action = tuple[int, int, int]
State = list[int]
#: A goal: (task name, target furniture index, ((object class, count), ...) sorted by class).
Goal = tuple[str, int, tuple[tuple[str, int], ...]]

T, POS, HANDS, OPENED, SWITCHED, HEAD, LOC = 0, 1, 3, 7, 8, 9, 10
NOOP_ACTION: Action = (NOOP, 0, 0)
#: Verbs after which the human's perception must be redone (they move objects or open views);
#: otherwise it is skipped unless an agent changed rooms: perceiving twice the same view changes nothing.
CHANGES_VIEW = frozenset({OPEN, CLOSE, GRAB, PUTON, PUTIN})


class World:
    """One apartment's rules over compact states (see the module docstring)."""

    LOC = LOC

    def __init__(self, apartment: Apartment) -> None:
        self.apartment = apt = apartment
        self.n = apt.n_objects
        self.F = F = apt.n_furniture
        self.BEL = LOC + self.n
        self.n_nodes = F + len(apt.rooms)
        self.container = [c in CONTAINERS for c in apt.furniture]
        self.surface = [c in SURFACES for c in apt.furniture]
        self.switch = [c in SWITCHES for c in apt.furniture]
        self.fcell = apt.furniture_cell
        self.cell_furniture = [-1] * len(apt.cells)
        for f, cell in enumerate(apt.furniture_cell):
            self.cell_furniture[cell] = f
        self.cell_room = apt.cell_room
        rooms = range(len(apt.rooms))
        self.room_surfaces = [
            sum(1 << f for f in range(F) if self.surface[f] and apt.furniture_room[f] == r) for r in rooms
        ]
        self.room_containers = [
            sum(1 << f for f in range(F) if self.container[f] and apt.furniture_room[f] == r) for r in rooms
        ]
        self.placeable = sum(1 << f for f in range(F) if self.surface[f] or self.container[f])
        self.held_bits = (1 << F, 1 << (F + 1))
        #: belief bit of a location value: index ``loc + 2`` (loc -2, -1, 0..F-1)
        self.loc_bit = [1 << (F + 1), 1 << F, *(1 << f for f in range(F))]
        self.class_objects: dict[str, list[int]] = {}
        for o, c in enumerate(apt.object_classes):
            self.class_objects.setdefault(c, []).append(o)

    # ---- states -------------------------------------------------------------------------------

    def initial_state(self, human_cell: int, helper_cell: int, locations: Sequence[int]) -> State:
        """A state at t = 0 with all containers closed and nothing on; the human has perceived its
        room and believes each unseen object may be at any of its possible places."""
        if len(locations) != self.n:
            raise ValueError("one location per object")
        state = [0, human_cell, helper_cell, -1, -1, -1, -1, 0, 0, -1, *locations, *self.apartment.object_places]
        self.perceive(state)
        return state

    def holding(self, state: State, agent: int) -> list[int]:
        """Objects in an agent's hands."""
        return [o for o in state[HANDS + 2 * agent : HANDS + 2 * agent + 2] if o >= 0]

    def room_of(self, state: State, agent: int) -> int:
        return self.cell_room[state[POS + agent]]

    def close_to(self, state: State, agent: int) -> int:
        """The furniture the agent is close to, or -1."""
        return self.cell_furniture[state[POS + agent]]

    def is_open(self, state: State, f: int) -> bool:
        return bool(state[OPENED] >> f & 1)

    def visible(self, state: State, agent: int) -> tuple[int, list[int]]:
        """(furniture bitmask of the agent's room, objects it sees): those on a surface or in an
        open container of its room, and those held by an agent in its room."""
        room = self.cell_room[state[POS + agent]]
        places = self.room_surfaces[room] | (self.room_containers[room] & state[OPENED])
        holders = [a for a in (HUMAN, HELPER) if self.cell_room[state[POS + a]] == room]
        seen = []
        for o in range(self.n):
            loc = state[LOC + o]
            if (loc >= 0 and places >> loc & 1) or (loc < 0 and -1 - loc in holders):
                seen.append(o)
        return sum(1 << f for f in range(self.F) if self.apartment.furniture_room[f] == room), seen

    def perceive(self, state: State) -> None:
        """Update the human's belief in place from what it sees now (module docstring)."""
        F, BEL, loc_bit = self.F, self.BEL, self.loc_bit
        room = self.cell_room[state[POS]]
        view = self.room_surfaces[room] | (self.room_containers[room] & state[OPENED]) | (1 << F)
        if self.cell_room[state[POS + 1]] == room:
            view |= 1 << (F + 1)
        hidden, fallback = ~view, self.placeable & ~view
        bits = [loc_bit[loc + 2] for loc in state[LOC:BEL]]
        state[BEL:] = [
            bit if bit & view else (belief & hidden) or (places & hidden) or fallback
            for bit, belief, places in zip(bits, state[BEL:], self.apartment.object_places)
        ]

    # ---- actions ------------------------------------------------------------------------------

    def valid(self, state: State, agent: int, action: Action) -> bool:
        """VirtualHome's preconditions (module docstring)."""
        verb, x, y = action
        pos = state[POS + agent]
        if verb == NOOP:
            return x == 0 and y == 0
        if y and verb not in (PUTON, PUTIN):
            return False
        if verb == WALK:
            return 0 <= x < self.n_nodes and self.apartment.node_cell[x] != pos
        if verb in (OPEN, CLOSE, SWITCHON):
            if not (0 <= x < self.F and self.fcell[x] == pos):
                return False
            is_open = state[OPENED] >> x & 1
            if verb == SWITCHON:
                return self.switch[x] and not state[SWITCHED] >> x & 1 and not is_open
            return self.container[x] and (not is_open if verb == OPEN else bool(is_open))
        hands = HANDS + 2 * agent
        if verb == GRAB:
            if not 0 <= x < self.n or (state[hands] >= 0 and state[hands + 1] >= 0):
                return False
            loc = state[LOC + x]
            return loc >= 0 and self.fcell[loc] == pos and (self.surface[loc] or bool(state[OPENED] >> loc & 1))
        if verb in (PUTON, PUTIN):
            if x < 0 or (state[hands] != x and state[hands + 1] != x) or not (0 <= y < self.F):
                return False
            if self.fcell[y] != pos:
                return False
            return self.surface[y] if verb == PUTON else self.container[y] and bool(state[OPENED] >> y & 1)
        return False

    def apply(self, state: State, agent: int, action: Action) -> bool:
        """Do ``action`` in place if its preconditions hold; whether it did."""
        if not self.valid(state, agent, action):
            return False
        verb, x, y = action
        if verb == WALK:
            state[POS + agent] = self.apartment.step[x][state[POS + agent]]
        elif verb == OPEN:
            state[OPENED] |= 1 << x
        elif verb == CLOSE:
            state[OPENED] &= ~(1 << x)
        elif verb == SWITCHON:
            state[SWITCHED] |= 1 << x
        elif verb == GRAB:
            hand = HANDS + 2 * agent
            state[hand if state[hand] < 0 else hand + 1] = x
            state[LOC + x] = -1 - agent
        elif verb in (PUTON, PUTIN):
            hand = HANDS + 2 * agent
            state[hand if state[hand] == x else hand + 1] = -1
            state[LOC + x] = y
        return True

    def step(self, state: State, human_action: Action, helper_action: Action) -> State:
        """The next state (a new list): the human acts, then the helper, then the human perceives."""
        state = state[:]
        state[T] += 1
        rooms = self.cell_room[state[POS]], self.cell_room[state[POS + 1]]
        seen = False  # could the human's view have changed? (perception is idempotent otherwise)
        if self.apply(state, HUMAN, human_action):
            if human_action[0] == WALK and human_action[1] < self.F:
                state[HEAD] = human_action[1]
            seen = human_action[0] in CHANGES_VIEW
        if self.apply(state, HELPER, helper_action):
            seen = seen or helper_action[0] in CHANGES_VIEW
        if seen or rooms != (self.cell_room[state[POS]], self.cell_room[state[POS + 1]]):
            self.perceive(state)
        return state

    def valid_actions(self, state: State, agent: int) -> list[Action]:
        """Every action whose preconditions hold, in a fixed order (noop, walks, then local ones)."""
        pos = state[POS + agent]
        node_cell = self.apartment.node_cell
        actions = [NOOP_ACTION, *((WALK, node, 0) for node in range(self.n_nodes) if node_cell[node] != pos)]
        f = self.cell_furniture[pos]
        if f < 0:
            return actions
        for verb in (OPEN, CLOSE, SWITCHON):
            if self.valid(state, agent, (verb, f, 0)):
                actions.append((verb, f, 0))
        hands = state[HANDS + 2 * agent : HANDS + 2 * agent + 2]
        if -1 in hands and (self.surface[f] or state[OPENED] >> f & 1):
            actions += [(GRAB, o, 0) for o in range(self.n) if state[LOC + o] == f]
        put = PUTON if self.surface[f] else PUTIN if self.container[f] and state[OPENED] >> f & 1 else -1
        if put >= 0:
            actions += [(put, o, f) for o in hands if o >= 0]
        return actions

    # ---- goals --------------------------------------------------------------------------------

    def placed(self, state: State, goal: Goal) -> dict[str, int]:
        """Objects of each goal class at the goal's target now."""
        target = goal[1]
        return {c: sum(state[LOC + o] == target for o in self.class_objects.get(c, ())) for c, _ in goal[2]}

    def achieved(self, state: State, goal: Goal) -> bool:
        target = goal[1]
        for cls, count in goal[2]:
            if sum(state[LOC + o] == target for o in self.class_objects.get(cls, ())) < count:
                return False
        return True

    # ---- names --------------------------------------------------------------------------------

    def object_name(self, o: int) -> str:
        return self.apartment.object_classes[o]

    def action_text(self, action: Action) -> str:
        """VirtualHome script form: ``[walk] <fridge>``, ``[putin] <plate> <dishwasher>``."""
        verb, x, y = action
        if verb == NOOP:
            return "[noop]"
        if verb == WALK:
            return f"[walk] <{self.apartment.node_name(x)}>"
        if verb == GRAB:
            return f"[grab] <{self.object_name(x)}>"
        if verb in (PUTON, PUTIN):
            return f"[{VERBS[verb]}] <{self.object_name(x)}> <{self.apartment.furniture[y]}>"
        return f"[{VERBS[verb]}] <{self.apartment.furniture[x]}>"

    def action_sentence(self, agent: str, action: Action) -> str:
        """Plain English, as in paper Fig. 9 ("Human walks towards the kitchencabinet")."""
        verb, x, y = action
        if verb == NOOP:
            return f"{agent} waits"
        if verb == WALK:
            return f"{agent} walks towards the {self.apartment.node_name(x)}"
        if verb == GRAB:
            return f"{agent} grabs the {self.object_name(x)}"
        if verb == PUTON:
            return f"{agent} puts the {self.object_name(x)} on the {self.apartment.furniture[y]}"
        if verb == PUTIN:
            return f"{agent} puts the {self.object_name(x)} inside the {self.apartment.furniture[y]}"
        words = {OPEN: "opens", CLOSE: "closes", SWITCHON: "switches on"}
        return f"{agent} {words[verb]} the {self.apartment.furniture[x]}"


def goal_text(world: World, goal: Goal) -> str:
    """``on(plate, kitchentable): 2, on(cutleryfork, kitchentable): 1``."""
    target = world.apartment.furniture[goal[1]]
    relation = "on" if world.surface[goal[1]] else "inside"
    return ", ".join(f"{relation}({cls}, {target}): {n}" for cls, n in goal[2])
