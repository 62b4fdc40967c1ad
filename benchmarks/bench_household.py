"""Household speed figures: simulator step and state copy against a naive dict-of-graphs
implementation of the same rules (VirtualHome's graph form: node and edge dicts, deep-copied),
measured in the same run; human-alone episodes per second; SMC update time per observed action.

    python benchmarks/bench_household.py [--ticks 20000] [--episodes 40]

Targets (issue 15): a step ≤ 10 µs and a state copy ≤ 5 µs.
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np

from mindzero.domains.household.smc import Observation, SMCGoalInference, SMCSettings
from mindzero.envs.household.apartment import bundled_apartment
from mindzero.envs.household.episodes import make_episode, world_of
from mindzero.envs.household.human import HouseholdHuman
from mindzero.envs.household.world import CLOSE, GRAB, NOOP_ACTION, OPEN, PUTIN, PUTON, SWITCHON, WALK


class NaiveGraphWorld:
    """The same rules on a VirtualHome-style environment graph: ``{"nodes": [...], "edges": [...]}``
    with character nodes, object/furniture nodes with ``states`` lists, and ``INSIDE``/``ON``/
    ``HOLDS``/``AT`` edges found by scanning; the human's belief is a dict of sets. A copy is a
    deep copy, as with VirtualHome's Python executor."""

    def __init__(self, world) -> None:
        self.world = world

    def from_state(self, s: list[int]) -> dict:
        w = self.world
        nodes = [{"id": i, "class_name": "character", "states": []} for i in range(2)]
        nodes += [
            {"id": 100 + f, "class_name": c, "states": ["OPEN" if s[7] >> f & 1 else "CLOSED"]}
            for f, c in enumerate(w.apartment.furniture)
        ]
        nodes += [{"id": 1000 + o, "class_name": c, "states": []} for o, c in enumerate(w.apartment.object_classes)]
        edges = [{"from_id": a, "to_id": s[1 + a], "relation_type": "AT"} for a in range(2)]
        for o in range(w.n):
            loc = s[w.LOC + o]
            if loc >= 0:
                rel = "ON" if w.surface[loc] else "INSIDE"
                edges.append({"from_id": 1000 + o, "to_id": 100 + loc, "relation_type": rel})
            else:
                edges.append({"from_id": -1 - loc, "to_id": 1000 + o, "relation_type": "HOLDS"})
        belief = {o: {f for f in range(w.F + 2) if s[w.BEL + o] >> f & 1} for o in range(w.n)}
        return {"nodes": nodes, "edges": edges, "belief": belief, "t": s[0]}

    def _node(self, g, node_id):
        return next(n for n in g["nodes"] if n["id"] == node_id)

    def _pos(self, g, agent):
        return next(e["to_id"] for e in g["edges"] if e["from_id"] == agent and e["relation_type"] == "AT")

    def _held(self, g, agent):
        return [e["to_id"] - 1000 for e in g["edges"] if e["from_id"] == agent and e["relation_type"] == "HOLDS"]

    def _loc(self, g, o):
        for e in g["edges"]:
            if e["from_id"] == 1000 + o and e["relation_type"] in ("ON", "INSIDE"):
                return e["to_id"] - 100
            if e["to_id"] == 1000 + o and e["relation_type"] == "HOLDS":
                return -1 - e["from_id"]
        raise KeyError(o)

    def _apply(self, g, agent, action) -> None:
        w = self.world
        verb, x, y = action
        pos = self._pos(g, agent)
        if verb == WALK and w.apartment.node_cell[x] != pos:
            for e in g["edges"]:
                if e["from_id"] == agent and e["relation_type"] == "AT":
                    e["to_id"] = w.apartment.step[x][pos]
        elif verb in (OPEN, CLOSE, SWITCHON) and w.fcell[x] == pos:
            states = self._node(g, 100 + x)["states"]
            if verb == OPEN and w.container[x] and "CLOSED" in states:
                states[:] = ["OPEN"]
            elif verb == CLOSE and w.container[x] and "OPEN" in states:
                states[:] = ["CLOSED"]
            elif verb == SWITCHON and w.switch[x] and "ON" not in states and "OPEN" not in states:
                states.append("ON")
        elif verb == GRAB and len(self._held(g, agent)) < 2:
            loc = self._loc(g, x)
            if loc >= 0 and w.fcell[loc] == pos and (w.surface[loc] or "OPEN" in self._node(g, 100 + loc)["states"]):
                g["edges"] = [e for e in g["edges"] if e["from_id"] != 1000 + x]
                g["edges"].append({"from_id": agent, "to_id": 1000 + x, "relation_type": "HOLDS"})
        elif verb in (PUTON, PUTIN) and x in self._held(g, agent) and w.fcell[y] == pos:
            ok = w.surface[y] if verb == PUTON else w.container[y] and "OPEN" in self._node(g, 100 + y)["states"]
            if ok:
                g["edges"] = [e for e in g["edges"] if not (e["from_id"] == agent and e["to_id"] == 1000 + x)]
                g["edges"].append(
                    {"from_id": 1000 + x, "to_id": 100 + y, "relation_type": "ON" if verb == PUTON else "INSIDE"}
                )

    def step(self, g: dict, human_action, helper_action) -> dict:
        w = self.world
        g = copy.deepcopy(g)
        g["t"] += 1
        self._apply(g, 0, human_action)
        self._apply(g, 1, helper_action)
        room = w.cell_room[self._pos(g, 0)]
        view = {f for f in range(w.F) if w.apartment.furniture_room[f] == room}
        view = {f for f in view if w.surface[f] or "OPEN" in self._node(g, 100 + f)["states"]} | {w.F}
        if w.cell_room[self._pos(g, 1)] == room:
            view.add(w.F + 1)
        for o in range(w.n):
            loc = self._loc(g, o)
            where = loc if loc >= 0 else w.F - 1 - loc
            if where in view:
                g["belief"][o] = {where}
            else:
                b = g["belief"][o] - view
                places = {f for f in range(w.F) if w.apartment.object_places[o] >> f & 1}
                g["belief"][o] = (
                    b or (places - view) or ({f for f in range(w.F) if w.surface[f] or w.container[f]} - view)
                )
        return g

    def to_state(self, g: dict) -> list[int]:
        """The compact state of a graph (to check that both implementations agree)."""
        w = self.world
        s = [g["t"], self._pos(g, 0), self._pos(g, 1)]
        for a in range(2):
            held = self._held(g, a)
            s += (held + [-1, -1])[:2]
        s.append(sum(1 << f for f in range(w.F) if "OPEN" in self._node(g, 100 + f)["states"]))
        s.append(sum(1 << f for f in range(w.F) if "ON" in self._node(g, 100 + f)["states"]))
        return s + [self._loc(g, o) for o in range(w.n)] + [sum(1 << f for f in g["belief"][o]) for o in range(w.n)]


