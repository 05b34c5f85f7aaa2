"""Russian and English alike: detection, stemmed lexical search, and cross-lingual dense recall
with the real local embedder (the embedded default)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pegas_memory.app.requests import ContextRequest, IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.text import detect_language, ts_config_for
from tests.conftest import make_settings


def test_language_detection() -> None:
    assert detect_language("Память агента хранит проверенные факты и их источники.") == "ru"
    assert detect_language("The agent's memory keeps verified facts with their sources.") == "en"
    assert detect_language("Der Fluss fließt durch die Stadt und ins Meer hinaus.") == "de"
    assert detect_language("??") is None
    assert ts_config_for("ru") == "russian" and ts_config_for("xx") == "simple"


@pytest.fixture(scope="module")
def local_service(
    embedded_pg,
    tmp_path_factory: pytest.TempPathFactory,  # type: ignore[no-untyped-def]
) -> Iterator[MemoryService]:
    from tests.pgcluster import create_database

    settings = make_settings(
        tmp_path_factory.mktemp("ml") / "data", database_url=create_database(embedded_pg.uri)
    )
    svc = MemoryService(settings).open()
    svc.store(
        StoreRequest(
            claim="Фотосинтез — это процесс образования органических веществ на свету.",
            type="definition",
        )
    )
    svc.store(StoreRequest(claim="The Eiffel Tower is located in Paris and was completed in 1889."))
    svc.store(StoreRequest(claim="Москва — столица России и крупнейший город страны."))
    svc.store(StoreRequest(claim="Python is a programming language created by Guido van Rossum."))
    svc.runtime.worker().drain()
    yield svc
    svc.close()


def test_russian_query_found_only_by_stemming(local_service: MemoryService) -> None:
    # "столицей" / "городах" are inflected forms: only the russian configuration matches them
    hits = local_service.search(
        SearchRequest(query="столицей крупнейших городов", preset="lexical")
    ).hits
    assert hits and hits[0].claim.startswith("Москва")


def test_cross_lingual_pairs_through_the_dense_arm(local_service: MemoryService) -> None:
    en_to_ru = local_service.search(
        SearchRequest(query="What is photosynthesis?", preset="dense", limit=2)
    ).hits
    assert en_to_ru[0].claim.startswith("Фотосинтез")
    capital = local_service.search(
        SearchRequest(query="Which city is the capital of Russia?", preset="dense")
    ).hits
    assert capital[0].claim.startswith("Москва")
    ru_to_en = local_service.search(
        SearchRequest(query="Кто создал язык программирования Python?", preset="dense")
    ).hits
    assert ru_to_en[0].claim.startswith("Python")
    hybrid = local_service.search(
        SearchRequest(query="Кто создал язык программирования Python?", limit=1)
    ).hits
    assert hybrid[0].claim.startswith("Python")


def test_russian_definition_is_distilled_as_definition(local_service: MemoryService) -> None:
    result = local_service.ingest(
        IngestRequest(
            source="Энтропия — это мера неопределённости случайной величины. "
            "Её ввёл Клод Шеннон в 1948 году.",
            kind="text",
            title="энтропия",
        )
    )
    with local_service.db.connection() as conn:
        rows = conn.execute(
            "SELECT type, metadata->>'term' AS term, language FROM pm_atom WHERE id = ANY(%s)",
            (result.atom_ids,),
        ).fetchall()
    assert any(r["type"] == "definition" and r["term"] == "Энтропия" for r in rows)
    assert all(r["language"] == "ru" for r in rows)


def test_weak_evidence_with_the_local_model(local_service: MemoryService) -> None:
    strong = local_service.get_context(
        ContextRequest(question="Кто создал язык программирования Python?", register_gap=False)
    )
    assert not strong.weak_evidence
    weak = local_service.get_context(
        ContextRequest(question="lattice spacing in quantum chromodynamics", register_gap=False)
    )
    assert weak.weak_evidence
