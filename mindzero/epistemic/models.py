"""Epistemic models, event models and product update (DEL-ToM Definitions 1–3).

Compact by design: worlds are integers, a world's valuation is an int bitmask over ``atoms``, and
``relations[i][w]`` is the sorted tuple of worlds agent ``agents[i]`` considers possible from ``w``.
Stories apply ~20 updates each and we label tens of thousands of stories, so the pointed update
builds only the part of the product reachable from the actual world and then merges bisimilar
worlds — both preserve every formula's truth value at the actual world.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from mindzero.epistemic.formulas import TOP, And, Atom, B, Formula, Not, Or, Top, literals

Relation = tuple[tuple[int, ...], ...]  # world -> successors


@dataclass(frozen=True)
class EpistemicModel:
    """M = (W, R, V) with W = range(len(valuation)) (Definition 1).

    ``labels`` names worlds for humans and tests (product update labels a new world ``(w, e)``);
    they carry no semantics.
    """

    agents: tuple[str, ...]
    atoms: tuple[str, ...]
    valuation: tuple[int, ...]
    relations: tuple[Relation, ...]
    labels: tuple[Hashable, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        n = len(self.valuation)
        if len(self.relations) != len(self.agents):
            raise ValueError("one accessibility relation per agent is required")
        for rel in self.relations:
            if len(rel) != n or any(v < 0 or v >= n for succ in rel for v in succ):
                raise ValueError("accessibility relation refers to a world outside W")

    @cached_property
    def atom_index(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.atoms)}

    @cached_property
    def agent_index(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.agents)}

    @property
    def n_worlds(self) -> int:
        return len(self.valuation)

    def true_atoms(self, world: int) -> frozenset[str]:
        bits = self.valuation[world]
        return frozenset(a for i, a in enumerate(self.atoms) if bits >> i & 1)

    def successors(self, agent: str, world: int) -> tuple[int, ...]:
        return self.relations[self.agent_index[agent]][world]

    def label(self, world: int) -> Hashable:
        return self.labels[world] if self.labels else world

    @classmethod
    def build(
        cls,
        agents: Sequence[str],
        worlds: Mapping[Hashable, set[str] | frozenset[str]],
        relations: Mapping[str, set[tuple[Hashable, Hashable]]],
        atoms: Sequence[str] = (),
    ) -> EpistemicModel:
        """Build from named worlds ``{name: true atoms}`` and ``{agent: {(w, v), ...}}`` pairs."""
        names = list(worlds)
        index = {w: i for i, w in enumerate(names)}
        all_atoms = list(dict.fromkeys([*atoms, *sorted({p for ps in worlds.values() for p in ps})]))
        a_index = {p: i for i, p in enumerate(all_atoms)}
        valuation = tuple(sum(1 << a_index[p] for p in worlds[w]) for w in names)
        rels = []
        for agent in agents:
            succ: list[set[int]] = [set() for _ in names]
            for w, v in relations.get(agent, set()):
                succ[index[w]].add(index[v])
            rels.append(tuple(tuple(sorted(s)) for s in succ))
        return cls(tuple(agents), tuple(all_atoms), valuation, tuple(rels), tuple(names))


@dataclass(frozen=True)
class PointedModel:
    """A state (M, w): the model plus the designated actual world."""

    model: EpistemicModel
    world: int

    def holds(self, phi: Formula) -> bool:
        return holds(self.model, self.world, phi)


def holds(model: EpistemicModel, world: int, phi: Formula) -> bool:
    """M, w ⊨ φ (the satisfaction relation of §4.2.1)."""
    if isinstance(phi, Atom):
        i = model.atom_index.get(phi.name)
        return i is not None and bool(model.valuation[world] >> i & 1)
    if isinstance(phi, Top):
        return True
    if isinstance(phi, Not):
        return not holds(model, world, phi.sub)
    if isinstance(phi, And):
        return all(holds(model, world, s) for s in phi.subs)
    if isinstance(phi, Or):
        return any(holds(model, world, s) for s in phi.subs)
    if isinstance(phi, B):
        return all(holds(model, v, phi.sub) for v in model.successors(phi.agent, world))
    raise TypeError(f"not a formula: {phi!r}")


@dataclass(frozen=True)
class EventModel:
    """ε = (E, Q, pre, post) (Definition 2).

    ``relations[agent][e]`` lists the events the agent considers possible when ``e`` happens
    (Q_agent as a successor table). An agent missing from ``relations`` observes every event
    exactly (Q = identity) — the common case of a fully attentive bystander.
    """

    events: tuple[Hashable, ...]
    pre: tuple[Formula, ...]
    post: tuple[Formula, ...]
    relations: Mapping[str, tuple[tuple[int, ...], ...]]

    def __post_init__(self) -> None:
        n = len(self.events)
        if n == 0 or len(self.pre) != n or len(self.post) != n:
            raise ValueError("an event model needs >= 1 event and one pre/post per event")
        for agent, rel in self.relations.items():
            if len(rel) != n or any(f < 0 or f >= n for succ in rel for f in succ):
                raise ValueError(f"Q_{agent} refers to an event outside E")

    @cached_property
    def effects(self) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
        return tuple(literals(p) for p in self.post)

    def q(self, agent: str) -> tuple[tuple[int, ...], ...]:
        rel = self.relations.get(agent)
        return rel if rel is not None else tuple((e,) for e in range(len(self.events)))


@dataclass(frozen=True)
class Action:
    """A pointed event model (ε, e): the event model plus the event that actually happens."""

    model: EventModel
    event: int


class PreconditionFailed(ValueError):
    """The actual event is not executable in the actual world."""


def _extend_atoms(model: EpistemicModel, em: EventModel) -> tuple[tuple[str, ...], list[tuple[int, int]]]:
    """Atoms of the updated model and each event's (set-mask, clear-mask) over them."""
    atoms = list(model.atoms)
    index = dict(model.atom_index)
    masks = []
    for pos, neg in em.effects:
        set_mask = clear_mask = 0
        for p in pos:
            if p not in index:
                index[p] = len(atoms)
                atoms.append(p)
            set_mask |= 1 << index[p]
        for p in neg:
            if p in index:
                clear_mask |= 1 << index[p]
        masks.append((set_mask, clear_mask))
    return tuple(atoms), masks


