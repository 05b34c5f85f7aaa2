"""The embedded vector back end: Qdrant's Rust engine in-process through `qdrant-edge-py`.

Layout: one Qdrant Edge shard directory per collection under a root (`data_dir/qdrant`), plus a
`.lock` file. Found by trying (qdrant-edge-py 0.9):

- A shard's write-ahead log is locked by whoever opens it: a second `EdgeShard.load` of the same
  directory, from another process or the same one, fails with "failed to open WAL ...
  WouldBlock". That protects one shard but not the root (creating or dropping collections), so
  this module also takes an exclusive `flock` on `root/.lock` for the life of the index; a
  second process (or a second instance in one process) gets `BackendUnavailable` naming the
  holder's pid instead of a half-opened store.
- Writes acknowledged by `update` survive SIGKILL of the process (the WAL is replayed on load).
- The engine has no background optimizer: new points sit in a plain segment, searched by brute
  force, until `optimize()` builds HNSW. `optimize()` holds the GIL for its whole run (20k x 768
  took 7-23 s here; a reader thread made no progress meanwhile), so it is never called
  implicitly; the outbox worker calls it when its queue is idle.
- Engine calls hold the GIL, so one `RLock` around them costs no parallelism and lets threads
  share one instance.
- A new collection is created without its payload indexes, built `index_delay` seconds later
  by a timer thread (or by `optimize()`, or `ensure_collection` in a later process): seven
  fsynced index steps took 1-1.5 s on a busy disk. Filters give the same points without them.
- Damage done to the files behind the engine's back is found by `check_files` (`edge_files`).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import qdrant_edge as qe

import pegas_memory.qdrant_store.edge_files as edge_files
from pegas_memory.errors import BackendUnavailable, InvalidInput, NotFound
from pegas_memory.qdrant_store.base import (
    EngineFailure,
    FailureKind,
    QdrantBackend,
    build_filter,
    check_page_size,
    chunked,
    hits_of,
    records_in_order,
)
from pegas_memory.qdrant_store.index import (
    INDEXED_FIELDS,
    SPARSE_VECTOR,
    FieldKind,
    PreparedBatch,
    SparseHit,
    SparseVector,
    Vector,
    VectorFilter,
    VectorHit,
    VectorRecord,
    check_collection_name,
    check_dim,
    check_ids,
    check_k,
    check_query_vector,
    effective_filter,
    iso_timestamp,
    plan_search,
)

log = logging.getLogger(__name__)

_SCHEMA: dict[FieldKind, qe.PayloadSchemaType] = {
    "keyword": qe.PayloadSchemaType.Keyword,
    "integer": qe.PayloadSchemaType.Integer,
    "datetime": qe.PayloadSchemaType.Datetime,
}
_CREATING = ".creating-"
WAL_RELEASE_SECONDS = 3.0  # how long a dying holder of a shard's WAL is waited for
_DROPPING = ".dropping-"
# Engine errors about files that do not read back (payload pages, vector chunks, segments).
_DAMAGED_PREFIXES = (
    "Service runtime error: Failed to decode",
    "Service runtime error: Gridstore",
    "Service runtime error: elements range",
    "Service runtime error: failed to load segment",
)
# qdrant-edge raises a bare `Exception` carrying the engine's error text for engine errors, and
# TypeError/ValueError/OverflowError when a Python value does not convert. These engine errors
# (the Display texts of Qdrant's OperationError) are about the request, not the engine.
_REJECTED_PREFIXES = (
    "Vector dimension error",
    "Validation failed",
    "Wrong input",
    "Bad request",
    "Not existing vector name",
    "Payload type does not match",
    "Unable to infer type",
    "Wrong usage",
    "No range index",
    "No appropriate index",
    "Expected number value",
    "The expression",
)


@dataclass
class _OpenShard:
    shard: qe.EdgeShard
    dim: int
    path: Path
    opened: edge_files.Identity  # the directory the engine opened (`check_files`)
    verified: object = None  # the files' fingerprint when a copy of them last loaded


class EdgeVectorIndex(QdrantBackend):
    """`VectorIndex` on Qdrant Edge shards under `root`; one instance per process and root.

    `exact_limit`: searches that can match at most this many points run brute force (never
    miss); larger ones use HNSW with a beam of at least `hnsw_ef`. For new collections,
    `indexing_threshold_kb` overrides the segment size (KB of vectors) above which `optimize()`
    builds HNSW, and `full_scan_threshold_kb` the size below which the engine's own planner
    scans instead of walking HNSW; tests lower both to exercise HNSW on small collections.
    Writes go to the engine `upsert_batch` points at a time to bound the memory of the
    Python-side conversion. The payload indexes of a new collection follow `index_delay`
    seconds after its creation (see the module docstring).

    Raises BackendUnavailable if another process (or another instance here) holds `root`.
    """

    def __init__(
        self,
        root: Path,
        *,
        exact_limit: int = 20_000,
        hnsw_ef: int = 128,
        indexing_threshold_kb: int | None = None,
        full_scan_threshold_kb: int | None = None,
        upsert_batch: int = 512,
        index_delay: float = 1.0,
    ) -> None:
        self._root = Path(root)
        self._where = f"the embedded Qdrant engine under {self._root}"
        self._outage_hint = (
            "check disk space and permissions, or rebuild the vector slice with "
            "`pegas-memory rebuild --target qdrant`"
        )
        self._exact_limit = exact_limit
        self._hnsw_ef = hnsw_ef
        self._indexing_threshold_kb = indexing_threshold_kb
        self._full_scan_threshold_kb = full_scan_threshold_kb
        self._upsert_batch = max(1, upsert_batch)
        self._lock = threading.RLock()
        self._shards: dict[str, _OpenShard] = {}
        self._index_delay = index_delay
        self._unindexed: dict[str, threading.Timer] = {}  # new collections, indexes pending
        try:
            self._root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BackendUnavailable(
                f"cannot create the vector directory {self._root}: {exc}; "
                "check PEGAS_DATA_DIR and its permissions"
            ) from exc
        self._lock_fd: int | None = self._acquire_root_lock()
        self._remove_leftovers()

    # --- lifecycle ---

    def _acquire_root_lock(self) -> int:
        lock_path = self._root / ".lock"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise BackendUnavailable(
                f"the embedded Qdrant store {self._root} is in use by another process "
                f"(pid {holder}); the embedded engine allows one process at a time: stop that "
                "process (e.g. the MCP server, which drains the outbox itself), or run a Qdrant "
                "server and set PEGAS_QDRANT_URL"
            ) from exc
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        return fd

    def _remove_leftovers(self) -> None:
        # A crash mid-create or mid-drop leaves a hidden directory; we hold the root lock, so
        # nobody else can be using it.
        for entry in self._root.iterdir():
            hidden = (_CREATING, _DROPPING, edge_files.VERIFY_PREFIX)
            if entry.is_dir() and entry.name.startswith(hidden):
                shutil.rmtree(entry, ignore_errors=True)

    def close(self) -> None:
        with self._lock:
            for timer in self._unindexed.values():
                timer.cancel()  # a later ensure_collection builds what is missing
            self._unindexed.clear()
            for name in list(self._shards):
                self._close_shard(name)
            if self._lock_fd is not None:
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
                os.close(self._lock_fd)
                self._lock_fd = None

    def __enter__(self) -> EdgeVectorIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._lock_fd is None:
            raise BackendUnavailable(
                f"the vector index on {self._root} is closed; build a new one with "
                "build_vector_index(settings)"
            )

    def _close_shard(self, name: str) -> None:
        timer = self._unindexed.pop(name, None)
        if timer is not None:
            timer.cancel()
        opened = self._shards.pop(name, None)
        if opened is not None:
            with contextlib.suppress(Exception):
                opened.shard.flush()
            opened.shard.close()

    def _classify(self, exc: BaseException) -> EngineFailure | None:
        if isinstance(exc, TypeError | ValueError | OverflowError):
            return EngineFailure(FailureKind.REJECTED, f"{type(exc).__name__}: {exc}")
        if isinstance(exc, OSError):
            return EngineFailure(FailureKind.OUTAGE, str(exc))
        if type(exc).__name__ == "PanicException" or str(exc).startswith(_DAMAGED_PREFIXES):
            return EngineFailure(FailureKind.DAMAGED, str(exc).strip().splitlines()[0][:300])
        if type(exc) is Exception:
            text = str(exc)
            rejected = text.startswith(_REJECTED_PREFIXES)
            return EngineFailure(FailureKind.REJECTED if rejected else FailureKind.OUTAGE, text)
        return None

    def _shard(self, name: str) -> _OpenShard:
        """The open shard of `name`; NotFound if the collection does not exist. Hold the lock."""
        self._check_open()
        check_collection_name(name)
        opened = self._shards.get(name)
        if opened is not None:
            return opened
        path = self._root / name
        if not (path / edge_files.CONFIG_FILE).is_file():
            raise NotFound(
                f"vector collection {name!r} does not exist; call ensure_collection(name, dim) "
                "first (the outbox worker does), or list them with collections()"
            )
        dim = edge_files.stored_dim(path, self._root)
        shard = self._load_shard(name, path)
        opened = _OpenShard(shard=shard, dim=dim, path=path, opened=edge_files.identity(path))
        self._shards[name] = opened
        return opened

    def _load_shard(self, name: str, path: Path) -> qe.EdgeShard:
        """Load a shard's files. The root is ours (flock) and the shard is not open here, so a
        locked write-ahead log belongs to a process that is exiting: the kernel closes a killed
        process's files one by one, the root lock can be free while its WAL is not. That is
        waited out for `WAL_RELEASE_SECONDS`; any other failure is about the files."""
        deadline = time.monotonic() + WAL_RELEASE_SECONDS
        while True:
            try:
                with self._translate("open the shard", name):
                    return qe.EdgeShard.load(str(path))
            except BackendUnavailable as exc:
                if "WouldBlock" in str(exc):
                    if time.monotonic() < deadline:
                        time.sleep(0.01)
                        continue
                    raise
                if isinstance(exc.__cause__, OSError):
                    raise
                detail = str(exc.__cause__ or exc)
                raise edge_files.damaged_error(name, path, self._root, detail) from exc

    # --- collections ---

    def ensure_collection(self, name: str, dim: int, *, sparse: bool = False) -> None:
        check_collection_name(name)
        check_dim(dim)
        with self._lock:
            self._check_open()
            created = not (self._root / name / edge_files.CONFIG_FILE).is_file()
            if created:
                self._create(name, dim, sparse=sparse)
            opened = self._shard(name)
            if opened.dim != dim:
                raise InvalidInput(
                    f"vector collection {name!r} holds {opened.dim}-d vectors, not {dim}-d; "
                    "a different dimension is a different embedding space: use "
                    "collection_name(prefix, entity, model_id, dim) for it"
                )
            if created:
                self._defer_indexes(name)
            elif name not in self._unindexed:
                self._ensure_indexes(name, opened.shard)

    def _defer_indexes(self, name: str) -> None:
        """Build the collection's payload indexes one at a time, `index_delay` seconds apart:
        each step holds the GIL (0.2-0.3 s on a busy disk), so no call waits for more than
        one of them."""
        timer = threading.Timer(self._index_delay, self._index_step, args=(name,))
        timer.daemon = True
        timer.name = "pegas-vector-indexes"
        self._unindexed[name] = timer
        timer.start()

    def payload_indexes(self, name: str) -> list[str]:
        """The payload fields the collection has an index on."""
        with self._lock:
            opened = self._shard(name)
            with self._translate("read the payload schema", name):
                return sorted(opened.shard.info().payload_schema)

    def pending_indexes(self) -> list[str]:
        """The collections whose payload indexes are still to be built."""
        with self._lock:
            return sorted(self._unindexed)

    def _index_step(self, name: str) -> None:
        """The timer's job: one missing index, then the next step (or a flush at the end).
        Never raises: a failure is logged and left to the next `ensure_collection`, which
        builds whatever is missing."""
        with self._lock:
            if self._unindexed.get(name) is not threading.current_thread():
                return  # built already, dropped, or closed
            try:
                opened = self._shard(name)
                if self._ensure_indexes(name, opened.shard, at_most=1):
                    self._defer_indexes(name)
                    return
                del self._unindexed[name]
                with self._translate("flush payload indexes", name):
                    opened.shard.flush()
            except Exception as exc:
                self._unindexed.pop(name, None)
                log.warning("payload indexes of %s not built: %s", name, exc)

    def build_indexes(self, name: str) -> None:
        """Build a collection's missing payload indexes now (`optimize` does, first)."""
        with self._lock:
            timer = self._unindexed.pop(name, None)
            if timer is None:
                return  # built already (or never deferred)
            timer.cancel()
            opened = self._shard(name)
            self._ensure_indexes(name, opened.shard)
            with self._translate("flush payload indexes", name):
                opened.shard.flush()

    def _create(self, name: str, dim: int, *, sparse: bool = False) -> None:
        # Build under a hidden name and rename, so a crash never leaves a half-made collection
        # that looks real. The payload indexes come later (`_defer_indexes`).
        staging = self._root / f"{_CREATING}{name}-{uuid.uuid4().hex[:8]}"
        optimizers = None
        if self._indexing_threshold_kb is not None:
            optimizers = qe.EdgeOptimizersConfig(indexing_threshold=self._indexing_threshold_kb)
        hnsw = None
        if self._full_scan_threshold_kb is not None:
            # m and ef_construct are the engine's defaults; only the threshold changes.
            hnsw = qe.HnswIndexConfig(
                m=16, ef_construct=100, full_scan_threshold=self._full_scan_threshold_kb
            )
        config = qe.EdgeConfig(
            vectors=qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine),
            sparse_vectors=(
                {SPARSE_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)}
                if sparse
                else None
            ),
            optimizers=optimizers,
            hnsw_config=hnsw,
        )
        try:
            with self._translate("create the collection", name):
                shard = qe.EdgeShard.create(str(staging), config)
                try:
                    shard.flush()
                finally:
                    shard.close()
                os.rename(staging, self._root / name)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    def _ensure_indexes(self, name: str, shard: qe.EdgeShard, at_most: int | None = None) -> bool:
        """Create missing payload indexes (`at_most` of them); whether some are still missing."""
        with self._translate("create payload indexes", name):
            present = set(shard.info().payload_schema)
            missing = [(f, k) for f, k in INDEXED_FIELDS.items() if f not in present]
            for field, kind in missing[:at_most]:
                shard.update(qe.UpdateOperation.create_field_index(field, _SCHEMA[kind]))
            return len(missing) > len(missing[:at_most])

    def collections(self) -> list[str]:
        with self._lock:
            self._check_open()
            return sorted(
                entry.name
                for entry in self._root.iterdir()
                if not entry.name.startswith(".") and (entry / edge_files.CONFIG_FILE).is_file()
            )

    def drop(self, name: str) -> None:
        check_collection_name(name)
        with self._lock:
            self._check_open()
            self._close_shard(name)
            path = self._root / name
            if not path.exists():
                return
            # Rename first: a crash during rmtree leaves a hidden leftover, not a broken
            # collection.
            doomed = self._root / f"{_DROPPING}{name}-{uuid.uuid4().hex[:8]}"
            with self._translate("drop the collection", name):
                os.rename(path, doomed)
            shutil.rmtree(doomed, ignore_errors=True)

    def set_aside(self, name: str) -> str | None:
        """Move a (damaged) collection out of the store, to `<root>.broken-<time>/<name>`, so
        it can be created again empty; the two newest set-aside directories are kept for
        inspection, older ones removed. Returns where it went (None if it did not exist)."""
        check_collection_name(name)
        with self._lock:
            self._check_open()
            with contextlib.suppress(Exception):
                self._close_shard(name)
            path = self._root / name
            if not path.exists():
                return None
            stamp = time.strftime("%Y%m%d-%H%M%S")
            aside = self._root.parent / f"{self._root.name}.broken-{stamp}"
            with self._translate("set the damaged collection aside", name):
                aside.mkdir(exist_ok=True)
                target = aside / name
                if target.exists():
                    target = aside / f"{name}-{uuid.uuid4().hex[:8]}"
                os.rename(path, target)
            edge_files.prune_broken(self._root)
            return str(target)

    def check_files(self, name: str) -> str | None:
        """Why the open collection's files are not what the engine opened or would not load
        again (`edge_files`); None if they are fine or `name` is not open here."""
        with self._lock:
            opened = self._shards.get(name)
            if opened is None:
                return None
            problem = edge_files.directory_problem(opened.path, opened.opened)
            if problem is not None:
                return problem
            now, allocated = edge_files.fingerprint(opened.path)
            if now == opened.verified or allocated > edge_files.VERIFY_MAX_BYTES:
                return None
            with self._translate("count points", name):
                expected = int(opened.shard.count(qe.CountRequest(exact=True)))
            problem = edge_files.load_problem(opened.path, self._root, expected)
            if problem is None:
                opened.verified = now
            return problem

    def optimize(self, name: str) -> bool:
        with self._lock:
            self.build_indexes(name)  # before HNSW: the planner's estimate reads them
            opened = self._shard(name)
            with self._translate("build the HNSW index", name):
                changed = opened.shard.optimize()
                opened.shard.flush()
            return bool(changed)

    # --- points ---

    def _forget(self, name: str) -> None:
        """Nothing to drop: a collection found missing has no open shard in `_shards`."""

    def _collection_dim(self, name: str) -> int:
        return self._shard(name).dim

    def _write_batch(self, name: str, batch: PreparedBatch) -> None:
        opened = self._shard(name)
        sparse = iter(batch.sparse) if batch.sparse else None
        for rows in chunked(batch, self._upsert_batch):
            with self._translate("upsert points", name):
                chunk = [
                    qe.Point(
                        point_id, _edge_vector(vector, next(sparse) if sparse else None), payload
                    )
                    for point_id, vector, payload in rows
                ]
                opened.shard.update(qe.UpdateOperation.upsert_points(chunk))

    def delete(self, name: str, ids: Sequence[int]) -> None:
        unique = check_ids(ids)
        check_collection_name(name)
        with self._lock:
            self._check_open()
            if not unique or not (self._root / name / edge_files.CONFIG_FILE).is_file():
                return
            opened = self._shard(name)
            with self._translate("delete points", name):
                opened.shard.update(qe.UpdateOperation.delete_points(list(unique)))

    def search(
        self,
        name: str,
        vector: Vector,
        *,
        k: int,
        where: VectorFilter | None = None,
        with_payload: bool = True,
    ) -> list[VectorHit]:
        check_k(k)
        condition = effective_filter(where)
        with self._lock:
            opened = self._shard(name)
            query = check_query_vector(vector, opened.dim, name)
            engine_filter = build_filter(condition, _EdgeFilter) if condition else None
            with self._translate("search", name):
                # The estimate reads payload-index cardinalities only: tens of microseconds.
                candidates = opened.shard.count(qe.CountRequest(exact=False, filter=engine_filter))
                plan = plan_search(
                    candidates, k, exact_limit=self._exact_limit, hnsw_ef=self._hnsw_ef
                )
                params = (
                    qe.SearchParams(exact=True)
                    if plan.exact
                    else qe.SearchParams(hnsw_ef=plan.hnsw_ef)
                )
                found = opened.shard.query(
                    qe.QueryRequest(
                        limit=k,
                        query=qe.Query.Nearest(query.tolist()),
                        filter=engine_filter,
                        params=params,
                        with_payload=with_payload,
                        with_vector=False,
                    )
                )
        return hits_of(found)

    def search_sparse(
        self, name: str, query: SparseVector, *, k: int, where: VectorFilter | None = None
    ) -> list[SparseHit]:
        check_k(k)
        condition = effective_filter(where)
        if not query.indices:
            return []
        with self._lock:
            opened = self._shard(name)
            engine_filter = build_filter(condition, _EdgeFilter) if condition else None
            with self._translate("search the sparse index", name):
                found = opened.shard.query(
                    qe.QueryRequest(
                        limit=k,
                        query=qe.Query.Nearest(
                            qe.SparseVector(list(query.indices), list(query.values)),
                            using=SPARSE_VECTOR,
                        ),
                        filter=engine_filter,
                        with_payload=False,
                        with_vector=[SPARSE_VECTOR],
                    )
                )
        return [_sparse_hit(p) for p in found]

    def retrieve(
        self,
        name: str,
        ids: Sequence[int],
        *,
        with_vectors: bool = False,
        with_payload: bool = True,
    ) -> list[VectorRecord]:
        unique = check_ids(ids)
        with self._lock:
            opened = self._shard(name)
            if not unique:
                return []
            with self._translate("retrieve points", name):
                records = opened.shard.retrieve(list(unique), with_payload, with_vectors)
        return records_in_order(unique, records, with_vectors=with_vectors)

    def count(self, name: str) -> int:
        with self._lock:
            opened = self._shard(name)
            with self._translate("count points", name):
                return int(opened.shard.count(qe.CountRequest(exact=True)))

    def iter_ids(self, name: str, batch: int = 1000) -> Iterator[int]:
        check_page_size(batch)
        offset: int | None = None
        while True:
            # The lock is taken per page, never across a yield, so a slow consumer does not
            # block other threads.
            with self._lock:
                opened = self._shard(name)
                with self._translate("list point ids", name):
                    records, next_offset = opened.shard.scroll(
                        qe.ScrollRequest(
                            offset=offset, limit=batch, with_payload=False, with_vector=False
                        )
                    )
            for record in records:
                yield int(record.id)
            if next_offset is None:
                return
            offset = int(next_offset)  # type: ignore[arg-type]


