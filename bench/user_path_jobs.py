"""The user's own path for long work (issue 17): real documents and a real repository through the
real `pegas-memory serve` over MCP stdio, on a fresh embedded data dir, as background jobs.

Stages (each on its own fresh data dir, each writing its section of the results file):
- ``ingest``: alice.epub and the GeoTopo PDF with `memory_ingest`: how long the call took against
  its bound (`PEGAS_TOOL_WAIT_SECONDS`, default 20 s), the job id, `memory_job op=get` polled
  every 0.5 s (distinct progress updates seen, the longest gap between two and the stage it
  was in), wall time of the job, atoms by type.
- ``kill``: one document (``--kill-source``: geotopo, the default, or alice) again; the serve is
  SIGKILLed mid-job (a third of the way through distillation), a new serve takes the job over;
  the counts (documents, chunks, atoms, citations) against the clean run of the ``ingest`` stage
  (or a clean run of its own when that stage did not run in this invocation), and SQL checks for
  anything half-written (a second document or version, chunks of no current document, atoms
  without a citation, citations without their chunk).
- ``code``: /work/cache/repos/sqlalchemy with `memory_store_code` as a job; the RSS of every
  process of the data dir (serve, engine host, PostgreSQL, FalkorDB) sampled every 0.5 s, the
  outcome, and `memory_stats` called every 2 s meanwhile from a task of its own (answers,
  errors, slowest), beside the latency of the 0.5 s `memory_job op=get` polls (a cheap call:
  when it is slow too, the serve itself answers late, not the stats' queries). ``--code-path
  lib`` indexes only that folder of sqlalchemy (about a third of its Python).

    PYTHONPATH=. .venv/bin/python bench/user_path_jobs.py [--stages ingest,kill,code]
        [--kill-source geotopo|alice] [--ingest-sources alice,geotopo] [--code-path lib]
        [--out bench/results/user-path-jobs.md]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import psutil
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import log, md_table, shared_data_dir
from tests.mcp_harness import server_params, structured

DOCS = (
    shared_data_dir() if shared_data_dir().exists() else Path("/work/shared/data")
) / "docs"  # a worktree's ../shared is not the machine's shared data
ALICE = DOCS / "epub" / "alice.epub"
GEOTOPO = DOCS / "pdf" / "009-pdflatex-geotopo" / "GeoTopo-komprimiert.pdf"
REPOS = Path("/work/cache/repos")
SQLALCHEMY = REPOS / "sqlalchemy"
RESULTS = Path(__file__).resolve().parent / "results" / "user-path-jobs.md"
FINISHED = ("done", "failed", "cancelled")
POLL = 0.5


def env_for(data: Path) -> dict[str, str]:
    return {
        "PEGAS_DATA_DIR": str(data),
        "PEGAS_INGEST_ROOTS": f'["{DOCS}", "{REPOS}"]',
    }


@asynccontextmanager
async def serve(env: dict[str, str]) -> AsyncIterator[tuple[Client, int]]:
    """A serve and its pid (found as the new `pegas_memory.cli serve` child of this process)."""
    before = _serve_pids()
    async with Client(server_params(env)) as client:
        pids = _serve_pids() - before
        yield client, (min(pids) if pids else -1)


def _serve_pids() -> set[int]:
    me = psutil.Process()
    return {
        p.pid
        for p in me.children(recursive=True)
        if _safe(lambda p=p: "pegas_memory.cli" in " ".join(p.cmdline()) and "serve" in p.cmdline())
    }


def _safe(f: Any) -> Any:
    try:
        return f()
    except (psutil.Error, OSError):
        return None


async def tool(client: Client, name: str, **args: Any) -> dict[str, Any]:
    return structured(await client.call_tool(name, args))


async def get_job(client: Client, job_id: int) -> dict[str, Any]:
    listed = await tool(client, "memory_job", op="get", job_id=job_id)
    return dict(listed["jobs"][0])


class ProgressLog:
    """Distinct progress states seen by polling, with the time each first appeared."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.updates: list[tuple[float, int, int | None, str]] = []

    def see(self, info: dict[str, Any]) -> None:
        p = info["progress"]
        key = (p["done"], p["total"], p["message"])
        if not self.updates or self.updates[-1][1:] != key:
            self.updates.append((time.monotonic() - self.t0, *key))

    def max_gap(self, end: float) -> tuple[float, str]:
        """The longest time without a new update, and the message that stood meanwhile."""
        best, where = 0.0, ""
        times = [u[0] for u in self.updates] + [end]
        for i, u in enumerate(self.updates):
            gap = times[i + 1] - u[0]
            if gap > best:
                best, where = gap, f"{u[1]}/{u[2]} {u[3]}"
        return best, where

    def gaps_over(self, seconds: float, end: float) -> list[str]:
        times = [u[0] for u in self.updates] + [end]
        return [
            f"{times[i + 1] - u[0]:.1f} s after '{_stage(u[3])}'"
            for i, u in enumerate(self.updates)
            if times[i + 1] - u[0] > seconds
        ]