def product_update(model: EpistemicModel, em: EventModel) -> EpistemicModel:
    """The full product M ⊗ ε of Definition 3: every (w, e) with M, w ⊨ pre(e), labelled (w, e).

    Postconditions follow Definition 3: p holds at (w, e) iff post(e) ⊨ p, or p held at w and
    post(e) does not force ¬p.
    """
    atoms, masks = _extend_atoms(model, em)
    pairs = [
        (w, e)
        for w in range(model.n_worlds)
        for e in range(len(em.events))
        if isinstance(em.pre[e], Top) or holds(model, w, em.pre[e])
    ]
    index = {p: i for i, p in enumerate(pairs)}
    valuation = tuple((model.valuation[w] & ~masks[e][1]) | masks[e][0] for w, e in pairs)
    relations = []
    for agent, rel in zip(model.agents, model.relations):
        q = em.q(agent)
        relations.append(
            tuple(tuple(sorted(index[(v, f)] for v in rel[w] for f in q[e] if (v, f) in index)) for w, e in pairs)
        )
    labels = tuple((model.label(w), em.events[e]) for w, e in pairs)
    return EpistemicModel(model.agents, atoms, valuation, tuple(relations), labels)


def generated_submodel(model: EpistemicModel, world: int) -> PointedModel:
    """Keep only worlds reachable from ``world`` through any agent's relation (truth-preserving)."""
    order = [world]
    index = {world: 0}
    i = 0
    while i < len(order):
        w = order[i]
        i += 1
        for rel in model.relations:
            for v in rel[w]:
                if v not in index:
                    index[v] = len(order)
                    order.append(v)
    relations = tuple(tuple(tuple(sorted(index[v] for v in rel[w])) for w in order) for rel in model.relations)
    labels = tuple(model.label(w) for w in order)
    sub = EpistemicModel(model.agents, model.atoms, tuple(model.valuation[w] for w in order), relations, labels)
    return PointedModel(sub, 0)


