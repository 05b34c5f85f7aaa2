"""The local model's lock, with turns: a single text (a query, one stored atom) goes before a
batch (the outbox worker's, an ingest's).

Calls into the model are serialised (see `embedders._Shared`). With a plain lock a store's one
embedding queued behind the worker's stream of batches: the worker releases the lock and takes
it again at once, before the waiting thread wakes, so under a deep outbox a store waited several
batches (3 s, its whole wait, measured). Here a waiting urgent call is served at the next
release, and a batch waits while any urgent call is queued; batches among themselves, and
urgent calls among themselves, go in arrival order. Pure threading, no I/O.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Iterator


class TurnLock:
    """A mutex whose waiters are served urgent first, then in arrival order."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._busy = False
        self._tickets = itertools.count()
        self._waiting: list[tuple[int, int]] = []  # (0 urgent / 1 batch, ticket), kept sorted

    @contextlib.contextmanager
    def turn(self, *, urgent: bool) -> Iterator[None]:
        """Hold the lock for the block; an urgent caller overtakes every waiting batch."""
        me = (0 if urgent else 1, next(self._tickets))
        with self._cond:
            self._waiting.append(me)
            self._waiting.sort()
            while self._busy or self._waiting[0] != me:
                self._cond.wait()
            self._waiting.pop(0)
            self._busy = True
        try:
            yield
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    @property
    def waiting(self) -> int:
        """How many callers wait for their turn (for tests and diagnostics)."""
        with self._cond:
            return len(self._waiting)
