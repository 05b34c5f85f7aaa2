"""Russian sentences that lean on a thing the sentence before introduced (`distill.bare_ru`):
a bare noun as subject, an existential of parts, a temporal anaphor, an ordinal with a bare
noun; and a relational noun with no owner, which carries the section's subject (issue 15,
session 10, seed 14141's Russian junk). Every rule is tested on both sides."""

from __future__ import annotations

import pytest

from pegas_memory.distill.bare_ru import (
    bare_subject,
    leans,
    ordinal_bare,
    ownerless,
    parts_absent,
    temporal,
)
from pegas_memory.distill.context import leans_back
from pegas_memory.distill.head_ru import head_reference
from tests.distill.offline_chunk import claims


def _claims(text: str, heading: str) -> list[str]:
    return claims(text, None, (heading,), "ru")


_FORECAST = (
    "Впервые на экране появился ведущий, который показывал на карте погоду. Ведущим стал"
    " Джордж Коулинг."
)


# --- a bare noun as subject -----------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "Сюжет шел в прямом эфире и длился 5 минут.",
        "Синдром в основном может быть связан с социальными факторами.",
        "Вследствие больших габаритов и веса (более 1 кг) аппарат не получил распространения.",
        "Проект не был завершён.",
    ],
)
def test_a_bare_singular_noun_as_subject_leans_on_the_sentence_before(sentence: str) -> None:
    assert bare_subject(sentence, "Первой попыткой считается телефон IBM Simon.")
    assert leans_back(sentence, "ru", "Первой попыткой считается телефон IBM Simon.")


@pytest.mark.parametrize(
    "sentence",
    [
        "Собаки лают на прохожих.",  # a generic plural
        "Стоимость устройства составляла 899 долларов.",  # a complement says which
        "Новый аппарат вышел в 1994 году.",  # an adjective
        "В 1994 году данный аппарат был выпущен.",  # a demonstrative (context's rule)
        "Фильм получил премию «Оскар».",  # a category noun: the section's kind
        "Ведущим стал Джордж Коулинг.",  # a predicate instrumental
        "Граммофон является видоизменением фонографа.",  # a definition
        "В 1951 году становится епископом.",  # a date is no subject
        "Серийно произведено 69 экземпляров.",  # an adverb
        "В настоящее время класс киноринх подразделяется на два отряда.",  # a head before it
        "В 1886 году парк был продлён за мост.",  # after a date: most often the title's noun
        "В 1791 году сюда заходил английский капитан.",  # an adverb of place
        "Законом признаётся исключительное право на знак.",  # an agent
    ],
)
def test_a_noun_that_says_which_one_or_is_no_subject_is_not_bare(sentence: str) -> None:
    assert not bare_subject(sentence, "Первой попыткой считается телефон IBM Simon.")


def test_a_name_the_sentence_before_holds_or_after_a_sentence_about_the_subject_is_no_lean(
) -> None:  # fmt: skip
    assert not bare_subject("Мьюр также убедил власти.", "Мьюр убеждал влиятельных посетителей.")
    assert bare_subject("Мьюр также убедил власти.", "Он убеждал влиятельных посетителей.")
    assert not leans("Мьюр также убедил власти.", "Он убеждал влиятельных посетителей.")
    assert not leans("Мьюр также убедил власти.", "Мьюр убеждал влиятельных посетителей.")
    assert not leans("Мьюр убедил власти.", "Тогда прибыл Джон Мьюр из Шотландии.")
    assert not leans("Гормизду удалось преодолеть раскол.", "Занимал важные посты при Симмахе.")
    assert not leans("Египет занимает площадь 1 001 450 км².", "Он граничит с Ливией.")
    assert not leans("Иовиан заключил мир.", "После кончины Юлиана Отступника был провозглашён.")
    assert not leans("Сюжет шел в прямом эфире.", None)  # nothing before
    assert leans("Сюжет шел в прямом эфире.", "Ведущим стал Джордж Коулинг.")
    assert leans("Синдром может быть связан со стрессом.", "Они страдают от исхудания.")


def test_a_singular_name_first_is_told_from_a_common_noun_only_by_the_sentence_before() -> None:
    # No grammar tells "Москва" from "Сюжет": a name the sentence before does not hold joins it
    # too (a longer claim that keeps the name, never a wrong carry); one it holds does not.
    test = "«Испытания с выдернутыми штекерами» начались утром 27 января 1967 года."
    assert leans("Москва была основана в 1147 году.", test)
    assert not leans("Москва была основана в 1147 году.", "Князь Юрий приехал в Москву.")


