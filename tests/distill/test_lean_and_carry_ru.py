"""Russian claims that lean on the sentence before, and carries that name the wrong thing (issue
15, the Russian junk of graded samples 7171 and 8181): each rule fires and does not fire, in
Russian and in English (`distill.context`, `distill.carry`)."""

from __future__ import annotations

import pytest

from pegas_memory.distill.context import leans_back
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext
from tests.both_sides import both_sides
from tests.distill.offline_chunk import claims

_IDEAS = "В конце 1960-х годов вновь возникли идеи о том, что динозавры были теплокровными."
_ORBIT = (
    "Впервые элементы орбиты Урана были вычислены в 1783 году Лапласом, однако со временем были"
    " выявлены несоответствия расчётных и наблюдаемых положений планеты."
)
_SOCIETY = "Общество «Родина» выполнило завещание русских моряков."


@pytest.mark.parametrize(
    ("sentence", "before", "language", "holds"),
    both_sides(
        # what leans on the sentence before
        holds=[
            # "всё/все" as the subject, right before its verb: what all began
            ("Все началось с работы Джона Острома, посвящённой дейнониху.", _IDEAS, "ru"),
            ("Всё было готово к запуску уже в мае.", "Ракету собрали в апреле.", "ru"),
            ("It all began with the work of John Ostrom.", "The idea came back in 1960.", "en"),
            # every case of "такой" and the modifiers that point back by their meaning
            ("Такими городами являются, например, Люблин и Краков.", "Повет ведёт учёт.", "ru"),
            (
                "Интенсивность излучения на таком расстоянии составляет 1/400 земной.",
                "Большая полуось орбиты равна 19 а. е.",
                "ru",
            ),
            ("Упомянутая регистрация ведётся в повете.", "Гмина не регистрирует машины.", "ru"),
            ("Such towns include Lublin and Krakow.", "Some towns have powiat rights.", "en"),
            # a word that confirms what was said before, before the verb
            (
                "После 1991 года бо́льшая часть коллекций действительно попала в Россию.",
                _SOCIETY,
                "ru",
            ),
            ("Most collections therefore reached Russia.", "The society kept its word.", "en"),
            # a bare noun of the sentence before in the subject of a complement clause
            (
                "В 1841 году Джон Кауч Адамс предположил, что ошибки в расчётах вызваны другой"
                " планетой.",
                _ORBIT,
                "ru",
            ),
            ("Adams suggested that these errors were caused by a planet.", _ORBIT, "en"),
        ],
        # what does not lean on the sentence before
        fails=[
            ("Все студенты сдали экзамен в мае.", "Экзамен прошёл в мае.", "ru"),  # a quantifier
            ("All students passed the exam.", "The exam took place in May.", "en"),
            # "такой ..., как X": the comparison names its own term
            ("В таком же стиле, как шпалеры для стен, выполнялись пологи.", "Шпалеры ткали.", "ru"),
            ("В профсоюзах, таких как ATL, состоят учителя.", "Учителя работают.", "ru"),
            (
                "Diseases such as asthma and eczema are common in children.",
                "Asthma is common.",
                "en",
            ),
            # a participle that only says what was done ("described by Linnaeus")
            ("Описанный Линнеем вид растёт в Африке.", "Вид известен давно.", "ru"),
            # "действительно" after the verb confirms nothing said before
            (
                "Коллекция общества попала в Россию, где она действительно сохранилась.",
                _SOCIETY,
                "ru",
            ),
            ("Most collections reached Russia.", "The society kept its word.", "en"),
            # the complement clause names its own subject, or repeats nothing
            ("В 1841 году Адамс предположил, что Нептун существует.", _ORBIT, "ru"),
            ("В 1841 году Адамс предположил, что ошибки вызваны другой планетой.", _IDEAS, "ru"),
            ("Adams suggested that a planet caused errors.", _ORBIT, "en"),
        ],
    ),
)
def test_what_leans_on_the_sentence_before_and_what_does_not(
    sentence: str, before: str, language: str, holds: bool
) -> None:
    assert bool(leans_back(sentence, language, before)) is holds


def _claims(text: str, heading: str, language: str | None) -> list[str]:
    return claims(text, None, (heading,), language)


@pytest.mark.parametrize(
    ("text", "language", "carried"),
    [
        # a place right after the subject's noun: the claim is about that place's districts
        ("Но, например, районы в Кракове не имеют прав повета.", "ru", False),
        ("Основной единицей деления в Польше является коммуна (гмина).", "ru", False),
        ("Districts in Krakow have no powiat rights.", "en", False),
        # a place in the leading adverbial, or after a participle: the section's subject stays
        ("В Кракове родился в 1900 году.", "ru", True),
        ("Крепость, выстроенная на Красной горе, получила название Красногорской.", "ru", True),
        ("Средняя удалённость планеты от Солнца составляет 19 а. е.", "ru", True),
        ("Born in Krakow in 1900.", "en", True),
    ],
)
def test_a_place_named_in_the_subject_keeps_the_heading_off(
    text: str, language: str, carried: bool
) -> None:
    """Seed 7171: "Warsaw" carried onto claims about Poland's communes and Kraków's districts."""
    (claim,) = _claims(text, "Warsaw", language)
    assert claim.startswith("Warsaw: ") is carried


