"""Run one piece of work in several threads at once, as concurrent callers of a shared client or
index do, and hand back what they raised (in the test's thread, where it can fail the test)."""

from __future__ import annotations

import threading
from collections.abc import Callable


def concurrently(
    work: Callable[[int], object], workers: int, timeout: float
) -> list[BaseException]:
    """`work(0)` .. `work(workers - 1)`, each in a thread of its own, started together and joined
    (each within `timeout` seconds); what they raised. A thread still running after its join
    fails the test."""
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            work(i)
        except BaseException as exc:  # surfaced to the caller, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
    assert not any(t.is_alive() for t in threads), "a worker thread did not finish"
    return errors
