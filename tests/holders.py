"""Other users of an embedded engine: a Python child (`python -c SCRIPT DATA_DIR`, run from the
repository) that opens the engine, prints one line once it holds it, and sleeps until killed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def start_holder(script: str, data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """The child running `script` on `data_dir`, and the first line it printed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(data_dir)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=str(REPO),
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


GRAPH_USER = """
import sys, time
from pathlib import Path
from pegas_memory.memgraph_store.falkor import open_embedded_graph
graph = open_embedded_graph(Path(sys.argv[1]))
graph.ensure_schema()
print("ready", flush=True)
time.sleep(600)
"""


def start_graph_user(data_dir: Path) -> subprocess.Popen[str]:
    """A child using the embedded graph server of `data_dir` (its schema made) until killed."""
    proc, line = start_holder(GRAPH_USER, data_dir)
    assert line == "ready", line
    return proc


def kill_holder(proc: subprocess.Popen[str]) -> None:
    """SIGKILL for the child if it still runs (no release, no atexit), and wait for it."""
    if proc.poll() is None:
        proc.kill()
        proc.wait(30)


def watchdog_log(path: Path, timeout: float = 30.0) -> str:
    """The text of the log a watchdog writes as it exits, once it exists (polled, bounded)."""
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return path.read_text()
