"""What store_code reads about a repository's files besides their source: Rust workspace crate
names from Cargo.toml, Go module paths from go.mod, and the number of source files under a
scope (for the skipped count). Plain file reads, bounded; no database."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from pegas_memory.code_memory.symbols import language_for

SKIP_COUNT_LIMIT = 50_000  # directory entries looked at to count skipped files

_CRATE_NAME = re.compile(r'^\s*name\s*=\s*"([^"]+)"', re.MULTILINE)
_GO_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.MULTILINE)


def workspace_roots(root: Path, paths: Sequence[str]) -> dict[str, str]:
    """The roots resolution needs: Rust crate names (cargo_crates) and Go module paths
    (go_modules), each -> its directory; a module path always holds a ``/`` or a ``.``, a
    crate name never."""
    return {**cargo_crates(root, paths), **go_modules(root, paths)}


def go_modules(root: Path, paths: Sequence[str]) -> dict[str, str]:
    """Go module path -> its directory, from the go.mod of each directory above an indexed Go
    file (the nearest one holds the package; read with a regex, bounded)."""
    dirs: set[str] = set()
    for rel in paths:
        if rel.endswith(".go"):
            parts = rel.split("/")[:-1]
            dirs.update("/".join(parts[:i]) for i in range(len(parts) + 1))
    out: dict[str, str] = {}
    for d in sorted(dirs):
        try:
            text = (root / d / "go.mod").read_text("utf-8", "replace")[:20_000]
        except OSError:
            continue
        found = _GO_MODULE.search(text)
        if found:
            out[found.group(1)] = d
    return out


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
