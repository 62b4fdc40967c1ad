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

from mindzero.core.errors import UserError, clip
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
from mindzero.stories.events import Question
from mindzero.stories.templates import (
    Distractor,
    Enter,
    Event,
    Exit,
    IsIn,
    Move,
    ObjectAt,
    PrivateTell,
    PublicClaim,
    Stay,
)

SEMANTICS = ("hitom", "del")
DIAGNOSTIC_SEMANTICS = ("hitom-combinations",)
#: What people entering a room see: ``sees`` — every object lying there (Hi-ToM's rule); ``blind`` —
#: nothing, the objects being hidden in their containers (the classic Sally-Anne reading: Sally, back,
#: still thinks the marble is in her basket).
ENTERING = ("sees", "blind")
WAITING_ROOM = "waiting_room"
MAX_ORDER = 4


def atom_name(obj: str, container: str) -> str:
    return f"{obj}@{container}"


def container_rooms(story: Sequence[Event]) -> dict[str, str]:
    """The room of every container a move shows: a move happens in the mover's room, so the
    object's old and new containers are there.

    The first such line fixes the room for the whole story (earlier lines included); a later move
    that contradicts it is rejected by :meth:`StoryWorld.check`. A statement is no evidence: the
    narrator may name a container in a room other than the one entered last.
    """
    room_of: dict[str, str] = {}
    location: dict[str, str] = {}
    rooms: dict[str, str] = {}
    for event in story:
        if isinstance(event, (Enter, IsIn)):
            room_of.update(dict.fromkeys(event.agents, event.room))
        elif isinstance(event, Exit):
            room_of.pop(event.agent, None)
        elif isinstance(event, (ObjectAt, Move)):
            if isinstance(event, Move) and event.agent in room_of:
                for container in (location.get(event.obj), event.container):
                    if container is not None:
                        rooms.setdefault(container, room_of[event.agent])
            location[event.obj] = event.container
    return rooms


