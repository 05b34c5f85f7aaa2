"""Behaviour tests of the vector slice, run against both back ends (congruence tests).

`edge` is Qdrant's engine in-process on a temporary directory; `client` is qdrant-client's local
mode persisted under a temporary path (the test double of the server path). Back-end specific
tests follow: the one-writer lock and crash durability of the edge store, and the error mapping
of the server path against real HTTP on loopback.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from pegas_memory.config import load_settings
from pegas_memory.errors import BackendUnavailable, InvalidInput, NotFound
from pegas_memory.qdrant_store import build_vector_index
from pegas_memory.qdrant_store.base import FailureKind, QdrantBackend
from pegas_memory.qdrant_store.client import ClientVectorIndex
from pegas_memory.qdrant_store.edge import EdgeVectorIndex
from pegas_memory.qdrant_store.index import (
    PreparedBatch,
    VectorFilter,
    VectorIndex,
    VectorPoint,
    collection_name,
    iso_timestamp,
    plan_search,
    prepare_payload,
)
from tests.concurrently import concurrently
from tests.loopback import Replies, free_port, serve

DIM = 16
BASE_TIME = datetime(2025, 1, 1, tzinfo=UTC)
REPO_ROOT = Path(__file__).resolve().parents[2]

Opener = Callable[..., VectorIndex]


@contextlib.contextmanager
def scratch_dir(fallback: Path) -> Iterator[Path]:
    """A directory on tmpfs when there is one, else `fallback`.

    The engine msyncs and fsyncs on every collection creation, index creation and close; on a
    busy shared disk that made each test take seconds. Durability against a process crash
    (the SIGKILL test) holds on tmpfs too, since it only needs the page cache.
    """
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield fallback
        return
    path = Path(tempfile.mkdtemp(prefix="pegas-vectors-", dir=shm))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def store_dir(tmp_path: Path) -> Iterator[Path]:
    with scratch_dir(tmp_path) as path:
        yield path


def _open(kind: str, root: Path, *, persistent: bool = False) -> VectorIndex:
    if kind == "edge":
        # Tiny thresholds make optimize() build HNSW on test-sized collections and the engine
        # walk it, so the tests reach the approximate path the production sizes reach.
        return EdgeVectorIndex(root / "qdrant", indexing_threshold_kb=10, full_scan_threshold_kb=1)
    # Local mode persisted to a path rewrites its store on every upsert (slow), so only the
    # reopen test uses it; the rest run on the in-memory variant of the same code path.
    return ClientVectorIndex.local(root / "qdrant-local" if persistent else None)


@pytest.fixture(params=["edge", "client"])
def open_index(request: pytest.FixtureRequest, store_dir: Path) -> Iterator[Opener]:
    """A function opening the back end on the same storage each call; all opened are closed."""
    opened: list[VectorIndex] = []

    def opener(*, persistent: bool = False) -> VectorIndex:
        index = _open(request.param, store_dir, persistent=persistent)
        opened.append(index)
        return index

    yield opener
    for index in opened:
        index.close()


@pytest.fixture
def index(open_index: Opener) -> VectorIndex:
    return open_index()


@pytest.fixture(scope="module", params=["edge", "client"])
def loaded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[VectorIndex]:
    """Collection "c" holding `corpus()`, shared by the tests that only read."""
    with scratch_dir(tmp_path_factory.mktemp("loaded")) as root:
        index = _open(request.param, root)
        index.ensure_collection("c", DIM)
        index.upsert("c", corpus())
        yield index
        index.close()


def unit(rng: np.random.Generator, dim: int = DIM) -> list[float]:
    v = rng.standard_normal(dim)
    return (v / np.linalg.norm(v)).tolist()


def corpus(n: int = 48, seed: int = 7) -> list[VectorPoint]:
    """Points whose payload fields cycle independently, so every filter selects a mixed subset."""
    rng = np.random.default_rng(seed)
    types = ["text", "definition", "fact", "code"]
    statuses = ["candidate", "verified", "stale"]
    topics = ["physics", "history", "code"]
    tag_sets = [["a"], ["b"], ["a", "c"], [], ["c"]]
    return [
        VectorPoint(
            id=i,
            vector=unit(rng),
            payload={
                "type": types[i % 4],
                "status": statuses[i % 3],
                "doc_id": 100 + i % 5,
                "topic": topics[i % 3 - 1 if i % 2 else i % 3],
                "tags": tag_sets[i % 5],
                "language": "ru" if i % 2 else "en",
                "created_at": BASE_TIME + timedelta(days=i),
                "claim": f"claim {i}",
            },
        )
        for i in range(1, n + 1)
    ]


def matches(point: VectorPoint, where: VectorFilter) -> bool:
    """The filter semantics written out plainly, to check the engines against."""
    p = point.payload
    created = p["created_at"]
    after, before = (
        bound.replace(tzinfo=UTC) if bound and bound.tzinfo is None else bound
        for bound in (where.created_after, where.created_before)
    )
    return (
        (not where.types or p["type"] in where.types)
        and (not where.statuses or p["status"] in where.statuses)
        and (not where.doc_ids or p["doc_id"] in where.doc_ids)
        and (not where.topics or p["topic"] in where.topics)
        and (not where.tags or bool(set(p["tags"]) & set(where.tags)))
        and (not where.languages or p["language"] in where.languages)
        and (after is None or created >= after)
        and (before is None or created < before)
        and point.id not in where.exclude_ids
    )


FILTERS = {
    "types": VectorFilter(types=("fact", "code")),
    "statuses": VectorFilter(statuses=("verified",)),
    "doc_ids": VectorFilter(doc_ids=(101, 103)),
    "topics": VectorFilter(topics=("history",)),
    "tags": VectorFilter(tags=("a", "c")),
    "languages": VectorFilter(languages=("ru",)),
    "created_after": VectorFilter(created_after=BASE_TIME + timedelta(days=30)),
    "created_before": VectorFilter(created_before=BASE_TIME + timedelta(days=10)),
    "created_naive_window": VectorFilter(
        created_after=datetime(2025, 1, 6), created_before=datetime(2025, 1, 20)
    ),
    "exclude_ids": VectorFilter(exclude_ids=(1, 2, 3, 40)),
    "combined": VectorFilter(
        types=("text", "fact", "code"),
        statuses=("candidate", "verified"),
        tags=("a", "b"),
        languages=("en",),
        created_after=BASE_TIME + timedelta(days=3),
        exclude_ids=(5,),
    ),
    "matches_nothing": VectorFilter(types=("logical_rule",)),
}


# --- congruence: the same behaviour on both back ends ---


def test_upsert_then_search_finds_the_point_itself(loaded: VectorIndex) -> None:
    target = corpus()[9]
    hits = loaded.search("c", target.vector, k=5)
    assert hits[0].id == target.id
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].payload["claim"] == "claim 10"
    assert hits[0].payload["created_at"] == iso_timestamp(BASE_TIME + timedelta(days=10))
    assert hits[0].payload["tags"] == ["a"]


def test_scores_are_cosine_similarities(index: VectorIndex) -> None:
    index.ensure_collection("c", 2)
    index.upsert("c", [VectorPoint(1, [3.0, 0.0], {}), VectorPoint(2, [1.0, 1.0], {})])
    hits = index.search("c", [1.0, 0.0], k=2)
    assert [(h.id, round(h.score, 5)) for h in hits] == [(1, 1.0), (2, round(2**-0.5, 5))]


@pytest.mark.parametrize("case", sorted(FILTERS))
def test_each_filter_returns_exactly_the_matching_points(loaded: VectorIndex, case: str) -> None:
    points = corpus()
    where = FILTERS[case]
    hits = loaded.search("c", points[0].vector, k=100, where=where)
    expected = {p.id for p in points if matches(p, where)}
    assert {h.id for h in hits} == expected
    if case != "matches_nothing":
        assert 0 < len(expected) < len(points)
        for hit in hits:
            assert matches(next(p for p in points if p.id == hit.id), where)


def test_an_empty_filter_is_no_filter(loaded: VectorIndex) -> None:
    assert len(loaded.search("c", corpus()[0].vector, k=100, where=VectorFilter())) == 48


def test_upsert_is_idempotent_and_replaces_by_id(index: VectorIndex) -> None:
    points = corpus()
    index.ensure_collection("c", DIM)
    index.ensure_collection("c", DIM)
    index.upsert("c", points)
    index.upsert("c", points)
    assert index.count("c") == len(points)
    moved = VectorPoint(id=3, vector=points[20].vector, payload={"type": "code", "claim": "new"})
    index.upsert("c", [moved])
    assert index.count("c") == len(points)
    [record] = index.retrieve("c", [3])
    assert record.payload == {"type": "code", "claim": "new"}
    assert {h.id for h in index.search("c", points[20].vector, k=2)} == {3, 21}


def test_duplicate_ids_in_one_batch_keep_the_last(index: VectorIndex) -> None:
    rng = np.random.default_rng(1)
    index.ensure_collection("c", DIM)
    index.upsert("c", [VectorPoint(1, unit(rng), {"v": 1}), VectorPoint(1, unit(rng), {"v": 2})])
    assert index.count("c") == 1
    assert index.retrieve("c", [1])[0].payload == {"v": 2}


def test_delete_is_idempotent_and_ignores_missing(index: VectorIndex) -> None:
    points = corpus()
    index.ensure_collection("c", DIM)
    index.upsert("c", points)
    index.delete("c", [1, 2, 999_999])
    index.delete("c", [1, 2])
    index.delete("c", [])
    index.delete("never_created", [1])
    assert index.count("c") == len(points) - 2
    assert index.retrieve("c", [1, 2, 3]) == index.retrieve("c", [3])
    assert 1 not in {h.id for h in index.search("c", points[0].vector, k=100)}


def test_retrieve_keeps_the_asked_order_and_returns_normalised_vectors(
    index: VectorIndex,
) -> None:
    index.ensure_collection("c", 3)
    index.upsert("c", [VectorPoint(i, [float(i), 0.0, 2.0 * i], {"i": i}) for i in (1, 2, 3)])
    records = index.retrieve("c", [3, 42, 1, 3], with_vectors=True)
    assert [r.id for r in records] == [3, 1]
    assert records[0].vector == pytest.approx((5**-0.5, 0.0, 2 * 5**-0.5), abs=1e-6)
    assert index.retrieve("c", [1])[0].vector is None
    assert index.retrieve("c", []) == []


def test_reopen_keeps_points_and_indexes(open_index: Opener) -> None:
    points = corpus()
    first = open_index(persistent=True)
    first.ensure_collection("c", DIM)
    first.upsert("c", points)
    first.delete("c", [7])
    before = first.search("c", points[4].vector, k=5, where=FILTERS["combined"])
    first.close()
    second = open_index(persistent=True)
    assert second.collections() == ["c"]
    assert second.count("c") == len(points) - 1
    after = second.search("c", points[4].vector, k=5, where=FILTERS["combined"])
    assert [(h.id, h.payload) for h in after] == [(h.id, h.payload) for h in before]
    assert [h.score for h in after] == pytest.approx([h.score for h in before], abs=1e-6)
    second.ensure_collection("c", DIM)  # reopening an existing collection is a no-op


def test_count_and_iter_ids_page_through_everything(index: VectorIndex) -> None:
    rng = np.random.default_rng(3)
    ids = rng.choice(10**12, size=2100, replace=False).tolist()
    index.ensure_collection("c", 4)
    index.upsert("c", [VectorPoint(int(i), rng.standard_normal(4).tolist(), {}) for i in ids])
    assert index.count("c") == 2100
    listed = list(index.iter_ids("c", batch=1000))
    assert listed == sorted(ids)
    assert list(index.iter_ids("c", batch=7))[:3] == sorted(ids)[:3]


def test_two_models_never_share_a_collection(index: VectorIndex) -> None:
    old = collection_name("pm_atoms", "atom", "embeddinggemma", DIM)
    new = collection_name("pm_atoms", "atom", "e5-small", DIM)
    assert old != new
    rng = np.random.default_rng(5)
    v = unit(rng)
    index.ensure_collection(old, DIM)
    index.ensure_collection(new, DIM)
    index.upsert(old, [VectorPoint(1, v, {"model": "gemma"})])
    index.upsert(new, [VectorPoint(2, unit(rng), {"model": "e5"})])
    assert [h.id for h in index.search(new, v, k=10)] == [2]
    assert [h.id for h in index.search(old, v, k=10)] == [1]
    assert index.collections() == sorted([old, new])


def test_drop_removes_the_collection_and_is_idempotent(index: VectorIndex) -> None:
    index.ensure_collection("a", DIM)
    index.ensure_collection("b", DIM)
    index.upsert("a", corpus(5))
    index.drop("a")
    index.drop("a")
    assert index.collections() == ["b"]
    with pytest.raises(NotFound, match="ensure_collection"):
        index.search("a", corpus(1)[0].vector, k=1)
    with pytest.raises(NotFound):
        index.count("a")
    index.ensure_collection("a", 3)  # the name is free again, even for another dimension
    assert index.count("a") == 0


def test_dimension_mismatches_are_refused(index: VectorIndex) -> None:
    index.ensure_collection("c", DIM)
    with pytest.raises(InvalidInput, match="holds 16-d vectors, not 8-d"):
        index.ensure_collection("c", 8)
    with pytest.raises(InvalidInput, match="has 8 dimensions"):
        index.upsert("c", [VectorPoint(1, [0.5] * 8, {})])
    with pytest.raises(InvalidInput, match="dimensions"):
        index.upsert("c", [VectorPoint(1, [0.5] * DIM, {}), VectorPoint(2, [0.5] * 3, {})])
    with pytest.raises(InvalidInput, match="has 17 dimensions"):
        index.search("c", [0.5] * 17, k=1)
    assert index.count("c") == 0


BAD_POINTS = [
    (VectorPoint(-1, [1.0] * DIM, {}), "non-negative"),
    (VectorPoint(True, [1.0] * DIM, {}), "non-negative"),  # type: ignore[arg-type]
    (VectorPoint(1, [0.0] * DIM, {}), "all zeros"),
    (VectorPoint(1, [float("nan")] + [1.0] * (DIM - 1), {}), "NaN"),
    (VectorPoint(1, [1.0] * DIM, {"created_at": "yesterday"}), "ISO 8601"),
    (VectorPoint(1, [1.0] * DIM, {"created_at": 1700000000}), "datetime or ISO"),
]


def test_bad_points_are_refused_before_any_write(index: VectorIndex) -> None:
    index.ensure_collection("c", DIM)
    good = VectorPoint(99, [1.0] * DIM, {})
    for point, message in BAD_POINTS:
        with pytest.raises(InvalidInput, match=message):
            index.upsert("c", [good, point])
    assert index.count("c") == 0


def test_bad_arguments_are_refused(index: VectorIndex) -> None:
    index.ensure_collection("c", DIM)
    with pytest.raises(InvalidInput, match="k must be"):
        index.search("c", [1.0] * DIM, k=0)
    with pytest.raises(InvalidInput, match="collection name"):
        index.ensure_collection("../escape", DIM)
    with pytest.raises(InvalidInput, match="dimension"):
        index.ensure_collection("d", 0)
    with pytest.raises(InvalidInput, match="must be strings"):
        index.search("c", [1.0] * DIM, k=1, where=VectorFilter(types=(3,)))  # type: ignore[arg-type]
    with pytest.raises(NotFound, match="does not exist"):
        index.upsert("missing", [VectorPoint(1, [1.0] * DIM, {})])


# --- congruence of failures: the same failure is the same error class on both back ends ---

# Points our checks let through but the engines refuse: a payload value that is not JSON.
ENGINE_REJECTED = [
    VectorPoint(1, [1.0] * DIM, {"note": object()}),
    VectorPoint(1, [1.0] * DIM, {"nested": {"deep": object()}}),
]


def test_a_point_the_engine_rejects_is_invalid_input(index: VectorIndex) -> None:
    """A rejection is not an outage: retrying the same point would fail the same way."""
    index.ensure_collection("c", DIM)
    for point in ENGINE_REJECTED:
        with pytest.raises(InvalidInput, match="rejected the request to upsert points"):
            index.upsert("c", [point])
    index.upsert("c", [VectorPoint(2, [1.0] * DIM, {"note": "fine"})])  # still serving
    assert index.count("c") == 1


def test_a_raw_point_of_the_wrong_dimension_is_invalid_input(index: VectorIndex) -> None:
    """Sent to the engine unchecked (past `prepare_points`), both engines refuse it alike."""
    assert isinstance(index, QdrantBackend)
    index.ensure_collection("c", DIM)
    raw = PreparedBatch(ids=(1,), vectors=np.ones((1, DIM - 3), dtype=np.float32), payloads=({},))
    with index._lock, pytest.raises(InvalidInput, match="dimension"):
        index._write_batch("c", raw)
    assert index.count("c") == 0


def test_a_missing_collection_is_not_found(index: VectorIndex) -> None:
    for call in (
        lambda: index.count("absent"),
        lambda: index.search("absent", [1.0] * DIM, k=1),
        lambda: index.retrieve("absent", [1]),
        lambda: list(index.iter_ids("absent")),
        lambda: index.upsert("absent", [VectorPoint(1, [1.0] * DIM, {})]),
        lambda: index.optimize("absent"),
    ):
        with pytest.raises(NotFound, match="'absent' does not exist"):
            call()
    index.delete("absent", [1])
    index.drop("absent")


def _close_engine_under(index: VectorIndex) -> None:
    """Close the driver's engine behind the index's back, as a crash of the engine would."""
    if isinstance(index, EdgeVectorIndex):
        for opened in index._shards.values():
            opened.shard.close()
    else:
        assert isinstance(index, ClientVectorIndex) and index._client is not None
        index._client.close()


def test_an_engine_gone_under_the_index_is_backend_unavailable(index: VectorIndex) -> None:
    index.ensure_collection("c", DIM)
    index.upsert("c", [VectorPoint(1, [1.0] * DIM, {})])
    _close_engine_under(index)
    for call in (
        lambda: index.count("c"),
        lambda: index.upsert("c", [VectorPoint(2, [1.0] * DIM, {})]),
        lambda: index.search("c", [1.0] * DIM, k=1),
    ):
        with pytest.raises(BackendUnavailable):
            call()


def test_a_closed_index_is_backend_unavailable(index: VectorIndex) -> None:
    index.ensure_collection("c", DIM)
    index.close()
    for call in (
        lambda: index.count("c"),
        lambda: index.upsert("c", [VectorPoint(2, [1.0] * DIM, {})]),
        lambda: index.collections(),
    ):
        with pytest.raises(BackendUnavailable, match="closed"):
            call()


def test_both_back_ends_classify_driver_errors_alike(store_dir: Path) -> None:
    """The one classification, seen from each driver's own exception types."""
    edge = EdgeVectorIndex(store_dir / "e")
    client = ClientVectorIndex.local()
    try:
        kinds = {
            "edge dimension": edge._classify(Exception("Vector dimension error: expected 4")),
            "client dimension": client._classify(ValueError("Wrong input: Vector dimension")),
            "edge payload": edge._classify(TypeError("failed to extract enum Helper")),
            "client payload": client._classify(ValueError("Unable to serialize unknown type")),
            "edge closed": edge._classify(Exception("Service runtime error: not initialized")),
            "client closed": client._classify(RuntimeError("QdrantLocal instance is closed")),
            "edge disk": edge._classify(OSError(28, "No space left on device")),
            "client refused": client._classify(ConnectionRefusedError(111, "refused")),
        }
        assert {k: v.kind if v else None for k, v in kinds.items()} == {
            "edge dimension": FailureKind.REJECTED,
            "client dimension": FailureKind.REJECTED,
            "edge payload": FailureKind.REJECTED,
            "client payload": FailureKind.REJECTED,
            "edge closed": FailureKind.OUTAGE,
            "client closed": FailureKind.OUTAGE,
            "edge disk": FailureKind.OUTAGE,
            "client refused": FailureKind.OUTAGE,
        }
        # What is not the driver's is a bug and propagates as it is.
        assert edge._classify(KeyError("x")) is None
        assert client._classify(KeyError("x")) is None
    finally:
        edge.close()
        client.close()