def trajectory(name: str, ticks: int, seed: int = 0):
    """(world, states, actions) of human-alone episodes strung together: realistic step inputs."""
    apt = bundled_apartment(name)
    world = world_of(apt)
    human = HouseholdHuman(world)
    rng = np.random.default_rng(seed)
    states, actions, k = [], [], 0
    while len(states) < ticks:
        ep = make_episode(apt, seed + k)
        s = ep.initial_state()
        while not world.achieved(s, ep.goal) and len(states) < ticks:
            a = human.sample(s, ep.goal, rng)
            states.append(s)
            actions.append(a)
            s = world.step(s, a, NOOP_ACTION)
        k += 1
    return world, states, actions


def bench_step_and_copy(ticks: int) -> None:
    world, states, actions = trajectory("apt5", ticks)
    naive = NaiveGraphWorld(world)
    graphs = [naive.from_state(s) for s in states[:2000]]
    for s, g, a in zip(states[:200], graphs, actions):  # same rules: same next state
        head = s[:9] + s[10:]
        nxt = world.step(s, a, NOOP_ACTION)
        assert naive.to_state(naive.step(g, a, NOOP_ACTION)) == nxt[:9] + nxt[10:], "implementations disagree"
        assert naive.to_state(g) == head
    t0 = time.perf_counter()
    for s, a in zip(states, actions):
        world.step(s, a, NOOP_ACTION)
    step_us = (time.perf_counter() - t0) / len(states) * 1e6
    t0 = time.perf_counter()
    for s in states:
        s[:]
    copy_us = (time.perf_counter() - t0) / len(states) * 1e6
    t0 = time.perf_counter()
    for g, a in zip(graphs, actions):
        naive.step(g, a, NOOP_ACTION)
    naive_step_us = (time.perf_counter() - t0) / len(graphs) * 1e6
    t0 = time.perf_counter()
    for g in graphs:
        copy.deepcopy(g)
    naive_copy_us = (time.perf_counter() - t0) / len(graphs) * 1e6
    print(f"apartment apt5: {world.n} objects, {world.F} furniture, {len(world.apartment.cells)} cells")
    print(
        f"step (both agents + human perception): compact {step_us:.2f} us   naive graph {naive_step_us:.1f} us"
        f"   ({naive_step_us / step_us:.0f}x)"
    )
    print(
        f"state copy:                            compact {copy_us:.2f} us   naive graph {naive_copy_us:.1f} us"
        f"   ({naive_copy_us / copy_us:.0f}x)"
    )