def summarise_gaps(gaps: list[str], top: int = 5) -> str:
    """How many gaps, and the longest few (a long job can have hundreds)."""
    if not gaps:
        return "none"
    longest = sorted(gaps, key=lambda g: -float(g.split(" s after ")[0]))[:top]
    return f"{len(gaps)}; the longest: " + "; ".join(longest)


def _stage(message: str) -> str:
    return re.sub(r"\d+", "N", message)[:70]


async def follow(client: Client, job_id: int, plog: ProgressLog) -> dict[str, Any]:
    while True:
        info = await get_job(client, job_id)
        plog.see(info)
        if info["state"] in FINISHED:
            return info
        await anyio.sleep(POLL)


async def ingest_one(client: Client, source: Path) -> dict[str, Any]:
    notes: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        notes.append(done)

    before = await tool(client, "memory_stats")
    started = time.monotonic()
    call = structured(
        await client.call_tool(
            "memory_ingest", {"source": str(source)}, progress_callback=on_progress
        )
    )
    call_s = time.monotonic() - started
    log(f"{source.name}: call answered in {call_s:.1f} s: job {call['job_id']} {call['state']}")
    plog = ProgressLog()
    info = await follow(client, call["job_id"], plog)
    wall = time.monotonic() - started
    end = time.monotonic() - plog.t0  # the job seen finished: the last state's gap ends here
    after = await tool(client, "memory_stats")
    gap, gap_at = plog.max_gap(end)
    log(f"{source.name}: job {info['state']} after {wall:.0f} s; longest gap {gap:.1f} s")
    by_type = {
        k: v - before["atoms_by_type"].get(k, 0)
        for k, v in after["atoms_by_type"].items()
        if v - before["atoms_by_type"].get(k, 0)
    }
    return {
        "source": source.name,
        "call_s": call_s,
        "call_finished": call["finished"],
        "job_id": call["job_id"],
        "notifications": len(notes),
        "state": info["state"],
        "error": info["error"],
        "wall_s": wall,
        "updates": len(plog.updates),
        "max_gap_s": gap,
        "max_gap_at": gap_at,
        "long_gaps": plog.gaps_over(5.0, end),
        "atoms_by_type": by_type,
        "counts": _counts(after, before),
        "result": (info.get("ingest") or {}).get("results", [{}])[0],
    }


def _counts(after: dict[str, Any], before: dict[str, Any] | None = None) -> dict[str, int]:
    keys = ("documents", "chunks", "atoms_total", "citations")
    return {k: after[k] - (before[k] if before else 0) for k in keys}


async def stage_ingest(tmp: Path, sources: list[Path]) -> list[dict[str, Any]]:
    env = env_for(tmp / "ingest")
    rows = []
    async with serve(env) as (client, _pid):
        for source in sources:
            rows.append(await ingest_one(client, source))
    return rows


