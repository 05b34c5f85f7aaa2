"""The content checks judge vectors, not only counts (issue 30, finding 1): a NaN, infinite or
zero vector is a defect whatever PostgreSQL caches (its cosine with anything is NaN, so the
old `cosine(...) < SAME_VECTOR` let it pass), and `reconcile` compares vectors too: it reports
garbled vectors as stale and `--fix` mends them."""

from __future__ import annotations

import math

from pegas_memory.app.requests import SearchRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.outbox.reconcile import reconcile
from pegas_memory.outbox.selfcheck import check_slices
from pegas_memory.outbox.sweep import compare_point, vector_defect
from pegas_memory.qdrant_store.index import VectorRecord
from tests.outbox import slice_damage as damage

WANT = {"type": "fact", "status": "unverified", "doc_id": None}


def _point(vector: tuple[float, ...]) -> VectorRecord:
    return VectorRecord(id=1, payload=dict(WANT), vector=vector)


def test_nan_infinite_and_zero_vectors_are_defects_with_or_without_a_cached_vector() -> None:
    assert vector_defect([0.6, 0.8]) is None
    assert "NaN" in (vector_defect([math.nan, 0.8]) or "")
    assert "infinity" in (vector_defect([math.inf, 0.8]) or "")
    assert vector_defect([0.0, 0.0]) == "a zero vector"
    for cached in ([3.0, 4.0], None):  # nothing cached: the defect is found all the same
        assert compare_point(WANT, cached, _point((math.nan, 0.8))) is not None
        assert compare_point(WANT, cached, _point((0.0, 0.0))) is not None
    assert compare_point(WANT, [3.0, 4.0], _point((0.6, 0.8))) is None


def test_garbled_vectors_are_found_by_the_sweep_and_by_reconcile_and_mended(
    quiet_service: MemoryService,
) -> None:
    service = quiet_service
    claims = [
        "The Volga flows into the Caspian Sea",
        "Волга впадает в Каспийское море",
        "Basalt is an igneous rock",
        "Базальт — магматическая горная порода",
    ]
    stored = damage.store(service, claims)
    rt = service.runtime
    rt.worker().drain(include_delayed=True)
    assert reconcile(rt).drift == 0
    damage.flushed(service)
    # 512 KiB of random bytes over the vector file of the open collection (the case).
    damage.write_random(damage.vector_file(damage.atom_collection(service), "vectors"), seed=3)

    check = next(c for c in check_slices(rt).checks if c.slice == "vector:atom")
    assert check.state == "stale" and set(check.ids) == set(stored.values()), check
    found = reconcile(rt)
    [atoms] = [s for s in found.slices if s.slice == "vector:atom"]
    assert sorted(atoms.stale) == sorted(stored.values()), found.summary()

    assert reconcile(rt, fix=True).fixed
    assert reconcile(rt).drift == 0
    for claim, atom_id in stored.items():
        hits = service.search(SearchRequest(query=claim, preset="dense", limit=3)).hits
        assert atom_id in [h.id for h in hits], claim