def test_filtered_top1_is_not_missed_after_hnsw_build(index: VectorIndex) -> None:
    """Needles matching a selective combined filter sit in a crowd of closer points."""
    rng = np.random.default_rng(11)
    dim, n = 32, 4000
    centre = rng.standard_normal(dim)
    rows = np.vstack([centre + 0.3 * rng.standard_normal((n, dim)), rng.standard_normal((40, dim))])
    points = [
        VectorPoint(
            i + 1,
            rows[i].tolist(),
            {
                "topic": "crowd" if i < n else "needle",
                "language": "ru" if i % 2 else "en",
                "created_at": BASE_TIME + timedelta(hours=i),
            },
        )
        for i in range(len(rows))
    ]
    index.ensure_collection("c", dim)
    index.upsert("c", points)
    assert index.optimize("c") is isinstance(index, EdgeVectorIndex)
    normed = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    where = VectorFilter(
        topics=("needle",), languages=("ru",), created_after=BASE_TIME + timedelta(hours=n + 10)
    )
    allowed = np.array([matches(p, where) for p in points])
    assert 5 < allowed.sum() < 40
    for _ in range(12):
        query = centre + 0.5 * rng.standard_normal(dim)
        scores = np.where(allowed, normed @ (query / np.linalg.norm(query)), -9.0)
        hits = index.search("c", query.tolist(), k=1, where=where)
        assert [h.id for h in hits] == [int(np.argmax(scores)) + 1]


