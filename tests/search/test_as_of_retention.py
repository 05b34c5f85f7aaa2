"""The as-of audit lines of re-distills and truth maintenance are trimmed after
PEGAS_WITHDRAWAL_RETENTION_DAYS (erasure lines stay), and an as-of instant before the trimmed
horizon is refused rather than answered with links and citations missing (migration 0022)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.requests import ContextRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.repo import add_link, withdraw_reason
from pegas_memory.errors import InvalidInput
from pegas_memory.reasoning.inference import WITHDRAWN
from pegas_memory.search.filters import SearchFilter
from tests.conftest import offline_memory

A = "The Lick Observatory's great refractor was the largest telescope of its time."
B = "The Yerkes refractor, built later, was larger than the Lick refractor."


@pytest.fixture
def memory(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with offline_memory(database_url, tmp_path / "data", withdrawal_retention_days=30) as svc:
        yield svc


def lines(svc: MemoryService) -> list[dict[str, Any]]:
    with svc.db.connection() as conn:
        found = conn.execute("SELECT entity, reason FROM pm_withdrawal ORDER BY id").fetchall()
    return [dict(r) for r in found]


def withdraw_links(svc: MemoryService, reason: str, days_ago: float) -> None:
    """Link A to B, then withdraw the link with `reason`, dated `days_ago` (the audit line's
    times are moved back: a test cannot wait a month)."""
    a = svc.store(StoreRequest(claim=A, session_id="s")).id
    b = svc.store(StoreRequest(claim=B, session_id="s")).id
    assert a is not None and b is not None
    with svc.db.transaction() as conn:
        add_link(conn, a, b, "supports")
    with svc.db.transaction() as conn:
        withdraw_reason(conn, reason)
        conn.execute("DELETE FROM pm_atom_link WHERE src_atom_id = %s", (a,))
        back = timedelta(days=days_ago)
        conn.execute(
            """UPDATE pm_withdrawal SET withdrawn_at = withdrawn_at - %s,
                      recorded_at = recorded_at - %s - interval '1 day'
                WHERE id = (SELECT max(id) FROM pm_withdrawal WHERE atom_id = %s)""",
            (back, back, a),
        )


def test_old_lines_of_truth_maintenance_are_trimmed_and_erasures_kept(
    memory: MemoryService,
) -> None:
    withdraw_links(memory, WITHDRAWN, days_ago=40)
    withdraw_links(memory, "erased by memory_forget", days_ago=40)
    withdraw_links(memory, "re-distilled: the version is cited afresh", days_ago=10)
    assert len(lines(memory)) == 3
    assert memory.runtime.worker().trim_withdrawals() == 1
    assert [r["reason"] for r in lines(memory)] == [
        "erased by memory_forget",
        "re-distilled: the version is cited afresh",
    ]
    assert memory.trim_withdrawals() == 0  # nothing else is past the retention


def test_an_as_of_before_the_trimmed_horizon_is_refused(memory: MemoryService) -> None:
    withdraw_links(memory, WITHDRAWN, days_ago=40)
    long_ago = datetime.now(UTC) - timedelta(days=35)
    recent = datetime.now(UTC) - timedelta(days=1)
    # before any trim, an instant long ago is answered (the line is there)
    memory.search(SearchRequest(query="refractor", flt=SearchFilter(as_of=long_ago)))
    assert memory.trim_withdrawals() == 1
    with pytest.raises(InvalidInput, match="cannot be told exactly"):
        memory.search(SearchRequest(query="refractor", flt=SearchFilter(as_of=long_ago)))
    with pytest.raises(InvalidInput, match="cannot be told exactly"):
        memory.get_context(ContextRequest(question="refractor", flt=SearchFilter(as_of=long_ago)))
    answer = memory.search(SearchRequest(query="refractor", flt=SearchFilter(as_of=recent)))
    assert answer.as_of == recent


def test_without_a_retention_nothing_is_trimmed(database_url: str, tmp_path: Path) -> None:
    with offline_memory(database_url, tmp_path / "data") as svc:
        withdraw_links(svc, WITHDRAWN, days_ago=4000)
        assert svc.trim_withdrawals() == 0 and svc.runtime.worker().trim_withdrawals() == 0
        assert len(lines(svc)) == 1
