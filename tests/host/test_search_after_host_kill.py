"""The first search after the engine host is killed keeps its dense arm (issue 30, finding 6):
a call whose connection broke is retried through the takeover (right after a SIGKILL the old
host's socket may still accept for a moment and its lease still look alive, so the single retry
there was failed too, and the search came back with "dense arm unavailable")."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.requests import SearchRequest
from pegas_memory.app.service import MemoryService
from tests.outbox import slice_damage as damage


@pytest.fixture
def serve(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with damage.serving(tmp_path / "data", database_url, 60.0) as service:
        yield service


def test_the_first_search_after_each_host_kill_has_its_dense_arm(serve: MemoryService) -> None:
    stored = damage.store(
        serve, ["The Volga flows into the Caspian Sea", "Волга впадает в Каспийское море"]
    )
    damage.settled(serve)
    pidfile = serve.settings.data_dir / "host" / "host.pid"
    killed = set()
    for claim, atom_id in stored.items():
        pid = int(pidfile.read_text().split()[0])
        assert pid not in killed  # a new host (the standby, or one started) serves each time
        os.kill(pid, signal.SIGKILL)
        killed.add(pid)
        found = serve.search(SearchRequest(query=claim, preset="dense", limit=3))
        assert not found.warnings, found.warnings
        assert atom_id in [h.id for h in found.hits]
