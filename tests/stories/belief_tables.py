"""An independent nested-belief tracker: plain tables, no Kripke models (Hi-ToM's own bookkeeping).

Exists only to cross-check the DEL engine in tests. It re-implements both semantics from the
event descriptions directly — one table entry per agent chain — so a bug in the event-model
compilation or the product update shows up as a disagreement. ``del`` communication is written as
the rule a reader would state: a chain reads the claim iff, walking it left to right, the last
agent to "switch" is a believer (believers adopt the claim; the speaker and other believers keep a
believer's view; a distrusting hearer reverts to what actually happened; someone who did not hear
the claim ends the walk with the old value).
"""

from __future__ import annotations

from itertools import permutations

from mindzero.stories.templates import Enter, Event, Exit, Move, ObjectAt, PrivateTell, PublicClaim

WAITING_ROOM = "waiting_room"


class BeliefTables:
    """``table[chain][obj] -> container`` for every chain of 1-4 distinct agents; () is reality."""

    def __init__(self, agents: tuple[str, ...], semantics: str = "hitom", max_order: int = 4) -> None:
        self.agents = agents
        self.semantics = semantics
        self.max_order = max_order
        self.table: dict[tuple[str, ...], dict[str, str]] = {}
        self.present: list[str] = []
        self.room: str | None = None
        self.chapter_agents: set[str] = set()
        self.exit_rank: dict[str, int] = {}
        self.obj_room: dict[str, str] = {}

    def get(self, chain: tuple[str, ...], obj: str) -> str | None:
        return self.table.get(chain, {}).get(obj)

    def _set(self, chain: tuple[str, ...], obj: str, container: str) -> None:
        self.table.setdefault(chain, {})[obj] = container

    def _observe(self, observers: list[str], obj: str, container: str) -> None:
        self._set((), obj, container)
        for k in range(1, self.max_order + 1):
            for chain in permutations(observers, k):
                self._set(chain, obj, container)

    def trusts(self, speaker: str, listener: str) -> bool:
        """Listener exited this chapter's room before the speaker, or was never in it."""
        if listener not in self.chapter_agents:
            return True
        return listener in self.exit_rank and self.exit_rank[listener] < self.exit_rank.get(speaker, -1)

    def step(self, event: Event) -> None:
        if isinstance(event, Enter):
            if event.room == WAITING_ROOM:
                return
            self.room = event.room
            self.present = list(event.agents)
            self.chapter_agents = set(event.agents)
            self.exit_rank = {}
            for obj, room in self.obj_room.items():
                if room == event.room:
                    self._observe(self.present, obj, self.table[()][obj])
        elif isinstance(event, (ObjectAt, Move)):
            self.obj_room[event.obj] = self.room
            self._observe(self.present, event.obj, event.container)
        elif isinstance(event, Exit):
            self.present.remove(event.agent)
            self.exit_rank[event.agent] = len(self.exit_rank)
        elif self.semantics == "del" and isinstance(event, (PublicClaim, PrivateTell)):
            s, o, c = event.speaker, event.obj, event.container
            if isinstance(event, PublicClaim):
                hearers = set(self.agents)
                believers = {a for a in self.agents if a != s and self.trusts(s, a)}
            else:
                hearers = {s, event.listener}
                believers = {event.listener} if self.trusts(s, event.listener) else set()
            for k in range(1, self.max_order + 1):
                for chain in permutations(self.agents, k):
                    claimed = False
                    for a in chain:
                        if a not in hearers:
                            claimed = False
                            break
                        claimed = a in believers or (claimed and a == s)
                    if claimed:
                        self._set(chain, o, c)
        elif isinstance(event, PublicClaim):
            s, o, c = event.speaker, event.obj, event.container
            believers = [a for a in self.agents if a != s and self.trusts(s, a)]
            for b in believers:
                self._set((b,), o, c)
                self._set((b, s), o, c)
            for listener in self.agents:
                if listener != s:
                    self._set((s, listener), o, c)
        elif isinstance(event, PrivateTell):
            s, li, o, c = event.speaker, event.listener, event.obj, event.container
            if self.trusts(s, li):
                self._set((li,), o, c)
                self._set((li, s), o, c)
            self._set((s, li), o, c)
