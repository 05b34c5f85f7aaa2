"""The slices' health on the overview, kept a while instead of checked on every page.

Checking the slices (memory_stats' `slices`: each slice's count and its self-check against
PostgreSQL, a content sweep, FalkorDB's edge counts) took 1.9-3 s per overview at 100k atoms,
where the page's every other part takes tens of milliseconds. So the overview shows the latest
check with its age: a check older than `max_age` seconds (the settings' `slice_check_seconds`,
the period of the embedded worker's own self-check) starts a new one in a thread of its own and
the page answers at once with the older one; only the very first page waits for the first check.
At most one check runs at a time.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
FIRST_WAIT_SECONDS = 60.0  # the first page waits this long at most for the first check


@dataclass(frozen=True)
class Checked(Generic[T]):
    """A check's result and how many seconds ago it was taken (None: none could be taken)."""

    value: T | None
    age: float | None
    error: str | None = None


class KeptCheck(Generic[T]):
    """`check()`'s latest result, taken again in the background once older than `max_age`."""

    def __init__(
        self,
        check: Callable[[], T],
        max_age: float,
        *,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._check = check
        self.max_age = max_age
        self._clock = clock
        self._lock = threading.Lock()
        self._value: T | None = None
        self._taken: float | None = None
        self._error: str | None = None
        self._running: threading.Event | None = None  # set when the running check ends

    def get(self) -> Checked[T]:
        """The latest result at once (starting a new check when it is old); the first call
        waits for the first check (at most FIRST_WAIT_SECONDS)."""
        with self._lock:
            stale = self._taken is None or self._clock() - self._taken >= self.max_age
            running = self._running
            if stale and running is None:
                running = self._start()
            first = self._taken is None
        if first:
            running.wait(FIRST_WAIT_SECONDS)  # type: ignore[union-attr]
        with self._lock:
            age = None if self._taken is None else self._clock() - self._taken
            return Checked(self._value, age, self._error)

    def settle(self, timeout: float) -> bool:
        """Wait (at most `timeout` seconds) for a running check to end; whether none runs."""
        with self._lock:
            running = self._running
        return running is None or running.wait(timeout)

    def _start(self) -> threading.Event:
        done = threading.Event()
        self._running = done
        threading.Thread(
            target=self._run, args=(done,), name="pegas-ui-health", daemon=True
        ).start()
        return done

    def _run(self, done: threading.Event) -> None:
        try:
            value = self._check()
        except Exception as exc:  # shown on the page; the next page tries again
            log.warning("the slices could not be checked: %s", exc)
            with self._lock:
                self._error = str(exc) or type(exc).__name__
        else:
            with self._lock:
                self._value, self._taken, self._error = value, self._clock(), None
        finally:
            with self._lock:
                self._running = None
            done.set()
