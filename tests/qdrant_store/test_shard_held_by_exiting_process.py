"""A shard whose write-ahead log is still held by a process that is exiting is waited for.

When a process holding the embedded store is killed, the kernel closes its files one at a
time: the root lock can be free while a shard's WAL is still locked. The next holder (an
engine host's standby taking over) must wait that out instead of reporting the dense arm
unavailable; a WAL that stays locked is still refused, in bounded time.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.errors import BackendUnavailable
from pegas_memory.qdrant_store.edge import WAL_RELEASE_SECONDS, EdgeVectorIndex
from pegas_memory.qdrant_store.index import VectorPoint
from tests.qdrant_store.test_qdrant_store import scratch_dir


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    with scratch_dir(tmp_path) as path:
        with EdgeVectorIndex(path / "q") as index:
            index.ensure_collection("c", 2)
            index.upsert("c", [VectorPoint(1, [1.0, 0.0], {}), VectorPoint(2, [0.0, 1.0], {})])
        yield path / "q"


def _hold_wal(shard: Path, seconds: float) -> subprocess.Popen[str]:
    """A process that loads the shard (locking its WAL, not the root) and exits later."""
    code = f"""
        import sys, time
        import qdrant_edge as qe
        shard = qe.EdgeShard.load({str(shard)!r})
        print("held", flush=True)
        time.sleep({seconds})
    """
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    return child


def test_a_wal_released_soon_after_is_waited_for(root: Path) -> None:
    child = _hold_wal(root / "c", 0.5)
    try:
        with EdgeVectorIndex(root) as index:
            hits = index.search("c", [1.0, 0.0], k=1)
        assert [h.id for h in hits] == [1]
    finally:
        child.wait(timeout=30)


def test_a_wal_that_stays_locked_is_refused_in_bounded_time(root: Path) -> None:
    child = _hold_wal(root / "c", 60)
    try:
        started = time.monotonic()
        with EdgeVectorIndex(root) as index, pytest.raises(BackendUnavailable, match="WouldBlock"):
            index.search("c", [1.0, 0.0], k=1)
        assert time.monotonic() - started < WAL_RELEASE_SECONDS + 5
    finally:
        child.kill()
        child.wait(timeout=30)
