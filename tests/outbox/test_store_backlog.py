"""A store behind a deep outbox (issue 18, finding 7): `memory_store` projects its own event
right after its commit, so its atom is in the dense arm when the call returns even while
thousands of older events wait for the worker; its event is recorded as projected, so the
worker, once it gets there, has nothing left to do for it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from pegas_memory.app.requests import SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.memgraph_store.falkor import stop_embedded_graph
from pegas_memory.outbox.worker import entity_lock_key, pending_events
from tests.conftest import offline_memory

BACKLOG = 3000
CLAIM = "The Amur river marks the border between Russia and China"


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    data = tmp_path / "data"
    try:
        with offline_memory(
            database_url, data, outbox_poll_seconds=0.5, embedded_worker="on"
        ) as svc:
            yield svc
    finally:
        stop_embedded_graph(data)


BULK_ATOMS = """
INSERT INTO pm_atom (type, claim, content, content_hash, confidence, status, language,
                     ts_config, source)
SELECT 'fact', 'Backlog fact ' || i || ': granite ' || i || ' is hard', '',
       md5('backlog ' || i), 0.5, 'candidate', 'en', 'english'::regconfig, 'test'
  FROM generate_series(1, %s) AS i
RETURNING id
"""


def _backlog(service: MemoryService) -> list[int]:
    """Thousands of atoms committed in one statement (the triggers write their events) with
    nobody projecting them yet."""
    with service.db.transaction() as conn:
        return [int(r["id"]) for r in conn.execute(BULK_ATOMS, (BACKLOG,))]


def _wait_projecting(service: MemoryService, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not service.runtime.projecting_here and time.monotonic() < deadline:
        time.sleep(0.05)
    assert service.runtime.projecting_here, "the embedded worker did not start"


def test_a_store_behind_thousands_of_pending_events_is_searchable_at_once(
    service: MemoryService, database_url: str
) -> None:
    backlog = _backlog(service)
    # The worker is busy with the backlog: here it is held on it for good, by the per-entity
    # locks a worker takes, so only the store itself can project its atom.
    holder = psycopg.connect(database_url, autocommit=True)
    try:
        keys = [entity_lock_key("atom", i) for i in backlog]
        holder.execute("SELECT pg_advisory_lock(k) FROM unnest(%s::bigint[]) AS k", (keys,))
        service.start_background()
        _wait_projecting(service)

        stored = service.store(StoreRequest(claim=CLAIM))

        with service.db.connection() as conn:
            assert pending_events(conn, ["atom"], [stored.id]) == 0  # its own: projected
            assert pending_events(conn, ["atom"]) >= BACKLOG  # the backlog: still waiting
        hits = service.search(SearchRequest(query=CLAIM, preset="dense", limit=5)).hits
        assert stored.id in [h.id for h in hits]
    finally:
        holder.close()
    # Released, the workers drain the backlog (the background one and this one) to the end.
    deadline = time.monotonic() + 120
    left = BACKLOG
    while left and time.monotonic() < deadline:
        service.runtime.worker().drain(include_delayed=True)
        with service.db.connection() as conn:
            left = pending_events(conn)
    assert left == 0
