"""Damage to the graph slice's files under a running serve (issue 30): random bytes written
into each file of the embedded FalkorDB's append-only directory in turn (the RDB base, the
increment, the manifest), each truncated, the directory deleted. The running server's memory
is intact, so nothing is lost yet, but the next start would fail or load less: for each case
the self-check notices within one period (a copy of the files loaded apart), reports it, and
writes the files anew; a copy of them then loads the whole graph, every acknowledged atom is
found by dense search and in the graph, and `reconcile` finds no drift."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pegas_memory.app.service import MemoryService
from tests.outbox import slice_damage as damage


@pytest.fixture(scope="module")
def serve(embedded_pg, tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryService]:  # type: ignore[no-untyped-def]
    with damage.suite_serve(embedded_pg.uri, tmp_path_factory, "graph-damage") as service:
        yield service


ACKNOWLEDGED: dict[str, int] = {}


def _damage_and_repair(
    serve: MemoryService, case: str, inflict: Callable[[], None]
) -> damage.Outcome:
    claims = [
        f"The {case} case keeps Mercury the closest planet to the Sun",
        f"В случае «{case}» Меркурий остаётся ближайшей к Солнцу планетой",
    ]
    outcome = damage.damaged_under_serve(serve, ACKNOWLEDGED, claims, inflict)
    assert outcome is not None
    assert any(f.startswith("graph:files") for f in outcome.report.found), outcome.report
    damage.assert_noticed_and_reported(serve, outcome, "graph:files")
    damage.assert_nothing_lost(serve, ACKNOWLEDGED)
    graph = serve.runtime.graph.get()
    assert graph.check_files() is None  # the files on disk give the whole graph back again
    assert graph.node_counts().get("Atom") == len(ACKNOWLEDGED)
    return outcome


@pytest.mark.parametrize("kind", sorted(damage.GRAPH_FILES))
def test_random_bytes_in_a_graph_file_are_noticed_and_repaired(
    serve: MemoryService, kind: str
) -> None:
    def inflict() -> None:
        damage.write_random(damage.graph_file(serve, kind), seed=len(kind), at_least=4096)

    _damage_and_repair(serve, f"random {kind}", inflict)


@pytest.mark.parametrize("kind", sorted(damage.GRAPH_FILES))
def test_a_truncated_graph_file_is_noticed_and_repaired(serve: MemoryService, kind: str) -> None:
    _damage_and_repair(
        serve, f"truncated {kind}", lambda: damage.truncate(damage.graph_file(serve, kind))
    )


def test_the_append_only_directory_deleted_under_a_running_serve_is_rewritten(
    serve: MemoryService,
) -> None:
    directory = serve.settings.data_dir / "graph" / "appendonlydir"
    outcome = _damage_and_repair(
        serve, "deleted AOF directory", lambda: damage.delete_tree(directory)
    )
    assert any("vanished" in f for f in outcome.report.found), outcome.report.found
    assert Path(directory).is_dir()


def test_the_graph_directory_deleted_under_a_running_serve_is_rebuilt(
    serve: MemoryService,
) -> None:
    """The watchdog stops a server whose directory vanished; the next check finds the graph
    server restarted empty, and the repair rebuilds it from PostgreSQL."""
    outcome = damage.damaged_under_serve(
        serve,
        ACKNOWLEDGED,
        ["The graph directory case: copper conducts well"],
        lambda: damage.delete_tree(serve.settings.data_dir / "graph"),
    )
    assert outcome is not None
    assert any(f.startswith("graph:atom") for f in outcome.report.found), outcome.report
    damage.assert_nothing_lost(serve, ACKNOWLEDGED)
    graph = serve.runtime.graph.get()
    assert graph.node_counts().get("Atom") == len(ACKNOWLEDGED)
    assert graph.check_files() is None
