"""Russian sentences with no subject of their own that go on about a subject named before
(issue 15, session 11, seed 17171's Russian junk): a decade is no name (`verbfirst_ru.
time_number`), a verb-first claim that names the section only in an oblique phrase still
carries it (`verbfirst_ru.named_obliquely`), a claim whose verb disagrees with the section's
subject carries the nearest named subject before it (`nearer_ru`), and a run of empty list
items is a lead damaged in the source (`comma_runs`). Every rule is tested on both sides."""

from __future__ import annotations

import pytest

from pegas_memory.distill.comma_runs import comma_run
from pegas_memory.distill.nearer_ru import named_before
from pegas_memory.distill.standalone import DAMAGED
from tests.distill.offline_chunk import distil


def _distilled(text: str, heading: str) -> tuple[list[str], dict[str, int]]:
    atoms, drops = distil(text, None, (heading,), "ru")
    return [a.claim for a in atoms], drops


def _claims(text: str, heading: str) -> list[str]:
    return _distilled(text, heading)[0]


# --- a verb first, the section's name only in an oblique phrase -----------------------------


def test_a_verb_first_claim_under_a_category_noun_carries_too() -> None:
    # "городе" made the claim a category reference; its verb still opens it
    claims = _claims(
        "Находится в городе Гроттаферрата (область Лацио).", "Гроттаферрата (монастырь)"
    )
    assert claims == [
        "Гроттаферрата (монастырь): находится в городе Гроттаферрата (область Лацио)."
    ]


def test_a_verb_first_claim_naming_its_subject_after_the_verb_carries_nothing() -> None:
    text = "Похоронен Михаил Шолохов в станице на берегу Дона, но не на кладбище."
    assert _claims(text, "Михаил Александрович Шолохов") == [text]


# --- the nearest named subject before a claim whose verb is not the section's ---------------

_MOLTKE = (
    "Активно использовались во время Первой мировой войны. «Мольтке» принял участие во всех"
    " боевых операциях германских линейных крейсеров в Северном море. После окончания войны"
    " интернирован и затем затоплен собственным экипажем в Скапа-Флоу. «Гёбен» был единственным"
    " германским линейным крейсером, не входившим в состав разведывательной группы. До войны"
    " служил на Средиземном море. В начале Первой мировой войны прорвался в Дарданеллы и был"
    " продан Турции. Участвовал в нескольких стычках с русским Черноморским флотом."
)


def test_a_member_of_a_class_carries_its_own_name_not_the_class() -> None:
    # seed 17171: the class carried onto "интернирован" (one ship) was false for «Гёбен», and
    # "Участвовал" carried nothing
    claims = _claims(_MOLTKE, "Линейные крейсера типа «Мольтке»")
    assert (
        "«Мольтке»: после окончания войны интернирован и затем затоплен собственным экипажем в"
        " Скапа-Флоу." in claims
    )
    assert "«Гёбен»: участвовал в нескольких стычках с русским Черноморским флотом." in claims
    assert any(c.startswith("«Гёбен»: до войны служил на Средиземном море.") for c in claims)


def test_the_class_keeps_what_agrees_with_it_and_a_name_keeps_its_own_claim() -> None:
    claims = _claims(_MOLTKE, "Линейные крейсера типа «Мольтке»")
    assert (
        "Линейные крейсера типа «Мольтке»: Активно использовались во время Первой мировой войны."
        in claims
    )
    assert any(c.startswith("«Мольтке» принял участие") for c in claims)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("«Гёбен» был единственным крейсером. До войны служил на Средиземном море. ", "«Гёбен»"),
        ("Крейсер «Гёбен» был продан Турции. ", "Крейсер «Гёбен»"),
        ("Хориа Сима возглавил организацию. ", "Хориа Сима"),
        ("Активно использовались во время войны. ", None),  # one capitalised word: any first
        ("«Гёбен» была продана Турции. ", None),  # another form than the claim's verb
    ],
)
def test_the_named_subject_before(text: str, found: str | None) -> None:
    assert named_before(text, len(text), ("sg", "m")) == found


# --- a run of empty items: words lost in the source -----------------------------------------


def test_a_lead_whose_defining_words_were_lost_is_dropped_as_damaged() -> None:
    # seed 17171 (Достоевский, Михаил Михайлович)
    text = (
        "Михаи́л Миха́йлович Достое́вский (13 октября (25 октября) 1820, Москва — 10 июля (22"
        " июля) 1864, Петербург) — русский , , ,  журналов. Старший брат Фёдора Достоевского."
    )
    claims, drops = _distilled(text, "Достоевский, Михаил Михайлович")
    assert not any("журналов" in c for c in claims)
    assert drops.get(DAMAGED) == 1


@pytest.mark.parametrize(
    "claim",
    [
        "Иван Вениаминович Каргель (1849, , Российская империя — , , УССР) — христианский"
        " писатель.",  # inside brackets: an aside lost
        "Фильм снят режиссёром , который работал в США.",  # one gap: `damaged_gap` reads it
        "Он писал стихи, рассказы, пьесы.",
    ],
)
def test_no_run_of_empty_items_outside_brackets(claim: str) -> None:
    assert not comma_run(claim)


def test_a_run_of_empty_items() -> None:
    assert comma_run("— французский , , ,  и .")
    assert comma_run("A library for , , and parsing.")
