"""Research and rebuild as background jobs (issue 17): `memory_job op=research` answers within
its bound with a job id, reports progress per gap and URL, fills the gap; a cancelled run takes
back what it did (documents erased, gaps as they were); `op=rebuild` runs as a job too.

Real engines, the real MCP stdio transport, a SearxNG-like search and web pages on loopback.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from pegas_memory.app.research import ResearchJournal, SearxngProvider, research_gaps
from pegas_memory.jobs import JobCancelled
from tests.conftest import offline_memory
from tests.db_fingerprint import fingerprint
from tests.loopback import Replies, serve
from tests.mcp_harness import serve_env, server_params, structured

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(900)]

FACT = "The speed of sound in dry air at 20 degrees Celsius is 343 metres per second."
QUESTION = "What is the speed of sound in dry air?"


class Web:
    """A SearxNG-like /search naming `paths`, and the pages: /a, /b (the same fact) and /slow
    (a page that takes `slow_seconds` to answer, or less once `release` is set: a run can be
    cancelled while it waits, however slowly the test sees its progress)."""

    def __init__(self, paths: list[str], slow_seconds: float = 0.0) -> None:
        web = self
        self.paths = paths
        self.slow_seconds = slow_seconds
        self.release = threading.Event()
        self.asked: list[str] = []

        class Handler(Replies):
            def do_GET(self) -> None:
                web.asked.append(self.path)
                if self.path.startswith("/search"):
                    results = [{"url": f"{web.base}{p}", "title": p} for p in web.paths]
                    body, ctype = json.dumps({"results": results}).encode(), "application/json"
                else:
                    if self.path == "/slow":
                        web.release.wait(web.slow_seconds)
                    name = self.path.strip("/")
                    body = (
                        f"<html><head><title>Acoustics {name}</title></head><body><article>"
                        f"<h1>Acoustics {name}</h1><p>{FACT}</p><p>Page {name} of the "
                        f"handbook.</p></article></body></html>"
                    ).encode()
                    ctype = "text/html; charset=utf-8"
                self.reply(200, body, ctype)

        self._running = ExitStack()
        self.base = self._running.enter_context(serve(Handler))

    def close(self) -> None:
        self.release.set()
        self._running.close()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def env(tmp_path: Path, database_url: str) -> Iterator[dict[str, str]]:
    with serve_env(tmp_path / "data", database_url, PEGAS_URL_ALLOWLIST='["127.0.0.1"]') as served:
        yield served


async def memory_job(client: Client, **args: Any) -> dict[str, Any]:
    return structured(await client.call_tool("memory_job", args))


async def until_finished(client: Client, job_id: int) -> dict[str, Any]:
    with anyio.fail_after(600):
        while True:
            listed = await memory_job(client, op="wait", job_id=job_id, wait_seconds=20)
            info = dict(listed["jobs"][0])
            if info["state"] in ("done", "failed", "cancelled"):
                return info


async def test_research_runs_as_a_job_and_fills_the_gap(env: dict[str, str]) -> None:
    web = Web(["/a", "/b"])
    notes: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        notes.append(message or "")

    try:
        async with Client(server_params({**env, "PEGAS_SEARXNG_URL": web.base})) as client:
            gap = structured(await client.call_tool("memory_add_gap", {"question": QUESTION}))
            started = structured(
                await client.call_tool(
                    "memory_job",
                    {"op": "research", "max_gaps": 3, "urls_per_gap": 2, "wait_seconds": 0},
                )
            )
            (job,) = started["jobs"]
            assert job["kind"] == "research" and job["state"] in ("queued", "running"), job
            assert f"job_id={job['id']}" in started["message"]
            # The same request while it runs is the same job, not a second run racing for gaps.
            again = await memory_job(client, op="research", wait_seconds=0)
            assert again["jobs"][0]["id"] == job["id"]
            waited = await client.call_tool(
                "memory_job",
                {"op": "wait", "job_id": job["id"], "wait_seconds": 100},
                progress_callback=on_progress,
            )
            info = dict(structured(waited)["jobs"][0])
            if info["state"] not in ("done", "failed", "cancelled"):
                info = await until_finished(client, job["id"])
            told = (await memory_job(client, op="get", job_id=job["id"]))["message"]
            gaps = structured(await client.call_tool("memory_list_gaps", {"status": "filled"}))
            # A rebuild is a job started the same way; its progress counts what it re-projected.
            rebuilt = await memory_job(client, op="rebuild", target="qdrant", wait_seconds=100)
            stats = structured(await client.call_tool("memory_stats", {}))
    finally:
        web.close()
    assert info["state"] == "done", info
    (outcome,) = info["research"]["gaps"]
    assert outcome["gap_id"] == gap["gap"]["id"] and outcome["status"] == "filled", outcome
    assert outcome["urls_tried"] == [f"{web.base}/a", f"{web.base}/b"] and outcome["answered_by"]
    assert info["research"]["filled"] == 1 and "1 filled" in told
    assert gaps["gaps"][0]["filled_by"] == outcome["answered_by"]
    assert any(n.startswith("gap 1 of 1") for n in notes), notes  # progress while waiting
    (rebuild,) = rebuilt["jobs"]
    assert rebuild["kind"] == "rebuild" and rebuild["state"] == "done", rebuilt
    assert rebuild["rebuild"]["counts"]["vector:atom"] == stats["atoms_total"] > 0
    assert rebuild["progress"]["message"].startswith("vector slice"), rebuild


async def test_a_cancelled_research_job_takes_back_what_it_did(
    env: dict[str, str], database_url: str
) -> None:
    web = Web(["/a", "/slow"], slow_seconds=6.0)
    try:
        async with Client(server_params({**env, "PEGAS_SEARXNG_URL": web.base})) as client:
            structured(await client.call_tool("memory_add_gap", {"question": QUESTION}))
            before = _domain(fingerprint(database_url))
            started = await memory_job(client, op="research", urls_per_gap=2, wait_seconds=0)
            job_id = started["jobs"][0]["id"]
            with anyio.fail_after(240):
                while True:  # /a is stored; /slow is being fetched
                    listed = await memory_job(client, op="get", job_id=job_id)
                    progress = listed["jobs"][0]["progress"]["message"]
                    if "URL 2 of 2" in progress:
                        break
                    assert listed["jobs"][0]["state"] in ("queued", "running"), listed
                    await anyio.sleep(0.2)
            assert _rows(database_url, "pm_document") == 1
            cancelled = await memory_job(client, op="cancel", job_id=job_id)
            assert "cancel requested" in cancelled["message"]
            final = await until_finished(client, job_id)
            gaps = structured(await client.call_tool("memory_list_gaps", {}))
    finally:
        web.close()
    assert final["state"] == "cancelled", final
    # No document, chunk, atom or citation is left; the gap is as it was (only its updated_at,
    # set by a trigger, tells that it was touched).
    assert _domain(fingerprint(database_url)) == before
    (gap,) = gaps["gaps"]
    assert gap["status"] == "open" and gap["attempts"] == [] and gap["filled_by"] == []


def test_a_stopped_run_restores_its_gap_and_a_new_run_takes_stuck_ones(
    database_url: str, tmp_path: Path
) -> None:
    web = Web(["/a", "/b"])
    try:
        with offline_memory(
            database_url, tmp_path / "data", dim=128, llm=False, url_allowlist=["127.0.0.1"]
        ) as service:
            gap = service.add_gap(QUESTION).gap
            provider = SearxngProvider(web.base)

            def stop_at_second_url(done: int, total: int | None, message: str) -> None:
                if "URL 2 of 2" in message:
                    raise JobCancelled("cancelled on request")

            journal = ResearchJournal()
            with pytest.raises(JobCancelled):
                research_gaps(service, provider, step=stop_at_second_url, journal=journal)
            (listed,) = service.list_gaps().gaps
            assert listed.status == "open" and listed.attempts == []  # as it was
            assert len(journal.documents) == 1 and gap.id in journal.gaps
            # A run that died leaves its gap `researching`: only a run told to take those
            # (a job taken over) researches it again.
            set_status(service, gap.id, "researching")
            assert research_gaps(service, provider) == ([], "no open gaps")
            with pytest.raises(JobCancelled):  # stopped again: back to open, not researching
                research_gaps(service, provider, include_researching=True, step=stop_at_second_url)
            assert service.list_gaps().gaps[0].status == "open"
            set_status(service, gap.id, "researching")
            outcomes, _ = research_gaps(service, provider, include_researching=True)
    finally:
        web.close()
    assert [o.gap_id for o in outcomes] == [gap.id]
    assert outcomes[0].urls_tried == [f"{web.base}/a", f"{web.base}/b"]


def set_status(service: Any, gap_id: int, status: str) -> None:
    from pegas_memory.curation.gaps import set_gap_status

    with service.db.transaction() as conn:
        set_gap_status(conn, gap_id, status)


def _rows(database_url: str, table: str) -> int:
    return int(fingerprint(database_url)[table].split(":")[0])


def _domain(tables: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in tables.items() if k not in ("pm_outbox", "pm_research_gap")}
