"""List and furniture lines that became atoms, session 8 (issue 15, scope 1).

- A tail stored twice: neighbouring chunks of a long paragraph overlap by the previous chunk's
  last words when no whole sentence is short enough, so the next chunk can start mid-sentence at
  a capital ("MLB (Лос-Анджелес Доджерс, ...) и MLS (...)."); that tail was stored as its own
  atom beside the whole sentence. Through `memory_ingest` (the embedded engines), in ru and en.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.ingest.chunking import chunk_spans
from pegas_memory.requests import IngestRequest
from pegas_memory.service import MemoryService
from tests.conftest import offline_memory

_FILLER = {
    "ru": [
        "Река Волга протекает через всю европейскую часть России и впадает в Каспийское море,"
        " образуя обширную дельту возле города Астрахань, где живут многие редкие птицы.",
        "Площадь бассейна Волги составляет около одного миллиона трёхсот шестидесяти тысяч"
        " квадратных километров, что равно почти трети всей европейской территории страны.",
        "На берегах реки расположены одиннадцать из двадцати крупнейших городов России, включая"
        " Нижний Новгород, Казань, Самару и Волгоград, известные своими древними кремлями.",
        "Судоходство по Волге открыто с апреля по ноябрь, а зимой река в среднем и верхнем"
        " течении покрывается льдом толщиной до семидесяти сантиметров у берегов.",
        "Каскад водохранилищ на Волге построен в двадцатом веке и включает Рыбинское,"
        " Куйбышевское и Волгоградское водохранилища, самые большие в Европе по площади зеркала.",
    ],
    "en": [
        "The Volga flows through the whole European part of Russia and empties into the Caspian"
        " Sea, forming a wide delta near the city of Astrakhan, home to many rare birds.",
        "The area of the Volga basin is about one million three hundred and sixty thousand"
        " square kilometres, which is almost a third of the European territory of the country.",
        "Eleven of the twenty largest cities of Russia stand on the banks of the river, including"
        " Nizhny Novgorod, Kazan, Samara and Volgograd, known for their old fortresses.",
        "Navigation on the Volga is open from April to November, and in winter the river in its"
        " middle and upper course is covered with ice up to seventy centimetres thick.",
        "The cascade of reservoirs on the Volga was built in the twentieth century and includes"
        " the Rybinsk, Kuibyshev and Volgograd reservoirs, the largest in Europe by area.",
    ],
}
# A long enumeration closing the first chunk: no whole sentence fits the overlap, so the next
# chunk repeats its last words, which start at a capital.
_ENUMERATION = {
    "ru": "Профессиональные команды региона включают в себя команды лиги НФЛ (Лос-Анджелес Рэмс,"
    " Сан-Диего Чарджерс), НБА (Лос-Анджелес Лейкерс, Лос-Анджелес Клипперс), MLB (Лос-Анджелес"
    " Доджерс, Сан-Диего Падрес) и НХЛ (Лос-Анджелес Кингс, Анахайм Дакс).",
    "en": "Professional teams of the region include the NFL (Los Angeles Rams, San Diego"
    " Chargers), NBA (Los Angeles Lakers, Los Angeles Clippers), MLB (Los Angeles Dodgers, San"
    " Diego Padres) and the NHL (Los Angeles Kings, Anaheim Ducks).",
}
_AFTER = {
    "ru": [
        "Футбольный клуб Лос-Анджелес Гэлекси выиграл Кубок MLS пять раз, больше любого другого"
        " клуба лиги за всю её историю, и его домашний стадион в городе Карсон вмещает двадцать"
        " семь тысяч зрителей.",
        "Стадион клуба расположен в городе Карсон к югу от центра Лос-Анджелеса.",
    ],
    "en": [
        "The football club Los Angeles Galaxy has won the MLS Cup five times, more than any other"
        " club of the league in its history, and its home stadium in Carson seats twenty-seven"
        " thousand.",
        "The stadium of the club lies in the city of Carson, south of the centre of Los Angeles.",
    ],
}

_ALONE = {
    "ru": "Город Волгоград был основан в 1589 году как крепость Царицын.",
    "en": "The city of Volgograd was founded in 1589 as the fortress of Tsaritsyn.",
}


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with offline_memory(database_url, tmp_path / "data", dim=64) as svc:
        yield svc


def _claims(svc: MemoryService) -> list[str]:
    with svc.db.connection() as conn:
        return [str(r["claim"]) for r in conn.execute("SELECT claim FROM pm_atom").fetchall()]


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_sentence_tail_repeated_by_chunk_overlap_is_stored_once(
    service: MemoryService, lang: str
) -> None:
    text = " ".join([*_FILLER[lang], _ENUMERATION[lang], *_AFTER[lang]])
    spans = chunk_spans(text)
    # The premise: the second chunk starts inside the enumeration, at a capital.
    assert len(spans) == 2
    inside = text.index(_ENUMERATION[lang]) < spans[1][0] < text.index(_AFTER[lang][0])
    assert inside and text[spans[1][0]].isupper()
    tail = text[spans[1][0] : text.index(_AFTER[lang][0])].strip()
    result = service.ingest(IngestRequest(source=text, kind="text", title="Volga"))
    claims = _claims(service)
    assert any(_ENUMERATION[lang] in c for c in claims)  # the whole sentence is stored
    assert not any(c.endswith(tail) and _ENUMERATION[lang] not in c for c in claims)
    assert result.dropped.get("repeated by chunk overlap", 0) >= 1
    # the sentences after the overlap are still stored
    assert any(_AFTER[lang][0] in c for c in claims)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_whole_sentences_of_two_chunks_are_all_kept(service: MemoryService, lang: str) -> None:
    """The other side: chunks that do not overlap inside a sentence lose nothing."""
    text = " ".join([*_FILLER[lang], _AFTER[lang][0], _ALONE[lang], *_FILLER[lang][:3]])
    spans = chunk_spans(text)
    assert len(spans) == 2 and text[spans[1][0] :].startswith(_ALONE[lang])  # whole sentences
    result = service.ingest(IngestRequest(source=text, kind="text", title="Volga"))
    claims = " ".join(_claims(service))
    for sentence in [*_FILLER[lang], _AFTER[lang][0], _ALONE[lang]]:
        assert sentence[:60] in claims
    assert "repeated by chunk overlap" not in result.dropped


def test_a_sentence_joined_in_one_chunk_is_not_stored_alone_from_the_next(
    service: MemoryService,
) -> None:
    """The same cause, whole sentences: "Стадион клуба ..." leans on the sentence before and is
    joined with it in the first chunk; the second chunk starts at it, without its antecedent,
    and its span lies inside the joined atom's."""
    text = " ".join([*_FILLER["ru"], *_AFTER["ru"], *_FILLER["ru"][:3]])
    spans = chunk_spans(text)
    assert len(spans) == 2 and text[spans[1][0] :].startswith(_AFTER["ru"][1])
    result = service.ingest(IngestRequest(source=text, kind="text", title="Volga"))
    holding = [c for c in _claims(service) if _AFTER["ru"][1] in c]
    assert len(holding) == 1 and _AFTER["ru"][0] in holding[0]
    assert result.dropped.get("repeated by chunk overlap") == 1
