"""Load benchmark: MCP clients calling mixed tools over stdio while two outbox workers drain.

What runs (all on one throwaway data dir, embedded engines, one embedded PostgreSQL started here
and shared by every process through PEGAS_DATABASE_URL):

- 2 `pegas-memory worker` processes. The embedded Qdrant store (qdrant-edge) admits one process:
  worker 1 is started first and holds it, so it projects both slices; worker 2 projects the graph
  slice and leaves the vector part of each event to worker 1 (an outage for it, which uses up no
  attempts). That is the embedded default's real behaviour; with a Qdrant server both would.
- mode `servers`: N `pegas-memory serve` processes (PEGAS_EMBEDDED_WORKER=off: the two workers
  drain), one MCP stdio client each. They share Postgres and the FalkorDB server; the dense arm
  is unavailable in them (the Qdrant store is held by worker 1), so searches run lexical + graph
  and say so in a warning, counted in the table.
- mode `shared`: one `pegas-memory serve` process and N concurrent client tasks on its single
  stdio session (stdio carries one session; the server runs tool calls concurrently in threads).
  Same Qdrant holder, so the same note on the dense arm.

Each client calls, for `--seconds`: memory_store 25 %, memory_search 25 %, memory_get_context
15 %, memory_stats 10 %, memory_ingest (a small text) 10 %, memory_add_gap 8 %, memory_list_gaps
7 %. Embeddings come from a FakeOllama on loopback (hashed bag of words, 64-d) so the figures
measure pegas-memory and its engines, not a model. Deadlocks: Postgres reports them as errors
(counted), and a monitor samples pg_locks for ungranted locks and the longest lock wait. After
the run the workers stop, the remaining backlog is drained here and `reconcile` reports drift.

Run: `.venv/bin/python bench/bench_load.py [--seconds 120] [--clients 4] [--mode both]`.
Progress on stderr; markdown tables on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from _common import REPO_ROOT, log, md_table, percentile  # isort: skip
from mcp import Client, StdioServerParameters

from pegas_memory.db.embedded import start_embedded_postgres
from pegas_memory.memgraph_store.falkor import stop_embedded_graph
from tests.fake_ollama import FakeOllama

TOOLS = (
    ("memory_store", 25),
    ("memory_search", 25),
    ("memory_get_context", 15),
    ("memory_stats", 10),
    ("memory_ingest", 10),
    ("memory_add_gap", 8),
    ("memory_list_gaps", 7),
)
WORDS = [
    "river",
    "lake",
    "glacier",
    "delta",
    "canyon",
    "marsh",
    "basin",
    "spring",
    "fjord",
    "aquifer",
    "lagoon",
    "estuary",
    "erosion",
    "sediment",
    "current",
    "tide",
    "flood",
    "drought",
    "valley",
    "plateau",
]
CALL_TIMEOUT = 120.0


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    dense_down: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    samples: dict[str, str] = field(default_factory=dict)
    deadlocks: int = 0
    timeouts: int = 0
    max_waiting_locks: int = 0
    longest_lock_wait: float = 0.0


def arguments(tool: str, rng: random.Random, client: int, n: int) -> dict[str, Any]:
    words = " ".join(rng.sample(WORDS, 4))
    if tool == "memory_store":
        return {"claim": f"Client {client} note {n}: the {words}", "tags": ["load"]}
    if tool in ("memory_search", "memory_get_context"):
        key = "query" if tool == "memory_search" else "question"
        return {key: f"what about the {words}"}
    if tool == "memory_ingest":
        sentences = " ".join(
            f"The {' '.join(rng.sample(WORDS, 3))} changes in season {client}-{n}-{i}."
            for i in range(3)
        )
        return {"source": sentences, "kind": "text"}
    if tool == "memory_add_gap":
        return {"question": f"How does the {words} behave? ({client}-{n})", "priority": 3}
    if tool == "memory_list_gaps":
        return {"limit": 10}
    return {}


async def client_loop(
    session: Client, client: int, deadline: float, stats: Stats, seed: int
) -> None:
    rng = random.Random(seed)
    names = [t for t, _ in TOOLS]
    weights = [w for _, w in TOOLS]
    n = 0
    while time.monotonic() < deadline:
        n += 1
        tool = rng.choices(names, weights)[0]
        started = time.monotonic()
        try:
            result = await asyncio.wait_for(
                session.call_tool(tool, arguments(tool, rng, client, n)), CALL_TIMEOUT
            )
        except TimeoutError:
            stats.timeouts += 1
            stats.errors[tool] += 1
            continue
        stats.latencies[tool].append(time.monotonic() - started)
        text = " ".join(getattr(c, "text", "") for c in result.content)
        if result.is_error:
            stats.errors[tool] += 1
            stats.samples.setdefault(tool, text[:300])
            stats.deadlocks += "deadlock" in text.lower()
        elif "dense arm unavailable" in text:
            stats.dense_down[tool] += 1


async def lock_monitor(url: str, stop: asyncio.Event, stats: Stats) -> None:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        while not stop.is_set():
            cur = await conn.execute(
                """SELECT (SELECT count(*) FROM pg_locks WHERE NOT granted),
                          coalesce(extract(epoch FROM max(now() - state_change)), 0)
                     FROM pg_stat_activity WHERE wait_event_type = 'Lock'"""
            )
            row = await cur.fetchone()
            if row:
                stats.max_waiting_locks = max(stats.max_waiting_locks, int(row[0] or 0))
                stats.longest_lock_wait = max(stats.longest_lock_wait, float(row[1] or 0))
            try:
                await asyncio.wait_for(stop.wait(), 1.0)
            except TimeoutError:
                pass


def server_params(env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "pegas_memory.cli", "--log-level", "WARNING", "serve"],
        env=env,
        cwd=str(REPO_ROOT),
    )


async def run_mode(mode: str, env: dict[str, str], url: str, args: argparse.Namespace) -> Stats:
    stats = Stats()
    stop = asyncio.Event()
    monitor = asyncio.create_task(lock_monitor(url, stop, stats))
    server_env = {**env, "PEGAS_EMBEDDED_WORKER": "off"}
    sessions = 1 if mode == "shared" else args.clients
    clients = [Client(server_params(server_env)) for _ in range(sessions)]
    opened = [await c.__aenter__() for c in clients]
    try:
        for s in opened:  # warm up: the first call opens the database pool and the slices
            await s.call_tool("memory_stats", {})
        log(f"{mode}: {sessions} server process(es) up, running {args.seconds} s")
        deadline = time.monotonic() + args.seconds
        await asyncio.gather(
            *(
                client_loop(opened[i % sessions], i, deadline, stats, seed=1000 * i + len(mode))
                for i in range(args.clients)
            )
        )
    finally:
        for c in reversed(clients):
            await c.__aexit__(None, None, None)
        stop.set()
        await monitor
    return stats


def start_workers(env: dict[str, str], count: int) -> list[subprocess.Popen[bytes]]:
    procs = []
    for i in range(count):
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "pegas_memory.cli", "worker", "--name", f"w{i + 1}"],
                env=env,
                cwd=str(REPO_ROOT),
                stderr=subprocess.DEVNULL,
            )
        )
        time.sleep(3.0 if i == 0 else 0.5)  # worker 1 opens the Qdrant store first
    return procs


def stop_workers(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        p.send_signal(signal.SIGTERM)  # finishes its batch, then exits
    for p in procs:
        try:
            p.wait(60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(10)


def final_state(settings_env: dict[str, str]) -> dict[str, Any]:
    from pegas_memory.app.service import MemoryService
    from pegas_memory.config import load_settings
    from pegas_memory.outbox.reconcile import reconcile

    settings = load_settings(
        data_dir=settings_env["PEGAS_DATA_DIR"],
        database_url=settings_env["PEGAS_DATABASE_URL"],
        ollama_url=settings_env["PEGAS_OLLAMA_URL"],
        embedding_dim=64,
    )
    with MemoryService(settings) as service:
        with service.db.connection() as conn:
            row = conn.execute(
                "SELECT count(*) FILTER (WHERE processed_at IS NULL AND parked_at IS NULL) AS p "
                "FROM pm_outbox"
            ).fetchone()
        backlog = int(row["p"]) if row else -1
        started = time.monotonic()
        service.runtime.worker("final").drain(include_delayed=True, timeout=600)
        drained_in = time.monotonic() - started
        stats = service.stats()
        report = reconcile(service.runtime)
    return {
        "backlog_at_stop": backlog,
        "drain_seconds": drained_in,
        "atoms": stats.atoms_total,
        "documents": stats.documents,
        "events_parked": stats.outbox_parked,
        "drift": report.drift,
    }


def tables(mode: str, stats: Stats, seconds: float, final: dict[str, Any]) -> str:
    rows = []
    total_calls = 0
    all_lat: list[float] = []
    for tool, _ in TOOLS:
        lat = stats.latencies.get(tool, [])
        total_calls += len(lat)
        all_lat += lat
        rows.append(
            [
                tool,
                len(lat),
                f"{len(lat) / seconds:.2f}",
                stats.errors.get(tool, 0),
                f"{percentile(lat, 50) * 1000:.0f}",
                f"{percentile(lat, 99) * 1000:.0f}",
                stats.dense_down.get(tool, 0),
            ]
        )
    rows.append(
        [
            "**all**",
            total_calls,
            f"{total_calls / seconds:.2f}",
            sum(stats.errors.values()),
            f"{percentile(all_lat, 50) * 1000:.0f}",
            f"{percentile(all_lat, 99) * 1000:.0f}",
            sum(stats.dense_down.values()),
        ]
    )
    out = [
        f"### mode `{mode}`",
        "",
        md_table(
            ["tool", "calls", "calls/s", "errors", "p50 ms", "p99 ms", "dense arm down"], rows
        ),
        "",
        md_table(
            ["check", "value"],
            [
                ["deadlock errors", stats.deadlocks],
                ["calls over the 120 s client timeout", stats.timeouts],
                ["max ungranted locks seen (1 s samples)", stats.max_waiting_locks],
                ["longest lock wait seen (s)", f"{stats.longest_lock_wait:.2f}"],
                ["outbox backlog when the workers stopped", final["backlog_at_stop"]],
                ["drain of that backlog afterwards (s)", f"{final['drain_seconds']:.1f}"],
                ["events parked", final["events_parked"]],
                ["atoms / documents at the end", f"{final['atoms']} / {final['documents']}"],
                ["reconcile drift after the drain", final["drift"]],
            ],
        ),
    ]
    for tool, sample in stats.samples.items():
        out.append(f"\nfirst error of {tool}: `{sample}`")
    return "\n".join(out)


def run(mode: str, args: argparse.Namespace, fake: FakeOllama) -> str:
    root = Path(tempfile.mkdtemp(prefix="pegas-load-"))
    pg = start_embedded_postgres(root / "pg")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEGAS_")}
    env.update(
        PEGAS_DATA_DIR=str(root / "data"),
        PEGAS_DATABASE_URL=pg.uri,
        PEGAS_OLLAMA_URL=fake.url,
        PEGAS_EMBEDDING_DIM="64",
        PEGAS_DISTILLER="offline",
        PEGAS_AUTO_GAP_ON_WEAK_CONTEXT="false",
    )
    workers = start_workers(env, args.workers)
    try:
        started = time.monotonic()
        stats = asyncio.run(run_mode(mode, env, pg.uri, args))
        elapsed = time.monotonic() - started
        log(f"{mode}: clients done after {elapsed:.0f} s; stopping the workers")
    finally:
        stop_workers(workers)
    try:
        final = final_state(env)
    finally:
        stop_embedded_graph(root / "data")
        pg.close()
    return tables(mode, stats, float(args.seconds), final)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--mode", choices=["servers", "shared", "both"], default="both")
    args = parser.parse_args()
    modes = ["servers", "shared"] if args.mode == "both" else [args.mode]
    with FakeOllama(dim=64) as fake:
        out = [run(mode, args, fake) for mode in modes]
    print(
        f"## Load: {args.clients} MCP clients, {args.workers} outbox workers, "
        f"{args.seconds} s per mode\n"
    )
    print("\n\n".join(out))


if __name__ == "__main__":
    main()
