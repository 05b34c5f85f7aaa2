"""Other users of an embedded engine: a Python child (`python -c SCRIPT DATA_DIR`, run from the
repository) that opens the engine, prints one line once it holds it, and sleeps until killed."""

from __future__ import annotations

import os
import subprocess
import sys
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
