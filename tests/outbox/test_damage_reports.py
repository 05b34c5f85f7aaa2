"""Damage the self-check finds is reported with what is being done or what to do (issue 30):
with the automatic repair off, a vector collection whose directory vanished under a running
serve and FalkorDB append-only files that no longer load show in memory_stats and in `doctor`
(which names the rebuild), and `reconcile --fix` repairs the collection instead of failing on
it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.service import MemoryService
from pegas_memory.doctor import run_checks
from pegas_memory.outbox.reconcile import reconcile
from tests.outbox import slice_damage as damage


@pytest.fixture
def serve(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with damage.serving(tmp_path / "data", database_url, 60.0, auto_repair_slices=False) as svc:
        yield svc


def test_damage_is_reported_in_stats_and_doctor_and_reconcile_repairs_it(
    serve: MemoryService,
) -> None:
    stored = damage.store(
        serve, ["Copper conducts electricity well", "Медь хорошо проводит электричество"]
    )
    damage.settled(serve)
    damage.delete_tree(damage.atom_collection(serve))
    damage.write_random(damage.graph_file(serve, "AOF base (dump)"), seed=5, at_least=4096)

    slices = {s.name: s for s in serve.stats().slices}
    vector, graph = slices["vector"], slices["graph"]
    assert vector.health == "damaged", vector
    assert any("vanished" in p for p in vector.problems), vector.problems
    assert any("pegas-memory rebuild --target qdrant" in p for p in vector.problems)
    assert graph.health == "damaged" and any("no longer load" in p for p in graph.problems)

    checks = {c.name: c for c in run_checks(serve.settings)}
    assert not checks["vector slice vs PostgreSQL"].ok
    assert "vanished" in checks["vector slice vs PostgreSQL"].detail
    assert "rebuild --target qdrant" in (checks["vector slice vs PostgreSQL"].fix or "")
    assert not checks["graph slice vs PostgreSQL"].ok

    found = reconcile(serve.runtime)
    [atoms] = [s for s in found.slices if s.slice == "vector:atom"]
    assert "vanished" in atoms.damaged and found.drift >= len(stored)
    assert reconcile(serve.runtime, fix=True).fixed
    assert reconcile(serve.runtime).drift == 0
    assert damage.missing_from_dense(serve, stored) == []