class StoryWorld:
    """The actual, physical state of a story: which room each agent is in, which room each
    container is in, where each object lies, and when each agent last left each room.

    The compiler reads it to decide who observes an event (exactly the agents in the event's room
    at that line) and who trusts a claim; it is the story's ground truth, not anyone's belief.
    Agents enter and exit one at a time or in groups; entering a room leaves the previous one.
    A container never changes room: given the whole ``story``, a container some line moves an
    object out of or into is in that mover's room from the start (:func:`container_rooms`); any
    other container first named in 'The O is in the C.' lies in the room entered most recently.
    Hi-ToM's chapters are the special case where a group enters, acts, and leaves one by one.
    """

    def __init__(self, agents: Sequence[str], story: Sequence[Event] = ()) -> None:
        self.agents = tuple(agents)
        self.room_of: dict[str, str] = {}
        #: room -> agent -> line the agent last left it (None: still there); the trust rule reads it
        self.left_at: dict[str, dict[str, int | None]] = {}
        self.container_room: dict[str, str] = container_rooms(story)
        self.location: dict[str, str] = {}
        self.first_location: dict[str, str] = {}
        self.last_entered: str | None = None
        self.line = 0

    def present(self, room: str | None) -> list[str]:
        """The agents in ``room``, in the order they entered it."""
        return [a for a, r in self.room_of.items() if r == room]

    def obj_room(self, obj: str) -> str | None:
        return self.container_room.get(self.location.get(obj, ""))

    def objects_in(self, room: str) -> list[str]:
        return sorted(o for o in self.location if self.obj_room(o) == room)

    def event_room(self, event: Event) -> str | None:
        """The room a physical event happens in (its observers are the agents there)."""
        if isinstance(event, (Enter, IsIn, Stay, Exit)):
            return event.room
        if isinstance(event, Move):
            return self.room_of.get(event.agent)
        if isinstance(event, ObjectAt):
            return self.container_room.get(event.container, self.last_entered)
        return None

    def trusts(self, speaker: str, listener: str, obj: str) -> bool:
        """Hi-ToM trust rule, per room: the listener has never been in the room where the object
        lies, or left it while the speaker stayed longer (a listener who saw more keeps its own
        belief; one still in the room sees the truth)."""
        visits = self.left_at.get(self.obj_room(obj) or "", {})
        if listener not in visits:
            return True
        left_l = visits[listener]
        if left_l is None or speaker not in visits:
            return False
        left_s = visits[speaker]
        return left_s is None or left_l < left_s

    def check(self, event: Event) -> None:
        """UserError naming the line when the event cannot happen in the current world."""

        def where() -> str:  # rendered only for an error
            return f"line {self.line + 1} ({event.render()!r})"

        if isinstance(event, Exit) and self.room_of.get(event.agent) != event.room:
            raise UserError(f"{where()}: {event.agent} is not in the {event.room} ({self._whereabouts(event.agent)})")
        if isinstance(event, Move):
            room, held = self.room_of.get(event.agent), self.obj_room(event.obj)
            if room is None:
                raise UserError(f"{where()}: {event.agent} is in no room")
            if held is not None and held != room:
                raise UserError(f"{where()}: the {event.obj} is in the {held}, {event.agent} is in the {room}")
            there = self.container_room.get(event.container, room)
            if there != room:
                raise UserError(f"{where()}: the {event.container} is in the {there}, {event.agent} is in the {room}")
        if isinstance(event, ObjectAt) and self.event_room(event) is None:
            raise UserError(f"{where()}: no room entered yet, so the {event.container} is in no room")

    def _whereabouts(self, agent: str) -> str:
        room = self.room_of.get(agent)
        return f"{agent} is in the {room}" if room else f"{agent} is in no room"

    def apply(self, event: Event) -> None:
        self.check(event)
        if isinstance(event, (Enter, IsIn)):
            for agent in event.agents:
                old = self.room_of.get(agent)
                if old != event.room:
                    if old is not None:
                        self.left_at[old][agent] = self.line
                        del self.room_of[agent]
                    self.room_of[agent] = event.room
                    self.left_at.setdefault(event.room, {})[agent] = None
            self.last_entered = event.room
        elif isinstance(event, (ObjectAt, Move)):
            self.container_room.setdefault(event.container, self.event_room(event))
            self.location[event.obj] = event.container
            self.first_location.setdefault(event.obj, event.container)
        elif isinstance(event, Exit):
            del self.room_of[event.agent]
            self.left_at[event.room][event.agent] = self.line
        self.line += 1

    def witnesses(self, event: Event) -> list[str]:
        """Who observes a physical event (before it is applied): the agents in its room, entrants
        included; an entry is seen only if there are objects in the room to see."""
        room = self.event_room(event)
        if isinstance(event, (Enter, IsIn)):
            if not self.objects_in(event.room) or all(self.room_of.get(a) == room for a in event.agents):
                return []
            return list(dict.fromkeys([*self.present(room), *event.agents]))
        if isinstance(event, (ObjectAt, Move)):
            return self.present(room)
        return []

    def hearers(self, event: PublicClaim | PrivateTell) -> list[str]:
        """Everyone hears a public claim; a private tell only its speaker and listener."""
        return list(self.agents) if isinstance(event, PublicClaim) else [event.speaker, event.listener]

    def believers(self, event: PublicClaim | PrivateTell) -> list[str]:
        """The hearers other than the speaker who trust it about this object."""
        return [a for a in self.hearers(event) if a != event.speaker and self.trusts(event.speaker, a, event.obj)]


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
    belief reads None ('[Null]') until the object's location is stated. Pass the whole ``story``
    so that containers whose room only a later move shows are placed from the start
    (see :class:`StoryWorld`).
    """

    def __init__(
        self, agents: Sequence[str], semantics: str = "hitom", story: Sequence[Event] = (), entering: str = "sees"
    ) -> None:
        if semantics not in SEMANTICS + DIAGNOSTIC_SEMANTICS:
            raise UserError(f"unknown semantics {semantics!r}; choose one of {', '.join(SEMANTICS)}")
        if entering not in ENTERING:
            raise UserError(f"unknown entering rule {entering!r}; choose one of {', '.join(ENTERING)}")
        self.agents = tuple(agents)
        self.semantics = semantics
        self.entering = entering
        self.world = StoryWorld(self.agents, story)
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

        if isinstance(event, (Enter, IsIn)):
            observers = w.witnesses(event)
            if not observers or self.entering == "blind":
                return self.noop
            post = And(tuple(self._location_post(o, w.location[o]) for o in w.objects_in(event.room)))
            if self.semantics == "hitom-combinations":
                chains = [()] + [c for k in range(1, MAX_ORDER + 1) for c in permutations(event.agents, k)]
                return chain_event(self.agents, chains, post)
            return observation(self.agents, who(observers), post)
        if isinstance(event, ObjectAt):
            return self._physical(who(w.witnesses(event)), event.obj, event.container, None)
        if isinstance(event, Move):
            return self._physical(who(w.witnesses(event)), event.obj, event.container, event.agent)
        if isinstance(event, (Stay, Exit, Distractor)):
            return self.noop
        if isinstance(event, (PublicClaim, PrivateTell)):
            s, post = event.speaker, self._location_post(event.obj, event.container)
            hearers, believers = w.hearers(event), w.believers(event)
            if self.semantics == "del":
                return claim_event(self.agents, s, hearers, believers, post)
            chains = [(b,) for b in believers] + [(b, s) for b in believers]
            chains += [(s, a) for a in hearers if a != s]
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
                raise UserError(f"unknown agent {name!r} in line {clip(event.render())!r}")
        self.world.check(event)  # before the epistemic state changes
        action = self.compile(event, also_seen_by, unseen_by)
        changed = action is not self.noop
        if changed:
            self.state = update(self.state, action)
            self.max_worlds = max(self.max_worlds, self.state.model.n_worlds)
        self.world.apply(event)
        return changed

    def answer(self, question: Question) -> str | None:
        """A question's answer now: the object's first stated place, or the chain's belief."""
        unknown = [a for a in question.chain if a not in self.agents]
        if unknown:
            raise UserError(f"{question.render()!r}: {unknown[0]} is not in the story")
        if question.form == "beginning":
            return self.world.first_location.get(question.obj)
        return self.belief(question.chain, question.obj)

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
    """Agents in order of first appearance in an entry line (plus any only ever mentioned)."""
    seen: dict[str, None] = {}
    for e in events:
        if isinstance(e, (Enter, IsIn)):
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
    sim = StorySimulator(story_agents(events), semantics, events)
    history = []
    for i, event in enumerate(events):
        if i == line:
            sim.step(event, also_seen_by, unseen_by)
        else:
            sim.step(event)
        history.append(sim.belief(question.chain, question.obj))
    return history
