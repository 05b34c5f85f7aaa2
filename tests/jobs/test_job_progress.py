"""Progress from the stages issue 17's walk showed silent. A report that the rate limit held back
is written while its stage runs (GeoTopo's "parsing the source" came right after "reading the
source", was held back by the twice-a-second limit, and stayed unwritten for the 28 s the parse
took: a poller saw the step before it); and a PDF reports every page while it parses."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from pegas_memory import jobs
from pegas_memory.config import Settings
from pegas_memory.db.pool import Database
from pegas_memory.ingest.pdf import parse_pdf
from pegas_memory.jobs import JobCancelled, JobContext, JobRunner
from tests.ingest.test_parsers import PAGE_1, PAGE_3, make_pdf
from tests.jobs.test_jobs import FAST, until


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


def test_a_pdf_reports_every_page_and_a_stop_there_is_not_a_broken_page(
    settings: Settings,
) -> None:
    data = make_pdf([PAGE_1, PAGE_3, PAGE_1 + " Again."])
    seen: list[tuple[int, int, str]] = []
    parsed = parse_pdf(
        data,
        settings=settings,
        uri="file:///paper.pdf",
        progress=lambda done, total, message: seen.append((done, total, message)),
    )
    assert seen == [(i, 3, f"parsing page {i + 1} of 3") for i in range(3)]
    assert len(parsed.sections) == 3

    def stop_at_page_two(done: int, total: int, message: str) -> None:
        if done == 1:
            raise JobCancelled("cancelled on request")

    with pytest.raises(JobCancelled):  # not swallowed as "pages could not be parsed"
        parse_pdf(data, settings=settings, uri="file:///paper.pdf", progress=stop_at_page_two)
