"""The server vector back end: a Qdrant server through `qdrant-client`.

`ClientVectorIndex.connect(url)` talks to a server (REST); `ClientVectorIndex.local(path)` uses
the client's local mode, which has the same API but runs brute force in Python (STACK.md: fine
for tests of this code path, too slow as a store past ~20k points). Local mode ignores payload
indexes and search params and warns about them; those warnings are silenced here because the
same calls are what the server needs.

Driver errors are classified in `_classify` and translated by the shared `base._translate`:
unreachable, closed or failing server -> BackendUnavailable naming the URL, 404 -> NotFound,
other 4xx (and local mode's ValueError for a bad request) -> InvalidInput.
"""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from qdrant_client import QdrantClient
from qdrant_client import models as qm
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

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
    as_utc,
    check_collection_name,
    check_dim,
    check_ids,
    check_k,
    check_query_vector,
    effective_filter,
    plan_search,
)

_SCHEMA: dict[FieldKind, qm.PayloadSchemaType] = {
    "keyword": qm.PayloadSchemaType.KEYWORD,
    "integer": qm.PayloadSchemaType.INTEGER,
    "datetime": qm.PayloadSchemaType.DATETIME,
}


class ClientVectorIndex(QdrantBackend):
    """`VectorIndex` over `qdrant-client`; build it with `connect()` or `local()`.

    `exact_limit` and `hnsw_ef` choose exact or HNSW search as in the embedded back end (see
    `plan_search`); local mode is always exact. Thread-safe: a server client is (httpx), and
    local mode calls are serialised by a lock.
    """

    def __init__(
        self,
        client: QdrantClient,
        *,
        target: str,
        local: bool,
        exact_limit: int = 20_000,
        hnsw_ef: int = 128,
        upsert_batch: int = 256,
    ) -> None:
        self._client: QdrantClient | None = client
        self._target = target
        self._where = f"Qdrant at {target}"
        self._outage_hint = "retry later"
        self._local = local
        self._exact_limit = exact_limit
        self._hnsw_ef = hnsw_ef
        self._upsert_batch = max(1, upsert_batch)
        self._dims: dict[str, int] = {}
        self._lock: AbstractContextManager[Any] = threading.RLock() if local else nullcontext()

    @classmethod
    def connect(
        cls, url: str, *, api_key: str | None = None, timeout: float = 10.0, **options: Any
    ) -> ClientVectorIndex:
        """A client of the server at `url`; no request is made until the first call."""
        # The compatibility check would contact the server inside the constructor; errors are
        # reported by the first real call instead, through the same translation.
        client = QdrantClient(
            url=url,
            api_key=api_key,
            timeout=max(1, math.ceil(timeout)),
            check_compatibility=False,
        )
        return cls(client, target=url, local=False, **options)

    @classmethod
    def local(cls, path: Path | None = None, **options: Any) -> ClientVectorIndex:
        """The client's local mode, in memory or persisted under `path` (one process at a time).

        Raises BackendUnavailable if another client holds `path`.
        """
        location = str(path) if path is not None else ":memory:"
        try:
            client = QdrantClient(path=str(path)) if path is not None else QdrantClient(":memory:")
        except RuntimeError as exc:
            raise BackendUnavailable(
                f"local Qdrant storage {location} is in use by another client: {exc}; "
                "close it first or use a Qdrant server"
            ) from exc
        return cls(client, target=f"local:{location}", local=True, **options)

    # --- plumbing ---

    def _classify(self, exc: BaseException) -> EngineFailure | None:
        if isinstance(exc, UnexpectedResponse):
            status = exc.status_code or 0
            detail = f"HTTP {status}: {exc.content[:300].decode('utf-8', 'replace')}"
            if status == 404:
                return EngineFailure(FailureKind.MISSING, detail)
            if status in (401, 403):
                return EngineFailure(FailureKind.OUTAGE, detail, "check PEGAS_QDRANT_API_KEY")
            if 400 <= status < 500:
                return EngineFailure(FailureKind.REJECTED, detail)
            return EngineFailure(FailureKind.OUTAGE, detail)
        if isinstance(exc, ResponseHandlingException | httpx.HTTPError | OSError):
            return EngineFailure(
                FailureKind.OUTAGE,
                str(exc),
                "start the server or fix PEGAS_QDRANT_URL, then retry",
                phrase="is unreachable",
            )
        if self._local and isinstance(exc, RuntimeError):
            # "QdrantLocal instance is closed": the engine is gone under us.
            return EngineFailure(FailureKind.OUTAGE, str(exc), "reopen the vector index")
        if isinstance(exc, ValueError | TypeError):
            # Local mode reports a missing collection and bad requests (a wrong dimension, NaN,
            # a payload it cannot serialise) as ValueError; pydantic's errors are ValueErrors.
            if self._local and "not found" in str(exc).lower():
                return EngineFailure(FailureKind.MISSING, str(exc))
            return EngineFailure(FailureKind.REJECTED, f"{type(exc).__name__}: {exc}")
        return None

    def _forget(self, name: str) -> None:
        self._dims.pop(name, None)

    def _live(self) -> QdrantClient:
        if self._client is None:
            raise BackendUnavailable(
                f"the vector index on {self._target} is closed; build a new one with "
                "build_vector_index(settings)"
            )
        return self._client

    def _collection_dim(self, name: str) -> int:
        return self._dim(name)

    def _dim(self, name: str) -> int:
        """The vector size of `name` (cached); NotFound if the collection does not exist."""
        check_collection_name(name)
        client = self._live()
        cached = self._dims.get(name)
        if cached is not None:
            return cached
        with self._translate("read the collection", name):
            if self._local and not client.collection_exists(name):
                raise NotFound(
                    f"vector collection {name!r} does not exist; call ensure_collection(name, "
                    "dim) first, or list them with collections()"
                )
            vectors = client.get_collection(name).config.params.vectors
        if not isinstance(vectors, qm.VectorParams):
            raise InvalidInput(
                f"collection {name!r} on {self._target} uses named vectors; it was not made by "
                "pegas-memory: pick another collection prefix"
            )
        self._dims[name] = vectors.size
        return vectors.size

    # --- collections ---

    def ensure_collection(self, name: str, dim: int, *, sparse: bool = False) -> None:
        check_collection_name(name)
        check_dim(dim)
        with self._lock:
            client = self._live()
            with self._translate("create the collection", name):
                if not client.collection_exists(name):
                    client.create_collection(
                        name,
                        vectors_config=qm.VectorParams(size=dim, distance=qm.Distance.COSINE),
                        sparse_vectors_config=(
                            {SPARSE_VECTOR: qm.SparseVectorParams(modifier=qm.Modifier.IDF)}
                            if sparse
                            else None
                        ),
                    )
            existing = self._dim(name)
            if existing != dim:
                raise InvalidInput(
                    f"vector collection {name!r} holds {existing}-d vectors, not {dim}-d; "
                    "a different dimension is a different embedding space: use "
                    "collection_name(prefix, entity, model_id, dim) for it"
                )
            with self._translate("create payload indexes", name):
                present = set(client.get_collection(name).payload_schema or {})
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", message="Payload indexes have no effect")
                    for field, kind in INDEXED_FIELDS.items():
                        if field not in present:
                            client.create_payload_index(name, field, field_schema=_SCHEMA[kind])

    def collections(self) -> list[str]:
        with self._lock, self._translate("list collections"):
            return sorted(c.name for c in self._live().get_collections().collections)

    def drop(self, name: str) -> None:
        check_collection_name(name)
        with self._lock:
            client = self._live()
            self._dims.pop(name, None)
            try:
                with self._translate("drop the collection", name):
                    client.delete_collection(name)
            except NotFound:
                return

    def optimize(self, name: str) -> bool:
        # A server runs its optimizers by itself; local mode has no index to build.
        with self._lock:
            self._dim(name)
        return False

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def __enter__(self) -> ClientVectorIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- points ---

    def _write_batch(self, name: str, batch: PreparedBatch) -> None:
        client = self._live()
        sparse = iter(batch.sparse) if batch.sparse else None
        for rows in chunked(batch, self._upsert_batch):
            with self._translate("upsert points", name):
                chunk = [
                    qm.PointStruct(
                        id=point_id,
                        vector=_client_vector(vector, next(sparse) if sparse else None),
                        payload=payload,
                    )
                    for point_id, vector, payload in rows
                ]
                client.upsert(name, points=chunk, wait=True)

    def delete(self, name: str, ids: Sequence[int]) -> None:
        unique = check_ids(ids)
        with self._lock:
            try:
                self._dim(name)
            except NotFound:
                return
            if not unique:
                return
            with self._translate("delete points", name):
                self._live().delete(
                    name, points_selector=qm.PointIdsList(points=list(unique)), wait=True
                )

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
            query = check_query_vector(vector, self._dim(name), name)
            client = self._live()
            query_filter = build_filter(condition, _ClientFilter) if condition else None
            params = None
            with self._translate("search", name):
                if not self._local:
                    estimate = client.count(name, count_filter=query_filter, exact=False).count
                    plan = plan_search(
                        estimate, k, exact_limit=self._exact_limit, hnsw_ef=self._hnsw_ef
                    )
                    params = qm.SearchParams(exact=plan.exact, hnsw_ef=plan.hnsw_ef)
                found = client.query_points(
                    name,
                    query=query.tolist(),
                    query_filter=query_filter,
                    search_params=params,
                    limit=k,
                    with_payload=with_payload,
                    with_vectors=False,
                ).points
        return hits_of(found)

    def search_sparse(
        self, name: str, query: SparseVector, *, k: int, where: VectorFilter | None = None
    ) -> list[SparseHit]:
        check_k(k)
        condition = effective_filter(where)
        if not query.indices:
            return []
        with self._lock:
            self._dim(name)
            client = self._live()
            query_filter = build_filter(condition, _ClientFilter) if condition else None
            with self._translate("search the sparse index", name):
                found = client.query_points(
                    name,
                    query=qm.SparseVector(indices=list(query.indices), values=list(query.values)),
                    using=SPARSE_VECTOR,
                    query_filter=query_filter,
                    limit=k,
                    with_payload=False,
                    with_vectors=[SPARSE_VECTOR],
                ).points
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
            self._dim(name)
            if not unique:
                return []
            with self._translate("retrieve points", name):
                records = self._live().retrieve(
                    name, list(unique), with_payload=with_payload, with_vectors=with_vectors
                )
        return records_in_order(unique, records, with_vectors=with_vectors)

    def count(self, name: str) -> int:
        with self._lock:
            self._dim(name)
            with self._translate("count points", name):
                return int(self._live().count(name, exact=True).count)

    def iter_ids(self, name: str, batch: int = 1000) -> Iterator[int]:
        check_page_size(batch)
        offset: Any = None
        while True:
            with self._lock:
                self._dim(name)
                with self._translate("list point ids", name):
                    records, offset = self._live().scroll(
                        name, limit=batch, offset=offset, with_payload=False, with_vectors=False
                    )
            for record in records:
                yield int(record.id)
            if offset is None:
                return


