"""The analyzers' last runs are kept in PostgreSQL (code_memory.analyzer_cache, migrations/0025):
read back by another process as written, rewritten in part by a slice's run, never read from a
process's stale copy after a rollback, bounded by bytes (least recently used out) and gone with
their repository. Real PostgreSQL; no analyzer is run (the runs are made here)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pegas_memory.code_memory.analyzer_cache import SnapshotCache
from pegas_memory.code_memory.analyzer_slice import Snapshot
from pegas_memory.code_memory.queries import Q
from pegas_memory.code_memory.query_ops import drop_repo
from pegas_memory.code_memory.scip import (
    ROLE_DEFINITION,
    Document,
    Occurrence,
    pack_document,
    unpack_document,
)
from pegas_memory.db.pool import Database
from tests.conftest import make_settings

PKG = "scip-python python r 0 "


def _document(path: str, name: str) -> Document:
    module = path.removesuffix(".py")
    return Document(
        path,
        "python",
        (
            Occurrence(0, 4, 0, 4 + len(name), f"{PKG}`{module}`/{name}().", ROLE_DEFINITION),
            Occurrence(1, 8, 1, 11, "scip-python python python-stdlib 3.11 builtins/len().", 8),
            Occurrence(2, 4, 3, 1, "local 0", ROLE_DEFINITION),
            Occurrence(4, 0, 4, 1, "local 0", 8),
        ),
    )


def _snapshot(names: dict[str, str], *, extra: bool = True) -> Snapshot:
    """Files a.py, b.py... each defining one function; x.py has no document; with ``extra`` a
    document of a file code memory does not index (scip-python writes those too)."""
    documents = {p: _document(p, n) for p, n in names.items()}
    if extra:
        documents["vendor/v.py"] = _document("vendor/v.py", "v")
    digests = {p: f"hash-{p}-{n}" for p, n in names.items()} | {"x.py": "hash-x"}
    modules = {p: p.removesuffix(".py") for p in digests}
    return Snapshot("scip-python", "0.6.6", "file:///r", digests, modules, documents)


@contextmanager
def _database(database_url: str, tmp_path: Path) -> Iterator[Database]:
    db = Database(make_settings(tmp_path / "data", database_url=database_url)).open()
    try:
        yield db
    finally:
        db.close()


def _repos(db: Database, *names: str) -> None:
    with db.transaction() as conn:
        for name in names:
            conn.execute(Q.upsert_repo, (name, f"/src/{name}", None))


def test_a_kept_document_reads_back_equal() -> None:
    doc = _document("a.py", "f")
    assert unpack_document("a.py", pack_document(doc)) == doc


def test_a_run_one_process_kept_is_read_by_another_and_a_slice_rewrites_its_rows_only(
    database_url: str, tmp_path: Path
) -> None:
    whole = _snapshot({"a.py": "f", "b.py": "g", "c.py": "h"})
    with _database(database_url, tmp_path) as db:
        _repos(db, "r")
        with db.transaction() as conn:
            SnapshotCache().bind(conn, "r").put("scip-python", "0.6.6", whole, None)
        with db.transaction() as conn:  # another process: nothing in memory
            runs = SnapshotCache().bind(conn, "r")
            assert runs.get("scip-python", "0.6.6") == whole
            assert runs.get("scip-python", "0.7.0") is None  # another version's run: not reused
            assert runs.get("scip-typescript", "0.6.6") is None

        # A slice's run: a.py changed, c.py deleted, b.py's row not written again.
        sliced = _snapshot({"a.py": "f2", "b.py": "g"})
        with db.transaction() as conn:
            runs = SnapshotCache().bind(conn, "r")
            assert runs.get("scip-python", "0.6.6") == whole
            runs.put("scip-python", "0.6.6", sliced, {"a.py", "c.py"})
        with db.transaction() as conn:
            assert SnapshotCache().bind(conn, "r").get("scip-python", "0.6.6") == sliced
            paths = {r["path"] for r in conn.execute(Q.analyzer_documents, ("r", "scip-python"))}
        assert paths == {"a.py", "b.py", "x.py", "vendor/v.py"}


def test_a_rolled_back_run_leaves_the_previous_one_in_every_process(
    database_url: str, tmp_path: Path
) -> None:
    first = _snapshot({"a.py": "f"})
    cache = SnapshotCache()
    with _database(database_url, tmp_path) as db:
        _repos(db, "r")
        with db.transaction() as conn:
            cache.bind(conn, "r").put("scip-python", "0.6.6", first, None)
        with pytest.raises(RuntimeError), db.transaction() as conn:
            cache.bind(conn, "r").put("scip-python", "0.6.6", _snapshot({"a.py": "f2"}), None)
            raise RuntimeError("the index was cancelled")
        with db.transaction() as conn:  # this process's copy is newer than what committed
            assert cache.bind(conn, "r").get("scip-python", "0.6.6") == first


def test_past_the_budget_the_least_recent_runs_go_and_a_dropped_repository_takes_its_own(
    database_url: str, tmp_path: Path
) -> None:
    run = _snapshot({"a.py": "f", "b.py": "g"}, extra=False)
    size = sum(len(pack_document(d)) for d in run.documents.values())
    cache = SnapshotCache(budget=2 * size + size // 2)  # two runs fit, not three
    with _database(database_url, tmp_path) as db:
        _repos(db, "one", "two", "three")
        for repo in ("one", "two", "three"):
            with db.transaction() as conn:
                cache.bind(conn, repo).put("scip-python", "0.6.6", run, None)
        with db.transaction() as conn:
            kept = {
                r["repo"] for r in conn.execute(b"SELECT repo FROM pm_code_analyzer_run").fetchall()
            }
            assert kept == {"two", "three"}
            assert cache.bind(conn, "one").get("scip-python", "0.6.6") is None
            assert cache.bind(conn, "two").get("scip-python", "0.6.6") == run
            drop_repo(conn, "two")
        with db.connection() as conn:
            left = conn.execute(
                b"SELECT DISTINCT repo FROM pm_code_analyzer_document"
                b" UNION SELECT repo FROM pm_code_analyzer_run"
            ).fetchall()
        assert {r["repo"] for r in left} == {"three"}
