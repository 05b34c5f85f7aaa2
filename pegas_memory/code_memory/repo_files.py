"""What store_code reads about a repository's files besides their source: Rust workspace crate
names from Cargo.toml, and the number of source files under a scope (for the skipped count).
Plain file reads, bounded; no database."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from pegas_memory.code_memory.symbols import language_for

SKIP_COUNT_LIMIT = 50_000  # directory entries looked at to count skipped files

_CRATE_NAME = re.compile(r'^\s*name\s*=\s*"([^"]+)"', re.MULTILINE)


def cargo_crates(root: Path, paths: Sequence[str]) -> dict[str, str]:
    """Workspace crate name -> its directory, from the Cargo.toml next to each ``src/`` that
    holds indexed Rust files (the ``[package]`` name, read with a regex: no TOML dependency)."""
    dirs = {rel.rpartition("/src/")[0] for rel in paths if rel.endswith(".rs") and "/src/" in rel}
    if any(rel.startswith("src/") and rel.endswith(".rs") for rel in paths):
        dirs.add("")
    out: dict[str, str] = {}
    for d in sorted(dirs):
        manifest = root / d / "Cargo.toml"
        try:
            text = manifest.read_text("utf-8", "replace")[:20_000]
        except OSError:
            continue
        section = text.partition("[package]")[2].partition("\n[")[0]
        found = _CRATE_NAME.search(section)
        if found:
            out[found.group(1)] = d
    return out


def count_source_files(scope: Path) -> int:
    """Files in a supported language under `scope` (outside .git), looking at a bounded number
    of entries: the indexed ones subtracted from it give the skipped count."""
    count = looked = 0
    for _dirpath, dirnames, filenames in os.walk(scope):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        looked += len(filenames) + len(dirnames)
        count += sum(1 for name in filenames if language_for(name) is not None)
        if looked > SKIP_COUNT_LIMIT:
            break
    return count
