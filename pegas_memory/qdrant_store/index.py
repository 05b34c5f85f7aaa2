"""The vector slice: one `VectorIndex` Protocol, its value types, and the choice of back end.

The vector slice is a rebuildable projection of Postgres (seed §1): every point id is a Postgres
id and every write is an idempotent upsert or delete, so the outbox worker may deliver an event
twice. Two back ends implement the Protocol and run the same behaviour tests:

- `vector_edge.EdgeVectorIndex`: Qdrant's Rust engine in-process (`qdrant-edge-py`), one shard
  directory per collection under `data_dir/qdrant`; the embedded default.
- `vector_client.ClientVectorIndex`: a Qdrant server through `qdrant-client` when
  `PEGAS_QDRANT_URL` is set; the client's local mode is the test double of that path.

One collection holds one embedding space (`collection_name`): vectors of two models, or of one
model at two dimensions, never share a collection, so a search can never compare them.

This module holds only pure logic (validation, naming, search planning); it imports no driver.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np

from pegas_memory.errors import InvalidInput

if TYPE_CHECKING:
    pass

# Payload fields that searches filter on, and the kind of index each gets in both back ends.
FieldKind = Literal["keyword", "integer", "datetime"]
INDEXED_FIELDS: Mapping[str, FieldKind] = {
    "type": "keyword",
    "status": "keyword",
    "doc_id": "integer",
    "topic": "keyword",
    "tags": "keyword",
    "language": "keyword",
    "created_at": "datetime",
}

# Qdrant point ids are unsigned 64-bit; Postgres ids are signed bigint, so the common range is this.
MAX_POINT_ID = 2**63 - 1
MAX_DIM = 65_536
MAX_K = 10_000
# Embeddings arrive as lists or numpy rows; both are accepted wherever a vector is.
Vector = Sequence[float] | np.ndarray

_COLLECTION_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]{0,199}$")
_SLUG_MAX = 64


# The name of the sparse (BM25) vector beside the unnamed dense one, in the collections made
# with `sparse=True` (search/sparse_terms.py builds its terms and weights).
SPARSE_VECTOR = "bm25"


@dataclass(frozen=True)
class SparseVector:
    """A sparse vector: term ids (u32, distinct, sorted) and their weights."""

    indices: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True)
class VectorPoint:
    """One point to write: the Postgres id, its embedding, and the payload searches filter on;
    `sparse`: its BM25 terms, written only into a collection made with `sparse=True`."""

    id: int
    vector: Vector
    payload: Mapping[str, Any]
    sparse: SparseVector | None = None


@dataclass(frozen=True)
class VectorFilter:
    """Conditions a hit must meet. Fields are ANDed; the values inside one field are any-of.

    `created_after` is inclusive and `created_before` exclusive; naive datetimes are taken as UTC.
    """

    types: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    doc_ids: tuple[int, ...] = ()
    topics: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    created_after: datetime | None = None
    created_before: datetime | None = None
    languages: tuple[str, ...] = ()
    exclude_ids: tuple[int, ...] = ()

    def is_empty(self) -> bool:
        return not (
            self.types
            or self.statuses
            or self.doc_ids
            or self.topics
            or self.tags
            or self.languages
            or self.exclude_ids
            or self.created_after
            or self.created_before
        )

    def keyword_conditions(self) -> list[tuple[str, list[str] | list[int]]]:
        """The (payload field, accepted values) pairs of the non-empty any-of fields."""
        pairs: list[tuple[str, list[str] | list[int]]] = [
            ("type", list(self.types)),
            ("status", list(self.statuses)),
            ("doc_id", [int(i) for i in self.doc_ids]),
            ("topic", list(self.topics)),
            ("tags", list(self.tags)),
            ("language", list(self.languages)),
        ]
        return [(field, values) for field, values in pairs if values]


@dataclass(frozen=True)
class VectorHit:
    """A search result: `score` is the cosine similarity (higher is closer)."""

    id: int
    score: float
    payload: Mapping[str, Any]


@dataclass(frozen=True)
class SparseHit:
    """A sparse (BM25) search result: the engine's score and the term ids the point holds."""

    id: int
    score: float
    indices: tuple[int, ...] = ()


@dataclass(frozen=True)
class VectorRecord:
    """A stored point read back by id. Vectors come back L2-normalised (cosine collections)."""

    id: int
    payload: Mapping[str, Any]
    vector: tuple[float, ...] | None = None


