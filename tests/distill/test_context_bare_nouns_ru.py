"""Russian sentences that lean on a thing the sentence before introduced (`distill.bare_ru`),
through the whole distiller: a bare noun as subject joins the sentence before instead of carrying
the title, a name the sentence before holds is no lean, and a relational noun with no owner
carries the section's subject (issue 15, the Russian junk of a graded sample). The rules'
tables (a bare noun, an existential of parts, a temporal anaphor, an ordinal with a bare noun, a
relational noun) are rows of `cases/context.toml`."""

from __future__ import annotations

from pegas_memory.distill.bare_ru import (
    bare_subject,
    leans,
)
from tests.distill.offline_chunk import claims


def _claims(text: str, heading: str) -> list[str]:
    return claims(text, None, (heading,), "ru")


_FORECAST = (
    "Впервые на экране появился ведущий, который показывал на карте погоду. Ведущим стал"
    " Джордж Коулинг."
)


# --- a bare noun as subject -----------------------------------------------------------------


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


# --- a relational noun with no owner --------------------------------------------------------


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