def contract(state: PointedModel) -> PointedModel:
    """Merge bisimilar worlds (partition refinement); bisimilar worlds satisfy the same formulas."""
    model = state.model
    n = model.n_worlds
    if n <= 1:
        return state
    ids: dict = {}
    block = [ids.setdefault(v, len(ids)) for v in model.valuation]
    n_blocks = len(ids)
    while True:
        ids = {}
        new_block = [
            ids.setdefault((block[w], *(frozenset(block[v] for v in rel[w]) for rel in model.relations)), len(ids))
            for w in range(n)
        ]
        block = new_block
        if len(ids) == n_blocks:
            break
        n_blocks = len(ids)
    if n_blocks == n:
        return state
    rep = [-1] * n_blocks
    for w in range(n):
        if rep[block[w]] < 0:
            rep[block[w]] = w
    relations = tuple(tuple(tuple(sorted({block[v] for v in rel[r]})) for r in rep) for rel in model.relations)
    labels = tuple(model.label(r) for r in rep)
    quotient = EpistemicModel(model.agents, model.atoms, tuple(model.valuation[r] for r in rep), relations, labels)
    return PointedModel(quotient, block[state.world])


def update(state: PointedModel, action: Action, minimise: bool = True) -> PointedModel:
    """(M, w) ⊗ (ε, e): the product restricted to what is reachable from (w, e), then contracted.

    Equal, up to bisimulation, to ``product_update`` followed by ``generated_submodel`` and
    ``contract``; it never builds unreachable pairs, which keeps long stories cheap.
    Raises PreconditionFailed when M, w ⊭ pre(e).
    """
    model, em = state.model, action.model
    if not holds(model, state.world, em.pre[action.event]):
        raise PreconditionFailed(f"pre({em.events[action.event]}) fails in the actual world")
    atoms, masks = _extend_atoms(model, em)
    qs = [em.q(agent) for agent in model.agents]
    pre_ok: dict[tuple[int, int], bool] = {}
    start = (state.world, action.event)
    index = {start: 0}
    order = [start]
    succ_lists: list[list[tuple[int, ...]]] = []
    i = 0
    while i < len(order):
        w, e = order[i]
        i += 1
        row = []
        for rel, q in zip(model.relations, qs):
            out = []
            for v in rel[w]:
                for f in q[e]:
                    pair = (v, f)
                    j = index.get(pair)
                    if j is None:
                        ok = pre_ok.get(pair)
                        if ok is None:
                            pre = em.pre[f]
                            ok = isinstance(pre, Top) or holds(model, v, pre)
                            pre_ok[pair] = ok
                        if not ok:
                            continue
                        j = index[pair] = len(order)
                        order.append(pair)
                    out.append(j)
            row.append(tuple(sorted(set(out))))
        succ_lists.append(row)
    valuation = tuple((model.valuation[w] & ~masks[e][1]) | masks[e][0] for w, e in order)
    relations = tuple(tuple(row[k] for row in succ_lists) for k in range(len(model.agents)))
    labels = tuple((model.label(w), em.events[e]) for w, e in order)
    new = PointedModel(EpistemicModel(model.agents, atoms, valuation, relations, labels), 0)
    return contract(new) if minimise else new


def reachable(state: PointedModel, chain: Sequence[str]) -> frozenset[int]:
    """Worlds at the end of a1-, then a2-, ... edges from the actual world: where B_a1...B_ak is evaluated."""
    model = state.model
    current = {state.world}
    for agent in chain:
        rel = model.relations[model.agent_index[agent]]
        current = {v for w in current for v in rel[w]}
    return frozenset(current)


def public_event(agents: Sequence[str], post: Formula = TOP, pre: Formula = TOP, name: Hashable = "e") -> Action:
    """An event everyone observes (public announcement of pre, with ontic effect post)."""
    return Action(EventModel((name,), (pre,), (post,), {a: ((0,),) for a in agents}), 0)