@pytest.mark.parametrize(
    ("text", "language", "carried"),
    [
        ("Такими городами являются, например, Люблин и Краков.", "ru", False),
        ("Подобные города получили права повета в 1999 году.", "ru", False),
        ("Such towns include Lublin and Krakow.", "en", False),
        ("Этот город основан в 1300 году.", "ru", True),
        ("This town was founded in 1300 by the duke.", "en", True),
    ],
)
def test_such_points_at_a_kind_not_at_the_section(text: str, language: str, carried: bool) -> None:
    """ "Such towns" are those the sentence before described, never the heading's one town
    (alone, with nothing to resolve them, such a claim is dropped: `distill.standalone`)."""
    claims = _claims(text, "Warsaw", language)
    assert [c.startswith("Warsaw: ") for c in claims] == (
        [True] if carried else [False] * len(claims)
    )


@pytest.mark.parametrize(
    ("text", "language", "carried"),
    [
        ("Город — это тоже коммуна, но с городским уставом.", "ru", False),
        ("Город расположен на левом берегу Вислы.", "ru", True),
        ("A city is also a commune with a charter.", "en", False),
        ("The city lies on the Vistula river.", "en", True),
    ],
)
def test_a_definition_of_a_kind_is_owned_by_no_section(
    text: str, language: str, carried: bool
) -> None:
    """ "Город — это ..." says what any town is; "Город расположен ..." is the section's town."""
    (claim,) = _claims(text, "Warsaw", language)
    assert claim.startswith("Warsaw: ") is carried


def test_the_sentences_graded_junk_join_the_one_they_lean_on() -> None:
    """Seed 8181's "ошибки в расчётах" and "Все началось ...": one atom with the sentence
    before, its quote one verbatim span; the paragraph's first sentence is not joined to."""
    text = (
        "Период обращения Урана составляет 84 года. " + _ORBIT + " В 1841 году британец Джон"
        " Кауч Адамс первым предположил, что ошибки в расчётах вызваны воздействием ещё не"
        " открытой планеты.\n\n" + _IDEAS + " Все началось с работы Джона Острома."
    )
    context = ChunkContext(title=None, heading_path=("Уран",), language="ru")
    atoms = OfflineDistiller().distill(text, context)
    quotes = [text[a.quote_start : a.quote_end] for a in atoms]
    assert quotes[0] == "Период обращения Урана составляет 84 года."
    assert quotes[1].startswith("Впервые элементы орбиты") and quotes[1].endswith("планеты.")
    assert "ошибки в расчётах" in quotes[1]
    assert quotes[2] == _IDEAS + " Все началось с работы Джона Острома."
    assert len(atoms) == 3


_TREATISE = "В 1710 году пастор Зигмунд Рихтер опубликовал трактат о братстве розенкрейцеров."
_TREATISE_EN = "In 1710 the pastor Richter published a treatise on the Rosicrucians."


@pytest.mark.parametrize(
    ("sentence", "language", "leans"),
    [
        # "этот" with its noun past the first words: which brotherhood (seed 7171)
        (
            "В сочинении, состоящем из 52 статей, Рихтер представлялся членом этого братства.",
            "ru",
            True,
        ),
        ("In his treatise, Richter claimed to be a member of this brotherhood.", "en", True),
        # its noun named earlier in the sentence itself, a time phrase, the document itself
        (
            "Река впадает в море, образуя дельту; румынская часть этой дельты внесена в список.",
            "ru",
            False,
        ),
        ("До 1893 года бульвар был закрыт, с этого времени начали расчищать аллеи.", "ru", False),
        ("Алхимия древних увлекала многих, и в этой статье описан первый опыт.", "ru", False),
        ("The river forms a delta, and the Romanian part of this delta is protected.", "en", False),
    ],
)
def test_a_demonstrative_later_in_the_sentence(sentence: str, language: str, leans: bool) -> None:
    before = _TREATISE if language == "ru" else _TREATISE_EN
    assert leans_back(sentence, language, before) is leans


_BOCK = "Родом из Нижней Лужицы был Ян Бок (ум. 1621), владевший семью языками."


@pytest.mark.parametrize(
    ("sentence", "language", "leans"),
    [
        # a surname alone, given with its first name in the sentence before (seed 2626's doc)
        ("Бок писал стихотворения на латыни и немецком языке.", "ru", True),
        ("В стихотворении 1612 года Бок воспевал родную землю.", "ru", True),
        # the full name again, or another person: the sentence names who
        ("Ян Бок писал стихотворения на латыни.", "ru", False),
        ("Мартин Лютер писал стихотворения на латыни.", "ru", False),
        # English is left as it was: news name a person by the surname in every paragraph
        ("Bock wrote poems in Latin and German.", "en", False),
    ],
)
def test_a_surname_given_in_full_the_sentence_before(
    sentence: str, language: str, leans: bool
) -> None:
    before = _BOCK if language == "ru" else "Jan Bock (d. 1621) spoke seven languages."
    assert leans_back(sentence, language, before) is leans
