"""Russian joins and carries through the whole distiller (issue 15): a carry the claim's past
verb disagrees with is not made, a relative's sentence and the subjectless one about her are one
atom, "другие" joins the set the sentence before named, a personal pronoun past the group's cap
finds the sentence right before, a chain of leaning sentences is one verbatim quote, and "N —
name/number" is a property of the section's subject. The rules' own tables (verb agreement, what
leans on the sentence before) are rows of `cases/context.toml`."""

from __future__ import annotations

import pytest

from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext, DraftAtom
from tests.distill.offline_chunk import distil, grouped

SHOLOKHOV = ChunkContext("Статьи Википедии", ("Шолохов, Михаил Александрович",), "ru")


def _atoms(text: str, context: ChunkContext) -> list[DraftAtom]:
    return distil(text, context.title, context.heading_path, context.language)[0]


def _one(text: str, context: ChunkContext) -> DraftAtom:
    atoms = _atoms(text, context)
    assert len(atoms) == 1, [a.claim for a in atoms]
    return atoms[0]


# 1. Agreement of the claim's past verb with the subject it would carry.


def test_a_carry_the_verb_disagrees_with_is_not_made_and_the_claim_says_it_leans() -> None:
    atom = _one("Долгое время была в услужении в панском имении Ясеневка.", SHOLOKHOV)
    assert atom.claim == "Долгое время была в услужении в панском имении Ясеневка."
    assert atom.metadata.get("anaphoric") is True
    assert atom.metadata.get("context") == "disagrees"
    assert atom.confidence == 0.4


def test_a_carry_the_verb_agrees_with_is_made() -> None:
    atom = _one("Долгое время был в услужении в панском имении Ясеневка.", SHOLOKHOV)
    assert atom.claim.startswith("Михаил Александрович Шолохов: долгое время был")
    assert "anaphoric" not in atom.metadata


def test_the_relatives_sentence_and_the_one_about_her_are_one_atom_carrying_the_subject() -> None:
    text = (
        "Мать — Анастасия Даниловна Черняк (1871—1942) — казачка по матери, дочь крестьянина. "
        "Долгое время была в услужении в панском имении Ясеневка."
    )
    atom = _one(text, SHOLOKHOV)
    assert atom.claim.startswith("Михаил Александрович Шолохов: Мать — Анастасия")
    assert atom.claim.endswith("Долгое время была в услужении в панском имении Ясеневка.")


# 2. "Другие", "остальные" alone, and a personal pronoun past the cap.


def test_others_join_the_set_the_sentence_before_named() -> None:
    text = (
        "В 1705 году закон натурализовал 148 гугенотов Манакинтауна. "
        "Другие предпочли обосноваться за пределами города на фермах."
    )
    context = ChunkContext("Huguenot", (), "ru")
    atom = _one(text, context)
    assert "148 гугенотов" in atom.claim and "Другие предпочли" in atom.claim


_SETTLERS = (
    "После основания колонии в 1788 году Австралия была разделена на две части. "
    "Первое поселение европейцев в этом регионе было основано в 1803 году в заливе Салливана. "
    "Поселение насчитывало 402 жителя, из них 307 каторжников. "
    "Они были отправлены на корабле «HMS Калькутта» из опасений, что французы оспорят права "
    "британцев на этот континент."
)


def test_a_plural_pronoun_past_the_cap_joins_the_sentence_right_before() -> None:
    groups = grouped(_SETTLERS, "ru")
    assert any(g.startswith("Поселение насчитывало") and "Они были" in g for g in groups)


def test_a_pronoun_after_a_sentence_that_leans_by_its_own_pronoun_is_not_held() -> None:
    text = _SETTLERS.replace("Поселение насчитывало", "Оно насчитывало")
    groups = grouped(text, "ru")
    assert not any(g.startswith("Оно насчитывало") and "Они были" in g for g in groups)


_IDEAS = "В конце 1960-х годов вновь возникли идеи о том, что динозавры были теплокровными."
_ORBIT = (
    "Впервые элементы орбиты Урана были вычислены в 1783 году Лапласом, однако со временем были"
    " выявлены несоответствия расчётных и наблюдаемых положений планеты."
)


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


# 3. "N — name/number": a property of the section's subject.


def test_a_relative_named_after_a_dash_carries_the_subject() -> None:
    atom = _one("Мать — Анастасия Даниловна Черняк, казачка по матери.", SHOLOKHOV)
    assert atom.claim.startswith("Михаил Александрович Шолохов: Мать — Анастасия")
    assert atom.type != "definition"


def test_a_budget_given_as_a_number_carries_a_films_title() -> None:
    context = ChunkContext("Статьи", ("В бой идут одни «старики»",), "ru")
    atom = _one("Бюджет проекта — около 500 тыс. долларов.", context)
    assert atom.claim == "В бой идут одни «старики»: Бюджет проекта — около 500 тыс. долларов."


def test_a_headline_with_a_verb_and_no_quoted_title_carries_nothing() -> None:
    context = ChunkContext("Новости", ("Путин провёл совещание по экономике",), "ru")
    atom = _one("Бюджет проекта — около 500 тыс. долларов.", context)
    assert atom.claim == "Бюджет проекта — около 500 тыс. долларов."


@pytest.mark.parametrize(
    "text",
    [
        "Фотосинтез — процесс образования органических веществ из углекислого газа.",
        "Город — это населённый пункт с городским уставом.",
    ],
)
def test_a_definition_by_a_dash_carries_nothing(text: str) -> None:
    atom = _one(text, SHOLOKHOV)
    assert atom.claim == text
    assert atom.type == "definition"
