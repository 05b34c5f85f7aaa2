"""A new embedded vector collection answers before its payload indexes exist (issue 18: the
seven fsynced index steps were most of the 3.2 s a lost collection took to come back). The
indexes follow, one step at a time, built by a timer, by `optimize()` or by the next open;
filtered searches return exactly the matching points before and after."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.qdrant_store.edge import EdgeVectorIndex
from pegas_memory.qdrant_store.index import INDEXED_FIELDS
from tests.qdrant_store.test_qdrant_store import DIM, FILTERS, corpus, matches, scratch_dir

ALL_FIELDS = sorted(INDEXED_FIELDS)


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    with scratch_dir(tmp_path) as path:
        yield path / "qdrant"


def _open(root: Path, delay: float) -> EdgeVectorIndex:
    return EdgeVectorIndex(root, index_delay=delay)


@pytest.fixture
def index(root: Path) -> Iterator[EdgeVectorIndex]:
    """An index whose timer would build the pending indexes only after an hour."""
    opened = _open(root, delay=3600)
    yield opened
    opened.close()


def _filtered_ids(index: EdgeVectorIndex) -> dict[str, set[int]]:
    points = corpus()
    return {
        case: {h.id for h in index.search("c", points[0].vector, k=len(points), where=where)}
        for case, where in FILTERS.items()
    }


def test_a_new_collection_answers_before_its_indexes_and_the_same_after(
    index: EdgeVectorIndex,
) -> None:
    index.ensure_collection("c", DIM)
    assert index.pending_indexes() == ["c"]
    assert index.payload_indexes("c") == []  # created without them
    points = corpus()
    index.upsert("c", points)
    expected = {
        case: {p.id for p in points if matches(p, where)} for case, where in FILTERS.items()
    }
    assert _filtered_ids(index) == expected
    index.build_indexes("c")
    assert index.pending_indexes() == []
    assert index.payload_indexes("c") == ALL_FIELDS
    assert _filtered_ids(index) == expected


def test_the_timer_builds_every_index(root: Path) -> None:
    index = _open(root, delay=0.05)
    try:
        index.ensure_collection("c", DIM)
        index.upsert("c", corpus())
        deadline = time.monotonic() + 120  # a bound for a loaded machine, not a measurement
        while index.pending_indexes() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert index.pending_indexes() == []
        assert index.payload_indexes("c") == ALL_FIELDS
    finally:
        index.close()


def test_optimize_builds_the_pending_indexes_first(index: EdgeVectorIndex) -> None:
    index.ensure_collection("c", DIM)
    index.upsert("c", corpus())
    index.optimize("c")
    assert index.pending_indexes() == []
    assert index.payload_indexes("c") == ALL_FIELDS


def test_indexes_pending_at_close_are_built_by_the_next_open(root: Path) -> None:
    first = _open(root, delay=3600)
    first.ensure_collection("c", DIM)
    first.upsert("c", corpus())
    first.close()
    second = _open(root, delay=3600)
    try:
        second.ensure_collection("c", DIM)  # an existing collection: built at once
        assert second.pending_indexes() == []
        assert second.payload_indexes("c") == ALL_FIELDS
        assert second.count("c") == len(corpus())
    finally:
        second.close()


def test_a_dropped_collection_leaves_no_pending_build(index: EdgeVectorIndex) -> None:
    index.ensure_collection("c", DIM)
    index.drop("c")
    assert index.pending_indexes() == []
    index.ensure_collection("c", DIM)  # created again: deferred again
    assert index.pending_indexes() == ["c"]
