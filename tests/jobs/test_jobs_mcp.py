"""Tools that never block past a client's patience, and no runaway work (issue 17, scopes 2-4).

Real engines and the real MCP stdio transport: a long ingest answers within its bound with a
job id and completes in the background while polling shows progress; a server killed mid-job is
replaced and the job completes with nothing half-written; 20 loopback pages are one batch call;
a cancelled job leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest
from mcp import Client

from tests.db_fingerprint import fingerprint
from tests.loopback import Replies
from tests.loopback import serve as serve_http
from tests.mcp_harness import serve_env, server_params, structured

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(900)]

NOUNS = ("lantern", "compass", "violin", "kettle", "anchor", "saddle", "barometer", "loom")
ADJECTIVES = ("copper", "oaken", "glass", "silver", "painted", "woven", "iron", "ivory")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def catalogue(paragraphs: int) -> str:
    """A long text of distinct statements (nothing deduplicates it away)."""
    out = ["# Catalogue of the museum storeroom\n"]
    for p in range(paragraphs):
        lines = []
        for s in range(4):
            i = p * 4 + s
            noun, adj = NOUNS[i % len(NOUNS)], ADJECTIVES[(i // 8) % len(ADJECTIVES)]
            lines.append(
                f"The {adj} {noun} catalogued as item {i} weighs {(i * 37) % 991 + 10} grams "
                f"and was acquired in {1700 + (i * 13) % 300} from workshop {i % 97}."
            )
        out.append(" ".join(lines) + "\n")
    return "\n".join(out)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    root.mkdir()
    (root / "long.md").write_text(catalogue(40))
    return root


@pytest.fixture
def env(tmp_path: Path, database_url: str, files: Path) -> Iterator[dict[str, str]]:
    with serve_env(
        tmp_path / "data",
        database_url,
        PEGAS_INGEST_ROOTS=f'["{files}"]',
        PEGAS_URL_ALLOWLIST='["127.0.0.1"]',
        PEGAS_JOB_LEASE_SECONDS="2",
    ) as served:
        yield served


@asynccontextmanager
async def serve(env: dict[str, str], **extra: str) -> AsyncIterator[Client]:
    async with Client(server_params({**env, **extra})) as client:
        yield client


async def job(client: Client, op: str, **args: Any) -> dict[str, Any]:
    listed = structured(await client.call_tool("memory_job", {"op": op, **args}))
    return dict(listed["jobs"][0]) if op != "list" else listed


async def until_done(client: Client, job_id: int, seconds: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        info = await job(client, "wait", job_id=job_id, wait_seconds=20)
        if info["state"] in ("done", "failed", "cancelled"):
            return info
        assert time.monotonic() < deadline, f"job {job_id} did not finish: {info}"


def counts(database_url: str) -> dict[str, int]:
    with psycopg.connect(database_url, autocommit=True) as conn:
        out = {}
        for table in ("pm_document", "pm_chunk", "pm_atom", "pm_citation"):
            row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
            assert row is not None
            out[table] = int(row[0])
    return out


@pytest.mark.slow
async def test_a_long_ingest_answers_within_its_bound_and_completes(
    env: dict[str, str], files: Path, database_url: str
) -> None:
    notes: list[tuple[float, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        notes.append((done, message))

    async with serve(env, PEGAS_TOOL_WAIT_SECONDS="1") as client:
        started = time.monotonic()
        call = structured(
            await client.call_tool(
                "memory_ingest",
                {"source": str(files / "long.md")},
                progress_callback=on_progress,
            )
        )
        elapsed = time.monotonic() - started
        assert not call["finished"] and call["state"] in ("queued", "running"), call
        assert elapsed < 6, f"the call took {elapsed:.1f} s with a bound of 1 s"
        assert f"job_id={call['job_id']}" in call["message"]
        # Polling shows progress while it runs (a stage message, then chunks counted up).
        seen: list[dict[str, Any]] = []
        with anyio.fail_after(120):
            while not any(p["progress"]["done"] > 0 for p in seen):
                seen.append(await job(client, "get", job_id=call["job_id"]))
                await anyio.sleep(0.3)
        running = seen[-1]
        assert running["state"] == "running" and running["progress"]["message"], running
        assert running["worker"] and running["ingest"] is None
        listed = await job(client, "list", state="running")
        assert call["job_id"] in [j["id"] for j in listed["jobs"]]
        done = await until_done(client, call["job_id"])
        assert done["state"] == "done", done
        result = done["ingest"]["results"][0]
        assert result["atoms_new"] >= 20 and done["ingest"]["atoms_new"] == result["atoms_new"]
        assert counts(database_url)["pm_document"] == 1
        # The same source again finishes inline: unchanged, nothing to do.
        again = structured(
            await client.call_tool("memory_ingest", {"source": str(files / "long.md")})
        )
        assert again["finished"] and again["results"][0]["unchanged"], again


@pytest.mark.slow
async def test_killing_the_server_mid_job_and_restarting_completes_it(
    env: dict[str, str], files: Path, database_url: str
) -> None:
    async with serve(env) as first:
        call = structured(
            await first.call_tool(
                "memory_ingest", {"source": str(files / "long.md"), "wait_seconds": 0}
            )
        )
        with anyio.fail_after(120):
            while True:
                info = await job(first, "get", job_id=call["job_id"])
                if info["state"] == "running" and info["progress"]["done"] > 0:
                    break
                await anyio.sleep(0.2)
        pid = int(info["worker"].split(":")[1])
        os.kill(pid, signal.SIGKILL)
    assert counts(database_url)["pm_document"] == 0  # killed before its one write: nothing written
    async with serve(env) as second:
        done = await until_done(second, call["job_id"])
        assert done["state"] == "done" and done["attempts"] == 2, done
        assert done["worker"].split(":")[1] != str(pid)
        result = done["ingest"]["results"][0]
    after = counts(database_url)
    assert after["pm_document"] == 1
    assert after["pm_chunk"] == result["chunks"]
    assert after["pm_atom"] == result["atoms_new"]


class Pages(Replies):
    def do_GET(self) -> None:
        tail = self.path.rsplit("/", 1)[-1]
        if not tail.isdigit():
            self.reply(404, b"")
            return
        n = int(tail)
        noun, adj = NOUNS[n % len(NOUNS)], ADJECTIVES[n % len(ADJECTIVES)]
        body = (
            f"<html><head><title>Exhibit {n}</title></head><body><article><h1>Exhibit {n}</h1>"
            f"<p>Exhibit {n} is a {adj} {noun} from the year {1800 + n}. It was restored in "
            f"{1950 + n} by the workshop of master {n * 3}.</p></article></body></html>"
        ).encode()
        self.reply(200, body)


def site() -> contextlib.AbstractContextManager[str]:
    return serve_http(Pages)


async def test_twenty_web_pages_are_one_batch_call(env: dict[str, str], database_url: str) -> None:
    with site() as base:
        urls = [f"{base}/exhibit/{n}" for n in range(20)] + [f"{base}/missing"]
        async with serve(env) as client:
            call = structured(
                await client.call_tool("memory_ingest", {"sources": urls, "wait_seconds": 60})
            )
            if not call["finished"]:
                done = await until_done(client, call["job_id"])
                call = {**call, **done["ingest"], "state": done["state"]}
            jobs = await job(client, "list")
    assert call["state"] == "done", call
    assert len(call["results"]) == 20 and call["atoms_new"] >= 10
    assert [f["source"] for f in call["failures"]] == [f"{base}/missing"]
    assert {r["title"] for r in call["results"]} == {f"Exhibit {n}" for n in range(20)}
    assert len(jobs["jobs"]) == 1  # one job for the whole list
    assert counts(database_url)["pm_document"] == 20


async def test_a_cancelled_job_leaves_nothing_behind(
    env: dict[str, str], files: Path, database_url: str
) -> None:
    (files / "short.md").write_text("The ivory loom stands in room four of the museum.\n")
    async with serve(env) as client:
        structured(await client.call_tool("memory_stats", {}))  # migrated
        before = _domain(fingerprint(database_url))
        call = structured(
            await client.call_tool(
                "memory_ingest",
                {"sources": [str(files / "short.md"), str(files / "long.md")], "wait_seconds": 0},
            )
        )
        with anyio.fail_after(120):
            while True:  # the short source is written, the long one is being distilled
                info = await job(client, "get", job_id=call["job_id"])
                if info["progress"]["message"].startswith("source 2 of 2"):
                    break
                await anyio.sleep(0.2)
        assert counts(database_url)["pm_document"] == 1
        cancelled = structured(
            await client.call_tool("memory_job", {"op": "cancel", "job_id": call["job_id"]})
        )
        assert "cancel requested" in cancelled["message"]
        final = await until_done(client, call["job_id"], seconds=240)
        assert final["state"] == "cancelled" and "cancelled" in final["error"], final
    assert _domain(fingerprint(database_url)) == before
    assert _cached_vectors(database_url) == 0  # its embeddings went too (issue 30)


def _cached_vectors(database_url: str) -> int:
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pm_embedding_cache").fetchone()
    assert row is not None
    return int(row[0])


def _domain(tables: dict[str, str]) -> dict[str, str]:
    """The domain tables' fingerprints (outbox events come and go as they are projected)."""
    return {k: v for k, v in tables.items() if k != "pm_outbox"}
