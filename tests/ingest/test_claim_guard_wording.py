"""The claim guard's newer contrast classes (issue 15, dedup contrast set): a content word replaced
by an unrelated one (an antonym no list knows), a negating prefix, a name, number, unit or
quantifier that moves or repeats, and "up"/"down". Each in English and Russian; the true
duplicates next to them (inflections, added words, re-wrapping) must stay one claim."""

from __future__ import annotations

import pytest

from pegas_memory.ingest.claims import (
    claim_signature,
    compatible,
    differences,
    is_contradiction,
    wording_changes,
)


def _reasons(a: str, b: str) -> tuple[str, ...]:
    return differences(claim_signature(a), claim_signature(b))


@pytest.mark.parametrize(
    ("a", "b", "reason", "contested"),
    [
        # a word replaced by an unrelated one: another claim, but not known to be the opposite,
        # so kept apart and not contested
        ("Multiple intratumoral immune pathways are suppressed by this stress response.",
         "Multiple intratumoral immune pathways are enhanced by this stress response.",
         "wording suppressed -> enhanced", False),
        ("Often regarded as the first folk metal band, it formed in the city.",
         "Often regarded as the last folk metal band, it formed in the city.",
         "wording first -> last", False),
        ("The private sector has grown ever since the reform.",
         "The public sector has grown ever since the reform.",
         "wording private -> public", False),
        ("Флуоресценция растительности гораздо слабее отражательной способности.",
         "Флуоресценция растительности гораздо сильнее отражательной способности.",
         "wording слабее -> сильнее", False),
        ("В первые годы эпохи родителям была предоставлена такая возможность.",
         "В последние годы эпохи родителям была предоставлена такая возможность.",
         "wording первые -> последние", False),
        # a negating prefix: a negation, which contests the other claim
        ("The difference between the groups was significant after adjustment.",
         "The difference between the groups was insignificant after adjustment.",
         "negation significant -> insignificant", True),
        ("A relapse is likely within the first year of treatment.",
         "A relapse is unlikely within the first year of treatment.",
         "negation likely -> unlikely", True),
        ("Результат оказался зависимым от температуры раствора.",
         "Результат оказался независимым от температуры раствора.",
         "negation зависимым -> независимым", True),
        ("Метод признан эффективным для лечения этой болезни.",
         "Метод признан неэффективным для лечения этой болезни.",
         "negation эффективным -> неэффективным", True),
        # "up" and "down"
        ("A version was taken up by the author in his essay.",
         "A version was taken down by the author in his essay.",
         "antonym", False),
        ("The band formed after the break-up of an older band.",
         "The band formed after the break-down of an older band.",
         "antonym", False),
    ],
)  # fmt: skip
def test_a_word_changed_for_another_is_told_by_its_kind_and_only_a_negation_contests(
    a: str, b: str, reason: str, contested: bool
) -> None:
    reasons = _reasons(a, b)
    assert reason in reasons, reasons
    assert is_contradiction(reasons) is contested


@pytest.mark.parametrize(
    "a,b",
    [
        # a name swapped for one the sentence already has: the same set of names
        ("As Communist troops advanced, the soldiers moved it near Xining, under Communist rule.",
         "As Xining troops advanced, the soldiers moved it near Xining, under Communist rule."),
        ("Тэмуджин победил Джамуху, и Джамуха бежал от Тэмуджина на запад.",
         "Тэмуджин победил Джамуху, и Тэмуджин бежал от Тэмуджина на запад."),
        # a quantifier swapped for one the sentence already has
        ("Каждый сезон подпись обновлялась, хотя некоторые варианты все еще используются.",
         "Каждый сезон подпись обновлялась, хотя некоторые варианты некоторые еще используются."),
        # a unit changed into one the sentence already has
        ("Город лежит в 25 милях (40 км) к югу от границы и в 340 милях (550 км) от Майами.",
         "Город лежит в 25 милях (40 м) к югу от границы и в 340 милях (550 км) от Майами."),
        ("The cable is 40 km long and the other one is 50 km long.",
         "The cable is 40 m long and the other one is 50 km long."),
        # a number changed into one the sentence already has
        ("The 2005 series showed the planet destroyed; in 2010 the doctor said it in 2005 too.",
         "The 2005 series showed the planet destroyed; in 2005 the doctor said it in 2005 too."),
    ],
)  # fmt: skip
def test_names_numbers_units_and_quantifiers_are_counted(a: str, b: str) -> None:
    assert _reasons(a, b)


@pytest.mark.parametrize(
    "a,b",
    [
        # inflections of one word
        ("Exposure increased the risk of infection in the cohort.",
         "Exposure increases the risk of infection in the cohort."),
        ("В последние годы число случаев выросло.", "В последних годах число случаев выросло."),
        # a word added or dropped: the same claim said more or less fully
        ("The drug reduces pain in adults.", "The drug reduces acute pain in adults."),
        ("Препарат снижает боль у взрослых.", "Препарат заметно снижает боль у взрослых."),
        # re-wrapped, hyphenated at the line end, marked up
        ("Within-study regression analyses were adjusted.",
         "Within-**study** regression\nanalyses were adjusted"),
        ("Эта функция не имеет предела в нуле.", "Эта функция не\nимеет предела в нуле!"),
    ],
)  # fmt: skip
def test_the_same_claim_reworded_by_form_stays_one(a: str, b: str) -> None:
    assert compatible(claim_signature(a), claim_signature(b)), _reasons(a, b)


def test_wording_changes_pairs_inflections_before_it_reports() -> None:
    assert wording_changes(["increased", "risk"], ["increases", "risk"]) == []
    assert wording_changes(["first"], ["last"]) == ["wording first -> last"]
    assert wording_changes(["likely"], ["unlikely"]) == ["negation likely -> unlikely"]
    assert wording_changes(["acute", "pain"], ["pain"]) == []  # dropped only
