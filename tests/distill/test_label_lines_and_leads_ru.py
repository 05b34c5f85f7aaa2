"""Russian label lines of flattened passages and the types of leads (issue 15, the Russian junk
and type errors of graded sample 14141): a timeline's period joins its title and carries the
section, alone it is dropped; a legend entry is dropped; a period is no defined term; a lead's
name is never a subjectless claim; a "?" in brackets asks nothing; an ordinal in any gender is
checkable. Each rule fires and does not fire, in Russian and in English (`distill.labels_ru`,
`distill.leads`, `distill.standalone`, `distill.patterns`)."""

from __future__ import annotations

import pytest

from pegas_memory.distill.fact_rules import is_fact
from pegas_memory.distill.labels_ru import period_term
from pegas_memory.distill.patterns import match_definition
from tests.distill.offline_chunk import distil

_TITLE = "Статьи Википедии"


def _distill(text: str, heading: str, title: str = _TITLE) -> tuple[list[str], dict[str, int]]:
    atoms, dropped = distil(text, title, (heading,))
    return [f"[{a.type}] {a.claim}" for a in atoms], dropped


def test_a_period_joins_its_title_and_carries_the_section() -> None:
    text = (
        "1791—1932\u00a0годы. Время научного описания и изучения острова. Конец XVIII\u00a0—"
        " начало XIX века. Наименее изученный период. Остров служит базой для китобоев."
    )
    claims, _ = _distill(text, "Кокос (остров)")
    assert "[fact] Кокос (остров): 1791—1932 годы. Время научного описания и изучения острова." in (
        claims
    )
    assert "[fact] Кокос (остров): конец XVIII — начало XIX века. Наименее изученный период." in (
        claims
    )
    assert not any(c.endswith(": время научного описания и изучения острова.") for c in claims)


def test_a_period_left_alone_is_dropped_but_verbless_claims_stay() -> None:
    claims, dropped = _distill(
        "Остров открыт в 1526 году. Площадь острова — 24 км². Население — 1,2 млн человек."
        " Конец XVIII\u00a0— начало XIX века.",
        "Кокос (остров)",
    )
    assert dropped.get("label line") == 1
    assert "[fact] Кокос (остров): площадь острова — 24 км²." in claims
    assert "[fact] Кокос (остров): население — 1,2 млн человек." in claims
    assert not any("XVIII" in c for c in claims)


def test_an_english_period_line_is_not_this_rule() -> None:
    claims, dropped = _distill(
        "The island was found in 1526. The years 1791–1932. Time of scientific study of the"
        " island.",
        "Cocos Island",
        "Pages",
    )
    assert "label line" not in dropped
    assert any("Time of scientific study" in c for c in claims)


def test_a_period_label_line_is_no_definition_and_carries_the_section() -> None:
    line = "Первая четверть XIX века\u00a0— наши дни: поиски сокровищ и эра туризма."
    assert match_definition(line.replace("\u00a0", " ")) is None
    assert period_term("Первая четверть XIX века")
    claims, _ = _distill(f"Остров открыт в 1526 году. {line}", "Кокос (остров)")
    assert (
        "[fact] Кокос (остров): первая четверть XIX века — наши дни: поиски сокровищ и эра"
        " туризма." in claims
    )


@pytest.mark.parametrize(
    ("sentence", "term"),
    [
        ("Энтропия — мера неопределённости системы.", "Энтропия"),
        ("Век — единица измерения времени, равная ста годам.", "Век"),
        ("A century is a period of one hundred years.", "century"),  # English: its own rule
    ],
)
def test_a_term_that_is_no_period_is_still_defined(sentence: str, term: str | None) -> None:
    found = match_definition(sentence)
    assert (found[0] if found else None) == term
    assert not period_term(sentence.split(" — ")[0])


def test_a_legend_entry_is_dropped_and_its_neighbour_kept() -> None:
    claims, dropped = _distill(
        "Голоцен слишком мал, чтобы отображаться на графике. Плейстоценовая эпоха (P)."
        " Q обозначает четвертичный период.",
        "Geology",
    )
    assert dropped.get("label line") == 1
    assert not any("(P)" in c for c in claims)
    assert any("Q обозначает четвертичный период." in c for c in claims)
    _, en_dropped = _distill(
        "The Holocene is too small to show on the chart. Pleistocene epoch (P).", "Geology"
    )
    assert "label line" not in en_dropped