KILL_SOURCES = {"alice": ALICE, "geotopo": GEOTOPO}

# Rows a killed attempt could have left half-written, each counted (0 expected), and the
# document's versions (1 expected). Bench-only SQL, read-only, through the shared cluster.
HALF_WRITTEN = {
    "documents with this URI (all versions)": "SELECT count(*) FROM pm_document WHERE uri = %s",
    "chunks of no current document": (
        "SELECT count(*) FROM pm_chunk c JOIN pm_document d ON d.id = c.doc_id "
        "WHERE NOT d.is_current"
    ),
    "atoms without a citation": (
        "SELECT count(*) FROM pm_atom a "
        "WHERE NOT EXISTS (SELECT 1 FROM pm_citation c WHERE c.atom_id = a.id)"
    ),
    "document citations without their chunk": (
        "SELECT count(*) FROM pm_citation WHERE doc_id IS NOT NULL AND chunk_id IS NULL"
    ),
}


def half_written(data: Path, uri: str) -> dict[str, int]:
    """The checks above on the data dir's cluster (opened beside the running serve)."""
    from pegas_memory.config import load_settings
    from pegas_memory.db.pool import Database

    db = Database(load_settings(data_dir=data)).open(migrate=False)
    try:
        out = {}
        with db.connection() as conn:
            for name, query in HALF_WRITTEN.items():
                row = conn.execute(query, (uri,) if "%s" in query else ()).fetchone()
                assert row is not None  # a count always answers
                out[name] = int(next(iter(row.values())))
        return out
    finally:
        db.close()


async def stage_kill(tmp: Path, clean_row: dict[str, Any] | None, source: Path) -> dict[str, Any]:
    env = env_for(tmp / "kill")
    if clean_row is None:
        async with serve(env_for(tmp / "kill-clean")) as (client, _pid):
            clean_row = await ingest_one(client, source)
    clean = clean_row["counts"]
    plog = ProgressLog()
    async with serve(env) as (client, pid):
        call = await tool(client, "memory_ingest", source=str(source), wait_seconds=0)
        job_id = call["job_id"]
        while True:  # kill once distillation is a third of the way through
            info = await get_job(client, job_id)
            plog.see(info)
            p = info["progress"]
            distilling = "distill" in (p["message"] or "")
            if info["state"] == "running" and distilling and p["done"] >= (p["total"] or 0) / 3:
                break
            assert info["state"] not in FINISHED, info
            await anyio.sleep(POLL)
        worker_pid = int(info["worker"].split(":")[1])
        log(f"kill: SIGKILL serve {worker_pid} (client saw {pid}) at {p['done']}/{p['total']}")
        killed_at = dict(p)
        os.kill(worker_pid, signal.SIGKILL)
    t_kill = time.monotonic()
    async with serve(env) as (client, _pid):
        right_after = _counts(await tool(client, "memory_stats"))
        info = await follow(client, job_id, plog)
        took_over = time.monotonic() - t_kill
        final = _counts(await tool(client, "memory_stats"))
        uri = ((info.get("ingest") or {}).get("results") or [{}])[0].get("uri") or str(source)
        checks = half_written(tmp / "kill", uri)
    log(f"kill: half-written checks {checks}")
    log(f"kill: job {info['state']} (attempts {info['attempts']}) {took_over:.0f} s after kill")
    return {
        "killed_at": killed_at,
        "after_kill": right_after,
        "state": info["state"],
        "attempts": info["attempts"],
        "error": info["error"],
        "seconds_after_kill": took_over,
        "final": final,
        "clean": clean,
        "source": source.name,
        "checks": checks,
        "clean_row": clean_row,
    }


