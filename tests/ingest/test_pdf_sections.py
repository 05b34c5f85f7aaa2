"""PDF citations name the outline section the passage is under, not the page's last entry
(issue 15, session 9): a page holding several outline sections is cut at their printed heading
lines, the heading starts its section instead of being glued onto the first sentence, and every
part keeps offsets that count from its page's start."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from fpdf import FPDF

from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.config import Settings, load_settings
from pegas_memory.ingest.pdf import parse_pdf
from pegas_memory.ingest.pdf_sections import settle_entries, split_page

INTRO = "Preface text that opens the report and says what it is about in plain words."
METHODS = "Samples were frozen at minus eighty degrees before the assay began."
RESULTS = "The assay found twelve proteins in every frozen sample we measured."
TAIL = "Every frozen sample kept its twelve proteins for at least three weeks."


def line(pdf: FPDF, text: str) -> None:
    pdf.multi_cell(0, 8, text, new_x="LMARGIN", new_y="NEXT")


def two_sections_on_one_page() -> bytes:
    """Page 1: an introduction; page 2: "1 Methods" and "2 Results" with their outline
    entries, the first one printed below some text that still belongs to the introduction."""
    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    pdf.add_page()
    pdf.start_section("Introduction")
    line(pdf, "Introduction")
    line(pdf, INTRO)
    pdf.add_page()
    line(pdf, TAIL)
    pdf.start_section("Methods")
    line(pdf, "1 Methods")
    line(pdf, METHODS)
    pdf.start_section("Results")
    line(pdf, "2 Results")
    line(pdf, RESULTS)
    line(pdf, "The Results section above lists what the assay found in the samples.")
    return bytes(pdf.output())


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings(data_dir=tmp_path / "data")


def section_of(parsed_sections: tuple, text: str) -> tuple[str, tuple[str, ...], int]:  # type: ignore[type-arg]
    s = next(s for s in parsed_sections if text in s.text)
    return s.locator, s.heading_path, s.offset


def test_a_page_with_two_outline_sections_cites_each_passage_under_its_own(
    settings: Settings,
) -> None:
    parsed = parse_pdf(two_sections_on_one_page(), settings=settings, uri="file:report.pdf")
    assert section_of(parsed.sections, METHODS)[:2] == ("p. 2", ("Methods",))
    assert section_of(parsed.sections, RESULTS)[:2] == ("p. 2", ("Results",))
    # The top of page 2 is still under the section carried from page 1.
    assert section_of(parsed.sections, TAIL)[:2] == ("p. 2", ("Introduction",))
    # A sentence naming a section is not its heading line: it stays in the text.
    assert "The Results section above" in next(s.text for s in parsed.sections if RESULTS in s.text)


def test_the_heading_line_starts_its_section_instead_of_being_glued_on(
    settings: Settings,
) -> None:
    parsed = parse_pdf(two_sections_on_one_page(), settings=settings, uri="file:report.pdf")
    texts = [s.text for s in parsed.sections]
    assert any(t.startswith(METHODS) for t in texts)
    assert any(t.startswith(RESULTS) for t in texts)
    assert not any("1 Methods" in t or "2 Results" in t for t in texts)


def test_page_parts_keep_offsets_from_the_page_start(settings: Settings) -> None:
    from pypdf import PdfReader

    from pegas_memory.ingest.layout import clean_pages

    data = two_sections_on_one_page()
    parsed = parse_pdf(data, settings=settings, uri="file:report.pdf")
    pages = [
        p.text.strip()
        for p in clean_pages(
            [pg.extract_text() or "" for pg in PdfReader(io.BytesIO(data)).pages]
        ).pages
    ]
    page_2 = [s for s in parsed.sections if s.locator == "p. 2"]
    assert len(page_2) == 3
    for s in page_2:
        assert pages[1][s.offset : s.offset + len(s.text)] == s.text
    assert [s.offset for s in page_2] == sorted(s.offset for s in page_2)
    assert page_2[1].offset > 0


def test_an_outline_entry_without_a_printed_heading_still_names_its_whole_page(
    settings: Settings,
) -> None:
    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    pdf.add_page()
    line(pdf, INTRO)
    pdf.add_page()
    pdf.start_section("Chapter 2 Proteins")  # a bookmark only: no heading line on the page
    line(pdf, RESULTS)
    parsed = parse_pdf(bytes(pdf.output()), settings=settings, uri="file:bookmarks.pdf")
    assert [(s.locator, s.heading_path) for s in parsed.sections] == [
        ("p. 1", ()),
        ("p. 2", ("Chapter 2 Proteins",)),
    ]


# --- the pure cut: en and ru, fires and does not fire --------------------------------------------


def test_split_page_cuts_at_numbered_heading_lines_in_russian() -> None:
    text = (
        "Конец введения, начатого на прошлой странице.\n"
        "2.1 Методы\n"
        "Образцы заморозили до начала анализа.\n"
        "2.2 Результаты\n"
        "Анализ нашёл двенадцать белков."
    )
    entries = [("Глава 2", "Методы"), ("Глава 2", "Результаты")]
    parts, end = split_page(text, entries, ("Введение",))
    assert [(p.path[-1], p.text) for p in parts] == [
        ("Введение", "Конец введения, начатого на прошлой странице."),
        ("Методы", "Образцы заморозили до начала анализа."),
        ("Результаты", "Анализ нашёл двенадцать белков."),
    ]
    assert all(text[p.offset : p.offset + len(p.text)] == p.text for p in parts)
    assert end == ("Глава 2", "Результаты")


def test_split_page_does_not_cut_at_a_title_inside_a_sentence() -> None:
    for text, title in (
        ("Методы анализа описаны ниже.\nВ разделе Методы всё сказано.", "Методы"),
        ("The methods are simple.\nSee the Methods section for more.", "Methods"),
    ):
        parts, end = split_page(text, [(title,)], ("Intro",))
        # Not printed as a heading line: in force from the page top, as a bookmark-only entry.
        assert [(p.path, p.text) for p in parts] == [((title,), text)]
        assert end == (title,)


def test_split_page_keeps_a_wrapped_long_title_and_a_roman_number() -> None:
    text = "Tail of part one.\nIV Compact metric spaces and\ntheir completions\nBody of four."
    parts, _ = split_page(text, [("Compact metric spaces and their completions",)], ("Part",))
    assert [p.text for p in parts] == ["Tail of part one.", "Body of four."]


def test_settle_moves_an_entry_anchored_one_page_early_to_its_printed_heading() -> None:
    texts = {0: "Last words of the solutions.", 1: "Index\nalpha, 3\nbeta, 7", 2: "More."}
    outline = {0: [("Solutions",), ("Index",)], 1: [("Glossary",)]}
    # "Solutions" is not printed on page 0 either, but page 1 does not open with it: it stays.
    assert settle_entries(outline, texts) == {
        0: [("Solutions",)],
        1: [("Index",), ("Glossary",)],
    }
    # Printed on its own page: it stays there even when the next page repeats the title.
    texts_here = {0: "Words.\nIndex\nalpha, 3", 1: "Index\ncontinued"}
    assert settle_entries({0: [("Index",)]}, texts_here) == {0: [("Index",)]}


# --- through memory_ingest: the stored citation ---------------------------------------------------


def test_ingested_citation_names_the_section_and_finds_the_quote_on_its_page(
    service: MemoryService, tmp_path: Path, settings: Settings
) -> None:
    data = two_sections_on_one_page()
    path = tmp_path / "files" / "report.pdf"
    path.write_bytes(data)
    service.ingest(IngestRequest(source=str(path)))
    with service.db.connection() as conn:
        rows = conn.execute("SELECT locator, quoted_text FROM pm_citation").fetchall()
    results = next(r for r in rows if "twelve proteins in every" in str(r["quoted_text"]))
    locator, quote = str(results["locator"]), str(results["quoted_text"])
    assert locator.startswith("p. 2, Results, char ")
    position = int(locator.rsplit("char ", 1)[1])
    parsed = parse_pdf(data, settings=settings, uri="file:report.pdf")
    part = next(s for s in parsed.sections if s.heading_path == ("Results",))
    assert part.text[position - part.offset :].startswith(quote)
    assert part.offset > 0  # the position counts from the page's start, not the section's