# --- pure logic ---


def test_collection_names_are_safe_distinct_and_stable() -> None:
    assert collection_name("pm_atoms", "atom", "embeddinggemma", 768) == (
        "pm_atoms_atom_embeddinggemma_768d"
    )
    a = collection_name("pm_atoms", "atom", "e5:small", 384)
    b = collection_name("pm_atoms", "atom", "e5/small", 384)
    c = collection_name("pm_atoms", "atom", "E5-small", 384)
    assert len({a, b, c}) == 3
    assert a == collection_name("pm_atoms", "atom", "e5:small", 384)
    assert collection_name("pm_atoms", "trace", "embeddinggemma", 768) != (
        collection_name("pm_atoms", "atom", "embeddinggemma", 768)
    )
    assert collection_name("p", "atom", "m", 384) != collection_name("p", "atom", "m", 768)
    long_name = collection_name("pm_atoms", "atom", "hf.co/" + "x" * 300, 768)
    assert len(long_name) < 120
    for name in (a, b, c, long_name):
        assert name.replace("_", "").replace("-", "").isalnum()
    with pytest.raises(InvalidInput):
        collection_name("pm_atoms", "atom", "  ", 768)
    with pytest.raises(InvalidInput):
        collection_name("pm_atoms", "chunk", "m", 768)  # type: ignore[arg-type]


