"""The overview's kept slice check (ui/health.py): the first page waits for the first check, a
fresh result is served as it is, an old one at once while one new check runs behind it."""

from __future__ import annotations

import threading

from pegas_memory.ui.health import KeptCheck

WAIT = 10.0  # the bound of every wait here


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Checks:
    """A check returning 1, 2, 3...; `gate` (when set up) holds each check until released."""

    def __init__(self, gated: bool = False) -> None:
        self.calls = 0
        self.gate = threading.Semaphore(0) if gated else None
        self.fail = False

    def __call__(self) -> int:
        self.calls += 1
        if self.gate is not None:
            assert self.gate.acquire(timeout=WAIT)
        if self.fail:
            raise RuntimeError("graph server connection lost")
        return self.calls


def test_the_first_get_waits_for_the_first_check_then_a_fresh_one_is_kept() -> None:
    clock, checks = Clock(), Checks()
    kept = KeptCheck(checks, max_age=60, clock=clock)
    first = kept.get()
    assert (first.value, first.age, first.error) == (1, 0.0, None)
    clock.now += 59
    again = kept.get()
    assert (again.value, again.age, checks.calls) == (1, 59.0, 1)


def test_an_old_result_is_served_at_once_while_one_new_check_runs() -> None:
    clock, checks = Clock(), Checks(gated=True)
    kept = KeptCheck(checks, max_age=60, clock=clock)
    assert checks.gate is not None
    checks.gate.release()
    assert kept.get().value == 1
    assert kept.settle(WAIT)
    clock.now += 61
    stale = kept.get()  # the second check is held at its gate: get does not wait for it
    assert (stale.value, stale.age) == (1, 61.0)
    assert kept.get().value == 1 and checks.calls == 2  # one check at a time
    checks.gate.release()
    assert kept.settle(WAIT)
    fresh = kept.get()
    assert (fresh.value, fresh.age, checks.calls) == (2, 0.0, 2)


def test_a_failed_check_is_shown_and_tried_again_on_the_next_page() -> None:
    clock, checks = Clock(), Checks()
    checks.fail = True
    kept = KeptCheck(checks, max_age=60, clock=clock)
    failed = kept.get()
    assert (failed.value, failed.age) == (None, None)
    assert failed.error == "graph server connection lost"
    checks.fail = False
    assert kept.get().value == 2
