"""Damage to the vector slice's files under a running serve (issue 30): random bytes written
into each file kind of the atoms' collection in turn, each truncated, the directory deleted.
For each: noticed by the next self-check, reported (the repair note of memory_stats names it),
repaired from PostgreSQL without a restart, every acknowledged atom found by dense search, and
`reconcile` finds no drift. One serve (engine host, embedded worker, a short self-check period)
is shared by the cases; a longer sweep over more seeds is marked `slow`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pegas_memory.app.service import MemoryService
from tests.outbox import slice_damage as damage


@pytest.fixture(scope="module")
def serve(embedded_pg, tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryService]:  # type: ignore[no-untyped-def]
    with damage.suite_serve(embedded_pg.uri, tmp_path_factory, "vector-damage") as service:
        yield service


ACKNOWLEDGED: dict[str, int] = {}


def _claims(case: str) -> list[str]:
    return [
        f"The {case} case keeps the Volga flowing into the Caspian Sea",
        f"В случае «{case}» Волга по-прежнему впадает в Каспийское море",
    ]


def _damage_and_repair(
    serve: MemoryService,
    case: str,
    inflict: Callable[[Path], None],
    *,
    store_meanwhile: bool = False,
    may_be_harmless: bool = False,
) -> damage.Outcome | None:
    outcome = damage.damaged_under_serve(
        serve,
        ACKNOWLEDGED,
        _claims(case),
        lambda: inflict(damage.atom_collection(serve)),
        flush=True,  # every file kind on disk, whatever the cases before did
        meanwhile=[f"After the {case} damage, basalt is still an igneous rock"]
        if store_meanwhile
        else None,
        may_be_harmless=may_be_harmless,
    )
    if outcome is not None:
        damage.assert_noticed_and_reported(serve, outcome, "vector:atom")
    damage.assert_nothing_lost(serve, ACKNOWLEDGED)
    return outcome


@pytest.mark.parametrize("kind", sorted(damage.VECTOR_FILES))
def test_random_bytes_in_a_vector_file_are_noticed_and_repaired(
    serve: MemoryService, kind: str
) -> None:
    def inflict(collection: Path) -> None:
        damage.write_random(damage.vector_file(collection, kind), seed=len(kind))

    _damage_and_repair(serve, f"random {kind}", inflict)


@pytest.mark.parametrize("kind", sorted(damage.VECTOR_FILES))
def test_a_truncated_vector_file_is_noticed_and_repaired(serve: MemoryService, kind: str) -> None:
    def inflict(collection: Path) -> None:
        damage.truncate(damage.vector_file(collection, kind))

    _damage_and_repair(serve, f"truncated {kind}", inflict)


def test_the_collection_deleted_under_a_running_serve_is_noticed_and_repaired(
    serve: MemoryService,
) -> None:
    outcome = _damage_and_repair(
        serve, "deleted directory", damage.delete_tree, store_meanwhile=True
    )
    assert outcome is not None
    assert any("vanished" in f for f in outcome.report.found), outcome.report.found


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 6))
@pytest.mark.parametrize("kind", sorted(damage.VECTOR_FILES))
def test_random_bytes_with_more_seeds_and_offsets_are_repaired(
    serve: MemoryService, kind: str, seed: int
) -> None:
    """The longer sweep: other random bytes, written at an offset inside the file too (where
    nothing is read they may harm nothing: then nothing may be lost either)."""

    def inflict(collection: Path) -> None:
        path = damage.vector_file(collection, kind)
        size = path.stat().st_size
        data = damage.random_bytes(min(size, 4096), seed)
        with open(path, "r+b") as handle:
            handle.seek((seed * 997) % max(1, size - len(data)))
            handle.write(data)

    _damage_and_repair(serve, f"seed {seed} {kind}", inflict, may_be_harmless=True)