def test_search_plan_prefers_exact_for_few_candidates() -> None:
    assert plan_search(500, 10, exact_limit=20_000, hnsw_ef=128).exact
    wide = plan_search(50_000, 10, exact_limit=20_000, hnsw_ef=128)
    assert (wide.exact, wide.hnsw_ef) == (False, 128)
    assert plan_search(50_000, 100, exact_limit=20_000, hnsw_ef=128).hnsw_ef == 400


def test_payload_datetimes_become_utc_iso_strings() -> None:
    naive = datetime(2025, 3, 1, 12, 0)
    moscow = datetime(2025, 3, 1, 15, 0, tzinfo=UTC) + timedelta(hours=0)
    out = prepare_payload({"created_at": naive, "seen": moscow, "tags": ("a", "b")})
    assert out == {
        "created_at": "2025-03-01T12:00:00+00:00",
        "seen": "2025-03-01T15:00:00+00:00",
        "tags": ["a", "b"],
    }
    assert prepare_payload({"created_at": "2025-03-01T15:00:00+03:00"})["created_at"] == (
        "2025-03-01T12:00:00+00:00"
    )


# --- the embedded back end ---


def test_edge_hnsw_path_is_close_and_exact_path_is_perfect(store_dir: Path) -> None:
    """The same data searched through HNSW (exact_limit=0) and by the default plan."""
    rng = np.random.default_rng(2)
    rows = rng.standard_normal((3000, 24))
    normed = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    kinds = ["text", "fact", "code"]
    points = [VectorPoint(i + 1, rows[i].tolist(), {"type": kinds[i % 3]}) for i in range(3000)]
    where = VectorFilter(types=("text", "code"))
    queries = rng.standard_normal((40, 24))
    truth = []
    for q in queries:
        scores = normed @ (q / np.linalg.norm(q))
        scores[np.arange(3000) % 3 == 1] = -9.0  # "fact" rows are filtered out
        truth.append(int(np.argmax(scores)) + 1)
    found = {}
    for exact_limit in (0, 20_000):
        root = store_dir / f"limit{exact_limit}"
        with EdgeVectorIndex(
            root, exact_limit=exact_limit, indexing_threshold_kb=10, full_scan_threshold_kb=1
        ) as index:
            index.ensure_collection("c", 24)
            index.upsert("c", points)
            assert index.optimize("c") is True
            assert index.optimize("c") is False  # nothing left to index
            hits = [index.search("c", q.tolist(), k=5, where=where) for q in queries]
            assert all(h.payload["type"] != "fact" for hs in hits for h in hs)
            found[exact_limit] = sum(hs[0].id == t for hs, t in zip(hits, truth, strict=True))
    assert found[20_000] == len(queries)
    assert found[0] >= 0.9 * len(queries)


