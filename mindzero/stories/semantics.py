"""Compile story events to DEL event models and answer belief questions with the engine.

Two semantics share the physical events and differ only on communication:

``hitom``
    Hi-ToM's own rules (the generator behind the released Chain-of-Thought data). A public claim
    or private tell changes first- and second-order beliefs only: each believer adopts the claim
    and thinks the speaker believes it; the speaker thinks every listener now believes it
    (whether or not the listener trusts it). Deeper chains are untouched.
``del``
    Principled product update with the trust rule as common knowledge: everyone knows who
    believes the claim, so every chain ending in a believer (through agents who heard the claim)
    changes, at every order, and the speaker never thinks a distrusting listener was convinced.

``hitom-combinations`` is a diagnostic, not a semantics to use: it reproduces the order-dependent
updates (``itertools.combinations`` over the observer list, mover last) of the older generator
version behind the released "VP" half, so that hitom-eval can explain those labels.

Every event compiles to an :class:`~mindzero.epistemic.Action`. Physical events are group
observations (observers see the event; everyone else believes nothing happened); Hi-ToM
communication compiles to a *chain event model* whose events are agent chains: following agent
``a`` from event ``(a1..ak)`` leads to ``(a1..ak, a)``, and only chains in the update set carry the
postcondition, so the product update changes exactly those nested beliefs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations, permutations

from mindzero.core.errors import UserError
from mindzero.epistemic import (
    TOP,
    Action,
    And,
    Atom,
    EpistemicModel,
    EventModel,
    Formula,
    Not,
    PointedModel,
    public_event,
    reachable,
    update,
)
from mindzero.stories.events import (
    Distractor,
    Enter,
    Event,
    Exit,
    Move,
    ObjectAt,
    PrivateTell,
    PublicClaim,
    Question,
    Stay,
)

SEMANTICS = ("hitom", "del")
DIAGNOSTIC_SEMANTICS = ("hitom-combinations",)
WAITING_ROOM = "waiting_room"
MAX_ORDER = 4


def atom_name(obj: str, container: str) -> str:
    return f"{obj}@{container}"


class StoryWorld:
    """The actual, physical state of a story: who is where, exit order, where objects are.

    The compiler reads it to decide who observes an event and who trusts a claim; it is the
    story's ground truth, not anyone's belief.
    """

    def __init__(self, agents: Sequence[str]) -> None:
        self.agents = tuple(agents)
        self.room: str | None = None
        self.present: list[str] = []
        self.chapter_agents: tuple[str, ...] = ()
        self.exit_rank: dict[str, int] = {}
        self.obj_room: dict[str, str] = {}
        self.location: dict[str, str] = {}

    def trusts(self, speaker: str, listener: str) -> bool:
        """Hi-ToM trust rule: the listener exited this chapter's room before the speaker, or was
        never in it (a listener who saw more keeps its own belief)."""
        if listener not in self.chapter_agents:
            return True
        rank_l = self.exit_rank.get(listener)
        rank_s = self.exit_rank.get(speaker)
        return rank_l is not None and rank_s is not None and rank_l < rank_s

    def apply(self, event: Event) -> None:
        if isinstance(event, Enter):
            if event.room != WAITING_ROOM:
                self.room = event.room
                self.present = list(event.agents)
                self.chapter_agents = tuple(event.agents)
                self.exit_rank = {}
        elif isinstance(event, (ObjectAt, Move)):
            self.location[event.obj] = event.container
            if self.room is not None:
                self.obj_room[event.obj] = self.room
        elif isinstance(event, Exit):
            if event.agent in self.present:
                self.present.remove(event.agent)
            self.exit_rank.setdefault(event.agent, len(self.exit_rank))


def observation(agents: Sequence[str], observers: Iterable[str], post: Formula, name: str = "e") -> Action:
    """Observers see the event (and see each other seeing it); the others believe nothing happened."""
    obs = set(observers)
    rel = {a: (((0,), (1,)) if a in obs else ((1,), (1,))) for a in agents}
    return Action(EventModel((name, "skip"), (TOP, TOP), (post, TOP), rel), 0)


def chain_event(agents: Sequence[str], chains: Iterable[tuple[str, ...]], post: Formula) -> Action:
    """Event model that sets exactly the nested beliefs ``chains`` (``()`` = reality) to ``post``.

    Events are the prefixes of the chains plus ``keep``; agent ``a`` maps event ``c`` to
    ``c + (a,)`` when that is a prefix, else to ``keep`` (no change, absorbing). A chain's value
    after the update is the valuation at the end of its path, so chains in the set read ``post``
    and every other chain reads its old value.
    """
    targets = set(chains)
    nodes: dict[tuple[str, ...], int] = {(): 0}
    for chain in sorted(targets, key=lambda c: (len(c), c)):
        for k in range(1, len(chain) + 1):
            nodes.setdefault(chain[:k], len(nodes))
    keep = len(nodes)
    names = [*nodes, "keep"]
    posts = tuple(post if name in targets else TOP for name in names[:-1]) + (TOP,)
    rel = {a: tuple((nodes.get(name + (a,), keep),) for name in names[:-1]) + ((keep,),) for a in agents}
    return Action(EventModel(tuple(names), (TOP,) * len(names), posts, rel), 0)


def claim_event(
    agents: Sequence[str], speaker: str, hearers: Sequence[str], believers: Sequence[str], post: Formula
) -> Action:
    """``del`` communication: hearers know what was said and, by the public trust rule, who
    believes it; non-hearers believe nothing happened.

    Events: ``real`` (what actually happens: no physical change), ``claimed`` (the world as a
    believer now takes it to be: the object is where the speaker said, and the speaker knows it),
    ``skip`` (nothing happened). A believer takes ``real`` for ``claimed``; every other hearer
    sees ``real``; in a believer's ``claimed`` world the speaker and other believers see
    ``claimed`` while distrusting hearers still see ``real`` (their beliefs do not move).
    """
    hear, believe = set(hearers) | {speaker}, set(believers)
    rel = {}
    for a in agents:
        if a not in hear:
            rel[a] = ((2,), (2,), (2,))
        elif a in believe:
            rel[a] = ((1,), (1,), (2,))
        elif a == speaker:
            rel[a] = ((0,), (1,), (2,))
        else:
            rel[a] = ((0,), (0,), (2,))
    em = EventModel(("real", "claimed", "skip"), (TOP, TOP, TOP), (TOP, post, TOP), rel)
    return Action(em, 0)


class StorySimulator:
    """Runs a story through the DEL engine and answers 'where does a1 think ... the O is?'.

    The state starts as one world with no location atoms: nobody knows anything, so every
    belief reads None ('[Null]') until the object's location is stated.
    """

    def __init__(self, agents: Sequence[str], semantics: str = "hitom") -> None:
        if semantics not in SEMANTICS + DIAGNOSTIC_SEMANTICS:
            raise UserError(f"unknown semantics {semantics!r}; choose one of {', '.join(SEMANTICS)}")
        self.agents = tuple(agents)
        self.semantics = semantics
        self.world = StoryWorld(self.agents)
        empty = EpistemicModel(self.agents, (), (0,), tuple(((0,),) for _ in self.agents), ("w0",))
        self.state = PointedModel(empty, 0)
        self.max_worlds = 1
        self.noop = public_event(self.agents, name="noop")
        self._bits: dict[tuple[tuple[str, ...], str], list[tuple[int, str]]] = {}

    # -- compilation ---------------------------------------------------------------------------

    def _location_post(self, obj: str, container: str) -> Formula:
        """at(obj, container) ∧ ¬at(obj, c') for every other container the model knows for obj."""
        target = atom_name(obj, container)
        prefix = f"{obj}@"
        negs = tuple(Not(Atom(a)) for a in self.state.model.atoms if a.startswith(prefix) and a != target)
        return And((Atom(target), *negs))

    def _physical(self, observers: Sequence[str], obj: str, container: str, mover: str | None) -> Action:
        post = self._location_post(obj, container)
        if self.semantics != "hitom-combinations" or mover is None:
            # The old generator's Enter already set every permutation of the entrants to the
            # initial container, so only moves show the combinations order.
            return observation(self.agents, observers, post)
        order = [a for a in observers if a != mover] + [mover]
        chains: list[tuple[str, ...]] = [()]
        for k in range(1, MAX_ORDER + 1):
            chains.extend(combinations(order, k))
        return chain_event(self.agents, chains, post)

    def compile(
        self, event: Event, also_seen_by: frozenset[str] = frozenset(), unseen_by: frozenset[str] = frozenset()
    ) -> Action:
        """The event model of ``event`` in the current actual situation.

        No-op lines (stays, exits, distractors, entering the waiting room or an empty room) compile
        to ``self.noop``, the public event with pre = post = ⊤: its product update is the identity,
        so ``step`` skips applying it. Exits matter through the story world: an agent who left is
        no longer an observer of later events.
        ``also_seen_by``/``unseen_by`` perturb who observes a physical event; hitom-eval uses them
        to explain a released label as "what the engine says had X (not) seen line i".
        """
        w = self.world

        def who(observers: Sequence[str]) -> list[str]:
            return [a for a in dict.fromkeys([*observers, *sorted(also_seen_by)]) if a not in unseen_by]

        if isinstance(event, Enter):
            seen = [o for o, r in w.obj_room.items() if r == event.room] if event.room != WAITING_ROOM else []
            if not seen:
                return self.noop
            post = And(tuple(self._location_post(o, w.location[o]) for o in sorted(seen)))
            if self.semantics == "hitom-combinations":
                chains = [()] + [c for k in range(1, MAX_ORDER + 1) for c in permutations(event.agents, k)]
                return chain_event(self.agents, chains, post)
            return observation(self.agents, who([*w.present, *event.agents]), post)
        if isinstance(event, ObjectAt):
            return self._physical(who(w.present), event.obj, event.container, None)
        if isinstance(event, Move):
            observers = w.present if event.agent in w.present else [*w.present, event.agent]
            return self._physical(who(observers), event.obj, event.container, event.agent)
        if isinstance(event, (Stay, Exit, Distractor)):
            return self.noop
        if isinstance(event, PublicClaim):
            s, post = event.speaker, self._location_post(event.obj, event.container)
            believers = [a for a in self.agents if a != s and w.trusts(s, a)]
            if self.semantics == "del":
                return claim_event(self.agents, s, self.agents, believers, post)
            chains = [(b,) for b in believers] + [(b, s) for b in believers]
            chains += [(s, a) for a in self.agents if a != s]
            return chain_event(self.agents, chains, post)
        if isinstance(event, PrivateTell):
            s, li = event.speaker, event.listener
            post = self._location_post(event.obj, event.container)
            trust = w.trusts(s, li)
            if self.semantics == "del":
                return claim_event(self.agents, s, [li], [li] if trust else [], post)
            chains = [(s, li)] + ([(li,), (li, s)] if trust else [])
            return chain_event(self.agents, chains, post)
        raise TypeError(f"not a story event: {event!r}")

    # -- running -------------------------------------------------------------------------------

    def step(
        self, event: Event, also_seen_by: frozenset[str] = frozenset(), unseen_by: frozenset[str] = frozenset()
    ) -> bool:
        """Apply one story line: product update with its event model, then advance the world.

        Returns whether the epistemic state changed (no-op lines leave every belief as it was).
        """
        for name in _agents_of(event):
            if name not in self.world.agents:
                raise UserError(f"unknown agent {name!r} in line {event.render()!r}")
        action = self.compile(event, also_seen_by, unseen_by)
        changed = action is not self.noop
        if changed:
            self.state = update(self.state, action)
            self.max_worlds = max(self.max_worlds, self.state.model.n_worlds)
        self.world.apply(event)
        return changed

    def belief(self, chain: Sequence[str], obj: str) -> str | None:
        """The container c with M, w ⊨ B_a1 ... B_ak at(obj, c); None when no location is believed.

        Raises ValueError if the chain's worlds disagree (never happens for the story events,
        whose event models keep every agent's relation functional).
        """
        model = self.state.model
        key = (model.atoms, obj)
        bits = self._bits.get(key)
        if bits is None:
            prefix = f"{obj}@"
            bits = self._bits[key] = [
                (1 << i, a[len(prefix) :]) for i, a in enumerate(model.atoms) if a.startswith(prefix)
            ]
        values = set()
        for world in reachable(self.state, chain):
            val = model.valuation[world]
            values.add(next((c for bit, c in bits if val & bit), None))
        if len(values) != 1:
            raise ValueError(f"chain {chain} has no single belief about {obj}: {sorted(map(str, values))}")
        return values.pop()


def _agents_of(event: Event) -> tuple[str, ...]:
    if isinstance(event, Enter):
        return event.agents
    if isinstance(event, PrivateTell):
        return (event.speaker, event.listener)
    if isinstance(event, PublicClaim):
        return (event.speaker,)
    return (event.agent,) if hasattr(event, "agent") else ()


def story_agents(events: Sequence[Event]) -> tuple[str, ...]:
    """Agents in order of first appearance in an Enter line (plus any only ever mentioned)."""
    seen: dict[str, None] = {}
    for e in events:
        if isinstance(e, Enter):
            seen.update(dict.fromkeys(e.agents))
    for e in events:
        seen.update(dict.fromkeys(_agents_of(e)))
    return tuple(seen)


def engine_labels(
    events: Sequence[Event],
    question: Question,
    semantics: str = "hitom",
    line: int | None = None,
    also_seen_by: frozenset[str] = frozenset(),
    unseen_by: frozenset[str] = frozenset(),
) -> list[str | None]:
    """The question chain's belief after every line (index i = after line i + 1), from the engine.

    ``line``/``also_seen_by``/``unseen_by`` perturb who observes that one line (0-based): what the
    engine says had X (not) seen line i (hitom-eval's explanations, the PBM data's corruptions).
    """
    sim = StorySimulator(story_agents(events), semantics)
    history = []
    for i, event in enumerate(events):
        if i == line:
            sim.step(event, also_seen_by, unseen_by)
        else:
            sim.step(event)
        history.append(sim.belief(question.chain, question.obj))
    return history
