"""What makes `serve` leave soon after SIGTERM (issue 18, scope 4): the process ends without the
interpreter's finalization once the service is closed (its garbage collection took 1.1-2 s
after every engine had closed, measured), and a stopping runtime wakes its outbox worker's
LISTEN wait instead of joining it for up to the poll interval.

tests/host/test_lifecycle.py times the whole exit; these check the two mechanisms themselves."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

from pegas_memory.outbox.worker import pending_events
from tests.conftest import offline_memory

REPO = Path(__file__).resolve().parents[2]

_LEAVER = textwrap.dedent(
    """
    import atexit, sys
    from pegas_memory.server.stdio_guard import leave_process

    class Noisy:
        def __del__(self):
            sys.stdout.write("finalized\\n")

    KEPT = Noisy()  # collected only by the interpreter's finalization
    atexit.register(lambda: sys.stdout.write("atexit ran\\n"))
    sys.stdout.write("buffered line\\n")  # a pipe: block-buffered, not yet written
    leave_process(3)
    """
)


def test_leave_process_runs_atexit_flushes_and_skips_finalization() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _LEAVER],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(REPO),
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout.splitlines() == ["buffered line", "atexit ran"], done.stdout


def test_stopping_the_worker_wakes_its_listen_wait(database_url: str, tmp_path: Path) -> None:
    # A poll interval far longer than the join's bound: without the wake-up, the worker sits
    # in its LISTEN wait past the join and is still alive after it.
    with offline_memory(
        database_url,
        tmp_path / "data",
        outbox_poll_seconds=120,
        engine_host="off",
        embedded_worker="off",
    ) as svc:
        runtime = svc.runtime
        runtime.start_worker_thread()
        thread = runtime._thread
        assert thread is not None
        with runtime.db.connection() as conn:
            while pending_events(conn) and thread.is_alive():
                time.sleep(0.05)
        time.sleep(1.0)  # past the first drain: the worker now waits on its LISTEN
        runtime.stop_worker_thread(timeout=10.0)
        assert not thread.is_alive()