def _client_vector(dense: list[float], sparse: SparseVector | None) -> Any:
    """A point's vectors for the client: the unnamed dense one, and the BM25 one if any."""
    if sparse is None:
        return dense
    return {
        "": dense,
        SPARSE_VECTOR: qm.SparseVector(indices=list(sparse.indices), values=list(sparse.values)),
    }


def _sparse_hit(point: Any) -> SparseHit:
    vectors = point.vector if isinstance(point.vector, dict) else {}
    terms = vectors.get(SPARSE_VECTOR)
    indices = tuple(int(i) for i in terms.indices) if terms is not None else ()
    return SparseHit(id=int(point.id), score=float(point.score), indices=indices)


class _ClientFilter:
    """qdrant-client's filter constructors for `build_filter` (times as aware datetimes)."""

    @staticmethod
    def match_any(field: str, values: list[str] | list[int]) -> Any:
        return qm.FieldCondition(key=field, match=qm.MatchAny(any=values))

    @staticmethod
    def created_between(after: datetime | None, before: datetime | None) -> Any:
        return qm.FieldCondition(
            key="created_at",
            range=qm.DatetimeRange(
                gte=as_utc(after) if after else None, lt=as_utc(before) if before else None
            ),
        )

    @staticmethod
    def has_id(ids: list[int]) -> Any:
        return qm.HasIdCondition(has_id=list(ids))

    @staticmethod
    def combine(must: list[Any] | None, must_not: list[Any] | None) -> Any:
        return qm.Filter(must=must, must_not=must_not)
