"""Sessions by unguessable id, in bounded memory: at most ``capacity`` live at once, and one unused
for ``ttl`` seconds expires. A full store refuses new sessions (it never evicts a live player)."""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any


class StoreFull(Exception):
    """Every slot holds a live session: answered as 503 with a retry hint."""


class SessionStore:
    """Sessions by id, least recently used first. ``ttl`` in seconds; ``clock`` for tests."""

    def __init__(self, capacity: int, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity, self.ttl, self.clock = capacity, ttl, clock
        self._items: OrderedDict[str, tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._items)

    def _expire(self) -> None:
        now = self.clock()
        while self._items:
            sid, (used, _) = next(iter(self._items.items()))
            if now - used < self.ttl:
                break
            del self._items[sid]

    def add(self, session: Any) -> str:
        """Store ``session`` under a new id (128 random bits); :class:`StoreFull` at capacity."""
        with self._lock:
            self._expire()
            if len(self._items) >= self.capacity:
                raise StoreFull(f"the server holds its maximum of {self.capacity} sessions; try again later")
            sid = secrets.token_urlsafe(16)
            self._items[sid] = (self.clock(), session)
            return sid

    def get(self, sid: str) -> Any:
        """The session (its expiry restarts); KeyError if unknown or expired."""
        with self._lock:
            self._expire()
            _, session = self._items[sid]
            self._items[sid] = (self.clock(), session)
            self._items.move_to_end(sid)
            return session

    def replace(self, sid: str, session: Any) -> None:
        """Put ``session`` under an existing id (study mode's next task); KeyError if unknown."""
        with self._lock:
            self._expire()
            if sid not in self._items:
                raise KeyError(sid)
            self._items[sid] = (self.clock(), session)
            self._items.move_to_end(sid)

    def remove(self, sid: str) -> None:
        with self._lock:
            self._items.pop(sid, None)