def test_a_lead_names_its_own_subject_and_stays_a_definition() -> None:
    text = (
        "Тепейоллотль (Nahuatl languages: Tepeyollotl)\u00a0— бог гор, пещер и землетрясений."
        " Тетеоиннан (Nahuatl languages: Teteoinnan)\u00a0— одна из ипостасей богини-матери Тоси"
        " или Тласолтеотль."
    )
    claims, _ = _distill(text, "Мифология ацтеков")
    assert (
        "[definition] Тетеоиннан (Nahuatl languages: Teteoinnan) — одна из ипостасей"
        " богини-матери Тоси или Тласолтеотль." in claims
    )
    assert not any(c.startswith("[fact] Мифология ацтеков:") for c in claims)


def test_a_subjectless_claim_still_carries_its_section() -> None:
    # not a lead: the claim opens on its verb, so it is the section's
    claims, _ = _distill(
        "Остров открыт в 1526 году. Разработана Биллом Гейтсом в 1976 году.", "Altair BASIC"
    )
    assert any(c.startswith("[fact] Altair BASIC: разработана Биллом Гейтсом") for c in claims)
    en, _ = _distill(
        "Tepeyollotl (Nahuatl: Tepeyollotl) is the god of mountains.", "Aztec mythology"
    )
    assert not any(c.startswith("[fact] Aztec mythology:") for c in en)


@pytest.mark.parametrize(
    ("sentence", "language", "fact"),
    [
        (
            "Гормизд (Latin: Hormisdas PP.; ? — 6 августа 523) — Папа Римский с 20 июля 514 года"
            " по 6 августа 523 года.",
            "ru",
            True,
        ),
        ("Pope Hormisdas (? – 523) was pope from 514 to 523.", "en", True),
        ("Когда Гормизд стал Папой Римским?", "ru", False),
        ("When did Hormisdas (the pope) become pope?", "en", False),
    ],
)
def test_a_question_mark_in_brackets_asks_nothing(sentence: str, language: str, fact: bool) -> None:
    assert is_fact(sentence, language) is fact


@pytest.mark.parametrize(
    ("sentence", "language", "fact"),
    [
        ("Склодовская-Кюри, Мария: первая женщина преподаватель Сорбонны.", "ru", True),
        ("Гагарин: первый человек, совершивший полёт в космос.", "ru", True),
        ("Янка Мавр: первое издание вышло в Минске.", "ru", True),
        ("Склодовская-Кюри, Мария: преподаватель Сорбонны.", "ru", False),  # no rank: a role
        ("The first woman professor at the Sorbonne.", "en", False),  # English: verbless
    ],
)
def test_an_ordinal_in_any_gender_is_checkable(sentence: str, language: str, fact: bool) -> None:
    assert is_fact(sentence, language) is fact


_GORMIZD = (
    "Гормизд (Latin: Hormisdas PP.; ?\u00a0— 6 августа 523)\u00a0— Папа Римский с 20 июля 514"
    " года по 6 августа 523 года."
)


def test_an_article_lead_under_its_disambiguated_heading_defines_its_name() -> None:
    claims, _ = _distill(_GORMIZD, "Гормизд (папа римский)")
    assert claims == [
        "[definition] Гормизд (Latin: Hormisdas PP.; ? — 6 августа 523) — Папа Римский с 20 июля"
        " 514 года по 6 августа 523 года."
    ]


@pytest.mark.parametrize(
    ("text", "heading", "title"),
    [
        ("Гормизд (Latin: Hormisdas)\u00a0— Москва.", "Гормизд (папа римский)", _TITLE),  # a name
        (f"Лион основан в 43 году. {_GORMIZD}", "Гормизд (папа римский)", _TITLE),  # not first
        ("Hormisdas (? – 523) was Pope from 514 to 523.", "Hormisdas (pope)", "Pages"),
    ],
)
def test_a_capitalised_genus_is_a_lead_only_as_a_title_of_office_first(
    text: str, heading: str, title: str
) -> None:
    claims, _ = _distill(text, heading, title)
    assert claims and not any(c.startswith("[definition]") for c in claims)
