"""The self-check compares contents, not only counts (issue 18): a vector slice with exactly as
many points as PostgreSQL has rows, but some of them wrong (another atom's vector, a stale
status, a point for an id PostgreSQL does not have in place of one it has), is reported as
stale in stats and search warnings, and mended from PostgreSQL."""

from __future__ import annotations

import pytest

from pegas_memory.app.requests import SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.outbox import sweep
from pegas_memory.outbox.selfcheck import check_slices, repair
from pegas_memory.outbox.sweep import compare_point, cosine
from pegas_memory.qdrant_store.index import VectorPoint, VectorRecord
from tests.example_facts import MIXED

CLAIMS = MIXED


@pytest.fixture
def service(quiet_service: MemoryService) -> MemoryService:
    return quiet_service


def _stored(service: MemoryService) -> dict[str, int]:
    ids = {claim: service.store(StoreRequest(claim=claim)).id for claim in CLAIMS}
    service.runtime.worker().drain(include_delayed=True)
    return ids


def _vector_atom(service: MemoryService):  # type: ignore[no-untyped-def]
    found = check_slices(service.runtime)
    return next(c for c in found.checks if c.slice == "vector:atom")


def test_compare_point_names_what_differs() -> None:
    want = {"type": "fact", "status": "unverified", "doc_id": None}
    same = VectorRecord(id=1, payload=dict(want), vector=(0.6, 0.8))
    assert compare_point(want, [3.0, 4.0], same) is None  # the same direction: the same vector
    assert compare_point(want, [4.0, -3.0], same) == "another text's vector"
    assert compare_point(want, None, same) is None  # nothing cached: payload only
    stale = VectorRecord(id=1, payload={**want, "status": "stale"}, vector=(0.6, 0.8))
    assert "status" in (compare_point(want, [3.0, 4.0], stale) or "")
    assert compare_point(want, [3.0, 4.0], None) == "missing"
    assert cosine([1.0, 0.0], [0.0]) == 0.0


def test_points_replaced_keeping_the_count_are_found_and_mended(service: MemoryService) -> None:
    ids = _stored(service)
    rt = service.runtime
    index = rt.vectors.get()
    name = rt.projector.collection("atom")
    assert _vector_atom(service).state == "ok"

    volga, basalt = ids[CLAIMS[0]], ids[CLAIMS[1]]
    mercury, heart = ids[CLAIMS[2]], ids[CLAIMS[3]]
    records = {r.id: r for r in index.retrieve(name, list(ids.values()), with_vectors=True)}
    assert records[volga].vector is not None
    # The Volga's point now carries Basalt's vector; Mercury's a stale status; the heart's
    # point is gone and a point for an id PostgreSQL never had holds its place.
    index.upsert(
        name,
        [
            VectorPoint(volga, list(records[basalt].vector or ()), dict(records[volga].payload)),
            VectorPoint(
                mercury,
                list(records[mercury].vector or ()),
                {
                    **records[mercury].payload,
                    "status": "stale",
                },
            ),
            VectorPoint(987_654_321, list(records[heart].vector or ()), records[heart].payload),
        ],
    )
    index.delete(name, [heart])
    assert index.count(name) == len(CLAIMS)  # the count alone would say "ok"

    check = _vector_atom(service)
    assert check.state == "stale", check
    assert check.damaged and set(check.ids) == {volga, mercury, heart}
    assert "another text's vector" in check.describe()

    stats = next(s for s in service.stats().slices if s.name == "vector")
    assert stats.health == "damaged"
    assert any("differ from PostgreSQL" in p for p in stats.problems)
    warnings = service.search(SearchRequest(query="Caspian Sea", preset="dense")).warnings
    assert any("vector slice is damaged" in w for w in warnings), warnings

    report = repair(rt, check_slices(rt))
    assert report.rebuilt == ("qdrant",)
    assert report.results[0]["reprojected"] == 3  # mended point by point, not rebuilt
    assert _vector_atom(service).state == "ok"
    assert index.count(name) == len(CLAIMS)
    assert not index.retrieve(name, [987_654_321])  # the orphan went
    mended = {r.id: r for r in index.retrieve(name, [volga, heart], with_vectors=True)}
    assert set(mended) == {volga, heart}
    assert cosine(mended[volga].vector or (), records[volga].vector or ()) > 0.999
    hits = service.search(SearchRequest(query=CLAIMS[0], preset="dense", limit=3)).hits
    assert volga in [h.id for h in hits]


def test_the_sweep_walks_the_whole_table_window_by_window(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each check compares the next window, so a wrong point far along is found in turn."""
    ids = _stored(service)
    rt = service.runtime
    index = rt.vectors.get()
    name = rt.projector.collection("atom")
    last = max(ids.values())
    record = index.retrieve(name, [last], with_vectors=True)[0]
    wrong = {**record.payload, "type": "definition"}
    index.upsert(name, [VectorPoint(last, list(record.vector or ()), wrong)])
    monkeypatch.setattr(sweep, "SWEEP_POINTS", 2)  # three windows of two over six atoms
    cursors: dict[str, int] = {}
    states = []
    for _ in range(4):
        found = check_slices(rt, cursors)
        states.append(next(c for c in found.checks if c.slice == "vector:atom").state)
    assert states == ["ok", "ok", "stale", "ok"]  # then it starts over from the first window
