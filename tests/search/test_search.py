"""Hybrid retrieval against real engines: each arm alone, fusion, filters, status, languages."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.requests import IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.config import Settings
from pegas_memory.db.repo import AtomInput, add_link, insert_atom, set_status
from pegas_memory.errors import InvalidInput
from pegas_memory.search.filters import SearchFilter
from tests.conftest import make_settings
from tests.fake_ollama import FakeOllama

FACTS = [
    ("fact", "The Volga is the longest river in Europe.", "geo"),
    ("fact", "Волга — самая длинная река Европы, она впадает в Каспийское море.", "geo"),
    ("definition", "Entropy is a measure of uncertainty of a random variable.", "info"),
    ("definition", "Энтропия — это мера неопределённости случайной величины.", "info"),
    ("fact", "Python's GIL allows one thread to execute bytecode at a time.", "code"),
    ("fact", "Claude Shannon founded information theory in 1948.", "info"),
]


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with FakeOllama(dim=64) as fake:
        settings: Settings = make_settings(
            tmp_path / "data", database_url=database_url, ollama_url=fake.url, embedding_dim=64
        )
        svc = MemoryService(settings).open()
        ids = []
        with svc.db.transaction() as conn:
            for type_, claim, topic in FACTS:
                ids.append(insert_atom(conn, AtomInput(type=type_, claim=claim, topic=topic))[0])
            add_link(conn, ids[5], ids[2], "defines", confidence=0.9)
        svc.runtime.worker().drain()
        svc.ids = ids  # type: ignore[attr-defined]
        yield svc
        svc.close()


def claims(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [h.claim for h in result.hits]


def test_lexical_arm_stems_russian_and_english(service: MemoryService) -> None:
    # inflected forms: only stemming matches
    ru = service.search(SearchRequest(query="длинной реки", preset="lexical"))
    assert claims(ru)[0].startswith("Волга")
    en = service.search(SearchRequest(query="rivers longest", preset="lexical"))
    assert claims(en)[0].startswith("The Volga")


def test_lexical_arm_matches_names_across_scripts(service: MemoryService) -> None:
    # "Volga" -> 'волг':* and "Волгу" -> 'volg':*: the inflected Russian form and the English
    # name meet although no stemmer relates them.
    en = claims(service.search(SearchRequest(query="Volga", preset="lexical")))
    assert any(c.startswith("Волга") for c in en) and any(c.startswith("The Volga") for c in en)
    ru = claims(service.search(SearchRequest(query="Волгу", preset="lexical")))
    assert any(c.startswith("The Volga") for c in ru)
    shannon = service.search(SearchRequest(query="Shannon", preset="lexical", limit=10))
    assert not claims(shannon)[0].startswith("Вол")


def test_hybrid_uses_every_arm_and_cites(service: MemoryService) -> None:
    result = service.search(SearchRequest(query="measure of uncertainty", limit=5))
    assert "Entropy is a measure" in claims(result)[0]
    assert set(result.arms["atom"]) == {"lexical", "dense", "graph"}
    # Shannon is reached through its link to the entropy definition
    shannon = [h for h in result.hits if h.claim.startswith("Claude Shannon")]
    assert shannon and "graph" in shannon[0].found_by


def test_filters_and_status_ranking(service: MemoryService) -> None:
    ids = service.ids  # type: ignore[attr-defined]
    only_defs = service.search(
        SearchRequest(query="entropy uncertainty", flt=SearchFilter(types=("definition",)))
    )
    assert {h.type for h in only_defs.hits} == {"definition"}
    with service.db.transaction() as conn:
        set_status(conn, ids[2], "stale", reason="superseded", check_name="test")
    service.runtime.worker().drain()
    after = service.search(
        SearchRequest(query="Entropy is a measure of uncertainty", preset="no_mmr", limit=3)
    )
    top = after.hits[0]
    assert top.status != "stale"  # the stale definition no longer ranks first
    excluded = service.search(
        SearchRequest(
            query="Entropy uncertainty", flt=SearchFilter(statuses=("candidate", "verified"))
        )
    )
    assert all(h.status in ("candidate", "verified") for h in excluded.hits)


def test_episodic_scope_is_separate(service: MemoryService) -> None:
    service.store(
        StoreRequest(
            claim="I searched arxiv for entropy papers", scope="episodic", trace_kind="action"
        )
    )
    service.runtime.worker().drain()
    knowledge = service.search(SearchRequest(query="arxiv entropy papers"))
    assert all(h.scope == "knowledge" for h in knowledge.hits)
    episodic = service.search(SearchRequest(query="arxiv entropy papers", scope="episodic"))
    assert episodic.hits and episodic.hits[0].scope == "episodic"
    both = service.search(SearchRequest(query="arxiv entropy papers", scope="all"))
    assert {h.scope for h in both.hits} == {"knowledge", "episodic"}


def test_bad_queries_are_clear_errors(service: MemoryService) -> None:
    for bad in ("", "   ", "x" * 5000, "nul\x00byte"):
        with pytest.raises(InvalidInput):
            service.search(SearchRequest(query=bad))
    with pytest.raises(InvalidInput, match="preset"):
        service.search(SearchRequest(query="river", preset="magic"))
    with pytest.raises(InvalidInput, match="limit"):
        service.search(SearchRequest(query="river", limit=100_000))
    # injection attempts are just words
    hostile = service.search(SearchRequest(query="'); DROP TABLE pm_atom; -- :* & | !"))
    assert isinstance(hostile.hits, list)
    assert service.stats().atoms_total == len(FACTS)


def test_dense_arm_down_degrades_with_a_warning(service: MemoryService) -> None:
    service.runtime.vectors.reset()
    service.runtime.vectors._factory = lambda: (_ for _ in ()).throw(  # type: ignore[assignment]
        InvalidInput("engine stopped")
    )
    result = service.search(SearchRequest(query="longest river"))
    assert result.hits and any("dense arm unavailable" in w for w in result.warnings)


def test_a_stored_atom_is_searchable_by_meaning_when_store_returns(
    database_url: str, tmp_path: Path
) -> None:
    """Read your writes: with this process projecting the outbox (the embedded default),
    memory_store and memory_ingest return once their atoms (or trace) are in the vector slice
    too."""
    with FakeOllama(dim=64) as fake:
        settings = make_settings(
            tmp_path / "data",
            database_url=database_url,
            ollama_url=fake.url,
            embedding_dim=64,
            embedded_worker="on",
            distiller="offline",
        )
        svc = MemoryService(settings).open()
        try:
            svc.start_background()
            svc.store(StoreRequest(claim="warm-up: the worker holds the vector store from here on"))
            deadline = time.monotonic() + 30
            while not svc.runtime.projecting_here:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            for n in range(3):
                atom = svc.store(
                    StoreRequest(claim=f"Lake Baikal sample {n} holds {n + 2} endemic species")
                )
                with svc.db.connection() as conn:
                    row = conn.execute(
                        """SELECT count(*) AS n FROM pm_outbox WHERE entity_type = 'atom'
                              AND entity_id = %s AND processed_at IS NULL""",
                        (atom.id,),
                    ).fetchone()
                assert row is not None and row["n"] == 0
                found = svc.search(
                    SearchRequest(query=f"Lake Baikal sample {n}", preset="dense", limit=5)
                ).hits
                assert atom.id in [h.id for h in found]
            trace = svc.store(
                StoreRequest(claim="planned the survey", scope="episodic", trace_kind="plan")
            )
            hits = svc.search(
                SearchRequest(query="planned the survey", scope="episodic", preset="dense")
            ).hits
            assert trace.id in [h.id for h in hits]
            report = svc.ingest(
                IngestRequest(
                    source="Lake Ladoga is the largest lake in Europe. "
                    "Its water drains into the Neva.",
                    kind="text",
                )
            )
            assert report.atom_ids
            hits = svc.search(
                SearchRequest(query="largest lake in Europe", preset="dense", limit=10)
            ).hits
            assert set(report.atom_ids) & {h.id for h in hits}
        finally:
            svc.close()


def test_each_arm_gives_fifty_candidates_or_three_per_hit(service: MemoryService) -> None:
    # The arms' depth sets the floor of their min-max normalisation and the dense arm's cost:
    # 50 candidates for a short answer, three per hit for a long one (decision 0013).
    with service.db.transaction() as conn:
        for i in range(200):
            claim = f"Glacier survey {i} measured the retreat of the ice tongue."
            insert_atom(conn, AtomInput(type="fact", claim=claim, topic="ice"))
    ten = service.search(SearchRequest(query="glacier retreat", preset="lexical", limit=10))
    assert len(ten.hits) == 10
    assert ten.arms["atom"]["lexical"]["hits"] == 50
    sixty = service.search(SearchRequest(query="glacier retreat", preset="lexical", limit=60))
    assert sixty.arms["atom"]["lexical"]["hits"] == 180