@dataclass(frozen=True)
class PreparedBatch:
    """Validated points ready for an engine: unique ids, one float32 row per id, JSON payloads."""

    ids: tuple[int, ...]
    vectors: np.ndarray
    payloads: tuple[dict[str, Any], ...]
    sparse: tuple[SparseVector | None, ...] = ()

    def sparse_of(self, position: int) -> SparseVector | None:
        return self.sparse[position] if self.sparse else None


@dataclass(frozen=True)
class SearchPlan:
    """How to run one query: brute force over the candidates, or HNSW with this beam width."""

    exact: bool
    hnsw_ef: int | None = None


@runtime_checkable
class SetsAside(Protocol):
    """A back end whose collections are files it can move aside when they are damaged (the
    embedded engine, in process or through the engine host); a server's are only dropped."""

    def set_aside(self, name: str) -> str | None:
        """Move collection `name` out of the store for inspection; where it went, or None."""
        ...


@runtime_checkable
class ChecksFiles(Protocol):
    """A back end whose open collections are files that can be damaged behind its back (the
    embedded engine, in process or through the engine host): the self-check asks it."""

    def check_files(self, name: str) -> str | None:
        """Why collection `name`'s files are not the ones the engine opened, or would not load
        again; None when they are fine (or it is not open)."""
        ...


