"""Claiming a job (`jobs.runner.claim_job`, one statement) against a real PostgreSQL, 18 embedded
and 15 from Debian: concurrent claimers never take the same job and together take every one;
a claimer's jobs stay leased while its session lives and are taken over, once each, when it
ends; order, and the jobs that cannot run again."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from pegas_memory import jobs
from pegas_memory.db.pool import Database
from pegas_memory.jobs.model import LOCK_CLASS
from pegas_memory.jobs.runner import LeaseConn, claim_job
from pegas_memory.models import JobState
from tests.conftest import make_settings

CLAIMERS = 8
QUEUED = 80
ORPHANS = 6  # running jobs whose worker died: no session holds their lock


@pytest.fixture
def db(any_database_url: str, tmp_path: Path) -> Iterator[Database]:
    database = Database(make_settings(tmp_path / "data", database_url=any_database_url)).open()
    yield database
    database.close()


def lease(db: Database) -> LeaseConn:
    return psycopg.connect(db.url, autocommit=True, row_factory=dict_row)


def orphan(db: Database, job_id: int, **columns: Any) -> None:
    """Mark a job running under a worker that died (as if its process had been killed)."""
    values = {"attempts": 1, "worker": "gone:1/0", **columns}
    with db.transaction() as conn:
        conn.execute(
            "UPDATE pm_job SET state = 'running', started_at = now(), heartbeat_at = now(),"
            " attempts = %(attempts)s, worker = %(worker)s,"
            " cancel_requested = %(cancel)s WHERE id = %(id)s",
            {"cancel": False, **values, "id": job_id},
        )


def holders(db: Database) -> dict[int, int]:
    """Job id -> the backend pid holding its lease lock."""
    with db.connection() as conn:
        rows = conn.execute(
            "SELECT objid::bigint AS id, pid FROM pg_locks WHERE locktype = 'advisory' "
            "AND granted AND classid = %s::oid AND objsubid = 2",
            (LOCK_CLASS,),
        ).fetchall()
    return {int(r["id"]): int(r["pid"]) for r in rows}


def claim_all(conns: list[LeaseConn], names: list[str]) -> dict[str, list[int]]:
    """Every claimer claims, all at once, until nothing is left: worker name -> its job ids."""
    start = threading.Barrier(len(conns))
    taken: dict[str, list[int]] = {name: [] for name in names}
    errors: list[BaseException] = []

    def run(conn: LeaseConn, name: str) -> None:
        try:
            start.wait(30)
            while (row := claim_job(conn, ["ingest", "rebuild"], name)) is not None:
                taken[name].append(int(row["id"]))
        except BaseException as exc:  # reported by the test, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=pair) for pair in zip(conns, names, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a claimer did not finish"
    assert errors == []
    return taken


def until(predicate: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


def test_concurrent_claimers_take_every_job_once_and_keep_it_leased(db: Database) -> None:
    kinds = ["ingest", "rebuild"]
    ids = [jobs.submit(db, kinds[i % 2], {"n": i}).id for i in range(QUEUED + ORPHANS)]
    orphans = set(ids[:ORPHANS])
    for job_id in orphans:
        orphan(db, job_id)
    other_kind = jobs.submit(db, "research", {}).id  # no claimer handles it
    conns = [lease(db) for _ in range(CLAIMERS)]
    names = [f"claimer/{i}" for i in range(CLAIMERS)]
    try:
        taken = claim_all(conns, names)
        claimed = [job_id for got in taken.values() for job_id in got]
        assert [j for j, n in Counter(claimed).items() if n > 1] == []  # never one job twice
        assert sorted(claimed) == sorted(ids)  # every job once, the orphans taken over too
        by_id = {j.id: j for j in jobs.list_recent(db, limit=QUEUED + ORPHANS + 1)}
        owner = {job_id: name for name, got in taken.items() for job_id in got}
        pids = {name: conn.info.backend_pid for name, conn in zip(names, conns, strict=True)}
        assert holders(db) == {job_id: pids[owner[job_id]] for job_id in ids}
        for job_id in ids:
            info = by_id[job_id]
            assert info.state == JobState.RUNNING and info.worker == owner[job_id]
            assert info.attempts == (2 if job_id in orphans else 1)
        assert by_id[other_kind].state == JobState.QUEUED

        # Leased jobs are nobody else's while their claimer's session lives...
        assert claim_job(conns[1], kinds, names[1]) is None
        # ...and are taken over, each once, when it ends (the process died).
        dead = max(names, key=lambda name: len(taken[name]))
        conns[names.index(dead)].close()
        until(lambda: not set(taken[dead]) & set(holders(db)))
        alive = [i for i, name in enumerate(names) if name != dead]
        again = claim_all([conns[i] for i in alive], [names[i] for i in alive])
        reclaimed = [job_id for got in again.values() for job_id in got]
        assert sorted(reclaimed) == sorted(taken[dead])
        for job_id in taken[dead]:
            info = jobs.get(db, job_id)
            assert info.state == JobState.RUNNING and info.worker != dead
            assert info.attempts == (3 if job_id in orphans else 2)
    finally:
        for conn in conns:
            conn.close()


def test_a_claim_takes_an_orphan_first_then_the_oldest_due_and_ends_what_cannot_run(
    db: Database,
) -> None:
    later, first, second, orphaned, cancelled, worn_out = (
        jobs.submit(db, "ingest", {"n": i}).id for i in range(6)
    )
    with db.transaction() as conn:
        conn.execute(
            "UPDATE pm_job SET run_after = now() + interval '1 hour' WHERE id = %s", (later,)
        )
        conn.execute(
            "UPDATE pm_job SET run_after = now() - interval '1 minute' WHERE id = %s", (second,)
        )
        conn.execute(
            "UPDATE pm_job SET run_after = now() - interval '2 minutes' WHERE id = %s", (first,)
        )
    orphan(db, orphaned)
    orphan(db, cancelled, cancel=True)
    orphan(db, worn_out, attempts=3)  # max_attempts is 3: its worker died every time
    conn = lease(db)
    try:
        order = []
        while (row := claim_job(conn, ["ingest"], "claimer")) is not None:
            order.append(int(row["id"]))
        assert order == [orphaned, first, second]  # not `later`, not yet due
        assert jobs.get(db, later).state == JobState.QUEUED
        gone = jobs.get(db, cancelled)
        assert gone.state == JobState.CANCELLED and gone.worker is None
        assert gone.error == "cancelled while its worker was gone"
        failed = jobs.get(db, worn_out)
        assert failed.state == JobState.FAILED and failed.attempts == 3
        assert f"job {worn_out} was started 3 times" in (failed.error or "")
        assert set(holders(db)) == {orphaned, first, second}  # the ended ones are not held
    finally:
        conn.close()
