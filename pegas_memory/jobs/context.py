"""What a running handler sees: progress reporting, cooperative cancellation and its deadline.

A handler is ``handler(args: dict, ctx: JobContext) -> dict``. It calls ``ctx.check()`` (or
``ctx.report(...)``, which checks first) at every step; that is where a cancel request, the
deadline, or the runner closing turns into an exception. Nothing stops a handler between checks,
so a step must be short, and it must be **atomic or idempotent**: a step's writes go in one
``db.transaction()`` that the exception rolls back, and a job taken over after its worker died
runs again from the start (at-least-once), so a step that committed must be harmless to repeat
(ingest dedups by content hash, rebuilds upsert).

The context holds no connection: the runner gives it a `flush` callable for progress and sets
its flags from the heartbeat, so `check()` costs no round trip.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from pegas_memory.errors import LimitExceeded, PegasMemoryError

# At most this many progress writes a second (the last report is always recorded at the end).
PROGRESS_INTERVAL_SECONDS = 0.5

Flush = Callable[[int, int | None, str], None]


class JobCancelled(PegasMemoryError):
    """The job was cancelled on request; the step in progress was rolled back."""


class JobReleased(JobCancelled):
    """The runner is closing (the job goes back to the queue) or lost the job to another worker.

    A subclass of JobCancelled, so a handler that cleans up on cancellation cleans up here too;
    the runner tells them apart.
    """


class JobContext:
    def __init__(
        self,
        job_id: int,
        kind: str,
        attempt: int,
        *,
        time_limit: float | None,
        flush: Flush,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.job_id = job_id
        self.kind = kind
        self.attempt = attempt
        self.time_limit = time_limit
        self._clock = clock
        self._started = clock()
        self.deadline = None if time_limit is None else self._started + time_limit
        self._flush = flush
        self._cancel = threading.Event()
        self._release = threading.Event()
        self._lost = threading.Event()
        self._lock = threading.Lock()
        self._written_at = float("-inf")
        self._dirty = False
        self.progress: tuple[int, int | None, str] = (0, None, "")

    # ------------------------------------------------------------------ handler side
    def cancelled(self) -> bool:
        """True once a cancel was requested (or the runner needs the job back)."""
        return self._cancel.is_set() or self._release.is_set() or self._lost.is_set()

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None: no deadline)."""
        return None if self.deadline is None else self.deadline - self._clock()

    def check(self) -> None:
        """Raise if the job must stop: JobReleased, JobCancelled, or LimitExceeded past the
        deadline. Call it at every step."""
        if self._lost.is_set():
            raise JobReleased(f"job {self.job_id} was lost to another worker; stopping this run")
        if self._release.is_set():
            raise JobReleased(f"job {self.job_id} is released: its runner is closing")
        if self._cancel.is_set():
            raise JobCancelled(f"job {self.job_id} was cancelled on request")
        if self.deadline is not None and self._clock() >= self.deadline:
            raise LimitExceeded(
                f"job {self.job_id} ({self.kind}) ran past its time limit of "
                f"{self.time_limit:g} s and was stopped; what its last step wrote was rolled "
                "back. Submit it again with a larger time_limit, or split the work."
            )

    def report(self, done: int, total: int | None = None, message: str = "") -> None:
        """Record progress (written at most twice a second) after a `check()`."""
        self.check()
        with self._lock:
            self.progress = (int(done), None if total is None else int(total), message[:500])
            self._dirty = True
            due = self._clock() - self._written_at >= PROGRESS_INTERVAL_SECONDS
        if due:
            self.flush_progress()

    # ------------------------------------------------------------------ runner side
    def flush_if_due(self) -> None:
        """Write a report that the rate limit held back, once its interval passed. The runner's
        monitor calls this: without it a stage's first message ("parsing the source") stayed
        unwritten while the stage ran, and a poller saw the stage before it for half a minute."""
        with self._lock:
            due = self._dirty and self._clock() - self._written_at >= PROGRESS_INTERVAL_SECONDS
        if due:
            self.flush_progress()

    def flush_progress(self) -> None:
        with self._lock:
            if not self._dirty:
                return
            done, total, message = self.progress
            self._dirty = False
            self._written_at = self._clock()
        self._flush(done, total, message)

    def request_cancel(self) -> None:
        self._cancel.set()

    def request_release(self) -> None:
        self._release.set()

    def mark_lost(self) -> None:
        self._lost.set()

    @property
    def lost(self) -> bool:
        return self._lost.is_set()

    @property
    def releasing(self) -> bool:
        return self._release.is_set()
