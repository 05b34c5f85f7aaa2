"""File locks of the engine host: `flock`s, so the kernel releases them when a holder dies.

A killed host (SIGKILL, out of memory) cannot leave a lock behind; that is what lets its
standby take over within milliseconds and a client start a new host without guessing whether
the old one is gone.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from pegas_memory.errors import BackendUnavailable


def try_lock(path: Path) -> int | None:
    """An fd holding an exclusive lock on `path`, or None if another process holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def wait_lock(path: Path, stop: threading.Event, *, poll: float = 0.02) -> int | None:
    """Wait for the lock on `path` (polling, so `stop` is seen); None if stopped first."""
    while not stop.is_set():
        fd = try_lock(path)
        if fd is not None:
            return fd
        stop.wait(poll)
    return None


def unlock(fd: int | None) -> None:
    if fd is None:
        return
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_UN)
    with contextlib.suppress(OSError):
        os.close(fd)


def is_locked(path: Path) -> bool:
    """Whether some process holds the lock on `path` right now."""
    fd = try_lock(path)
    if fd is None:
        return True
    unlock(fd)
    return False


@contextlib.contextmanager
def held(path: Path, timeout: float) -> Iterator[None]:
    """Hold the lock on `path` for the block; BackendUnavailable after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        fd = try_lock(path)
        if fd is not None:
            break
        if time.monotonic() > deadline:
            raise BackendUnavailable(
                f"another pegas-memory process has been starting the engine host for over "
                f"{timeout:.0f} s (lock {path}); see {path.parent / 'host.log'}"
            )
        time.sleep(0.02)
    try:
        yield
    finally:
        unlock(fd)