def test_edge_refuses_a_second_instance_in_process(store_dir: Path) -> None:
    first = EdgeVectorIndex(store_dir / "q")
    try:
        with pytest.raises(BackendUnavailable, match="in use by another process"):
            EdgeVectorIndex(store_dir / "q")
    finally:
        first.close()
    EdgeVectorIndex(store_dir / "q").close()  # the lock is released on close


def _run_python(code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO_ROOT,
    )


def test_edge_refuses_a_second_process(store_dir: Path) -> None:
    with EdgeVectorIndex(store_dir / "q") as index:
        index.ensure_collection("c", DIM)
        index.upsert("c", corpus(3))
        result = _run_python(
            f"""
            from pathlib import Path
            from pegas_memory.errors import BackendUnavailable
            from pegas_memory.qdrant_store.edge import EdgeVectorIndex
            try:
                EdgeVectorIndex(Path({str(store_dir / "q")!r}))
            except BackendUnavailable as exc:
                print("refused:", exc)
            """
        )
        assert "refused:" in result.stdout, result.stderr
        assert "PEGAS_QDRANT_URL" in result.stdout
        assert index.count("c") == 3


def test_edge_keeps_acknowledged_writes_when_killed(store_dir: Path) -> None:
    result = _run_python(
        f"""
        import os, signal
        from pathlib import Path
        from pegas_memory.qdrant_store.index import VectorPoint
        from pegas_memory.qdrant_store.edge import EdgeVectorIndex
        index = EdgeVectorIndex(Path({str(store_dir / "q")!r}))
        index.ensure_collection("c", 4)
        points = [VectorPoint(i, [1.0, 2.0, 3.0, float(i)], {{"i": i}}) for i in range(1, 301)]
        index.upsert("c", points)
        index.delete("c", [5])
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    assert result.returncode == -9, result.stderr
    with EdgeVectorIndex(store_dir / "q") as index:
        assert index.count("c") == 299
        assert index.retrieve("c", [300])[0].payload == {"i": 300}


def test_edge_threads_share_one_instance(store_dir: Path) -> None:
    with EdgeVectorIndex(store_dir / "q") as index:
        index.ensure_collection("c", DIM)

        def work(worker: int) -> None:
            rng = np.random.default_rng(worker)
            for step in range(20):
                base = worker * 1000 + step * 10
                index.upsert("c", [VectorPoint(base + j, unit(rng), {}) for j in range(10)])
                index.search("c", unit(rng), k=5, where=VectorFilter(exclude_ids=(base,)))
                sum(1 for _ in index.iter_ids("c", batch=50))

        assert concurrently(work, 4, timeout=60) == []
        assert index.count("c") == 4 * 20 * 10


def test_edge_closed_index_says_so(store_dir: Path) -> None:
    index = EdgeVectorIndex(store_dir / "q")
    index.close()
    index.close()
    with pytest.raises(BackendUnavailable, match="closed"):
        index.collections()


# --- the server back end ---


def test_client_unreachable_server_is_backend_unavailable() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with ClientVectorIndex.connect(url, timeout=2) as index:
        with pytest.raises(BackendUnavailable, match=f"Qdrant at {url} is unreachable"):
            index.ensure_collection("c", DIM)
        with pytest.raises(BackendUnavailable, match="unreachable"):
            index.search("c", [1.0] * DIM, k=1)


class _FakeQdrant(Replies):
    """Answers like a Qdrant server would: 404 for unknown collections, 503 otherwise."""

    def do_GET(self) -> None:
        if self.path.startswith("/collections/"):
            body = b'{"status":{"error":"Not found: Collection doesn\'t exist!"}}'
            self.reply(404, body, "application/json")
        else:
            self.reply(503, b'{"status":{"error":"Service Unavailable"}}', "application/json")


@pytest.fixture
def fake_qdrant() -> Iterator[str]:
    with serve(_FakeQdrant) as url:
        yield url


def test_client_maps_http_statuses(fake_qdrant: str) -> None:
    with ClientVectorIndex.connect(fake_qdrant, timeout=5) as index:
        with pytest.raises(NotFound, match="'c' does not exist"):
            index.count("c")
        with pytest.raises(BackendUnavailable, match=r"HTTP 503"):
            index.collections()
        index.delete("c", [1])  # a missing collection has nothing to delete


def test_client_local_path_refuses_a_second_client(tmp_path: Path) -> None:
    with (
        ClientVectorIndex.local(tmp_path / "l"),
        pytest.raises(BackendUnavailable, match="in use"),
    ):
        ClientVectorIndex.local(tmp_path / "l")


def test_settings_choose_the_back_end(tmp_path: Path) -> None:
    embedded = build_vector_index(load_settings(data_dir=tmp_path))
    try:
        assert isinstance(embedded, EdgeVectorIndex)
        assert (tmp_path / "qdrant" / ".lock").exists()
    finally:
        embedded.close()
    url = f"http://127.0.0.1:{free_port()}"
    server = build_vector_index(load_settings(data_dir=tmp_path, qdrant_url=url))
    try:
        assert isinstance(server, ClientVectorIndex)
        with pytest.raises(BackendUnavailable, match="unreachable"):
            server.collections()
    finally:
        server.close()
