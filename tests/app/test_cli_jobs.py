"""`pegas-memory research` and `pegas-memory rebuild` as jobs (issue 17), over the real CLI in
subprocesses on the embedded default (qdrant-edge and the local model in the engine host,
FalkorDB; PostgreSQL from the test cluster): they enqueue the jobs `memory_job` starts, follow them
with progress on stderr and print the finished job; --no-wait only queues; `pegas-memory jobs`
lists, shows and follows; Ctrl-C cancels the job the command started, which rolls back.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import pegas_memory.jobs.api as jobs_api
from pegas_memory.app.service import MemoryService
from pegas_memory.config import load_settings
from pegas_memory.db.pool import Database
from tests.cli_run import run_cli
from tests.db_fingerprint import fingerprint
from tests.jobs.test_research_jobs import QUESTION, Web
from tests.mcp_harness import serve_env

pytestmark = pytest.mark.timeout(900)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(tmp_path: Path, database_url: str) -> Iterator[dict[str, str]]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("PEGAS_")}
    with serve_env(tmp_path / "data", database_url, PEGAS_URL_ALLOWLIST='["127.0.0.1"]') as served:
        yield {**base, **served}


def job_of(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.stdout.strip(), (done.returncode, done.stderr[-2000:])
    return dict(json.loads(done.stdout))


def add_gap(env: dict[str, str]) -> int:
    settings = load_settings(
        data_dir=Path(env["PEGAS_DATA_DIR"]), database_url=env["PEGAS_DATABASE_URL"]
    )
    with MemoryService(settings) as service:
        return service.add_gap(QUESTION).gap.id


def test_rebuild_is_a_job_followed_queued_and_listed(env: dict[str, str]) -> None:
    done = run_cli(env, "rebuild", "--target", "qdrant")
    job = job_of(done)
    assert done.returncode == 0, done.stderr[-2000:]
    assert job["kind"] == "rebuild" and job["state"] == "done" and job["attempts"] == 1, job
    assert "vector:atom" in job["result"]["counts"], job
    assert f"job {job['id']}: " in done.stderr  # progress on stderr, the JSON alone on stdout

    queued = run_cli(env, "rebuild", "--target", "graph", "--no-wait")
    later = job_of(queued)
    assert queued.returncode == 0 and later["state"] == "queued" and later["kind"] == "rebuild"
    assert f"pegas-memory jobs {later['id']} --wait" in queued.stderr
    # Nothing else runs jobs on this data dir: it stays queued until something follows it.
    shown = job_of(run_cli(env, "jobs", str(later["id"])))
    assert shown["state"] == "queued", shown
    listed = json.loads(run_cli(env, "jobs").stdout)
    assert [j["id"] for j in listed] == [later["id"], job["id"]]
    followed = run_cli(env, "jobs", str(later["id"]), "--wait", "--quiet")
    assert followed.returncode == 0, followed.stderr[-2000:]
    finished = job_of(followed)
    assert finished["state"] == "done" and finished["result"]["target"] == "graph", finished


def test_research_runs_as_a_job_and_fills_the_gap(env: dict[str, str]) -> None:
    web = Web(["/a", "/b"])
    try:
        gap_id = add_gap(env)
        done = run_cli({**env, "PEGAS_SEARXNG_URL": web.base}, "research", "--urls", "2")
    finally:
        web.close()
    job = job_of(done)
    assert done.returncode == 0, done.stderr[-2000:]
    assert job["kind"] == "research" and job["state"] == "done", job
    (outcome,) = job["result"]["gaps"]
    assert outcome["gap_id"] == gap_id and outcome["status"] == "filled", outcome
    assert "gap 1 of 1" in done.stderr


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cancel_requested(database_url: str) -> bool:
    db = Database(load_settings(database_url=database_url)).open(migrate=False)
    try:
        return any(job.cancel_requested for job in jobs_api.list_recent(db))
    finally:
        db.close()


def test_ctrl_c_cancels_the_research_job_and_it_rolls_back(
    env: dict[str, str], database_url: str
) -> None:
    # /slow answers only after the Ctrl-C (or after 25 s, within the 30 s fetch timeout), so the
    # job is still fetching it when the signal comes, however loaded the machine is.
    web = Web(["/a", "/slow"], slow_seconds=25.0)
    err: list[str] = []
    try:
        add_gap(env)
        before = {k: v for k, v in fingerprint(database_url).items() if k in DOMAIN}
        proc = subprocess.Popen(
            [sys.executable, "-m", "pegas_memory.cli", "research", "--urls", "2"],
            env={**env, "PEGAS_SEARXNG_URL": web.base},
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # A terminal's Ctrl-C reaches a process whose SIGINT is not ignored; a suite started
            # in the background (`make test &`, nohup) passes SIGINT down ignored, and Python
            # then installs no KeyboardInterrupt handler in the child.
            preexec_fn=_default_sigint,
        )
        assert proc.stderr is not None and proc.stdout is not None
        reader = threading.Thread(target=lambda: err.extend(iter(lambda: proc.stderr.read(1), "")))
        reader.start()
        deadline = time.monotonic() + 300
        while "URL 2 of 2" not in "".join(err):  # /a is stored, /slow is being fetched
            assert proc.poll() is None, "".join(err)[-2000:]
            assert time.monotonic() < deadline, "".join(err)[-2000:]
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        while not _cancel_requested(database_url) and proc.poll() is None:
            assert time.monotonic() < deadline, "".join(err)[-2000:]
            time.sleep(0.2)
        web.release.set()  # the cancel is recorded: the job sees it at its next step
        proc.wait(timeout=300)
        reader.join(10)
        out = proc.stdout.read()  # a small JSON: the pipe never filled meanwhile
    finally:
        web.close()
    stderr = "".join(err)
    assert proc.returncode == 130, stderr[-2000:]
    job = json.loads(out)
    assert job["kind"] == "research" and job["state"] == "cancelled", job
    assert "cancelling job" in stderr
    # What the run stored (the page /a) was taken back; the gap is open again.
    after = {k: v for k, v in fingerprint(database_url).items() if k in DOMAIN}
    assert after == before
    settings = load_settings(data_dir=Path(env["PEGAS_DATA_DIR"]), database_url=database_url)
    with MemoryService(settings) as service:
        (gap,) = service.list_gaps().gaps
    assert gap.status == "open" and gap.attempts == []


DOMAIN = ("pm_document", "pm_chunk", "pm_atom", "pm_citation", "pm_atom_link")
