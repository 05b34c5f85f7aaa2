"""A distiller of another commit, run beside the working tree's: the before/after benches of
what ingest stores (bench_self_contained, bench_carry, bench_markup, fixes_9191).

A bench extracts the base commit with `git archive` (`base_tree`) and runs itself in a child
process with that tree first on PYTHONPATH (`run_child`), so the child imports the base
commit's `pegas_memory` and prints its atoms as JSON. This module imports nothing of
`pegas_memory` (and `_common` is not imported here), so it never puts the working tree ahead of
the base tree in the child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def head_commit(root: Path) -> str:
    """The working tree's short commit id."""
    done = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip()


@contextmanager
def base_tree(root: Path, commit: str) -> Iterator[Path]:
    """`commit`'s files in a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="pegas-bench-base-") as tmp:
        archive = subprocess.run(["git", "-C", str(root), "archive", commit],
                                 capture_output=True, check=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        yield Path(tmp)


def run_child(script: str, pythonpath: Path, paths: list[str], roots: list[str]) -> Any:
    """What `script --emit OUT --roots ... --docs ...` writes to OUT, run with `pythonpath`
    first (a base tree, or the repository itself for the working tree)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = Path(f.name)
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    cmd = [sys.executable, str(Path(script).resolve()), "--emit", str(out), "--roots", *roots,
           "--docs", *paths]  # fmt: skip
    try:
        subprocess.run(cmd, env=env, check=True, cwd=str(pythonpath))
        return json.loads(out.read_text(encoding="utf-8"))
    finally:
        out.unlink(missing_ok=True)
