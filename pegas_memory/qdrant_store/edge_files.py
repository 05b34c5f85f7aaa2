"""The files of an open embedded collection, checked behind the running engine's back.

A running qdrant-edge shard keeps its files open and memory-mapped, so damage done to them from
outside goes unseen by the engine itself (found by trying, qdrant-edge-py 0.9):

- the collection directory deleted (`rm -rf`): every call still answers from the open handles,
  writes are acknowledged into files that are gone, and the next start finds nothing;
- random bytes over the WAL, the id tracker or a segment's metadata: the running engine answers
  as before, the next load of the directory fails ("Illegal segment header", "failed to load
  segment");
- random bytes over a payload page: reads fail to decode (classified `SliceDamaged` by
  `edge._classify`); over the vector file: vectors turn into other numbers, NaN or infinity (the
  content sweep's business, `outbox.sweep`);
- a memory-mapped file truncated: the next access kills the process (SIGBUS), so only a process
  that holds no such file can notice it: the engine host restarts and its load fails.

So `directory_problem` says whether the directory the engine opened is still the one on disk
(same inode, its config present), and `load_problem` loads a copy of the directory apart, the
way the next start would, and reads every point of it. The copy is sparse (the engine
preallocates 32 MiB files that are mostly holes), so a small collection costs milliseconds; it
is taken only when the files changed since the last copy that loaded (`fingerprint`), and only
up to `VERIFY_MAX_BYTES` of allocated data.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from pegas_memory.errors import BackendUnavailable, SliceDamaged

CONFIG_FILE = "edge_config.json"
VERIFY_PREFIX = ".verify-"
VERIFY_MAX_BYTES = 64 << 20  # collections with more allocated data are not copied
_PAGE = 512  # points read per scroll page of the copy
BROKEN_KEPT = 2  # set-aside copies of damaged collections kept beside the root (newest first)


@dataclass(frozen=True)
class Identity:
    """Which directory the engine opened: its device and inode."""

    device: int
    inode: int


def identity(path: Path) -> Identity:
    found = path.stat()
    return Identity(found.st_dev, found.st_ino)


def directory_problem(path: Path, opened: Identity) -> str | None:
    """Why the collection directory the engine opened is no longer on disk (None if it is)."""
    try:
        now = identity(path)
    except FileNotFoundError:
        return f"its directory {path} vanished under the running engine"
    if now != opened:
        return f"its directory {path} was replaced under the running engine"
    if not (path / CONFIG_FILE).is_file():
        return f"its {CONFIG_FILE} vanished under the running engine"
    return None


Fingerprint = tuple[tuple[str, int, int], ...]


def fingerprint(path: Path) -> tuple[Fingerprint, int]:
    """Every file under `path` with its size and modification time, and the bytes allocated
    to them (holes not counted)."""
    files: list[tuple[str, int, int]] = []
    allocated = 0
    for root, _dirs, names in os.walk(path):
        for name in names:
            full = os.path.join(root, name)
            try:
                found = os.stat(full)
            except FileNotFoundError:
                continue
            files.append((os.path.relpath(full, path), found.st_size, found.st_mtime_ns))
            allocated += found.st_blocks * 512
    return tuple(sorted(files)), allocated


def sparse_copy(source: Path, target: Path) -> None:
    """Copy a directory tree, data only: holes stay holes (SEEK_DATA / SEEK_HOLE)."""
    for root, _dirs, names in os.walk(source):
        into = target / os.path.relpath(root, source)
        into.mkdir(parents=True, exist_ok=True)
        for name in names:
            _copy_file(Path(root) / name, into / name)


def _copy_file(source: Path, target: Path) -> None:
    with open(source, "rb") as src, open(target, "wb") as dst:
        size = os.fstat(src.fileno()).st_size
        offset = 0
        while offset < size:
            try:
                start = os.lseek(src.fileno(), offset, os.SEEK_DATA)
            except OSError:  # ENXIO: only a hole remains
                break
            end = os.lseek(src.fileno(), start, os.SEEK_HOLE)
            src.seek(start)
            dst.seek(start)
            left = end - start
            while left > 0:
                block = src.read(min(left, 1 << 20))
                if not block:
                    break
                dst.write(block)
                left -= len(block)
            offset = end
        dst.truncate(size)


def load_problem(path: Path, scratch: Path, expected: int) -> str | None:
    """Load a sparse copy of the collection at `path` (in `scratch`, removed after) as the next
    start would, and read every point of it with payload and vector: why that fails or finds
    another number of points than `expected` (None when it loads as it should)."""
    copy = scratch / f"{VERIFY_PREFIX}{path.name}-{uuid.uuid4().hex[:8]}"
    try:
        try:
            sparse_copy(path, copy)
        except FileNotFoundError as exc:
            return f"a file vanished under the running engine ({exc.filename})"
        try:
            shard = qe.EdgeShard.load(str(copy))
        except BaseException as exc:  # the engine's error or its panic: the files are bad
            if not isinstance(exc, Exception) and type(exc).__name__ != "PanicException":
                raise
            return f"its files no longer load: {_first_line(exc)}"
        try:
            return _read_all(shard, expected)
        finally:
            shard.close()
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def _read_all(shard: qe.EdgeShard, expected: int) -> str | None:
    read = 0
    offset: Any = None
    try:
        while True:
            records, offset = shard.scroll(
                qe.ScrollRequest(offset=offset, limit=_PAGE, with_payload=True, with_vector=True)
            )
            read += len(records)
            if offset is None:
                break
    except BaseException as exc:
        if not isinstance(exc, Exception) and type(exc).__name__ != "PanicException":
            raise
        return f"its points no longer read back from the files: {_first_line(exc)}"
    if read != expected:
        return f"its files hold {read} points but the running engine {expected}"
    return None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]


def damaged_error(name: str, path: Path, root: Path, detail: str) -> SliceDamaged:
    """The error of a collection whose files the engine cannot read, with the way out."""
    return SliceDamaged(
        f"the vector collection {name!r} at {path} is damaged and cannot be opened ({detail}); "
        "run `pegas-memory rebuild --target qdrant`: it moves the damaged files aside to "
        f"{root}.broken-<time> and rebuilds the slice from PostgreSQL (a running server does "
        "this by itself unless PEGAS_AUTO_REPAIR_SLICES=false)"
    )


def stored_dim(path: Path, root: Path) -> int:
    """The vector size the engine recorded at creation (its own `edge_config.json`)."""
    try:
        config = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8"))
        return int(config["vectors"][""]["size"])
    except (ValueError, KeyError, TypeError) as exc:
        raise damaged_error(path.name, path, root, f"unreadable {CONFIG_FILE}: {exc}") from exc
    except OSError as exc:
        raise BackendUnavailable(
            f"cannot read the vector size of the collection at {path}: {exc}; check the "
            "permissions of the data directory"
        ) from exc


def prune_broken(root: Path, keep: int = BROKEN_KEPT) -> None:
    """Remove all but the `keep` newest `<root>.broken-*` directories."""
    found = sorted(root.parent.glob(f"{root.name}.broken-*"), key=lambda p: p.name, reverse=True)
    for old in found[keep:]:
        shutil.rmtree(old, ignore_errors=True)
