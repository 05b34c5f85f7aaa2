"""Run the `pegas-memory` command line as a user does: `python -m pegas_memory.cli` in a
subprocess from the repository, with none of the developer's own `PEGAS_` variables."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run_cli(
    env: Mapping[str, str], *args: str, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """`pegas-memory ARGS` with `env` over the environment less its `PEGAS_` variables."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("PEGAS_")}
    return subprocess.run(
        [sys.executable, "-m", "pegas_memory.cli", *args],
        env={**base, **env},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