class RssSampler:
    """Every 0.5 s, the summed RSS of every process of the data dir, by role; the peak kept."""

    def __init__(self, data: Path):
        self.data = data
        self.peak_total = 0.0
        self.peak_by_role: dict[str, float] = {}
        self.at_peak: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _ours(self) -> list[psutil.Process]:
        mark = f"PEGAS_DATA_DIR={self.data}"
        roots: dict[int, psutil.Process] = {}
        for p in psutil.process_iter():
            env = _safe(p.environ) or {}
            cmd = " ".join(_safe(p.cmdline) or [])
            if f"PEGAS_DATA_DIR={env.get('PEGAS_DATA_DIR')}" == mark or str(self.data) in cmd:
                roots[p.pid] = p
        for p in list(roots.values()):
            for c in _safe(lambda p=p: p.children(recursive=True)) or []:
                roots.setdefault(c.pid, c)
        return list(roots.values())

    def _run(self) -> None:
        while not self._stop.is_set():
            by_role: dict[str, float] = {}
            for p in self._ours():
                rss = _safe(lambda p=p: p.memory_info().rss)
                if rss is None:
                    continue
                role = _role(" ".join(_safe(p.cmdline) or []))
                by_role[role] = by_role.get(role, 0.0) + rss / 2**20
            total = sum(by_role.values())
            for role, mb in by_role.items():
                self.peak_by_role[role] = max(self.peak_by_role.get(role, 0.0), mb)
            if total > self.peak_total:
                self.peak_total, self.at_peak = total, by_role
            self._stop.wait(0.5)


def _role(cmd: str) -> str:
    if "pegas_memory.host" in cmd:
        return "engine host"
    if "pegas_memory.cli" in cmd and "serve" in cmd:
        return "serve (+ job and outbox threads)"
    if "pegas_memory.cli" in cmd and "worker" in cmd:
        return "worker"
    if "redis" in cmd or "falkor" in cmd:
        return "FalkorDB"
    if "postgres" in cmd:
        return "PostgreSQL"
    return "other: " + cmd[:40]


