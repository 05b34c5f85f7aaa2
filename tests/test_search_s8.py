"""Document support in the hybrid search (issue 15, retrieval through ingest): an ingested
atom's sibling candidates, the other atoms distilled from the same document that the query also
matches, lend it part of their scores (search/fusion.document_support, DOCUMENT_SHARE of the
best DOCUMENT_SIBLINGS), so a document that answers a query in several sentences outranks an
isolated sentence that matches a little better on its own. A memory_store corpus (atoms without
a document) ranks exactly as before. Pure tests of the function, then real engines (embedded
slices, PostgreSQL) with the fake Ollama's bag-of-words embeddings and the offline distiller."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.memgraph_store.falkor import stop_embedded_graph
from pegas_memory.requests import IngestRequest, SearchRequest, StoreRequest
from pegas_memory.search.fusion import Fused, document_support
from pegas_memory.search.hybrid import DOCUMENT_SHARE, PRESETS
from pegas_memory.service import MemoryService
from tests.conftest import offline_memory


def _ids(fused: list[Fused]) -> list[int]:
    return [f.id for f in fused]


# ---------------------------------------------------------------------- pure
def test_siblings_lift_an_atom_above_an_isolated_better_match() -> None:
    fused = [Fused(1, 1.0), Fused(2, 0.8), Fused(3, 0.7), Fused(4, 0.6)]
    doc_of = {1: 10, 2: 20, 3: 20, 4: 20}  # atom 1 alone in its document; 2-4 one document
    out = document_support(fused, doc_of, share=0.3, siblings=2)
    assert _ids(out)[0] == 2
    by_id = {f.id: f.score for f in out}
    assert by_id[2] == pytest.approx(0.8 + 0.3 * (0.7 + 0.6))
    assert by_id[3] == pytest.approx(0.7 + 0.3 * (0.8 + 0.6))
    assert by_id[1] == 1.0  # no sibling: its own score
    assert _ids(out) == [2, 3, 4, 1]


def test_only_the_best_siblings_count_so_volume_does_not_win() -> None:
    fused = [Fused(1, 1.0), Fused(2, 0.9)] + [Fused(i, 0.1) for i in range(3, 13)]
    doc_of = {1: 10, 2: 10} | {i: 20 for i in range(3, 13)}  # ten weak atoms of one document
    out = document_support(fused, doc_of, share=0.3, siblings=2)
    by_id = {f.id: f.score for f in out}
    assert by_id[3] == pytest.approx(0.1 + 0.3 * 0.2)  # two siblings counted, not nine
    assert _ids(out)[:2] == [1, 2]


def test_atoms_without_a_document_and_share_zero_are_unchanged() -> None:
    fused = [Fused(1, 0.9, {"dense": 1}), Fused(2, 0.5, {"lexical": 1}), Fused(3, 0.4)]
    assert document_support(fused, {}, share=0.3) == fused
    assert document_support(fused, {1: 7, 2: 7, 3: 7}, share=0.0) == fused
    # one atom per document (a stored passage each): nothing to lend, the order and scores stay
    assert document_support(fused, {1: 1, 2: 2, 3: 3}, share=0.3) == fused


def test_equal_scores_in_one_document_count_each_other() -> None:
    fused = [Fused(1, 0.5), Fused(2, 0.5), Fused(3, 0.9)]
    out = {f.id: f.score for f in document_support(fused, {1: 4, 2: 4}, share=0.5, siblings=2)}
    assert out[1] == pytest.approx(0.75) and out[2] == pytest.approx(0.75)
    assert out[3] == 0.9


def test_support_is_part_of_the_hybrid_presets_not_of_a_single_arm() -> None:
    assert PRESETS["hybrid"].documents and PRESETS["hybrid_rrf"].documents
    assert not PRESETS["dense"].documents and not PRESETS["lexical"].documents
    assert not PRESETS["plain_rrf"].documents  # the baseline stays the plain fusion
    assert DOCUMENT_SHARE > 0
