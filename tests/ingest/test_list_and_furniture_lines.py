"""List and furniture lines that became atoms (issue 15, scope 1).

- A tail stored twice: neighbouring chunks of a long paragraph overlap by the previous chunk's
  last words when no whole sentence is short enough, so the next chunk can start mid-sentence at
  a capital ("MLB (Лос-Анджелес Доджерс, ...) и MLS (...)."); that tail was stored as its own
  atom beside the whole sentence. Through `memory_ingest` (the embedded engines), in ru and en.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.ingest.chunking import chunk_spans
from tests.conftest import offline_memory
from tests.distill.offline_chunk import distil

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


# The chunk size these texts are built for (PEGAS_CHUNK_CHARS): the enumeration closes the
# first chunk and the next chunk's overlap starts inside it.
CHUNK = 1200


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with offline_memory(database_url, tmp_path / "data", dim=64, chunk_chars=CHUNK) as svc:
        yield svc


def _claims(svc: MemoryService) -> list[str]:
    with svc.db.connection() as conn:
        return [str(r["claim"]) for r in conn.execute("SELECT claim FROM pm_atom").fetchall()]


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_sentence_tail_repeated_by_chunk_overlap_is_stored_once(
    service: MemoryService, lang: str
) -> None:
    text = " ".join([*_FILLER[lang], _ENUMERATION[lang], *_AFTER[lang]])
    spans = chunk_spans(text, max_chars=CHUNK)
    # The premise: the second chunk starts inside the enumeration, at a capital.
    assert len(spans) == 2
    inside = text.index(_ENUMERATION[lang]) < spans[1][0] < text.index(_AFTER[lang][0])
    assert inside and text[spans[1][0]].isupper()
    tail = text[spans[1][0] : text.index(_AFTER[lang][0])].strip()
    result = service.ingest(IngestRequest(source=text, kind="text", title="Volga"))
    claims = _claims(service)
    assert any(_ENUMERATION[lang] in c for c in claims)  # the whole sentence is stored
    assert not any(c.endswith(tail) and _ENUMERATION[lang] not in c for c in claims)
    # the tail is dropped: as repeated by the overlap, or as a phrase without its verb
    assert (
        result.dropped.get("repeated by chunk overlap", 0) + result.dropped.get("no predicate", 0)
        >= 1
    )
    # the sentences after the overlap are still stored
    assert any(_AFTER[lang][0] in c for c in claims)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_whole_sentences_of_two_chunks_are_all_kept(service: MemoryService, lang: str) -> None:
    """The other side: chunks that do not overlap inside a sentence lose nothing."""
    text = " ".join([*_FILLER[lang], _AFTER[lang][0], _ALONE[lang], *_FILLER[lang][:3]])
    spans = chunk_spans(text, max_chars=CHUNK)
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
    spans = chunk_spans(text, max_chars=CHUNK)
    assert len(spans) == 2 and text[spans[1][0] :].startswith(_AFTER["ru"][1])
    result = service.ingest(IngestRequest(source=text, kind="text", title="Volga"))
    holding = [c for c in _claims(service) if _AFTER["ru"][1] in c]
    assert len(holding) == 1 and _AFTER["ru"][0] in holding[0]
    assert result.dropped.get("repeated by chunk overlap") == 1


# --- a list run together: no verb, no full stop (TyDi passages are flattened to one line) ---

from pegas_memory.distill.items import flat_list  # noqa: E402
from pegas_memory.distill.offline import OfflineDistiller  # noqa: E402
from pegas_memory.distill.types import ChunkContext  # noqa: E402


def _distilled(text: str, lang: str, heading: str = "Статья") -> tuple[list[str], dict[str, int]]:
    atoms, dropped = distil(text, None, (heading,), lang)
    return [a.claim for a in atoms], dropped


_FLAT = {
    "ru": (
        "Сражение закончилось в сентябре 1941 года.",
        "57 2 xx-xx-xx — Харьков (шестизначные номера на некоторых АТС) 57 369 xx-xx — Платные"
        " горячие линии (дозвон доступен только с территории Харькова и области) 57 4 0 x-xx-xx"
        " — Новая Водолага 57 4 1 x-xx-xx — Волчанск 57 4 2 x-xx-xx — Купянск",
    ),
    "en": (
        "The battle ended in September 1941.",
        "Related operations Lepel counterattack Battle of Moscow (film) Battle of Kiev (1941)"
        " Yelnya offensive",
    ),
    "de": (
        "Die Schlacht endete im September 1941.",
        "Diskografie 1990 – Stern (Columbia) 1995 – Nacht (EMI) 2001 – Tag (Sony) 2005 –"
        " Morgen (BMG)",
    ),
}


@pytest.mark.parametrize("lang", ["ru", "en", "de"])
def test_a_list_run_together_is_no_atom(lang: str) -> None:
    sentence, run = _FLAT[lang]
    claims, dropped = _distilled(f"{sentence} {run}", lang)
    assert dropped.get("list line") == 1
    assert len(claims) == 1 and sentence in claims[0]


def test_a_see_also_list_run_together_is_no_atom() -> None:
    text = (
        "Сражение закончилось в сентябре 1941 года. Список операций вооружённых сил СССР во"
        " Второй мировой войне Лепельский контрудар Битва за Москву (киноэпопея)"
    )
    claims, dropped = _distilled(text, "ru", "Смоленское сражение (1941)")
    assert dropped.get("list line") == 1 and not any("Лепельский" in c for c in claims)


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        # a sentence with its verb but no full stop
        ("ru", "Сражение закончилось в сентябре 1941 года без явной победы одной из сторон"),
        ("en", "The battle ended in September 1941 without a clear winner on either side"),
        ("de", "Die Schlacht dauert bis September 1941 ohne einen klaren Sieger auf beiden Seiten"),
        # a definition that lost its full stop: one "X — Y"
        ("ru", "Грузинское письмо — алфавитное письмо картвельских языков Грузии и соседних стран"),
        ("en", "Georgian script – the alphabet of the Kartvelian languages of Georgia and nearby"),
        # one line of a list that kept its breaks, and a sentence whose verbs the rules miss
        ("en", "June 10 -- MIDFLORIDA Credit Union Amphitheatre, Tampa, FL"),
        ("en", "A cargo ship passes the Volga embankment in Nizhny Novgorod on its way"),
        ("ru", "Из рекомендации можно еще прописать speedmult 125, если увидите, что быстро"),
        # a verbless sentence that ends: a measure, a title with its year
        ("ru", "Общая площадь поселения — 312,31 км², население около двух тысяч человек."),
        ("en", "Member of the International Boxing Hall of Fame since the year 2017."),
    ],
)
def test_a_sentence_is_no_list_line(lang: str, text: str) -> None:
    assert not flat_list(text, lang)
    _, dropped = _distilled(text, lang)
    assert "list line" not in dropped


def test_a_list_line_needs_a_language_with_grammar_here() -> None:
    run = "Lista operacji Kontratak lepelski Bitwa pod Moskwą (film) Bitwa o Kijów Ofensywa"
    assert flat_list(run, "ru") and not flat_list(run, "pl") and not flat_list(run, None)


# --- a unit whose every sentence speaks of the example in front of the reader ---

from pegas_memory.distill.pointers import only_self_reference  # noqa: E402

_EXAMPLE = {
    "en": (
        "This example shows how to use a `GlobBuilder` to configure aspects of match semantics."
        " In this example, we prevent wildcards from matching path separators.",
        "The builder is cheap to create and can be reused for many patterns.",
    ),
    "ru": (
        "В этом примере показано, как настроить сопоставление шаблонов. В этом примере мы"
        " запрещаем подстановочным знакам совпадать с разделителями путей.",
        "Построитель создаётся быстро и может использоваться для многих шаблонов.",
    ),
    "de": (
        "Dieses Beispiel zeigt, wie man einen GlobBuilder verwendet. Im folgenden Beispiel wird"
        " die Groß- und Kleinschreibung ignoriert.",
        "Der Builder ist schnell erstellt und kann für viele Muster verwendet werden.",
    ),
}


@pytest.mark.parametrize("lang", ["en", "ru", "de"])
def test_a_unit_only_about_the_example_is_a_pointer(lang: str) -> None:
    about, _ = _EXAMPLE[lang]
    claims, dropped = _distilled(about + "\n", lang, "Example: configuring a glob matcher")
    assert claims == [] and dropped.get("pointer", 0) >= 1


@pytest.mark.parametrize("lang", ["en", "ru", "de"])
def test_a_sentence_about_the_subject_after_the_example_line_is_kept(lang: str) -> None:
    about, fact = _EXAMPLE[lang]
    first = about.split(". ")[0] + "."
    assert not only_self_reference(f"{first} {fact}")
    claims, _ = _distilled(f"{first} {fact}\n", lang, "Example")
    assert any(fact in c for c in claims)


# --- a feature bullet opening on its verb carries the document's subject ---


def _readme(items: str, lang: str, heading: str) -> list[str]:
    atoms = OfflineDistiller().distill(
        items, ChunkContext(title="globset", heading_path=("globset", heading), language=lang)
    )
    return [a.claim for a in atoms]


@pytest.mark.parametrize(
    ("lang", "item"),
    [
        ("en", "Supports matching multiple globs at once."),
        ("en", "Can match non-UTF-8 file paths correctly."),
        ("en", "Doesn't provide a recursive directory iterator of matching file paths."),
        ("ru", "Поддерживает сопоставление нескольких шаблонов одновременно."),
        ("ru", "Позволяет сопоставлять пути, не являющиеся строками UTF-8."),
    ],
)
def test_a_bullet_opening_on_its_verb_is_led_in_by_the_document_subject(
    lang: str, item: str
) -> None:
    claims = _readme(
        f"* {item}\n* Another item that opens with a noun phrase, not a verb.\n", lang, "Comparison"
    )
    assert claims[0] == f"globset: {item}"


@pytest.mark.parametrize(
    ("lang", "item"),
    [
        ("en", "Routes are matched in the order they are defined."),  # a subject and its verb
        ("en", "Globs are compiled to regular expressions before matching."),
        ("ru", "Шаблоны компилируются в регулярные выражения перед сопоставлением."),
        ("ru", "Бюджет проекта составляет десять тысяч долларов в год."),  # a noun in "-ет"
    ],
)
def test_a_bullet_with_its_own_subject_is_not_led_in(lang: str, item: str) -> None:
    claims = _readme(f"* {item}\n", lang, "Comparison")
    assert not any(c.startswith("globset:") for c in claims)
    assert any(item in c for c in claims)


def test_a_sentence_opening_on_a_verb_outside_a_list_is_not_led_in() -> None:
    claims = _readme(
        "Supports matching multiple globs at once, as the benchmarks show.\n", "en", "Comparison"
    )
    assert not any(c.startswith("globset: Supports") for c in claims)


def test_a_tail_with_sentences_joined_on_is_repeated_by_overlap() -> None:
    """A draft opening inside an earlier chunk's stored quote and running past it is the
    overlap's tail with the next sentences joined on (gson: "`Strictness.STRICT` to overwrite
    ... Otherwise ..."): dropped. A draft that starts where the stored one starts, or after it,
    is not."""
    from pegas_memory.distill.types import DraftAtom
    from pegas_memory.ingest.chunking import Chunk
    from pegas_memory.ingest.pipeline import _repeated_by_overlap

    def chunk(ord_: int, start: int) -> Chunk:
        return Chunk(ord_, "x" * 400, f"char {start}", (), start, start + 400, "h", "en")

    def draft(q0: int, q1: int) -> DraftAtom:
        return DraftAtom("fact", "c", "c", 0.5, "q" * (q1 - q0), q0, q1, "en", {})

    spans: dict[tuple[str, int], list[tuple[int, int, int]]] = {}
    assert not _repeated_by_overlap(chunk(0, 0), draft(100, 380), spans)  # stored: 100..380
    second = chunk(1, 300)
    assert _repeated_by_overlap(second, draft(0, 150), spans)  # 300..450 opens inside it
    assert not _repeated_by_overlap(second, draft(90, 200), spans)  # 390..500: after it
    assert not _repeated_by_overlap(chunk(2, 100), draft(0, 330), spans)  # starts with it
