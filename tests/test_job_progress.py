"""A progress report that the rate limit held back is written while its stage runs (issue 17's
walk: GeoTopo's "parsing the source" was reported right after "reading the source", held back by
the twice-a-second limit, and stayed unwritten for the 28 s the parse took: a poller saw the
step before it)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from pegas_memory import jobs
from pegas_memory.config import Settings
from pegas_memory.db.pool import Database
from pegas_memory.jobs import JobContext, JobRunner
from tests.test_jobs import FAST, until


@pytest.fixture
def db(settings: Settings) -> Iterator[Database]:
    database = Database(settings).open()
    yield database
    database.close()


def test_a_held_back_report_is_written_while_the_next_stage_runs(db: Database) -> None:
    release = threading.Event()

    def handler(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        ctx.report(0, 1, "reading the source")  # written at once (the first report)
        ctx.report(0, 1, "parsing the source")  # within the interval: held back
        assert release.wait(60)  # a long stage with no report of its own
        return {}

    job = jobs.submit(db, "ingest", {})
    with JobRunner(db, {"ingest": handler}, **FAST).start():
        try:
            until(lambda: jobs.get(db, job.id).progress.message == "parsing the source", 30)
        finally:
            release.set()
        done = jobs.wait(db, job.id, 30)
    assert done.state == "done"