def _edge_vector(dense: list[float], sparse: SparseVector | None) -> Any:
    """A point's vectors for the engine: the unnamed dense one, and the BM25 one if any."""
    if sparse is None:
        return dense
    return {"": dense, SPARSE_VECTOR: qe.SparseVector(list(sparse.indices), list(sparse.values))}


def _sparse_hit(point: Any) -> SparseHit:
    vectors = point.vector if isinstance(point.vector, dict) else {}
    terms = vectors.get(SPARSE_VECTOR)
    indices = tuple(int(i) for i in terms.indices) if terms is not None else ()
    return SparseHit(id=int(point.id), score=float(point.score), indices=indices)


class _EdgeFilter:
    """qdrant-edge's filter constructors for `build_filter` (times as ISO strings)."""

    @staticmethod
    def match_any(field: str, values: list[str] | list[int]) -> Any:
        return qe.FieldCondition(field, match=qe.MatchAny(values))

    @staticmethod
    def created_between(after: datetime | None, before: datetime | None) -> Any:
        return qe.FieldCondition(
            "created_at",
            range=qe.RangeDateTime(
                gte=iso_timestamp(after) if after else None,
                lt=iso_timestamp(before) if before else None,
            ),
        )

    @staticmethod
    def has_id(ids: list[int]) -> Any:
        return qe.HasIdCondition(set(ids))

    @staticmethod
    def combine(must: list[Any] | None, must_not: list[Any] | None) -> Any:
        return qe.Filter(must=must, must_not=must_not)
