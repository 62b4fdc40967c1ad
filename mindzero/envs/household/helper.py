"""The proactive helper of Household: acts on a goal posterior.

Each tick it works out, for every (object class, target) pair, the posterior probability that the
human's goal still needs one more of that class there beyond what is already placed, what the human
holds and what the human is heading for (an object of that class lies where it last walked to). Then:

- holding an object: take it to the target most likely to need it (walk, open, put); if no
  hypothesis needs it any more, put it on the nearest surface;
- hands free: fetch the object that serves the most probable need, if that probability is at least
  ``fetch_threshold`` (nearest such object first; never one lying on a task target, never one where
  the human is heading); otherwise wait.

The helper sees the whole state (it is the human whose view is partial).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mindzero.core.config import PROBABILITY
from mindzero.core.posterior import Posterior
from mindzero.envs.household.episodes import templates
from mindzero.envs.household.world import (
    GRAB,
    HANDS,
    HEAD,
    HELPER,
    LOC,
    NOOP_ACTION,
    OPEN,
    OPENED,
    POS,
    PUTIN,
    PUTON,
    WALK,
    Action,
    State,
    World,
)


@dataclass(frozen=True)
class HelperSettings:
    """When the helper acts on an uncertain posterior."""

    #: 0.3 was chosen on the train apartments (smc speedup +0.391 at 0.2, +0.381 at 0.3, +0.311 at
    #: 0.5; 6 episodes x 3 seeds per apartment): acting on a likely need pays more than waiting
    fetch_threshold: float = field(
        default=0.3,
        metadata={"help": "fetch an object only if P(the goal still needs it) is at least this", **PROBABILITY},
    )


class HouseholdHelper:
    """The helper of one apartment (module docstring)."""

    def __init__(self, world: World, settings: HelperSettings = HelperSettings()) -> None:
        self.world = world
        self.settings = settings
        self.protected = {t.target for t in templates(world.apartment)}
        apt = world.apartment
        surfaces = [f for f in range(world.F) if world.surface[f]]
        self.nearest_surface = [min(surfaces, key=lambda f: (apt.dist[f][cell], f)) for cell in range(len(apt.cells))]

    def needs(self, state: State, posterior: Posterior, own: bool) -> dict[tuple[str, int], float]:
        """P(the goal needs one more object of a class at a target), over the posterior; ``own``:
        count what the helper holds as on its way (when deciding what to fetch next)."""
        w = self.world
        head = state[HEAD]
        human_hands = [w.apartment.object_classes[o] for o in state[HANDS : HANDS + 2] if o >= 0]
        helper_hands = [w.apartment.object_classes[o] for o in state[HANDS + 2 : HANDS + 4] if o >= 0] if own else []
        need: dict[tuple[str, int], float] = {}
        for goal, q in zip(posterior.hypotheses, posterior.probs):
            if q <= 0:
                continue
            target = goal[1]
            for cls, n in goal[2]:
                objects = w.class_objects.get(cls, ())
                placed = sum(state[LOC + o] == target for o in objects)
                heading = head >= 0 and head != target and any(state[LOC + o] == head for o in objects)
                missing = n - placed - human_hands.count(cls) - heading - helper_hands.count(cls)
                if missing > 0:
                    need[cls, target] = need.get((cls, target), 0.0) + float(q)
        return need

    def act(self, state: State, posterior: Posterior) -> Action:
        w = self.world
        dist, pos = w.apartment.dist, state[POS + HELPER]
        held = [o for o in state[HANDS + 2 : HANDS + 4] if o >= 0]
        if held:
            o = held[0]
            cls = w.apartment.object_classes[o]
            need = self.needs(state, posterior, own=False)
            targets = [(p, -t) for (c, t), p in need.items() if c == cls]
            target = -max(targets)[1] if targets else self.nearest_surface[pos]
            return self._put(state, o, target)
        need = self.needs(state, posterior, own=True)
        best = None
        for (cls, target), p in need.items():
            if p < self.settings.fetch_threshold:
                continue
            for o in w.class_objects[cls]:
                f = state[LOC + o]
                if f < 0 or f in self.protected or f == state[HEAD]:
                    continue
                key = (-p, dist[f][pos] + dist[target][w.fcell[f]], o)
                if best is None or key < best[0]:
                    best = (key, o, f)
        if best is None:
            return NOOP_ACTION
        _, o, f = best
        if w.fcell[f] != pos:
            return (WALK, f, 0)
        if w.container[f] and not state[OPENED] >> f & 1:
            return (OPEN, f, 0)
        return (GRAB, o, 0)

    def _put(self, state: State, o: int, target: int) -> Action:
        w = self.world
        if w.fcell[target] != state[POS + HELPER]:
            return (WALK, target, 0)
        if w.container[target] and not state[OPENED] >> target & 1:
            return (OPEN, target, 0)
        return (PUTON if w.surface[target] else PUTIN, o, target)
