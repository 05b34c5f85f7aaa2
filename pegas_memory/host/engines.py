"""What the engine host serves: the embedded vector store and the local model, one op each.

`HostEngines.call(op, args)` maps one decoded request onto `EdgeVectorIndex` or
`LocalEmbedder` and returns a JSON-ready value; the socket and the process lifecycle live in
`host.server`. The vector store is opened when the host becomes active and reopened on the
next call if opening failed (a process still running with `PEGAS_ENGINE_HOST=off` may hold it
for a while), so a host outlives that and answers BackendUnavailable meanwhile.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from pegas_memory.embedding.embedders import LocalEmbedder
from pegas_memory.errors import BackendUnavailable, InvalidInput
from pegas_memory.host import wire
from pegas_memory.host.paths import HostConfig
from pegas_memory.qdrant_store.edge import EdgeVectorIndex

log = logging.getLogger(__name__)

Handler = Callable[[Mapping[str, Any]], Any]


class HostEngines:
    """The engines of one data dir, shared by every connection of the host (thread-safe)."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self._index: EdgeVectorIndex | None = None
        self._index_lock = threading.Lock()
        self.embedder = LocalEmbedder(config.local_embedder) if config.local_embedder else None
        self._ops: dict[str, Handler] = {
            "ping": self._ping,
            "vector.ensure_collection": lambda a: self.index().ensure_collection(
                a["name"], int(a["dim"]), sparse=bool(a.get("sparse", False))
            ),
            "vector.upsert": lambda a: self.index().upsert(
                a["name"], wire.unpack_points(a["points"])
            ),
            "vector.delete": lambda a: self.index().delete(a["name"], list(a["ids"])),
            "vector.search": self._search,
            "vector.search_sparse": self._search_sparse,
            "vector.retrieve": self._retrieve,
            "vector.count": lambda a: self.index().count(a["name"]),
            "vector.ids": lambda a: list(self.index().iter_ids(a["name"], int(a["batch"]))),
            "vector.collections": lambda a: self.index().collections(),
            "vector.drop": lambda a: self.index().drop(a["name"]),
            "vector.set_aside": lambda a: self.index().set_aside(a["name"]),
            "vector.check_files": lambda a: self.index().check_files(a["name"]),
            "vector.optimize": lambda a: self.index().optimize(a["name"]),
            "embed.documents": lambda a: wire.pack_vectors(
                self.model().embed_documents(list(a["texts"]))
            ),
            "embed.query": lambda a: wire.pack_vector(self.model().embed_query(a["text"])),
        }

    def warm_up(self) -> None:
        """Load the model now (a standby does this while it waits, so a takeover is quick)."""
        if self.embedder is not None:
            self.embedder.embed_query("warm up")

    def index(self) -> EdgeVectorIndex:
        with self._index_lock:
            if self._index is None:
                self._index = EdgeVectorIndex(
                    self.config.data_dir / "qdrant",
                    exact_limit=self.config.exact_limit,
                    hnsw_ef=self.config.hnsw_ef,
                )
            return self._index

    def model(self) -> LocalEmbedder:
        if self.embedder is None:
            raise BackendUnavailable(
                "this engine host serves no embedding model (it was started with Ollama "
                "configured); embed with Ollama, or stop the host so it restarts with your settings"
            )
        return self.embedder

    def call(self, op: str, args: Mapping[str, Any]) -> Any:
        handler = self._ops.get(op)
        if handler is None:
            raise InvalidInput(
                f"the engine host has no operation {op!r}; a pegas-memory of another version "
                "may be running it: stop it with `pegas-memory host --stop`"
            )
        return handler(args)

    def _ping(self, _args: Mapping[str, Any]) -> dict[str, Any]:
        import os

        return {
            "pid": os.getpid(),
            "data_dir": str(self.config.data_dir),
            "embedder": self.config.local_embedder,
            "vectors_open": self._index is not None,
        }

    def _search(self, a: Mapping[str, Any]) -> Any:
        hits = self.index().search(
            a["name"],
            wire.unpack_vector(a["vector"]),
            k=int(a["k"]),
            where=wire.unpack_filter(a.get("where")),
            with_payload=bool(a.get("with_payload", True)),
        )
        return wire.pack_hits(hits)

    def _search_sparse(self, a: Mapping[str, Any]) -> Any:
        query = wire.unpack_sparse(a["query"])
        assert query is not None
        hits = self.index().search_sparse(
            a["name"], query, k=int(a["k"]), where=wire.unpack_filter(a.get("where"))
        )
        return wire.pack_sparse_hits(hits)

    def _retrieve(self, a: Mapping[str, Any]) -> Any:
        records = self.index().retrieve(
            a["name"],
            list(a["ids"]),
            with_vectors=bool(a.get("with_vectors", False)),
            with_payload=bool(a.get("with_payload", True)),
        )
        return wire.pack_records(records)

    def close(self) -> None:
        with self._index_lock:
            index, self._index = self._index, None
        if index is not None:
            index.close()
        if self.embedder is not None:
            self.embedder.close()
