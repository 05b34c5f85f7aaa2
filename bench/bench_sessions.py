"""Sessions on one data dir: memory, search latency, recovery (issue 17; decision 0005).

For 1, 2 and 4 `pegas-memory serve` processes on a fresh data dir (real MCP stdio), prints:
- RSS of the serve processes and of the engine host (active + standby), and their sum;
- median and p95 latency of a hybrid `memory_search` per session;
- time until every surviving session answers a dense search again after SIGKILL of the host,
  and after SIGKILL of one session;
and, as a baseline, one session with `PEGAS_ENGINE_HOST=off` (engines in process).
The embedded PostgreSQL and FalkorDB are shared by every count alike and left out of the RSS.

    PYTHONPATH=. .venv/bin/python bench/bench_sessions.py [--out bench/results/sessions.md]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pegas_memory.config import load_settings
from pegas_memory.host.control import host_status, stop_host
from tests.mcp_harness import server_params, structured

FACT = "Honeybees communicate the location of flowers with a waggle dance."
QUERY = "How do insects that make honey tell each other where food is?"


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def pids_with(data: Path, *marks: bytes) -> set[int]:
    found = set()
    env_mark = f"PEGAS_DATA_DIR={data}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            cmd = (entry / "cmdline").read_bytes()
            if not all(m in cmd for m in marks):
                continue
            environ = (entry / "environ").read_bytes().split(b"\0")
            if env_mark in environ or str(data).encode() in cmd:
                found.add(int(entry.name))
    return found


@asynccontextmanager
async def sessions(
    data: Path, n: int, env: dict[str, str]
) -> AsyncIterator[list[tuple[Client, int]]]:
    async with AsyncExitStack() as stack:
        out = []
        for _ in range(n):
            before = pids_with(data, b"pegas_memory.cli", b"serve")
            client = await stack.enter_async_context(Client(server_params(env)))
            (pid,) = pids_with(data, b"pegas_memory.cli", b"serve") - before
            out.append((client, pid))
        yield out


async def search(client: Client, preset: str = "hybrid") -> dict[str, Any]:
    return structured(
        await client.call_tool("memory_search", {"query": QUERY, "preset": preset, "limit": 5})
    )


async def recover(group: list[tuple[Client, int]], atom_id: int) -> float:
    start = time.monotonic()
    for client, _pid in group:
        while True:
            result = await search(client, "dense")
            if not result["warnings"] and atom_id in [h["id"] for h in result["hits"]]:
                break
            await anyio.sleep(0.02)
    return time.monotonic() - start


async def measure(n: int, *, shared: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-sessions-") as tmp:
        data = Path(tmp) / "data"
        env = {"PEGAS_DATA_DIR": str(data), "PEGAS_ENGINE_HOST": "on" if shared else "off"}
        row: dict[str, Any] = {"sessions": n, "engines": "host" if shared else "in process"}
        async with sessions(data, n, env) as group:
            atom = structured(await group[0][0].call_tool("memory_store", {"claim": FACT}))
            for client, _ in group:  # warm every session's arms
                await search(client)
            await anyio.sleep(3.0)  # let the standby finish loading
            serve_rss = sum(rss_mb(pid) for _, pid in group)
            host_rss = sum(rss_mb(pid) for pid in pids_with(data, b"pegas_memory.host"))
            row.update(serve_mb=serve_rss, host_mb=host_rss, total_mb=serve_rss + host_rss)
            latencies = []
            for client, _ in group:
                for _ in range(15):
                    t = time.perf_counter()
                    await search(client)
                    latencies.append((time.perf_counter() - t) * 1000)
            latencies.sort()
            row["search_p50_ms"] = statistics.median(latencies)
            row["search_p95_ms"] = latencies[int(0.95 * (len(latencies) - 1))]
            if shared:
                info = host_status(load_settings(data_dir=data))
                assert info is not None
                os.kill(int(info["pid"]), signal.SIGKILL)
                row["recover_host_kill_s"] = await recover(group, int(atom["id"]))
                if n > 1:
                    os.kill(group[0][1], signal.SIGKILL)
                    row["recover_session_kill_s"] = await recover(group[1:], int(atom["id"]))
        if shared:
            stop_host(load_settings(data_dir=data))
        # PostgreSQL and FalkorDB stop once their last serve is gone (their watchdogs): wait for
        # every process of the data dir before the directory is removed.
        deadline = time.monotonic() + 60
        while pids_with(data) - {os.getpid()} and time.monotonic() < deadline:
            await anyio.sleep(0.2)
        return row


def table(rows: list[dict[str, Any]]) -> str:
    cols = [
        ("sessions", "sessions", "{}"),
        ("engines", "engines", "{}"),
        ("serve_mb", "serve RSS MB", "{:.0f}"),
        ("host_mb", "host RSS MB", "{:.0f}"),
        ("total_mb", "total MB", "{:.0f}"),
        ("search_p50_ms", "search p50 ms", "{:.1f}"),
        ("search_p95_ms", "search p95 ms", "{:.1f}"),
        ("recover_host_kill_s", "recover after host kill s", "{:.2f}"),
        ("recover_session_kill_s", "recover after session kill s", "{:.2f}"),
    ]
    lines = ["| " + " | ".join(h for _, h, _ in cols) + " |", "|" + "---|" * len(cols)]
    for row in rows:
        cells = [fmt.format(row[k]) if k in row else "-" for k, _, fmt in cols]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


async def main_async(out: Path | None) -> None:
    rows = [await measure(1, shared=False)]
    for n in (1, 2, 4):
        rows.append(await measure(n, shared=True))
    text = table(rows)
    print(text)
    if out is not None:
        load = os.getloadavg()
        out.write_text(
            "# Sessions on one data dir (bench/bench_sessions.py)\n\n"
            f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, load average "
            f"{load[0]:.1f} at the end (other engineers' test runs share the machine).\n"
            "RSS: the serve processes and the engine host (active + warm standby); the shared "
            "embedded PostgreSQL and FalkorDB are left out (the same for every row). Search: "
            "hybrid memory_search over MCP stdio, 15 per session. Recovery: SIGKILL, then until "
            "every surviving session's dense search finds the stored fact again.\n\n"
            f"{text}\n"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    anyio.run(main_async, args.out)


if __name__ == "__main__":
    main()
