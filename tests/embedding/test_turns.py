"""The local model's lock serves a single text before the worker's batches (issue 18,
finding 7): a store's one embedding no longer queues behind a stream of outbox batches."""

from __future__ import annotations

import threading
import time

from pegas_memory.embedding.turns import TurnLock


def _wait_for(lock: TurnLock, waiting: int) -> None:
    deadline = time.monotonic() + 30
    while lock.waiting < waiting and time.monotonic() < deadline:
        time.sleep(0.005)
    assert lock.waiting == waiting


def test_an_urgent_call_overtakes_waiting_batches_and_batches_keep_their_order() -> None:
    lock = TurnLock()
    order: list[str] = []
    release = threading.Event()

    def holder() -> None:
        with lock.turn(urgent=False):
            order.append("batch 0")
            release.wait(30)

    def call(name: str, urgent: bool) -> None:
        with lock.turn(urgent=urgent):
            order.append(name)

    threads = [threading.Thread(target=holder)]
    threads[0].start()
    _wait_for(lock, 0)
    while not order:
        time.sleep(0.005)
    for n, (name, urgent) in enumerate(
        [("batch 1", False), ("batch 2", False), ("store", True), ("query", True)], start=1
    ):
        t = threading.Thread(target=call, args=(name, urgent))
        t.start()
        threads.append(t)
        _wait_for(lock, n)  # queued in this order
    release.set()
    for t in threads:
        t.join(30)
    assert order == ["batch 0", "store", "query", "batch 1", "batch 2"]
    assert lock.waiting == 0


def test_the_lock_is_free_again_after_an_error_inside() -> None:
    lock = TurnLock()
    try:
        with lock.turn(urgent=True):
            raise RuntimeError("the model failed")
    except RuntimeError:
        pass
    done = threading.Event()

    def again() -> None:
        with lock.turn(urgent=False):
            done.set()

    t = threading.Thread(target=again)
    t.start()
    t.join(30)
    assert done.is_set()
