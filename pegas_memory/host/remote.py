"""The engine host's engines seen from a user process: `VectorIndex` and `Embedder` over its socket.

Both implement the existing Protocols, so the runtime, the projector and the search cannot tell
them from the in-process engines; the factories in `qdrant_store` and `embedding` choose them
when `Settings.shares_vectors` / `shares_embedder` say so. Arguments are checked where they are
cheap to check here (names, k, ids) and otherwise by the engine in the host, whose errors come
back as the same error classes with the same messages.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pegas_memory.config import Settings
from pegas_memory.embedding.embedders import check_texts, local_model
from pegas_memory.errors import InvalidInput
from pegas_memory.host import client as host_client
from pegas_memory.host import wire
from pegas_memory.qdrant_store.base import check_page_size
from pegas_memory.qdrant_store.index import (
    SparseHit,
    SparseVector,
    Vector,
    VectorFilter,
    VectorHit,
    VectorPoint,
    VectorRecord,
    check_collection_name,
    check_ids,
    check_k,
)


class RemoteVectorIndex:
    """`VectorIndex` served by the data dir's engine host (the embedded qdrant-edge store)."""

    def __init__(self, settings: Settings) -> None:
        self._client = host_client.acquire(settings)
        self._closed = False

    def _call(self, op: str, timeout: float | None = -1.0, **args: object) -> object:
        if self._closed:
            from pegas_memory.errors import BackendUnavailable

            raise BackendUnavailable(
                "this vector index was closed; build a new one with build_vector_index(settings)"
            )
        return self._client.call(op, dict(args), timeout=timeout)

    def ensure_collection(self, name: str, dim: int, *, sparse: bool = False) -> None:
        check_collection_name(name)
        self._call("vector.ensure_collection", name=name, dim=dim, sparse=sparse)

    def upsert(self, name: str, points: Sequence[VectorPoint]) -> None:
        check_collection_name(name)
        if not points:
            return
        self._call("vector.upsert", name=name, points=wire.pack_points(list(points)))

    def delete(self, name: str, ids: Sequence[int]) -> None:
        check_collection_name(name)
        unique = check_ids(ids)
        if unique:
            self._call("vector.delete", name=name, ids=unique)

    def search(
        self,
        name: str,
        vector: Vector,
        *,
        k: int,
        where: VectorFilter | None = None,
        with_payload: bool = True,
    ) -> list[VectorHit]:
        check_collection_name(name)
        check_k(k)
        answer = self._call(
            "vector.search",
            name=name,
            vector=wire.pack_vector(vector),
            k=k,
            where=wire.pack_filter(where),
            with_payload=with_payload,
        )
        return wire.unpack_hits(answer)  # type: ignore[arg-type]

    def search_sparse(
        self, name: str, query: SparseVector, *, k: int, where: VectorFilter | None = None
    ) -> list[SparseHit]:
        check_collection_name(name)
        check_k(k)
        answer = self._call(
            "vector.search_sparse",
            name=name,
            query=wire.pack_sparse(query),
            k=k,
            where=wire.pack_filter(where),
        )
        return wire.unpack_sparse_hits(answer)  # type: ignore[arg-type]

    def retrieve(
        self,
        name: str,
        ids: Sequence[int],
        *,
        with_vectors: bool = False,
        with_payload: bool = True,
    ) -> list[VectorRecord]:
        check_collection_name(name)
        unique = check_ids(ids)
        answer = self._call(
            "vector.retrieve",
            name=name,
            ids=unique,
            with_vectors=with_vectors,
            with_payload=with_payload,
        )
        return wire.unpack_records(answer)  # type: ignore[arg-type]

    def count(self, name: str) -> int:
        check_collection_name(name)
        return int(self._call("vector.count", name=name))  # type: ignore[call-overload]

    def iter_ids(self, name: str, batch: int = 1000) -> Iterator[int]:
        check_collection_name(name)
        check_page_size(batch)
        ids = self._call("vector.ids", name=name, batch=batch)
        yield from (int(i) for i in ids)  # type: ignore[attr-defined]

    def collections(self) -> list[str]:
        return list(self._call("vector.collections"))  # type: ignore[call-overload]

    def drop(self, name: str) -> None:
        check_collection_name(name)
        self._call("vector.drop", name=name)

    def set_aside(self, name: str) -> str | None:
        check_collection_name(name)
        where = self._call("vector.set_aside", name=name)
        return None if where is None else str(where)

    def check_files(self, name: str) -> str | None:
        check_collection_name(name)
        problem = self._call("vector.check_files", name=name)
        return None if problem is None else str(problem)

    def optimize(self, name: str) -> bool:
        check_collection_name(name)
        return bool(self._call("vector.optimize", timeout=None, name=name))

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            host_client.release(self._client)


class RemoteEmbedder:
    """`Embedder` whose model runs once in the data dir's engine host."""

    def __init__(self, settings: Settings) -> None:
        self._spec = local_model(settings.local_embedder)
        self._client = host_client.acquire(settings)
        self._closed = False

    @property
    def model_id(self) -> str:
        return self._spec.model_id

    @property
    def dim(self) -> int:
        return self._spec.dim

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        checked = check_texts(texts)
        if not checked:
            return []
        answer = self._client.call("embed.documents", {"texts": checked})
        return wire.unpack_vectors(answer).astype(float).tolist()  # type: ignore[no-any-return]

    def embed_query(self, text: str) -> list[float]:
        if not isinstance(text, str):
            raise InvalidInput(f"the query is {type(text).__name__}, not str: pass a string")
        answer = self._client.call("embed.query", {"text": text})
        return wire.unpack_vector(answer).astype(float).tolist()  # type: ignore[no-any-return]

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            host_client.release(self._client)
