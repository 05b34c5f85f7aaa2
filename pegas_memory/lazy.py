"""A resource built on first use and reopened after failures (`Lazy`).

A failed build is remembered for `retry_after` seconds and raised as BackendUnavailable; the next
use after that tries again, so a process outlives the outages of what it talks to. The engines of
a process (`app.runtime.ProjectionRuntime`) and the service's distiller and chat model are held
this way.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from pegas_memory.errors import BackendUnavailable, PegasMemoryError

log = logging.getLogger(__name__)

T = TypeVar("T")
RETRY_AFTER_SECONDS = 10.0


class Lazy(Generic[T]):
    """A resource built on first use; a failed build is retried after `retry_after` seconds."""

    def __init__(
        self, name: str, factory: Callable[[], T], retry_after: float = RETRY_AFTER_SECONDS
    ):
        self.name = name
        self._factory = factory
        self._retry_after = retry_after
        self._value: T | None = None
        self._error: str | None = None
        self._failed_at = 0.0
        self._closed = False
        self._lock = threading.Lock()

    def get(self) -> T:
        with self._lock:
            if self._closed:
                raise BackendUnavailable(f"{self.name} was closed: the process is stopping")
            if self._value is not None:
                return self._value
            if self._error and time.monotonic() - self._failed_at < self._retry_after:
                raise BackendUnavailable(self._error)
            try:
                value = self._factory()
                if self._closed:  # closed while it was being built (see close)
                    close_quietly(self.name, value)
                    raise BackendUnavailable(f"{self.name} was closed: the process is stopping")
                self._value = value
                self._error = None
                return value
            except PegasMemoryError as exc:
                self._error = f"{self.name}: {exc}"
            except Exception as exc:  # a driver error we did not map: still an outage here
                log.exception("opening %s failed", self.name)
                self._error = f"{self.name} could not be opened ({type(exc).__name__}: {exc})"
            self._failed_at = time.monotonic()
            raise BackendUnavailable(self._error)

    @property
    def ready(self) -> bool:
        return self._value is not None

    @property
    def error(self) -> str | None:
        return self._error

    def reset(self) -> None:
        """Drop the resource (after it failed mid-use) so the next get() reopens it."""
        with self._lock:
            value, self._value = self._value, None
        close_quietly(self.name, value)

    def close(self, timeout: float = 0.5) -> None:
        """Close for good. Never waits long for a build in progress (another thread starting
        an engine host, say): that build closes what it made when it finishes, so a stopping
        process is not held up by it."""
        self._closed = True
        if not self._lock.acquire(timeout=timeout):
            log.info("not waiting for %s, still being opened by another thread", self.name)
            return
        try:
            value, self._value = self._value, None
        finally:
            self._lock.release()
        close_quietly(self.name, value)


def close_quietly(name: str, value: object) -> None:
    close = getattr(value, "close", None)
    if callable(close):
        try:
            close()
        except Exception:
            log.debug("closing %s failed", name, exc_info=True)
