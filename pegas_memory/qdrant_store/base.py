"""What the two vector back ends share: one error classification, result shaping, filter building.

`edge` (qdrant-edge, in process) and `client` (qdrant-client, a server or its local mode) used
to shape results, build filters and map errors each their own way, so the same bad point was an
outage on one and a rejected request on the other. Here the rules are written once:

- an engine or connection outage (server down, engine closed, disk failing) ->
  `BackendUnavailable`: waiting or repairing the engine helps, the request was fine;
- a rejected request (a bad point, a payload the engine cannot store, a wrong dimension, HTTP
  4xx) -> `InvalidInput`: sending it again will fail again;
- a missing collection -> `NotFound`;
- files the engine cannot read (a payload page that does not decode, a vector file shorter
  than its points, the engine's own assertion on them) -> `SliceDamaged`: only a rebuild from
  PostgreSQL helps, which the self-check does by itself.

Each back end says only which of these an exception of *its* driver is (`_classify`); anything
it does not recognise propagates unchanged, as the bug it is.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from pegas_memory.errors import (
    BackendUnavailable,
    InvalidInput,
    NotFound,
    PegasMemoryError,
    SliceDamaged,
)
from pegas_memory.qdrant_store.index import (
    PreparedBatch,
    VectorFilter,
    VectorHit,
    VectorPoint,
    VectorRecord,
    cosine_score,
    prepare_points,
)

REJECTED_HINT = (
    "the point or request does not fit the collection; it will fail again if sent unchanged"
)


class FailureKind(enum.Enum):
    """What an engine error means for the caller (see the module docstring)."""

    OUTAGE = "outage"
    REJECTED = "rejected"
    MISSING = "missing"
    DAMAGED = "damaged"


@dataclass(frozen=True)
class EngineFailure:
    """A driver exception classified: its kind, what the engine said, and what to do.

    `phrase` replaces the default "failed to <op>" / "rejected the request to <op>" when the
    failure is not about the operation (e.g. "is unreachable").
    """

    kind: FailureKind
    detail: str
    hint: str = ""
    phrase: str | None = None


def failure_error(
    failure: EngineFailure, *, where: str, op: str, name: str | None, outage_hint: str
) -> PegasMemoryError:
    """The pegas-memory error for a classified failure, with a message that says what to do."""
    scope = f" in collection {name!r}" if name else ""
    if failure.kind is FailureKind.MISSING:
        return NotFound(
            f"vector collection {name!r} does not exist ({where}); call ensure_collection(name, "
            "dim) first (the outbox worker does), or list them with collections()"
        )
    if failure.kind is FailureKind.DAMAGED:
        return SliceDamaged(
            f"{where} cannot read the files of collection {name!r} ({op}): {failure.detail}; "
            "they are damaged: the self-check rebuilds the collection from PostgreSQL (or run "
            "`pegas-memory rebuild --target qdrant`)"
        )
    if failure.kind is FailureKind.REJECTED:
        phrase = failure.phrase or f"rejected the request to {op}{scope}"
        return InvalidInput(f"{where} {phrase}: {failure.detail}; {failure.hint or REJECTED_HINT}")
    phrase = failure.phrase or f"failed to {op}{scope}"
    return BackendUnavailable(f"{where} {phrase}: {failure.detail}; {failure.hint or outage_hint}")


class QdrantBackend(abc.ABC):
    """The shared half of `EdgeVectorIndex` and `ClientVectorIndex`.

    A back end provides `_where` (how messages name it), `_outage_hint`, `_lock`,
    `_upsert_batch`, `_classify` for its driver's exceptions, `_collection_dim` and
    `_write_batch`; `upsert` and the error translation are written here once.
    """

    _where: str
    _outage_hint: str
    _lock: AbstractContextManager[Any]
    _upsert_batch: int

    @abc.abstractmethod
    def _classify(self, exc: BaseException) -> EngineFailure | None:
        """What `exc`, raised by this back end's driver, means; None if it is not the driver's."""

    @abc.abstractmethod
    def _forget(self, name: str) -> None:
        """Drop what is cached about collection `name` (it turned out to be missing)."""

    @abc.abstractmethod
    def _collection_dim(self, name: str) -> int:
        """The vector size of `name`; NotFound if it does not exist. Called under `_lock`."""

    @abc.abstractmethod
    def _write_batch(self, name: str, batch: PreparedBatch) -> None:
        """Send validated points to the engine, `_upsert_batch` at a time, as they are.

        No checks happen here: `upsert` runs `prepare_points` first. Called under `_lock`.
        """

    @contextmanager
    def _translate(self, op: str, name: str | None = None) -> Iterator[None]:
        """Turn the driver's exceptions inside the block into pegas-memory errors."""
        try:
            yield
        except PegasMemoryError:
            raise
        except BaseException as exc:
            # The one broad except of the vector slice: `_classify` narrows it to what the
            # driver raises (a Rust panic included: pyo3's PanicException is a BaseException),
            # and everything else is re-raised untouched.
            if not isinstance(exc, Exception) and type(exc).__name__ != "PanicException":
                raise
            failure = self._classify(exc)
            if failure is None:
                raise
            if failure.kind is FailureKind.MISSING and name:
                self._forget(name)
            raise failure_error(
                failure, where=self._where, op=op, name=name, outage_hint=self._outage_hint
            ) from exc

    def upsert(self, name: str, points: Sequence[VectorPoint]) -> None:
        with self._lock:
            batch = prepare_points(points, self._collection_dim(name), name)
            self._write_batch(name, batch)