async def stage_code(tmp: Path, sub: str = "") -> dict[str, Any]:
    data = tmp / "code"
    env = env_for(data)
    target = SQLALCHEMY / sub if sub else SQLALCHEMY
    stats_s: list[float] = []
    get_s: list[float] = []
    stats_errors: list[str] = []
    plog = ProgressLog()
    with RssSampler(data) as rss:
        async with serve(env) as (client, _pid):
            started = time.monotonic()
            call = structured(await client.call_tool("memory_store_code", {"path": str(target)}))
            call_s = time.monotonic() - started
            log(f"code: call answered in {call_s:.1f} s: job {call['job_id']} {call['state']}")
            info: dict[str, Any] = {}
            end = 0.0
            finished = anyio.Event()

            async def stats_meanwhile() -> None:
                # Its own task: a slow stats call must not hold back the job polls (it did:
                # the gaps seen included whole memory_stats calls).
                while not finished.is_set():
                    t = time.monotonic()
                    result = await client.call_tool("memory_stats", {})
                    stats_s.append(time.monotonic() - t)
                    if result.is_error:
                        stats_errors.append(str(result.content)[:200])
                    with anyio.move_on_after(2.0):
                        await finished.wait()

            async with anyio.create_task_group() as tg:
                tg.start_soon(stats_meanwhile)
                while True:
                    t = time.monotonic()
                    info = await get_job(client, call["job_id"])
                    get_s.append(time.monotonic() - t)
                    plog.see(info)
                    if info["state"] in FINISHED:
                        end = time.monotonic() - plog.t0  # not the teardown after it
                        finished.set()
                        break
                    await anyio.sleep(POLL)
            wall = time.monotonic() - started
            stats = await tool(client, "memory_stats")
    gap, gap_at = plog.max_gap(end)
    log(f"code: job {info['state']} after {wall:.0f} s; peak RSS {rss.peak_total:.0f} MB")
    return {
        "call_s": call_s,
        "state": info["state"],
        "error": info["error"],
        "wall_s": wall,
        "updates": len(plog.updates),
        "max_gap_s": gap,
        "max_gap_at": gap_at,
        "long_gaps": plog.gaps_over(5.0, end),
        "top_gaps": sorted(plog.gaps_over(0.0, end), key=lambda g: -float(g.split(" s ")[0]))[:3],
        "peak_total": rss.peak_total,
        "at_peak": rss.at_peak,
        "peak_by_role": rss.peak_by_role,
        "stats_calls": len(stats_s),
        "stats_errors": stats_errors,
        "stats_max_s": max(stats_s, default=float("nan")),
        "stats_median_s": sorted(stats_s)[len(stats_s) // 2] if stats_s else float("nan"),
        "get_calls": len(get_s),
        "get_max_s": max(get_s, default=float("nan")),
        "get_median_s": sorted(get_s)[len(get_s) // 2] if get_s else float("nan"),
        "target": str(target),
        "symbols": stats["code_symbols"],
        "dependencies": stats["code_dependencies"],
        "result": info.get("code") or {},
    }


# ---------------------------------------------------------------------- tables
def ingest_md(rows: list[dict[str, Any]]) -> str:
    table = md_table(
        [
            "source",
            "call answered",
            "job",
            "job wall",
            "progress updates seen",
            "longest gap (stage)",
            "docs/chunks/atoms/citations",
            "atoms by type",
        ],
        [
            [
                r["source"],
                f"{r['call_s']:.1f} s ({'finished' if r['call_finished'] else 'job id'})",
                f"{r['state']}" + (f": {r['error']}" if r["error"] else ""),
                f"{r['wall_s']:.0f} s",
                f"{r['updates']} (+{r['notifications']} notifications in the call)",
                f"{r['max_gap_s']:.1f} s ({r['max_gap_at'][:60]})",
                "/".join(str(r["counts"][k]) for k in r["counts"]),
                ", ".join(f"{k} {v}" for k, v in sorted(r["atoms_by_type"].items())),
            ]
            for r in rows
        ],
    )
    gaps = [f"- {r['source']}: gaps over 5 s: {summarise_gaps(r['long_gaps'])}" for r in rows]
    return table + "\n\n" + "\n".join(gaps)


def kill_md(k: dict[str, Any]) -> str:
    rows = [
        ["clean run", *k["clean"].values()],
        ["right after the kill (new serve)", *k["after_kill"].values()],
        ["after the job completed", *k["final"].values()],
    ]
    table = md_table([k["source"], "documents", "chunks", "atoms", "citations"], rows)
    same = k["final"] == k["clean"]
    checks = md_table(["half-written check", "found"], [[n, v] for n, v in k["checks"].items()])
    return (
        f"Killed (SIGKILL) at progress {k['killed_at']['done']}/{k['killed_at']['total']} "
        f"({k['killed_at']['message'][:60]}); the new serve finished the job "
        f"({k['state']}, attempts {k['attempts']}) {k['seconds_after_kill']:.0f} s after the "
        "kill.\n\n"
        + table
        + f"\n\nSame counts as the clean run: **{'yes' if same else 'NO'}**."
        + "\n\n"
        + checks
        + "\n\nThe clean run (its own data dir, the same serve and settings):\n\n"
        + ingest_md([k["clean_row"]])
    )


def code_md(c: dict[str, Any]) -> str:
    roles = ", ".join(f"{k} {v:.0f} MB" for k, v in sorted(c["at_peak"].items()))
    peaks = ", ".join(f"{k} {v:.0f} MB" for k, v in sorted(c["peak_by_role"].items()))
    result = c["result"]
    return "\n".join(
        [
            f"- call answered in {c['call_s']:.1f} s with the job id; job **{c['state']}**"
            + (f" ({c['error']})" if c["error"] else "")
            + f" after {c['wall_s']:.0f} s wall",
            f"- indexed: {c['symbols']} symbols, {c['dependencies']} dependencies; "
            f"files {result.get('files_seen', '?')}",
            f"- **peak RSS of all processes of the data dir: {c['peak_total']:.0f} MB** "
            f"(at the peak: {roles}); each role's own peak: {peaks}",
            f"- memory_stats during the job: {c['stats_calls']} calls, "
            f"{len(c['stats_errors'])} errors, slowest {c['stats_max_s']:.2f} s"
            + (f", median {c['stats_median_s']:.2f} s" if "stats_median_s" in c else "")
            + (f"; errors: {c['stats_errors'][:2]}" if c["stats_errors"] else ""),
            f"- memory_job op=get polls during the job: {c.get('get_calls', '?')} calls, "
            f"slowest {c.get('get_max_s', float('nan')):.2f} s, "
            f"median {c.get('get_median_s', float('nan')):.2f} s",
            f"- progress: {c['updates']} updates seen, longest gap {c['max_gap_s']:.1f} s "
            f"({c['max_gap_at'][:70]}); gaps over 5 s: {summarise_gaps(c['long_gaps'])}"
            + (f"; the three longest: {'; '.join(c['top_gaps'])}" if c.get("top_gaps") else ""),
        ]
    )


def write_section(out: Path, name: str, body: str) -> None:
    """Replace this stage's section of the results file (other stages' sections stay)."""
    start, end = f"<!-- stage:{name} -->", f"<!-- /stage:{name} -->"
    block = f"{start}\n{body}\n{end}"
    text = out.read_text() if out.exists() else _HEADER
    if start in text:
        text = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _m: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    out.write_text(text)


_HEADER = """# The user's path for long work, as jobs (bench/user_path_jobs.py)

Real `pegas-memory serve` over MCP stdio on a fresh embedded data dir (PostgreSQL, qdrant-edge
in the engine host, FalkorDB), default settings (tool wait 20 s, 2 job workers, 30 s lease).
Timings on a loaded 2-core machine shared with other work: compare them with care.
"""


async def main_async(
    stages: list[str], out: Path, kill_source: Path, ingest_sources: list[Path], code_path: str = ""
) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-upj-", dir="/tmp") as name:
        tmp = Path(name)
        clean: dict[str, Any] | None = None
        if "ingest" in stages:
            rows = await stage_ingest(tmp, ingest_sources)
            clean = next((r for r in rows if r["source"] == kill_source.name), None)
            write_section(out, "ingest", "## memory_ingest of real documents\n\n" + ingest_md(rows))
        if "kill" in stages:
            k = await stage_kill(tmp, clean, kill_source)
            write_section(out, "kill", "## SIGKILL of the serve mid-job\n\n" + kill_md(k))
        if "code" in stages:
            c = await stage_code(tmp, code_path)
            title = f"sqlalchemy/{code_path}" if code_path else "sqlalchemy"
            write_section(out, "code", f"## memory_store_code of {title}\n\n" + code_md(c))
        with contextlib.suppress(Exception):
            from pegas_memory.config import load_settings
            from pegas_memory.host.control import stop_host

            for sub in ("ingest", "kill", "kill-clean", "code"):
                stop_host(load_settings(data_dir=tmp / sub))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stages", default="ingest,kill,code")
    parser.add_argument("--kill-source", choices=sorted(KILL_SOURCES), default="geotopo")
    parser.add_argument(
        "--ingest-sources", default="alice,geotopo", help="the ingest stage's documents, in order"
    )
    parser.add_argument("--code-path", default="", help="a folder of sqlalchemy (e.g. lib)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    sources = [KILL_SOURCES[s.strip()] for s in args.ingest_sources.split(",") if s.strip()]
    anyio.run(main_async, stages, args.out, KILL_SOURCES[args.kill_source], sources, args.code_path)


if __name__ == "__main__":
    main()
