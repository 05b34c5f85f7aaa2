"""The analyzers' last run per repository: kept in PostgreSQL, with a copy in process.

A re-index runs an analyzer only over the files a change can move (code_memory.analyzer_slice)
and takes every other file's document from its previous run, kept here with the content hash
each file was analysed at. The run is kept in PostgreSQL (``pm_code_analyzer_run``,
``pm_code_analyzer_document``; migrations/0025), written in the index's own transaction: a new
process, or the first re-index after a restart, re-analyses the slice a change can move, not
the whole repository, and a rolled-back index leaves the previous run as it was. A run is
reused only by the analyzer version that wrote it (``--version``, code_memory.analyzers).

Why PostgreSQL and not the data directory: it is the one source of truth the index already
writes in a transaction (a file beside it could describe an index that was rolled back, or
outlive a repository that was dropped), its rows go with their repository (ON DELETE CASCADE
from pm_code_repo), and it is small: twisted's 1,102 documents take 4.4 MB packed
(code_memory.scip ``pack_document``), read back in about 2 s, against 146 s of analyzer CPU for
the whole run they spare.

Bounded twice: in PostgreSQL, past ``budget`` bytes the least recently used (repository,
analyzer) runs are dropped (their next index runs the analyzer whole); in process, ``size``
runs are kept decoded (about 100 MB for twisted), each used only while its generation (a new
uuid at every write) is the one PostgreSQL holds, so another process's later index, or a
rolled-back one, is never read from a stale copy.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from pegas_memory.code_memory.analyzer_slice import Snapshot
from pegas_memory.code_memory.queries import Q
from pegas_memory.code_memory.scip import Document, ScipError, pack_document, unpack_document
from pegas_memory.db.pool import Conn

MAX_STORED_BYTES = 256 * 1024 * 1024  # about 60 repositories the size of twisted


@dataclass(frozen=True, slots=True)
class _Kept:
    generation: uuid.UUID
    snapshot: Snapshot


class SnapshotCache:
    """The analyzers' runs, by (repository, analyzer name): see the module doc."""

    def __init__(self, size: int = 4, budget: int = MAX_STORED_BYTES) -> None:
        self.size = size
        self.budget = budget
        self._items: OrderedDict[tuple[str, str], _Kept] = OrderedDict()
        self._lock = threading.Lock()

    def bind(self, conn: Conn, repo: str) -> RepoSnapshots:
        """The runs of ``repo`` as one index's transaction sees and writes them."""
        return RepoSnapshots(self, conn, repo)

    def _recall(self, key: tuple[str, str]) -> _Kept | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def _keep(self, key: tuple[str, str], kept: _Kept | None) -> None:
        with self._lock:
            if kept is None:
                self._items.pop(key, None)
                return
            self._items[key] = kept
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


class RepoSnapshots:
    """One repository's analyzer runs within one transaction (code_memory.analyzer_stage's
    ``SnapshotStore``)."""

    def __init__(self, cache: SnapshotCache, conn: Conn, repo: str) -> None:
        self._cache = cache
        self._conn = conn
        self._repo = repo

    def get(self, analyzer: str, version: str) -> Snapshot | None:
        """The last run of ``analyzer`` over the repository if ``version`` made it, else None
        (then the analyzer runs whole)."""
        key = (self._repo, analyzer)
        row = self._conn.execute(Q.analyzer_run, key).fetchone()
        if row is None or row["version"] != version:
            self._cache._keep(key, None)
            return None
        kept = self._cache._recall(key)
        if kept is not None and kept.generation == row["generation"]:
            return kept.snapshot
        digests: dict[str, str] = {}
        modules: dict[str, str] = {}
        documents: dict[str, Document] = {}
        try:
            for r in self._conn.execute(Q.analyzer_documents, key).fetchall():
                path = r["path"]
                if r["content_hash"] is not None:
                    digests[path] = r["content_hash"]
                if r["module"] is not None:
                    modules[path] = r["module"]
                if r["document"] is not None:
                    documents[path] = unpack_document(path, bytes(r["document"]))
        except ScipError:
            return None  # not written by this code: the whole run writes it again
        snapshot = Snapshot(
            row["tool"], row["tool_version"], row["project_root"], digests, modules, documents
        )
        self._cache._keep(key, _Kept(row["generation"], snapshot))
        return snapshot

    def put(
        self,
        analyzer: str,
        version: str,
        snapshot: Snapshot,
        paths: AbstractSet[str] | None,
    ) -> None:
        """Keep ``snapshot`` as the last run: whole when ``paths`` is None, else only the rows
        of ``paths`` are written again (a slice's run; the gone files' rows go). Then the
        least recently used runs past the byte budget are dropped."""
        key = (self._repo, analyzer)
        generation = uuid.uuid4()
        self._conn.execute(
            Q.upsert_analyzer_run,
            {
                "repo": self._repo,
                "analyzer": analyzer,
                "version": version,
                "tool": snapshot.tool,
                "tool_version": snapshot.version,
                "root": snapshot.project_root,
                "generation": generation,
            },
        )
        if paths is None:
            self._conn.execute(Q.delete_all_analyzer_documents, key)
            write = set(snapshot.digests) | set(snapshot.documents)
        else:
            self._conn.execute(Q.delete_analyzer_documents, (*key, sorted(paths)))
            write = {p for p in paths if p in snapshot.digests or p in snapshot.documents}
        if write:
            with self._conn.cursor() as cur, cur.copy(Q.copy_analyzer_documents) as copy:
                for path in sorted(write):
                    doc = snapshot.documents.get(path)
                    copy.write_row(
                        (
                            self._repo,
                            analyzer,
                            path,
                            snapshot.digests.get(path),
                            snapshot.modules.get(path),
                            None if doc is None else pack_document(doc),
                        )
                    )
        self._conn.execute(Q.size_analyzer_run, key)
        evicted = self._conn.execute(
            Q.evict_analyzer_runs,
            {"repo": self._repo, "analyzer": analyzer, "budget": self._cache.budget},
        ).fetchall()
        for r in evicted:
            self._cache._keep((r["repo"], r["analyzer"]), None)
        self._cache._keep(key, _Kept(generation, snapshot))

    def drop(self, analyzer: str) -> None:
        """Forget the last run (the analyzer failed: its next run is whole)."""
        key = (self._repo, analyzer)
        self._conn.execute(Q.delete_analyzer_run, key)
        self._cache._keep(key, None)
