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

from pegas_memory.app.requests import IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.memgraph_store.falkor import stop_embedded_graph
from pegas_memory.search.fusion import ArmHit, Fused, Support, document_support, score_fusion
from pegas_memory.search.presets import DOCUMENT_SHARE, PRESETS
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


def test_score_fusion_supports_within_each_text_arm() -> None:
    # lexical: atom 1 (document 10, alone) leads; atoms 2 and 3 (document 20) follow closely
    lexical = [ArmHit(1, 9.0), ArmHit(2, 8.0), ArmHit(3, 7.5), ArmHit(4, 1.0)]
    dense = [ArmHit(1, 0.90), ArmHit(2, 0.89), ArmHit(3, 0.88), ArmHit(4, 0.70)]
    weights = {"lexical": 0.5, "dense": 0.5}
    doc_of = {1: 10, 2: 20, 3: 20}  # atom 4: a memory_store atom, no document
    plain = score_fusion({"lexical": lexical, "dense": dense}, weights, minmax=("dense", "lexical"))
    assert [f.id for f in plain][:2] == [1, 2]
    lifted = score_fusion(
        {"lexical": lexical, "dense": dense},
        weights,
        minmax=("dense", "lexical"),
        support=Support(doc_of, share=0.5, siblings=2),
    )
    assert [f.id for f in lifted][:2] == [2, 3]
    # each arm is brought back to 0..1: the best supported hit scores the full weight
    assert lifted[0].score == pytest.approx(1.0)
    # a support not naming the arm, or share 0, leaves the fusion as it was
    for off in (Support(doc_of, share=0.5, arms=("graph",)), Support(doc_of, share=0.0)):
        again = score_fusion(
            {"lexical": lexical, "dense": dense}, weights, minmax=("dense", "lexical"), support=off
        )
        assert again == plain


def test_support_is_part_of_the_hybrid_presets_not_of_a_single_arm() -> None:
    assert PRESETS["hybrid"].documents and PRESETS["hybrid_rrf"].documents
    assert not PRESETS["dense"].documents and not PRESETS["lexical"].documents
    assert not PRESETS["plain_rrf"].documents  # the baseline stays the plain fusion
    assert DOCUMENT_SHARE > 0


# ---------------------------------------------------------------------- real engines
QUERY = "glacier retreat in the alpine valleys"
# Three sentences of one survey each answer part of the query; the harbour log has one sentence
# that names the glacier's retreat more tightly, and nothing else about it.
SURVEY = """# Field survey 2019

The glacier retreat was measured at forty stakes along the upper basin during the summer.

Alpine valleys below the basin lost most of their summer snow cover that year.

Retreat of the glacier tongue exposed bare rock in the lower valleys by October.
"""
HARBOUR = """# Harbour log

Glacier retreat in the valleys was noted by the harbour office.

Ships unloaded grain at the northern pier every Monday.

The harbour crane was repaired in March after the storm.
"""


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    data = tmp_path / "data"
    try:
        with offline_memory(database_url, data, dim=512, auto_repair_slices=False) as svc:
            yield svc
    finally:
        stop_embedded_graph(data)


def _search(service: MemoryService, share: float, query: str = QUERY) -> list[tuple[int, float]]:
    service.searcher.document_share = share
    hits = service.search(SearchRequest(query=query, limit=10, store="atoms")).hits
    return [(h.id, h.score) for h in hits]


def test_a_document_answering_in_several_sentences_outranks_an_isolated_match(
    service: MemoryService,
) -> None:
    survey = service.ingest(IngestRequest(source=SURVEY, kind="markdown", title="Field survey"))
    harbour = service.ingest(IngestRequest(source=HARBOUR, kind="markdown", title="Harbour log"))
    assert survey.atoms_new == 3 and harbour.atoms_new == 3, (survey, harbour)
    service.runtime.worker().drain(include_delayed=True)
    of_doc = {i: "survey" for i in survey.atom_ids} | {i: "harbour" for i in harbour.atom_ids}
    without = _search(service, 0.0)
    assert of_doc[without[0][0]] == "harbour"  # one tight sentence wins alone
    found = _search(service, DOCUMENT_SHARE)
    assert of_doc[found[0][0]] == "survey"
    # results stay atoms with their citations, each cited to its own document
    top = service.search(SearchRequest(query=QUERY, limit=3, store="atoms")).hits[0]
    assert top.id in survey.atom_ids
    assert top.citations and top.citations[0].document_id == survey.document_id
    assert top.citations[0].quote in SURVEY


def test_a_memory_store_corpus_ranks_as_before(service: MemoryService) -> None:
    claims = [
        "Glacier retreat was measured at forty stakes along the upper basin.",
        "Alpine valleys below the basin lost most of their summer snow cover.",
        "Retreat of the glacier tongue exposed bare rock in the lower valleys.",
        "Glacier retreat was noted by the harbour office in 2020.",
        "Ships unloaded grain at the northern pier every Monday.",
    ]
    # three from one source (one cited document), two without: none has a distilled document
    for i, claim in enumerate(claims):
        source = "https://example.org/survey" if i < 3 else None
        service.store(StoreRequest(claim=claim, source=source))
    service.runtime.worker().drain(include_delayed=True)
    before = _search(service, 0.0)
    assert len(before) == len(claims)
    assert _search(service, DOCUMENT_SHARE) == before
    assert _search(service, 1.0, "snow in the valleys") == _search(
        service, 0.0, "snow in the valleys"
    )
