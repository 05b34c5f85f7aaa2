"""Fragments from splitting, and flattened lists (issue 15).

- A sentence never ends inside inline code (ripgrep's FAQ: "do `. /path/to/_rg.ps1` instead"
  was cut at the ". " of the code), after the letters of an abbreviation written with points
  before a text that goes on («Агенты "Щ.И.Т."», или «Щ. И. Т.» | "(English: Agents of
  S.H.I.E.L.D.) — американский телесериал ..."), nor inside a quotation that closes in the next
  sentences («Война и мир. Том 1»). Sentence ends after a closing quote still split.
- A gallery's captions run together (TyDi: "Комплекс «Уайтхолл» на пл. Уайтхолл Главный корпус
  ... Корпус СИС на ул. Бродвей, д. 54 ...") is a list line even with an address's comma.
"""

from __future__ import annotations

import pytest

from pegas_memory.distill.items import flat_list
from pegas_memory.distill.sentences import prose_sentences
from tests.distill.offline_chunk import distil


def _split(text: str) -> list[str]:
    return [s.text for s in prose_sentences(text)]


def _distilled(text: str, lang: str, heading: str = "Статья") -> tuple[list[str], dict[str, int]]:
    atoms, dropped = distil(text, "T", (heading,), lang)
    return [a.claim for a in atoms], dropped


# --- inline code ---

_FAQ = (
    "And then add `. _rg.ps1` to your PowerShell\n"
    "[profile](https://technet.microsoft.com/en-us/library/bb613488(v=vs.85).aspx)\n"
    "(note the leading period). If the `_rg.ps1` file is not on your `PATH`, do\n"
    "`. /path/to/_rg.ps1` instead."
)


def test_no_cut_inside_markdown_inline_code() -> None:
    assert _split(_FAQ) == [_FAQ[: _FAQ.index(" If")], _FAQ[_FAQ.index("If") :]]
    claims, _ = _distilled(_FAQ, "en", "Shell completion")
    assert "If the _rg.ps1 file is not on your PATH, do . /path/to/_rg.ps1 instead." in claims
    assert not any(c.startswith(("/path", "_rg.ps1 to")) for c in claims), claims


def test_no_cut_inside_rst_literal_and_roles() -> None:
    text = "Pass ``sep=. Then`` to it. Call :func:`os. Path` now. It returns a list."
    assert _split(text) == ["Pass ``sep=. Then`` to it.", "Call :func:`os. Path` now.",
                            "It returns a list."]  # fmt: skip


def test_sentences_around_inline_code_still_split() -> None:
    text = "Run `rg foo`. Then run `rg bar`. A lone ` tick. Another sentence."
    assert _split(text) == ["Run `rg foo`.", "Then run `rg bar`.", "A lone ` tick.",
                            "Another sentence."]  # fmt: skip
    # a code span of a space is one; a run opening on a space is a closing one
    text = "It matches `a` but not `.` and ` `). The `+` means more. Done."
    assert _split(text) == ["It matches `a` but not `.` and ` `).", "The `+` means more.", "Done."]
    assert _split("Use `a`` or `b` for it. The old `c` stays.")[-1] == "The old `c` stays."
    # a code span never crosses a blank line
    assert len(_split("Use `a.\n\nB` here. Done.")) >= 2


# --- the letters of an abbreviation with points ---

_RU_LEAD = (
    '«Агенты "Щ.И.Т."», или «Щ. И. Т.» (English: Agents of S.H.I.E.L.D.)[1] — американский '
    "телесериал, созданный Джоссом Уидоном и основанный на одноимённом комиксе компании Marvel. "
    "Является частью кинематографической вселенной Marvel."
)


def test_no_cut_after_an_abbreviations_letters_ru() -> None:
    first, second = _split(_RU_LEAD)
    assert first.startswith("«Агенты") and first.endswith("компании Marvel.")
    assert second == "Является частью кинематографической вселенной Marvel."
    claims, _ = _distilled(_RU_LEAD, "ru", "Агенты «Щ.И.Т.»")
    assert not any(c.startswith("(English") for c in claims), claims
    assert not any(c.endswith("«Щ. И. Т.»") for c in claims), claims


# --- quotations ---


def test_a_quotation_never_crosses_a_blank_line() -> None:
    assert len(_split("He said «one.\n\nTwo» and left.")) == 2


# --- a gallery's captions run together ---

_GALLERY = (
    "Комплекс «Уайтхолл» на пл. Уайтхолл Главный корпус ВЦ дешифровальной службы МИД в н.п. "
    "Блечли Управление безопасности СИС по США и Канаде (г. Нью-Йорк[35] )  Корпус СИС на ул. "
    "Бродвей, д. 54 Корпус управления нелегальной разведки между ул. Стрэнд и ул. Олдвич  Главный "
    "корпус СИС на ул. Воксхолльского моста («Сентюри») Новый корпус СИС у Воксхолльского моста"
)
_GALLERY_EN = (
    "Whitehall complex on Whitehall Place Main building of the Government Code School at "
    "Bletchley Park Security Coordination office in New York City SIS building at Broadway, "
    "New York Headquarters of the Illegals Directorate on the Strand Century House on Westminster "
    "Bridge Road New SIS Building at Vauxhall Cross"
)


def test_a_gallery_run_together_is_a_list_line() -> None:
    assert flat_list(_GALLERY, "ru")
    assert flat_list(_GALLERY_EN, "en")
    text = "Служба размещается в Лондоне.\n\n" + _GALLERY
    claims, dropped = _distilled(text, "ru", "Секретная разведывательная служба")
    assert dropped.get("list line") == 1
    assert claims == ["Служба размещается в Лондоне."] or all("Уайтхолл" not in c for c in claims)


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        # a long sentence with its verb and a comma, no full stop
        ("ru", "Главный корпус СИС на ул. Воксхолльского моста построили в 1994 году, и с тех "
               "пор Служба размещается в нём вместе с Управлением безопасности по США и Канаде"),
        # an enumeration of names: many commas
        ("ru", "Основные порты Северного моря Роттердам, Амстердам, Антверпен, Лондон, Гамбург, "
               "Осло, Берген, Абердин, Эсбьерг, Бремерхафен, Гётеборг и Ставангер в Норвегии"),
        # a verbless phrase that ends
        ("ru", "Комплекс «Уайтхолл» на пл. Уайтхолл, главный корпус ВЦ дешифровальной службы МИД "
               "в н.п. Блечли и корпус СИС на ул. Бродвей, д. 54, в Нью-Йорке и в Лондоне."),
        ("en", "The SIS building at Vauxhall Cross was opened in 1994, and the Service has worked "
               "there since then together with its Security Coordination office in New York"),
    ],
)  # fmt: skip
def test_a_long_sentence_is_no_gallery(lang: str, text: str) -> None:
    assert not flat_list(text, lang)
