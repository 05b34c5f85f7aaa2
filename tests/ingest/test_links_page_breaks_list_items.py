"""Three ingest fixes found by the graded sample of seed 7171 (issue 15), each on both sides and
in en, ru and de: a markdown link whose text holds inline code stays in its sentence (a line that
is only that link was blanked, and the claim stopped before it); a sentence cut by a PDF page
break is put back together on the page where it starts; a bare list item under a heading and no
lead-in is led in by the heading, never a bare phrase typed fact."""

from __future__ import annotations

from pathlib import Path

import pytest

from pegas_memory.config import load_settings
from pegas_memory.distill.items import bare_item, heading_lead_in
from pegas_memory.distill.offline import OfflineDistiller, _is_crumbs
from pegas_memory.distill.types import ChunkContext, DraftAtom
from pegas_memory.ingest.chunking import chunk_source
from pegas_memory.ingest.layout import clean_pages
from pegas_memory.ingest.markup import normalise
from pegas_memory.ingest.sources import parse_source, read_source


def ingest_atoms(tmp_path: Path, name: str, text: str) -> tuple[list[DraftAtom], dict[str, int]]:
    """The offline atoms of a file parsed as `memory_ingest` parses it, and the drops."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    settings = load_settings(ingest_roots=[str(tmp_path)], data_dir=tmp_path / "data")
    parsed = parse_source(read_source(str(path), settings), settings)
    atoms: list[DraftAtom] = []
    dropped: dict[str, int] = {}
    for chunk in chunk_source(parsed):
        context = ChunkContext(parsed.title, chunk.heading_path, chunk.language)
        found, drops = OfflineDistiller().distill_counted(chunk.text, context)
        atoms += found
        for reason, n in drops.items():
            dropped[reason] = dropped.get(reason, 0) + n
    return atoms, dropped


# --- 1. a link line inside a sentence ------------------------------------------------------------

LINK_SENTENCES = [
    # the line holds only the link: it was blanked as a line of links
    (
        "Packages are installed with the\n[`npm install` command](https://docs.npmjs.com/a/b-c).\n",
        "Packages are installed with the npm install command.",
    ),
    (
        "Пакеты устанавливаются командой\n[`npm install`](https://docs.npmjs.com/a/b-c).\n",
        "Пакеты устанавливаются командой npm install.",
    ),
    (
        "Pakete werden installiert mit dem\n[`npm install`-Befehl](https://docs.npmjs.com/a/b).\n",
        "Pakete werden installiert mit dem npm install-Befehl.",
    ),
    (  # the link opens the sentence and the next line goes on in lower case
        "[`Flask`](https://flask.palletsprojects.com/en/stable/)\nis a lightweight framework"
        " for web applications.\n",
        "Flask is a lightweight framework for web applications.",
    ),
    # the link's target has slashes: it was read as a breadcrumb line and dropped
    (
        "Installation is done using the\n[`npm install` command](https://docs.npmjs.com/a/b-c):"
        " it fetches the package.\n",
        "Installation is done using the npm install command: it fetches the package.",
    ),
    (
        "Установка выполняется командой\n[`npm install`](https://docs.npmjs.com/a/b-c), которая"
        " скачивает пакет.\n",
        "Установка выполняется командой npm install, которая скачивает пакет.",
    ),
]


@pytest.mark.parametrize(("text", "claim"), LINK_SENTENCES)
def test_a_link_line_inside_a_sentence_stays_in_its_claim(
    tmp_path: Path, text: str, claim: str
) -> None:
    atoms, _ = ingest_atoms(tmp_path, "guide.md", "# Guide\n\n" + text)
    assert any(a.claim.endswith(claim) for a in atoms), [a.claim for a in atoms]


@pytest.mark.parametrize(
    "links",
    [
        "[Website](https://expressjs.com/)\n[Docs](https://expressjs.com/en/guide/routing.html)\n",
        "Links:\n[Website](https://expressjs.com/)\n",
        "Ссылки.\n[Сайт](https://example.org/a/b)\n",
        "* [Overview](#overview)\n* [Concepts](#concepts)\n",
    ],
)
def test_lines_of_links_are_still_blanked(links: str) -> None:
    out, _, _ = normalise(links, "markdown")
    assert "](" not in out and "Website" not in out and "Сайт" not in out
    assert "Overview" not in out


@pytest.mark.parametrize(
    ("text", "lead"),
    [
        ("Installation is done using the\n[`npm install` command](https://x.org/a/b-c):\n",
         "Installation is done using the npm install command:"),
        ("Установка выполняется с помощью\n[`npm install`](https://x.org/a/b-c):\n",
         "Установка выполняется с помощью npm install:"),
        ("Die Installation erfolgt mit\n[`npm install`](https://x.org/a/b-c):\n",
         "Die Installation erfolgt mit npm install:"),
    ],
)  # fmt: skip
def test_a_lead_in_ending_in_a_link_before_code_is_dropped_whole(
    tmp_path: Path, text: str, lead: str
) -> None:
    atoms, dropped = ingest_atoms(
        tmp_path, "readme.md", "# Tool\n\n" + text + "\n```bash\nnpm install tool\n```\n"
    )
    assert dropped.get("lead-in") == 1
    claims = [a.claim for a in atoms]
    assert not any(lead.split()[0] in c for c in claims), claims  # neither whole nor cut
    assert [a.type for a in atoms] == ["code"]


def test_a_markdown_links_target_is_no_breadcrumb_separator() -> None:
    assert not _is_crumbs("the [`npm init` command](https://docs.npmjs.com/creating-a-package).")
    assert not _is_crumbs("Siehe die [Anleitung](https://example.org/de/docs/anleitung/start).")
    assert _is_crumbs("Home / Docs / Guides / Routing")
    assert _is_crumbs("Главная / Документация / Руководство / Маршруты")
    assert _is_crumbs("https://example.org/a/b/c")  # a bare URL line is still furniture
    # a list item of links is still a list of links (a team list, a link list)
    assert _is_crumbs("* [UlisesGascon](https://github.com/UlisesGascon) - **Ulises** (he/him)")


# --- 2. a sentence cut by a page break -----------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "sentence", "rest"),
    [
        ("A blind text like this gives you information about the font, how the letters are",
         "written and an impression of the look. This text should contain all letters.",
         "how the letters are\nwritten and an impression of the look.",
         "This text should contain all letters."),
        ("Отображение называется непрерывным, если прообраз каждого открытого",
         "множества открыт. Это определение не зависит от метрики.",
         "каждого открытого\nмножества открыт.", "Это определение не зависит от метрики."),
        ("Eine Abbildung heißt stetig, wenn das Urbild jeder offenen Menge wieder",
         "offen ist. Diese Definition hängt nicht von der Metrik ab.",
         "Menge wieder\noffen ist.", "Diese Definition hängt nicht von der Metrik ab."),
        # a word hyphenated across the break is joined
        ("The compactness of the space follows from the theorem of Heine and Bo-",
         "rel. The proof is in the appendix.",
         "Heine and Borel.", "The proof is in the appendix."),
    ],
)  # fmt: skip
def test_a_sentence_cut_by_a_page_break_is_put_together(
    first: str, second: str, sentence: str, rest: str
) -> None:
    cleaned = clean_pages([f"Intro line of the page.\n{first}", f"{second}\nMore text here."])
    assert sentence in cleaned.pages[0].text
    assert cleaned.pages[1].text.startswith(rest)
    assert cleaned.removed["sentence across pages"] == 1


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # the page ends its sentence
        ("The letters are written clearly.", "written words follow on the next page."),
        ("Отображение непрерывно.", "множество открыто, и это важно."),
        # the next page starts a sentence of its own
        ("The letters are", "Written words follow on the next page."),
        ("Eine Abbildung heißt stetig, wenn", "Offene Mengen sind hier wichtig."),
        # no sentence end soon on the next page: nothing moves
        ("The letters are", "written " + "and more " * 80),
        # the whole next page is that sentence's end: nothing moves
        ("The letters are", "written clearly."),
    ],
)
def test_a_page_break_between_sentences_moves_nothing(first: str, second: str) -> None:
    cleaned = clean_pages([first, second])
    assert [p.text for p in cleaned.pages] == [first, second.strip()]
    assert "sentence across pages" not in cleaned.removed


# --- 3. a bare list item under a heading ---------------------------------------------------------


def distil(text: str, heading_path: tuple[str, ...], language: str) -> list[DraftAtom]:
    return OfflineDistiller().distill(text, ChunkContext(None, heading_path, language))


@pytest.mark.parametrize(
    ("text", "path", "language", "claim"),
    [
        ("* HTTP helpers (redirection, caching, etc)\n* View system supporting 14+ engines\n",
         ("Features",), "en", "Features: HTTP helpers (redirection, caching, etc)"),
        ("* поддержка шаблонов и перенаправлений для сайтов\n* быстрая маршрутизация\n",
         ("Возможности",), "ru", "Возможности: поддержка шаблонов и перенаправлений для сайтов"),
        ("* Schnelle Weiterleitung und Zwischenspeicher für Seiten\n* Vorlagen\n",
         ("Funktionen",), "de", "Funktionen: Schnelle Weiterleitung und Zwischenspeicher für"
         " Seiten"),
        # a list item in lower case is no fragment of a sentence cut before it
        ("* fast routing for every HTTP method and path\n", ("Features",), "en",
         "Features: fast routing for every HTTP method and path"),
        # the heading's section number is no part of the lead-in
        ("* Schnelle Weiterleitung und Zwischenspeicher für Seiten\n",
         ("2.1 Funktionen",), "de", "Funktionen: Schnelle Weiterleitung und Zwischenspeicher"
         " für Seiten"),
        # a heading that names no subject under one that does: both lead in
        ("* HTTP helpers (redirection, caching, etc)\n",
         ("Express web framework", "Features"), "en",
         "Express web framework — Features: HTTP helpers (redirection, caching, etc)"),
    ],
)  # fmt: skip
def test_a_bare_list_item_is_led_in_by_its_heading(
    text: str, path: tuple[str, ...], language: str, claim: str
) -> None:
    atoms = distil(text, path, language)
    first = atoms[0]
    assert first.claim == claim
    assert first.quote == text[2 : text.index("\n")]  # the quote stays the item's own text
    if len(path) == 1:  # nothing names what the features are of: a description, no fact
        assert first.type == "text"


def test_bare_items_deep_in_a_chunk_are_led_in_too() -> None:
    text = "## Features\n\n  * Robust routing\n  * HTTP helpers (redirection, caching, etc)\n"
    claims = [a.claim for a in distil(text, ("Features",), "en")]
    assert claims == ["Features: HTTP helpers (redirection, caching, etc)"]


def test_a_bare_item_with_no_heading_and_no_subject_is_no_fact() -> None:
    atoms = distil("* HTTP helpers for 14 template engines (redirection, caching, etc)\n", (), "en")
    assert [(a.claim, a.type) for a in atoms] == [
        ("HTTP helpers for 14 template engines (redirection, caching, etc)", "text")
    ]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("* Routes are matched in the order they were defined.\n", "en"),
        ("* The router caches compiled patterns for speed.\n", "en"),
        ("* Маршруты проверяются в порядке их объявления.\n", "ru"),
        ("* Маршрутизатор кэширует скомпилированные шаблоны маршрутов\n", "ru"),
        ("* Die Routen werden in ihrer Reihenfolge geprüft.\n", "de"),
        ("* Jede Strecke bestimmt genau eine Gerade\n", "de"),  # a finite verb, no full stop
        ("* Q ⊊ R ist nicht zusammenhängend\n", "de"),
        ("* f(x) = g(x) für alle reellen Zahlen x\n", "de"),  # a formula states something
        ("* f(x) ≤ g(x) for every real number x\n", "en"),
        ("* f(x) → 0 при стремлении x к бесконечности\n", "ru"),
    ],
)
def test_a_list_item_that_is_a_sentence_stays_unchanged(text: str, language: str) -> None:
    atoms = distil(text, ("Features",), language)
    assert [a.claim for a in atoms] == [text[2:].strip()]


def test_a_list_under_a_lead_in_keeps_its_lead_in_not_the_heading() -> None:
    text = "Cobra provides:\n* Fully POSIX-compliant flags (short and long versions)\n"
    atoms = distil(text, ("Overview",), "en")
    assert "Cobra provides: Fully POSIX-compliant flags (short and long versions)" in [
        a.claim for a in atoms
    ]


def test_bare_item_is_only_a_list_item() -> None:
    text = "HTTP helpers (redirection, caching, etc)\n"
    assert not bare_item(text, 0, text.strip(), "en")  # a paragraph, no item
    item = "* HTTP helpers (redirection, caching, etc)\n"
    assert bare_item(item, 2, item[2:].strip(), "en")


@pytest.mark.parametrize(
    ("heading", "subject", "lead"),
    [
        ("Features", None, "Features:"),
        ("Features", "Express", "Express — Features:"),
        ("Express features", "Express", "Express features:"),
        ("Возможности", "Cobra", "Cobra — Возможности:"),
        ("How do I install it?", "Express", "Express:"),  # a question leads in nothing
        (None, "Express", "Express:"),
        (None, None, None),
    ],
)
def test_heading_lead_in(heading: str | None, subject: str | None, lead: str | None) -> None:
    assert heading_lead_in(heading, subject) == lead


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Errors happen for many reasons:\n\n- the database server was overloaded and failed\n"
         "- a network connection of the server to another system failed\n\n"
         "And that's just a small sample of issues you could be facing.\n", "en"),
        ("Ошибки бывают по разным причинам:\n\n- сервер базы данных был перегружен и упал\n"
         "- сетевое соединение сервера с другой системой оборвалось\n\n"
         "И это лишь малая часть проблем, с которыми можно столкнуться.\n", "ru"),
    ],
)  # fmt: skip
def test_a_paragraph_after_a_list_is_not_glued_to_its_last_item(text: str, language: str) -> None:
    """A lower-case item is an atom now (no fragment), but the sentence after the list leans on
    the list, not on the item: it is not joined to it."""
    atoms = distil(text, (), language)
    last_item = text.splitlines()[3][2:]
    assert any(a.quote == last_item for a in atoms), [a.quote for a in atoms]
    assert not any(last_item in a.quote and a.quote != last_item for a in atoms)


def test_bros_is_an_abbreviation_inside_a_company_name() -> None:
    """'Warner Bros.' split a Russian sentence in two fragments (graded sample 8181)."""
    from pegas_memory.sentences import split_sentences

    ru = "Производством шоу занимается компания Warner Bros. Television вместе с Wonderland Sound."
    assert [s.text for s in split_sentences(ru)] == [ru]
    en = "The film was made by Warner Bros. Pictures in 1999. It won two awards."
    assert len(split_sentences(en)) == 2  # a real sentence end still splits