def test_a_bare_subject_joins_the_sentence_before_instead_of_carrying_the_title() -> None:
    text = f"{_FORECAST} Сюжет шел в прямом эфире и длился 5 минут."
    claims = _claims(text, "Прогноз погоды")
    assert not any(c.startswith("Прогноз погоды: Сюжет") for c in claims)
    assert any("Коулинг. Сюжет шел в прямом эфире" in c for c in claims)


# --- an existential of parts ----------------------------------------------------------------


def test_parts_that_were_not_there_lean_on_the_thing_before() -> None:
    assert parts_absent("Клавиш управления не было, все действия совершались через экран.")
    assert not parts_absent("У него не было детей.")  # a pronoun's rule, not this one
    assert not parts_absent("Клавиши управления были на боковой панели.")


# --- a temporal anaphor ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "С тех пор прогнозы погоды стали частью телевизионного эфира.",
        "К тому времени город вырос втрое.",
        "В то время город рос.",
        "Тогда же был построен новый мост.",
    ],
)
def test_a_temporal_anaphor_leans_on_the_time_before(sentence: str) -> None:
    assert temporal(sentence)
    assert leans_back(sentence, "ru", "11 января 1954 года впервые появился ведущий.")


@pytest.mark.parametrize(
    "sentence",
    [
        "В то время как он спал, шёл дождь.",  # a conjunction, "while"
        "С 1954 года прогнозы погоды стали частью эфира.",  # the time is said
        "Тогда как одни уехали, другие остались.",
    ],
)
def test_a_time_said_or_a_conjunction_is_no_temporal_anaphor(sentence: str) -> None:
    assert not temporal(sentence)


# --- an ordinal with a bare noun ------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "На второй шкале в сжатом виде представлена текущая эра.",
        "Третий график показывает последние 100 миллионов лет.",
        "Первый вариант был отвергнут.",
    ],
)
def test_an_ordinal_with_a_bare_noun_leans_on_the_series_before(sentence: str) -> None:
    assert ordinal_bare(sentence)
    assert leans_back(sentence, "ru", "Шкала времени показана на четырёх графиках.")


@pytest.mark.parametrize(
    "sentence",
    [
        "Вторая мировая война началась в 1939 году.",  # an adjective: a name
        "Фильм является продолжением первой ленты 1978 года.",  # a date says which
        "Первым реактором, построенным за пределами США, стал ZEEP.",  # a complement
        "В 1841 году Адамс первым предположил, что есть планета.",  # an adverbial ordinal
        "Он выдал первую продукцию в ноябре 1917 года.",  # a date's preposition
        "У Рассела двое детей (первый брак с Элис был бездетным).",  # an aside
    ],
)
def test_an_ordinal_that_says_its_series_is_no_lean(sentence: str) -> None:
    assert not ordinal_bare(sentence)


# --- a relational noun with no owner --------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "noun"),
    [
        ("Наибольшее расстояние с севера на юг — 1024 км.", "расстояние"),
        ("На решение стать врачом оказал влияние пример прадеда — хирурга.", "решение"),
        ("Warner Bros. планирует снять ещё двенадцать фильмов серии с новыми героями.", "серии"),
    ],
)
def test_a_relational_noun_with_no_owner_is_the_sections(claim: str, noun: str) -> None:
    found = ownerless(claim)
    assert found is not None and found[0] == noun
    reference = head_reference(claim, "Египет")
    assert reference is not None and reference.word == noun


@pytest.mark.parametrize(
    "claim",
    [
        "Население города составляет 5000 человек.",  # a genitive owner
        "Его родители были врачами.",  # a possessive
        "Площадь Египта составляет 1 001 450 км².",
        "Река течёт на север.",  # no relational noun
    ],
)
def test_a_relational_noun_with_its_owner_or_none_is_not_carried(claim: str) -> None:
    assert ownerless(claim) is None


def test_an_ownerless_relational_noun_carries_the_section_subject() -> None:
    claims = _claims("Наибольшее расстояние с севера на юг — 1024 км.", "Египет")
    assert claims == ["Египет: Наибольшее расстояние с севера на юг — 1024 км."]
    claims = _claims("Площадь Египта составляет 1 001 450 км².", "Египет")
    assert claims == ["Площадь Египта составляет 1 001 450 км²."]


def test_a_sentence_with_no_word_is_no_bare_subject() -> None:
    """Found by the distiller's fuzz test ("``` это 1. ```"): an empty sentence crashed."""
    from pegas_memory.distill.bare_ru import bare_subject

    assert not bare_subject("", "это 1.")
    assert not bare_subject("1. 2.", "Сюжет.")
