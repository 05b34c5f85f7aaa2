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


@pytest.mark.parametrize(
    "text",
    [
        '"Agents of S.H.I.E.L.D." (or simply S.H.I.E.L.D.) is an American television series.',
        "Marvel's «Agents of S. H. I. E. L. D.» (also known as S.H.I.E.L.D.) is a series.",
        "Сериал «Агенты Щ. И. Т.» (англ. Agents of S.H.I.E.L.D.) — американский телесериал.",
    ],
)
def test_no_cut_after_an_abbreviations_letters_en_ru(text: str) -> None:
    assert _split(text) == [text]


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("He works for «S.H.I.E.L.D.» Then he left.", 2),  # a capital: a new sentence
        ("Он работал в «Щ.И.Т.». Потом ушёл.", 2),
        ("Работы А. С. Пушкина. Он писал.", 2),
        ("Это было в США и т. д. Потом всё кончилось.", 2),
        ("Er kam z. B. (wie immer) spät. Dann ging er.", 2),
        ("He moved to the U.S. in 1990. The firm grew.", 2),
    ],
)
def test_sentence_ends_after_abbreviations_still_split(text: str, parts: int) -> None:
    assert len(_split(text)) == parts


# --- quotations ---


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("Роман «Война и мир. Том 1» вышел в 1869 году. Он стал известен.",
         "Роман «Война и мир. Том 1» вышел в 1869 году."),
        ('He wrote "The End. Part 2" in 1990. It sold well.',
         'He wrote "The End. Part 2" in 1990.'),
        ("The book “The End. Part 2” sold well. It was cheap.",
         "The book “The End. Part 2” sold well."),
        ("Er schrieb „Das Ende. Teil 2“ im Jahr 1990. Es verkaufte sich gut.",
         "Er schrieb „Das Ende. Teil 2“ im Jahr 1990."),
        ("«Мы старались. Было трудно», — сказал он. Потом ушёл.",
         "«Мы старались. Было трудно», — сказал он."),
    ],
)  # fmt: skip
def test_no_cut_inside_a_quotation_that_closes(text: str, first: str) -> None:
    assert _split(text) == [first, text[len(first) + 1 :]]


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("Он сказал «да». Потом ушёл.", 2),  # ends after the closing quote
        ('He said "yes." Then he left.', 2),
        ('He bought a 12" pipe. It was cheap. "Yes." He left.', 4),  # an inch mark opens nothing
        ('He said "It was hard. We tried. Then', 3),  # never closed: the cuts stay
        # razdel put the closing mark after the cut: the sentence before ends there
        ('It was without error. " With the ability to track, it is "real. " Promoters agree.', 3),
    ],
)
def test_sentence_ends_around_quotations_still_split(text: str, parts: int) -> None:
    assert len(_split(text)) == parts


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