class VectorIndex(Protocol):
    """A store of points per collection; see the module docstring for the two back ends.

    Every method raises `InvalidInput` for a malformed argument (bad name, dimension mismatch,
    non-finite vector) and `BackendUnavailable` when the engine or server cannot be reached.
    Reads of a collection that does not exist raise `NotFound`; `delete` and `drop` of a missing
    collection do nothing, so replayed outbox events stay harmless.
    """

    def ensure_collection(self, name: str, dim: int, *, sparse: bool = False) -> None:
        """Create the collection with payload indexes if absent; idempotent. `sparse`: with a
        sparse vector `SPARSE_VECTOR` (IDF modifier) beside the dense one."""
        ...

    def upsert(self, name: str, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points by id; writing the same point twice leaves one point."""
        ...

    def delete(self, name: str, ids: Sequence[int]) -> None:
        """Remove points by id; ids that are absent are ignored."""
        ...

    def search(
        self,
        name: str,
        vector: Vector,
        *,
        k: int,
        where: VectorFilter | None = None,
        with_payload: bool = True,
    ) -> list[VectorHit]:
        """The `k` points nearest to `vector` that meet `where`, best first (payloads are
        left empty when `with_payload` is False: a ranking needs only ids and scores)."""
        ...

    def search_sparse(
        self, name: str, query: SparseVector, *, k: int, where: VectorFilter | None = None
    ) -> list[SparseHit]:
        """The `k` points of a `sparse=True` collection whose BM25 vectors score highest
        against `query` (the engine applies IDF), best first, each with its term ids."""
        ...

    def retrieve(
        self,
        name: str,
        ids: Sequence[int],
        *,
        with_vectors: bool = False,
        with_payload: bool = True,
    ) -> list[VectorRecord]:
        """The stored points among `ids`, in the order asked, absent ids skipped (payloads
        empty when `with_payload` is False)."""
        ...

    def count(self, name: str) -> int:
        """Exact number of points in the collection."""
        ...

    def iter_ids(self, name: str, batch: int = 1000) -> Iterator[int]:
        """Every point id in ascending order, read `batch` ids per engine call."""
        ...

    def collections(self) -> list[str]:
        """Names of all collections, sorted."""
        ...

    def drop(self, name: str) -> None:
        """Delete the collection and its points; idempotent."""
        ...

    def optimize(self, name: str) -> bool:
        """Build the ANN (HNSW) index over recently written points; True if work was done.

        The embedded engine has no background optimizer: the caller (the outbox worker, when
        its queue is empty) decides when to pay for it. A server optimizes by itself, so there
        this returns False at once.
        """
        ...

    def close(self) -> None:
        """Release the engine or connection; idempotent. Later calls raise BackendUnavailable."""
        ...


# What the vector slice holds, one collection per embedding space each: curated atoms, episodic
# traces, and passages (the chunks of current document versions).
VectorEntity = Literal["atom", "trace", "passage"]
VECTOR_ENTITIES: tuple[VectorEntity, ...] = ("atom", "trace", "passage")


def collection_name(
    prefix: str, entity: VectorEntity, model_id: str, dim: int, *, sparse: bool = False
) -> str:
    """The collection of one embedding space: `{prefix}_{entity}_{model slug}_{dim}d`, with
    `_bm25` appended when it holds sparse BM25 vectors too (`sparse`): turning the sparse
    lexical engine on or off is a different collection, filled by a rebuild or reconcile.

    The slug is `model_id` lower-cased with runs of other characters turned into `_`. When that
    loses information (case, punctuation, length) an 8-hex hash of the exact `model_id` is
    appended, so two distinct model ids never share a collection. Callers should pass the
    canonical model id (`embeddinggemma:latest` and `embeddinggemma` are two ids here).

    Raises InvalidInput for an empty model id, an unknown entity, a bad dimension or prefix.
    """
    if entity not in VECTOR_ENTITIES:
        raise InvalidInput(f"entity must be one of {', '.join(VECTOR_ENTITIES)}, not {entity!r}")
    if not model_id or not model_id.strip():
        raise InvalidInput("model_id is empty; pass the embedding model's name")
    check_dim(dim)
    slug = re.sub(r"[^a-z0-9]+", "_", model_id.lower()).strip("_")
    lossy = slug != model_id or len(slug) > _SLUG_MAX
    if lossy:
        digest = hashlib.sha256(model_id.encode("utf-8")).hexdigest()[:8]
        slug = f"{slug[: _SLUG_MAX - 9]}_{digest}".lstrip("_")
    name = f"{prefix}_{entity}_{slug}_{dim}d" + ("_bm25" if sparse else "")
    check_collection_name(name)
    return name


def check_collection_name(name: str) -> None:
    """Raise InvalidInput unless `name` is safe both as a Qdrant collection and a directory."""
    if not isinstance(name, str) or not _COLLECTION_RE.match(name):
        raise InvalidInput(
            f"invalid vector collection name {name!r}: use 1-200 characters from A-Z a-z 0-9 _ -, "
            "not starting with '-'; build names with collection_name()"
        )


def check_dim(dim: int) -> None:
    """Raise InvalidInput unless `dim` is a usable vector dimension."""
    if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= MAX_DIM:
        raise InvalidInput(f"vector dimension must be an integer in 1..{MAX_DIM}, not {dim!r}")


def check_k(k: int) -> None:
    """Raise InvalidInput unless `k` is a usable result count."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidInput(f"k must be an integer in 1..{MAX_K}, not {k!r}")


def check_ids(ids: Sequence[int]) -> list[int]:
    """The ids without duplicates (first occurrence kept), or InvalidInput for a bad id."""
    seen: dict[int, None] = {}
    for point_id in ids:
        _check_id(point_id)
        seen.setdefault(int(point_id), None)
    return list(seen)


def _check_id(point_id: object) -> None:
    if (
        isinstance(point_id, bool)
        or not isinstance(point_id, int | np.integer)
        or not 0 <= int(point_id) <= MAX_POINT_ID
    ):
        raise InvalidInput(
            f"point id must be a non-negative integer (a Postgres id) up to {MAX_POINT_ID}, "
            f"not {point_id!r}"
        )


def check_query_vector(vector: Vector, dim: int, collection: str) -> np.ndarray:
    """The query as a float32 row, or InvalidInput when its shape or values are unusable."""
    rows = _as_matrix([vector], dim, collection, what="query vector")
    return rows[0]


def prepare_points(points: Sequence[VectorPoint], dim: int, collection: str) -> PreparedBatch:
    """Validate a batch for a collection of `dim`-d vectors; for duplicate ids the last wins.

    Raises InvalidInput for a bad id, a vector of the wrong length, non-finite or all-zero
    values (cosine is undefined for a zero vector), or an unusable `created_at`.
    """
    last: dict[int, int] = {}
    for position, point in enumerate(points):
        if not isinstance(point, VectorPoint):
            raise InvalidInput(f"expected VectorPoint, got {type(point).__name__}")
        _check_id(point.id)
        last[int(point.id)] = position
    order = list(last.values())
    chosen = [points[i] for i in order]
    vectors = _as_matrix([p.vector for p in chosen], dim, collection, what="vector")
    payloads = tuple(prepare_payload(p.payload) for p in chosen)
    sparse = tuple(check_sparse(p.sparse, collection) for p in chosen)
    return PreparedBatch(
        ids=tuple(int(p.id) for p in chosen),
        vectors=vectors,
        payloads=payloads,
        sparse=sparse if any(v is not None for v in sparse) else (),
    )


def check_sparse(vector: SparseVector | None, collection: str) -> SparseVector | None:
    """`vector` if it is a usable sparse vector (None stays None), else InvalidInput."""
    if vector is None:
        return None
    if not isinstance(vector, SparseVector) or len(vector.indices) != len(vector.values):
        raise InvalidInput(f"sparse vector for collection {collection!r} is malformed")
    if any(not 0 <= i < 2**32 for i in vector.indices) or len(set(vector.indices)) != len(
        vector.indices
    ):
        raise InvalidInput(
            f"sparse vector for collection {collection!r} must have distinct u32 indices"
        )
    if not all(np.isfinite(vector.values)):
        raise InvalidInput(f"sparse vector for collection {collection!r} has NaN or infinity")
    return vector


def _as_matrix(vectors: Sequence[Vector], dim: int, collection: str, *, what: str) -> np.ndarray:
    if not vectors:
        return np.zeros((0, dim), dtype=np.float32)
    try:
        rows = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        lengths = sorted({len(v) for v in vectors if hasattr(v, "__len__")})
        raise InvalidInput(
            f"{what} for collection {collection!r} must be {dim} numbers each; "
            f"got lengths {lengths}: {exc}"
        ) from exc
    if rows.ndim != 2 or rows.shape[1] != dim:
        got = rows.shape[1] if rows.ndim == 2 else "ragged or scalar"
        raise InvalidInput(
            f"{what} has {got} dimensions but collection {collection!r} holds {dim}-d vectors; "
            "embed with the collection's model or use collection_name() for the new model"
        )
    if not np.isfinite(rows).all():
        raise InvalidInput(f"{what} for collection {collection!r} contains NaN or infinity")
    if (np.abs(rows).max(axis=1) == 0).any():
        raise InvalidInput(
            f"{what} for collection {collection!r} is all zeros; cosine similarity is undefined"
        )
    return rows


def prepare_payload(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-ready copy: datetimes become UTC ISO 8601 strings, tuples become lists.

    `created_at` must be a datetime or an ISO 8601 string, since the datetime index and the
    `created_after`/`created_before` filters compare it as a time.
    """
    if not isinstance(payload, Mapping):
        raise InvalidInput(f"payload must be a mapping, not {type(payload).__name__}")
    out: dict[str, Any] = {}
    for key, value in payload.items():
        if not isinstance(key, str):
            raise InvalidInput(f"payload keys must be strings, not {key!r}")
        if (key == "created_at" and value is not None) or isinstance(value, datetime):
            out[key] = iso_timestamp(value)
        elif isinstance(value, tuple | frozenset | set):
            out[key] = list(value)
        else:
            out[key] = value
    return out


def iso_timestamp(value: datetime | str) -> str:
    """`value` as an ISO 8601 UTC string (naive datetimes are UTC); InvalidInput if unparsable."""
    return as_utc(value).isoformat()


def as_utc(value: datetime | str) -> datetime:
    """`value` as an aware UTC datetime (naive ones are UTC); InvalidInput if unparsable."""
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError as exc:
            raise InvalidInput(f"created_at {value!r} is not an ISO 8601 timestamp") from exc
    elif isinstance(value, datetime):
        parsed = value
    else:
        raise InvalidInput(
            f"created_at must be a datetime or ISO 8601 string, not {type(value).__name__}"
        )
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def effective_filter(where: VectorFilter | None) -> VectorFilter | None:
    """`where` validated, or None when it constrains nothing."""
    if where is None:
        return None
    if not isinstance(where, VectorFilter):
        raise InvalidInput(f"where must be a VectorFilter, not {type(where).__name__}")
    if where.is_empty():
        return None
    for point_id in (*where.doc_ids, *where.exclude_ids):
        _check_id(point_id)
    for field, values in where.keyword_conditions():
        if field != "doc_id" and not all(isinstance(v, str) for v in values):
            raise InvalidInput(f"filter values for {field!r} must be strings, got {values!r}")
    for bound in (where.created_after, where.created_before):
        if bound is not None and not isinstance(bound, datetime):
            raise InvalidInput(f"created_after/created_before must be datetimes, not {bound!r}")
    return where


def plan_search(candidates: int, k: int, *, exact_limit: int, hnsw_ef: int) -> SearchPlan:
    """Brute force when at most `exact_limit` points can match, else HNSW with a wide beam.

    Exact search over a few thousand vectors costs a few milliseconds and never misses; HNSW
    with the engine's default beam missed filtered top-1 hits here (STACK.md), so the beam is
    widened to at least `hnsw_ef` and four times `k`.
    """
    if candidates <= exact_limit:
        return SearchPlan(exact=True)
    return SearchPlan(exact=False, hnsw_ef=max(hnsw_ef, 4 * k))


def cosine_score(score: float) -> float:
    """An engine score as a plain float, clamped to the cosine range against float32 rounding."""
    return float(min(1.0, max(-1.0, score)))