def bench_episodes(episodes: int) -> None:
    apt = bundled_apartment("apt5")
    world = world_of(apt)
    human = HouseholdHuman(world)
    ticks = 0
    t0 = time.perf_counter()
    for k in range(episodes):
        ep = make_episode(apt, k)
        s, rng = ep.initial_state(), np.random.default_rng(k)
        while not world.achieved(s, ep.goal) and s[0] < 250:
            s = world.step(s, human.sample(s, ep.goal, rng), NOOP_ACTION)
        ticks += s[0]
    seconds = time.perf_counter() - t0
    print(
        f"human-alone episodes (policy sampling + step): {episodes / seconds:.0f} episodes/s, "
        f"{ticks / seconds:.0f} ticks/s, mean {ticks / episodes:.1f} ticks"
    )


def bench_smc(episodes: int, particles: int) -> None:
    apt = bundled_apartment("apt5")
    world = world_of(apt)
    human = HouseholdHuman(world)
    updates, seconds, distinct = 0, 0.0, []
    for k in range(episodes):
        ep = make_episode(apt, k)
        smc = SMCGoalInference(k, settings=SMCSettings(particles=particles))
        smc.reset(ep)
        s, rng = ep.initial_state(), np.random.default_rng(k)
        while not world.achieved(s, ep.goal) and s[0] < 250:
            a = human.sample(s, ep.goal, rng)
            t0 = time.perf_counter()
            smc.update(Observation(s, a))
            seconds += time.perf_counter() - t0
            updates += 1
            distinct.append(len(set(smc.particles)))
            s = world.step(s, a, NOOP_ACTION)
    print(
        f"SMC update per observed action ({particles} particles, mean {np.mean(distinct):.1f} distinct, "
        f"rejuvenation included): {seconds / updates * 1e3:.2f} ms over {updates} updates"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=20000, help="simulator steps timed")
    parser.add_argument("--episodes", type=int, default=40, help="episodes for episodes/s and SMC timing")
    parser.add_argument("--particles", type=int, default=64, help="SMC particles")
    args = parser.parse_args()
    bench_step_and_copy(args.ticks)
    bench_episodes(args.episodes)
    bench_smc(max(1, args.episodes // 4), args.particles)


if __name__ == "__main__":
    main()