def check_page_size(batch: int) -> None:
    """Raise InvalidInput unless `batch` is a usable page size for `iter_ids`."""
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise InvalidInput(f"batch must be a positive integer, not {batch!r}")


def chunked(batch: PreparedBatch, step: int) -> Iterator[list[tuple[int, list[float], Any]]]:
    """The batch as (id, vector, payload) rows, `step` at a time, ready for an engine's point."""
    for start in range(0, len(batch.ids), step):
        yield list(
            zip(
                batch.ids[start : start + step],
                (row.tolist() for row in batch.vectors[start : start + step]),
                batch.payloads[start : start + step],
                strict=True,
            )
        )


def hits_of(points: Iterable[Any]) -> list[VectorHit]:
    """Engine search results (anything with id, score, payload) as `VectorHit`s, best first."""
    return [
        VectorHit(id=int(p.id), score=cosine_score(p.score), payload=p.payload or {})
        for p in points
    ]


def records_in_order(
    unique: Sequence[int], records: Iterable[Any], *, with_vectors: bool
) -> list[VectorRecord]:
    """Engine records as `VectorRecord`s in the order asked, ids the engine lacks skipped."""
    by_id = {int(r.id): r for r in records}
    return [
        VectorRecord(
            id=point_id,
            payload=by_id[point_id].payload or {},
            vector=plain_vector(by_id[point_id].vector) if with_vectors else None,
        )
        for point_id in unique
        if point_id in by_id
    ]


def plain_vector(vector: object) -> tuple[float, ...]:
    """A stored vector as a tuple of floats; our collections use the default (unnamed) vector."""
    if isinstance(vector, dict):  # named-vector form
        vector = vector.get("")
    if not isinstance(vector, list):
        raise BackendUnavailable(
            f"the vector engine returned an unexpected vector ({type(vector).__name__}); "
            "rebuild the vector slice with `pegas-memory rebuild --target qdrant`"
        )
    return tuple(map(float, vector))  # a generator costs 3x as much: ~1 ms per search (MMR)


class FilterParts(Protocol):
    """The condition constructors of one driver, so `build_filter` is written once."""

    def match_any(self, field: str, values: list[str] | list[int]) -> Any: ...

    def created_between(self, after: datetime | None, before: datetime | None) -> Any: ...

    def has_id(self, ids: list[int]) -> Any: ...

    def combine(self, must: list[Any] | None, must_not: list[Any] | None) -> Any: ...


def build_filter(where: VectorFilter, parts: FilterParts) -> Any:
    """`where` in a driver's filter types: any-of fields ANDed, the time window, excluded ids."""
    must: list[Any] = [
        parts.match_any(field, values) for field, values in where.keyword_conditions()
    ]
    if where.created_after is not None or where.created_before is not None:
        must.append(parts.created_between(where.created_after, where.created_before))
    must_not: list[Any] = []
    if where.exclude_ids:
        must_not.append(parts.has_id([int(i) for i in where.exclude_ids]))
    return parts.combine(must or None, must_not or None)
