"""The server vector back end: a Qdrant server through `qdrant-client`.

`ClientVectorIndex.connect(url)` talks to a server (REST); `ClientVectorIndex.local(path)` uses
the client's local mode, which has the same API but runs brute force in Python (STACK.md: fine
for tests of this code path, too slow as a store past ~20k points). Local mode ignores payload
indexes and search params and warns about them; those warnings are silenced here because the
same calls are what the server needs.

Driver errors are translated once, in `_translate`: unreachable or failing server ->
BackendUnavailable naming the URL, 404 -> NotFound, other 4xx -> InvalidInput.
"""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

import httpx
from qdrant_client import QdrantClient
from qdrant_client import models as qm
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from pegas_memory.errors import BackendUnavailable, InvalidInput, NotFound, PegasMemoryError
from pegas_memory.qdrant_store.index import (
    INDEXED_FIELDS,
    FieldKind,
    Vector,
    VectorFilter,
    VectorHit,
    VectorPoint,
    VectorRecord,
    as_utc,
    check_collection_name,
    check_dim,
    check_ids,
    check_k,
    check_query_vector,
    cosine_score,
    effective_filter,
    plan_search,
    prepare_points,
)

_SCHEMA: dict[FieldKind, qm.PayloadSchemaType] = {
    "keyword": qm.PayloadSchemaType.KEYWORD,
    "integer": qm.PayloadSchemaType.INTEGER,
    "datetime": qm.PayloadSchemaType.DATETIME,
}


class ClientVectorIndex:
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

    @contextmanager
    def _translate(self, op: str, name: str | None = None) -> Iterator[None]:
        where = f" in collection {name!r}" if name else ""
        try:
            yield
        except PegasMemoryError:
            raise
        except UnexpectedResponse as exc:
            status = exc.status_code or 0
            detail = exc.content[:300].decode("utf-8", "replace")
            if status == 404:
                if name:
                    self._dims.pop(name, None)
                raise NotFound(
                    f"vector collection {name!r} does not exist on {self._target}; call "
                    "ensure_collection(name, dim) first, or list them with collections()"
                ) from exc
            if status in (401, 403):
                raise BackendUnavailable(
                    f"Qdrant at {self._target} refused to {op}{where} (HTTP {status}): "
                    "check PEGAS_QDRANT_API_KEY"
                ) from exc
            if 400 <= status < 500:
                raise InvalidInput(
                    f"Qdrant at {self._target} rejected the request to {op}{where} "
                    f"(HTTP {status}): {detail}"
                ) from exc
            raise BackendUnavailable(
                f"Qdrant at {self._target} failed to {op}{where} (HTTP {status}): {detail}; "
                "retry later"
            ) from exc
        except (ResponseHandlingException, httpx.HTTPError, OSError) as exc:
            raise BackendUnavailable(
                f"Qdrant at {self._target} is unreachable: {exc}; start the server or fix "
                "PEGAS_QDRANT_URL, then retry"
            ) from exc
        except ValueError as exc:
            # Local mode reports a missing collection and bad requests as ValueError.
            if self._local and "not found" in str(exc).lower():
                if name:
                    self._dims.pop(name, None)
                raise NotFound(
                    f"vector collection {name!r} does not exist; call ensure_collection first"
                ) from exc
            raise InvalidInput(f"Qdrant could not {op}{where}: {exc}") from exc

    def _live(self) -> QdrantClient:
        if self._client is None:
            raise BackendUnavailable(
                f"the vector index on {self._target} is closed; build a new one with "
                "build_vector_index(settings)"
            )
        return self._client

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

    def ensure_collection(self, name: str, dim: int) -> None:
        check_collection_name(name)
        check_dim(dim)
        with self._lock:
            client = self._live()
            with self._translate("create the collection", name):
                if not client.collection_exists(name):
                    client.create_collection(
                        name, vectors_config=qm.VectorParams(size=dim, distance=qm.Distance.COSINE)
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

    def upsert(self, name: str, points: Sequence[VectorPoint]) -> None:
        with self._lock:
            batch = prepare_points(points, self._dim(name), name)
            client = self._live()
            step = self._upsert_batch
            for start in range(0, len(batch.ids), step):
                chunk = [
                    qm.PointStruct(id=point_id, vector=row.tolist(), payload=payload)
                    for point_id, row, payload in zip(
                        batch.ids[start : start + step],
                        batch.vectors[start : start + step],
                        batch.payloads[start : start + step],
                        strict=True,
                    )
                ]
                with self._translate("upsert points", name):
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
            query_filter = _client_filter(condition) if condition else None
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
            self._dim(name)
            if not unique:
                return []
            with self._translate("retrieve points", name):
                records = self._live().retrieve(
                    name, list(unique), with_payload=with_payload, with_vectors=with_vectors
                )
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
            self._dim(name)
            with self._translate("count points", name):
                return int(self._live().count(name, exact=True).count)

    def iter_ids(self, name: str, batch: int = 1000) -> Iterator[int]:
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise InvalidInput(f"batch must be a positive integer, not {batch!r}")
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


def _client_filter(where: VectorFilter) -> qm.Filter:
    must: list[Any] = [
        qm.FieldCondition(key=field, match=qm.MatchAny(any=values))
        for field, values in where.keyword_conditions()
    ]
    if where.created_after is not None or where.created_before is not None:
        must.append(
            qm.FieldCondition(
                key="created_at",
                range=qm.DatetimeRange(
                    gte=as_utc(where.created_after) if where.created_after else None,
                    lt=as_utc(where.created_before) if where.created_before else None,
                ),
            )
        )
    must_not: list[Any] = []
    if where.exclude_ids:
        must_not.append(qm.HasIdCondition(has_id=[int(i) for i in where.exclude_ids]))
    return qm.Filter(must=must or None, must_not=must_not or None)


def _plain_vector(vector: object) -> tuple[float, ...]:
    if isinstance(vector, dict):
        vector = vector.get("")
    if not isinstance(vector, list):
        raise BackendUnavailable(f"Qdrant returned an unexpected vector: {type(vector)}")
    return tuple(float(x) for x in vector)
