"""Flat lists run together in one paragraph are no claims (issue 15).

Wikipedia text has its lists flattened into one paragraph. Split at the series' full stops, a
book list became atoms such as "Маг полуночи (август 2004) Мефодий Буслаев."; a list of office
holders with their terms became a verbless "claim" whose office was only in the heading; a
structured abstract's outcome measures, their label cut, a verbless ";" list of noun phrases.
Now a paragraph of dated entries is one `text` atom led in by its heading (dropped as a `list
line` with no heading), and the ";" list is a `list line`. Both sides in ru and en: a verbless
lead that carries its subject, a single bracketed date in a sentence, three people with their
years joined by commas and "и", entries with their verbs, clauses joined by ";" stay claims.

The labelled sentences of these rules are rows of `cases/promote.toml` (run by
`test_promote_rules.py`); what stays here distils whole chunks or asserts more than one answer.
"""

from __future__ import annotations

import pytest

from pegas_memory.distill.items import dated_entries, nominal_list
from pegas_memory.distill.types import DraftAtom
from tests.distill.offline_chunk import distil


def _distilled(
    text: str, lang: str, heading: tuple[str, ...] = ("Статья",)
) -> tuple[list[DraftAtom], dict[str, int]]:
    return distil(text, None, heading, lang)


_BOOKS = (
    "Таня Гроттер. Таня Гроттер и магический контрабас (май 2002) Таня Гроттер. Таня Гроттер и"
    " исчезающий этаж (октябрь 2002) Таня Гроттер. Таня Гроттер и золотая пиявка (март 2003)"
    " Таня Гроттер. Таня Гроттер и трон Древнира (июль 2003) — последняя книга серии."
)
_HOLDERS = (
    "Хрущёв, Никита Сергеевич (7 сентября 1953 — 14 октября 1964) Брежнев, Леонид Ильич (14"
    " октября 1964 — 10 ноября 1982) Андропов, Юрий Владимирович (12 ноября 1982 — 9 февраля 1984)"
)
_NOVELS = (
    "The Hobbit (September 1937) The Fellowship of the Ring (July 1954) The Two Towers (November"
    " 1954) The Return of the King (October 1955)"
)


@pytest.mark.parametrize(
    ("lang", "text", "heading", "lead"),
    [
        ("ru", _BOOKS, "Таня Гроттер", "Таня Гроттер:"),
        ("ru", _HOLDERS, "Первый секретарь ЦК КПСС", "Первый секретарь ЦК КПСС:"),
        ("en", _NOVELS, "Middle-earth novels", "Middle-earth novels:"),
    ],
)
def test_dated_entries_run_together_are_one_atom_led_in_by_the_heading(
    lang: str, text: str, heading: str, lead: str
) -> None:
    assert dated_entries(text, lang)
    atoms, dropped = _distilled(text, lang, (heading,))
    assert len(atoms) == 1 and not dropped
    (atom,) = atoms
    assert atom.type == "text" and atom.metadata["kind"] == "list" and atom.term is None
    assert atom.claim.startswith(lead) and atom.quote == text  # the whole list, verbatim


def test_dated_entries_under_no_heading_are_a_list_line() -> None:
    atoms, dropped = _distilled(_HOLDERS, "ru", ())
    assert atoms == [] and dropped == {"list line": 1}


def test_a_name_is_no_verb_in_a_list_of_people() -> None:
    # "Михаил" ends like a past verb ("-ил"); a capitalised word is a name, not the predicate
    holders = "Горбачёв, Михаил Сергеевич (1989—1990) Лукьянов, Анатолий Иванович (1990—1991)"
    assert dated_entries(f"{holders} Иванов, Пётр Ильич (1991)", "ru")
    assert not dated_entries(f"{holders} Иванов, Пётр Ильич (1991) правил страной", "ru")


_MEASURES = (
    "Rate of severe hypoglycaemia as recorded in patient diaries; duration of hospital stay;"
    " change in glycated haemoglobin; and number of ketoacidosis episodes, which requires"
    " admission to hospital."
)


def test_a_list_of_noun_phrases_is_a_list_line() -> None:
    text = (
        "OBJECTIVE To compare two regimens of insulin in children with type 1 diabetes. MAIN"
        f" OUTCOME MEASURES {_MEASURES} RESULTS Severe hypoglycaemia was less frequent with"
        " the basal regimen."
    )
    assert nominal_list(_MEASURES, "en")
    atoms, dropped = _distilled(text, "en", ("Insulin regimens in children",))
    assert dropped.get("list line") == 1
    assert not any("duration of hospital stay" in a.claim for a in atoms)
    assert any("less frequent" in a.claim for a in atoms)


def test_a_semicolon_list_needs_english_grammar() -> None:
    assert nominal_list(_MEASURES, None) and not nominal_list(_MEASURES, "ru")
