"""Russian claims whose subject is only in the title (issue 15, seed 16161's Russian junk; the
TyDi QA passages of Russian Wikipedia): `distill/title_ru.py`, `distill/anchor_ru.py`, and
`distill/head_ru.py`'s forms and verb-first claims.

- a title's noun read as a verb ("... архитектурно-строительный университет", "Чёрный
  квадрат") no longer makes the title a headline, so its claims with a generic subject ("вуз
  возглавил ...", "коллектив института возглавил ...") carry it;
- a generic noun of the title head's family ("вуз", "институт" under "... университет"), bare,
  carries the title; with a name, a modifier or a complement it is another one;
- "Валуй" (a river) is no form of "Валуйки": the subjectless "Расположен на ... реки Валуй"
  carries the town; "Был совершён ... Алкоком и Брауном" lacks its head "перелёт";
- "Основные порты: Роттердам, ..." (a label and its values) carries the title;
- "Список персонажей телесериала «Агенты Щ.И.Т»" carries the series' name, not the list's;
- a dateless sentence right after a chronology's entry "1933 — ..." joins it.

Each fires and does not fire on close good sentences; English text is not read."""

from __future__ import annotations

import pytest

from pegas_memory.distill.anchor_ru import undated_after_entry
from pegas_memory.distill.carry import carry, mentions, topic
from pegas_memory.distill.head_ru import _inflected
from pegas_memory.distill.title_ru import family_reference, label_value
from pegas_memory.distill.types import ChunkContext, DraftAtom
from tests.distill.offline_chunk import claims, grouped

_TITLE = "Статьи Википедии (TyDi QA GoldP, русский)"
_NGASU = "Новосибирский государственный архитектурно-строительный университет"


def _claims(text: str, heading: str, title: str = _TITLE) -> list[str]:
    return claims(text, title, (title, heading), "ru")


def _carried(claim: str, subject: str, kind: str = "fact") -> str:
    atom = DraftAtom(kind, claim, claim, 0.7, claim, 0, len(claim), "ru")  # type: ignore[arg-type]
    return carry(atom, subject).claim


# --- a generic noun of the title head's family ----------------------------------------------


def test_a_family_noun_under_a_title_of_another_kind_is_not_read() -> None:
    claim = "Правление Комитета освобождало от платы до 25 % студентов университета."
    assert family_reference(claim, "факультет") is None  # a faculty's university is no faculty
    assert family_reference("Институт был закрыт.", "Петров") is None


# --- a title's stem in another name is no mention --------------------------------------------


def test_a_shorter_name_with_the_title_stem_is_no_form_of_it() -> None:
    assert _inflected("Валуйки", "на берегу реки валуй") is None
    assert _inflected("Валуйки", "в валуйках") is not None
    assert _inflected("Валуйки", "к валуйкам") is not None
    assert _inflected("Новосибирское", "города новосибирск") is None
    assert _inflected("война", "после трёх войн") is not None
    assert _inflected("Handlers", "handle") is not None  # English words as before


def test_a_subjectless_claim_naming_a_river_carries_the_town() -> None:
    claim = (
        "Расположен на высоком правом берегу реки Валуй, в 3 км от её впадения в реку Оскол,"
        " в 152 км к юго-востоку от Белгорода."
    )
    assert _carried(claim, "Валуйки") == f"Валуйки: р{claim[1:]}"
    named = "Город Валуйки расположен на высоком правом берегу реки Валуй."
    assert _carried(named, "Валуйки") == named
    assert mentions("В Валуйках работает завод.", "Валуйки")


def test_a_claim_opening_on_was_with_only_complements_of_the_title_carries_it() -> None:
    subject = "Трансатлантический перелёт Алкока и Брауна"
    claim = "Был совершён за 16 часов британскими лётчиками Джоном Алкоком и Артуром Брауном."
    assert _carried(claim, subject) == f"{subject}: б{claim[1:]}"
    named = "Перелёт Алкока и Брауна был совершён за 16 часов 28 минут."
    assert _carried(named, subject) == named
    # a name (no common-noun head) named only as an owner after the verb ("альпинистами
    # Арарата") is no subject of the verb: carried (verbfirst_ru.named_obliquely, r2 of session
    # 11); right after the verb it is the verb's subject, and the mention counts, as before
    carried = _carried("Был покорён альпинистами Арарата в 1829 году.", "Арарат")
    assert carried == "Арарат: был покорён альпинистами Арарата в 1829 году."
    assert _carried("Был покорён Арарат в 1829 году.", "Арарат").startswith("Был")


# --- a list's title ----------------------------------------------------------------------------


def test_a_subjectless_claim_under_a_list_title_carries_the_series() -> None:
    heading = "Список персонажей телесериала «Агенты Щ.И.Т»"
    assert topic(ChunkContext(_TITLE, (_TITLE, heading), "ru")) == "«Агенты Щ.И.Т»"
    claims = _claims("Является частью кинематографической вселенной Marvel.", heading)
    assert claims == ["«Агенты Щ.И.Т»: является частью кинематографической вселенной Marvel."]


# --- a chronology's year anchors the dateless sentence after its entry -------------------------


def test_the_dateless_sentence_after_an_entry_joins_it() -> None:
    text = (
        "1933 — переселение института в Новосибирск. Всего в вузе действует уже 13 кафедр."
        " Завершено строительство первой очереди учебного корпуса."
    )
    first = "1933 — переселение института в Новосибирск. Всего в вузе действует уже 13 кафедр."
    assert grouped(text, "ru")[0] == first
    claims = _claims(text, _NGASU)
    assert f"{_NGASU}: {first}" in claims


@pytest.mark.parametrize(
    ("before", "sentence"),
    [
        ("1933 — переселение института в Новосибирск.", "В 1934 году открыта аспирантура."),
        ("Институт переехал в Новосибирск.", "Всего в вузе действует 13 кафедр."),
        (None, "Всего в вузе действует 13 кафедр."),
    ],
)
def test_no_anchor_for_a_dated_sentence_or_after_a_plain_one(
    before: str | None, sentence: str
) -> None:
    assert not undated_after_entry(sentence, before)


def test_english_text_is_not_read_by_the_russian_rules() -> None:
    text = "1933 — the institute moved to Novosibirsk. It had 13 departments by then."
    groups = grouped(text, "en")
    assert len(groups) == 2 or groups == [text]  # whatever English does, not this rule
    assert label_value("Main ports: Rotterdam, Amsterdam.") is None


def test_a_claim_all_in_brackets_is_carried_without_raising() -> None:
    # XQuAD ru "University of Chicago": the whole sentence is an aside; `_unanchored` read the
    # claim without its asides, found no word and raised IndexError (ingest of that article
    # failed)
    claim = "(Например, Башня Митчелла спроектирована по образцу оксфордской Башни Магдалены.)"
    assert _carried(claim, "University of Chicago").endswith(claim)
