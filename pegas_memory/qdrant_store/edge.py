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
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import threading
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from pegas_memory.errors import BackendUnavailable, InvalidInput, NotFound
from pegas_memory.qdrant_store.index import (
    INDEXED_FIELDS,
    FieldKind,
    Vector,
    VectorFilter,
    VectorHit,
    VectorPoint,
    VectorRecord,
    check_collection_name,
    check_dim,
    check_ids,
    check_k,
    check_query_vector,
    cosine_score,
    effective_filter,
    iso_timestamp,
    plan_search,
    prepare_points,
)

_SCHEMA: dict[FieldKind, qe.PayloadSchemaType] = {
    "keyword": qe.PayloadSchemaType.Keyword,
    "integer": qe.PayloadSchemaType.Integer,
    "datetime": qe.PayloadSchemaType.Datetime,
}
_CONFIG_FILE = "edge_config.json"
_CREATING = ".creating-"
_DROPPING = ".dropping-"


@dataclass
class _OpenShard:
    shard: qe.EdgeShard
    dim: int
    path: Path


class EdgeVectorIndex:
    """`VectorIndex` on Qdrant Edge shards under `root`; one instance per process and root.

    `exact_limit`: searches that can match at most this many points run brute force (never
    miss); larger ones use HNSW with a beam of at least `hnsw_ef`. For new collections,
    `indexing_threshold_kb` overrides the segment size (KB of vectors) above which `optimize()`
    builds HNSW, and `full_scan_threshold_kb` the size below which the engine's own planner
    scans instead of walking HNSW; tests lower both to exercise HNSW on small collections.
    Writes go to the engine `upsert_batch` points at a time to bound the memory of the
    Python-side conversion.

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
    ) -> None:
        self._root = Path(root)
        self._exact_limit = exact_limit
        self._hnsw_ef = hnsw_ef
        self._indexing_threshold_kb = indexing_threshold_kb
        self._full_scan_threshold_kb = full_scan_threshold_kb
        self._upsert_batch = max(1, upsert_batch)
        self._lock = threading.RLock()
        self._shards: dict[str, _OpenShard] = {}
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
            if entry.is_dir() and entry.name.startswith((_CREATING, _DROPPING)):
                shutil.rmtree(entry, ignore_errors=True)

    def close(self) -> None:
        with self._lock:
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
        opened = self._shards.pop(name, None)
        if opened is not None:
            with contextlib.suppress(Exception):
                opened.shard.flush()
            opened.shard.close()

    def _engine_failure(self, op: str, name: str, exc: Exception) -> BackendUnavailable:
        return BackendUnavailable(
            f"the embedded Qdrant engine failed to {op} in collection {name!r} under "
            f"{self._root}: {exc}; check disk space and permissions, or rebuild the vector slice "
            "with `pegas-memory rebuild --target qdrant`"
        )

    def _shard(self, name: str) -> _OpenShard:
        """The open shard of `name`; NotFound if the collection does not exist. Hold the lock."""
        self._check_open()
        check_collection_name(name)
        opened = self._shards.get(name)
        if opened is not None:
            return opened
        path = self._root / name
        if not (path / _CONFIG_FILE).is_file():
            raise NotFound(
                f"vector collection {name!r} does not exist; call ensure_collection(name, dim) "
                "first (the outbox worker does), or list them with collections()"
            )
        dim = _stored_dim(path)
        try:
            shard = qe.EdgeShard.load(str(path))
        except Exception as exc:
            raise self._engine_failure("open the shard", name, exc) from exc
        opened = _OpenShard(shard=shard, dim=dim, path=path)
        self._shards[name] = opened
        return opened

    # --- collections ---

    def ensure_collection(self, name: str, dim: int) -> None:
        check_collection_name(name)
        check_dim(dim)
        with self._lock:
            self._check_open()
            if not (self._root / name / _CONFIG_FILE).is_file():
                self._create(name, dim)
            opened = self._shard(name)
            if opened.dim != dim:
                raise InvalidInput(
                    f"vector collection {name!r} holds {opened.dim}-d vectors, not {dim}-d; "
                    "a different dimension is a different embedding space: use "
                    "collection_name(prefix, entity, model_id, dim) for it"
                )
            self._ensure_indexes(name, opened.shard)

    def _create(self, name: str, dim: int) -> None:
        # Build under a hidden name and rename, so a crash never leaves a half-made collection
        # that looks real.
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
            optimizers=optimizers,
            hnsw_config=hnsw,
        )
        try:
            shard = qe.EdgeShard.create(str(staging), config)
            try:
                self._ensure_indexes(name, shard)
                shard.flush()
            finally:
                shard.close()
            os.rename(staging, self._root / name)
        except Exception as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise self._engine_failure("create the collection", name, exc) from exc

    def _ensure_indexes(self, name: str, shard: qe.EdgeShard) -> None:
        try:
            present = set(shard.info().payload_schema)
            for field, kind in INDEXED_FIELDS.items():
                if field not in present:
                    shard.update(qe.UpdateOperation.create_field_index(field, _SCHEMA[kind]))
        except Exception as exc:
            raise self._engine_failure("create payload indexes", name, exc) from exc

    def collections(self) -> list[str]:
        with self._lock:
            self._check_open()
            return sorted(
                entry.name
                for entry in self._root.iterdir()
                if not entry.name.startswith(".") and (entry / _CONFIG_FILE).is_file()
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
            try:
                os.rename(path, doomed)
            except OSError as exc:
                raise self._engine_failure("drop the collection", name, exc) from exc
            shutil.rmtree(doomed, ignore_errors=True)

    def optimize(self, name: str) -> bool:
        with self._lock:
            opened = self._shard(name)
            try:
                changed = opened.shard.optimize()
                opened.shard.flush()
            except Exception as exc:
                raise self._engine_failure("build the HNSW index", name, exc) from exc
            return bool(changed)

    # --- points ---

    def upsert(self, name: str, points: Sequence[VectorPoint]) -> None:
        with self._lock:
            opened = self._shard(name)
            batch = prepare_points(points, opened.dim, name)
            step = self._upsert_batch
            for start in range(0, len(batch.ids), step):
                chunk = [
                    qe.Point(point_id, row.tolist(), payload)
                    for point_id, row, payload in zip(
                        batch.ids[start : start + step],
                        batch.vectors[start : start + step],
                        batch.payloads[start : start + step],
                        strict=True,
                    )
                ]
                try:
                    opened.shard.update(qe.UpdateOperation.upsert_points(chunk))
                except Exception as exc:
                    raise self._engine_failure("upsert points", name, exc) from exc

    def delete(self, name: str, ids: Sequence[int]) -> None:
        unique = check_ids(ids)
        check_collection_name(name)
        with self._lock:
            self._check_open()
            if not unique or not (self._root / name / _CONFIG_FILE).is_file():
                return
            opened = self._shard(name)
            try:
                opened.shard.update(qe.UpdateOperation.delete_points(list(unique)))
            except Exception as exc:
                raise self._engine_failure("delete points", name, exc) from exc

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
            engine_filter = _engine_filter(condition) if condition else None
            try:
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
            except Exception as exc:
                raise self._engine_failure("search", name, exc) from exc
        return [
            VectorHit(id=int(p.id), score=cosine_score(p.score), payload=p.payload or {})
            for p in found
        ]

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
            try:
                records = opened.shard.retrieve(list(unique), with_payload, with_vectors)
            except Exception as exc:
                raise self._engine_failure("retrieve points", name, exc) from exc
        by_id = {int(r.id): r for r in records}
        return [
            VectorRecord(
                id=point_id,
                payload=by_id[point_id].payload or {},
                vector=_plain_vector(by_id[point_id].vector) if with_vectors else None,
            )
            for point_id in unique
            if point_id in by_id
        ]

    def count(self, name: str) -> int:
        with self._lock:
            opened = self._shard(name)
            try:
                return int(opened.shard.count(qe.CountRequest(exact=True)))
            except Exception as exc:
                raise self._engine_failure("count points", name, exc) from exc

    def iter_ids(self, name: str, batch: int = 1000) -> Iterator[int]:
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise InvalidInput(f"batch must be a positive integer, not {batch!r}")
        offset: int | None = None
        while True:
            # The lock is taken per page, never across a yield, so a slow consumer does not
            # block other threads.
            with self._lock:
                opened = self._shard(name)
                try:
                    records, next_offset = opened.shard.scroll(
                        qe.ScrollRequest(
                            offset=offset, limit=batch, with_payload=False, with_vector=False
                        )
                    )
                except Exception as exc:
                    raise self._engine_failure("list point ids", name, exc) from exc
            for record in records:
                yield int(record.id)
            if next_offset is None:
                return
            offset = int(next_offset)  # type: ignore[arg-type]


def _stored_dim(path: Path) -> int:
    """The vector size the engine recorded at creation (its own `edge_config.json`)."""
    try:
        config = json.loads((path / _CONFIG_FILE).read_text(encoding="utf-8"))
        return int(config["vectors"][""]["size"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BackendUnavailable(
            f"cannot read the vector size of the collection at {path}: {exc}; drop it and "
            "rebuild with `pegas-memory rebuild --target qdrant`"
        ) from exc


def _engine_filter(where: VectorFilter) -> qe.Filter:
    must: list[Any] = [
        qe.FieldCondition(field, match=qe.MatchAny(values))
        for field, values in where.keyword_conditions()
    ]
    if where.created_after is not None or where.created_before is not None:
        must.append(
            qe.FieldCondition(
                "created_at",
                range=qe.RangeDateTime(
                    gte=iso_timestamp(where.created_after) if where.created_after else None,
                    lt=iso_timestamp(where.created_before) if where.created_before else None,
                ),
            )
        )
    must_not: list[Any] = []
    if where.exclude_ids:
        must_not.append(qe.HasIdCondition({int(i) for i in where.exclude_ids}))
    return qe.Filter(must=must or None, must_not=must_not or None)


def _plain_vector(vector: object) -> tuple[float, ...]:
    if isinstance(vector, dict):  # named-vector form; our collections use the default name ""
        vector = vector.get("")
    if not isinstance(vector, list):
        raise BackendUnavailable(f"the engine returned an unexpected vector: {type(vector)}")
    return tuple(map(float, vector))
