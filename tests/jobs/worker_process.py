"""A job runner in a process of its own, for the tests of what happens when a worker dies."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from pegas_memory.config import Settings


@contextmanager
def worker_process(script: str, settings: Settings, job_id: int) -> Iterator[subprocess.Popen[str]]:
    """`script` (Python that runs a JobRunner on the data dir and database URL given as its two
    arguments, its handler printing "running <job id>") in a process of its own, yielded once it
    runs job `job_id`; killed on the way out if it is still alive."""
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(settings.data_dir), settings.database_url or ""],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().split() == ["running", str(job_id)]
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
