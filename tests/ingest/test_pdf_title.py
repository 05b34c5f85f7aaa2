"""A PDF's title: the metadata title when it names the work, else the first page's title."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

from pegas_memory.ingest.pdf_title import decode_pdf_string, metadata_title, pdf_title
from pegas_memory.ingest.sources import load_source
from tests.conftest import make_settings

PAGE = "Sparse Recovery by Greedy Pursuit\nA. Petrov, M. Ivanova\nhttps://example.org/paper\n"


def test_file_names_tool_prefixes_and_headings_are_no_titles() -> None:
    assert metadata_title("t.dvi") is None
    assert metadata_title("paper-final.tex") is None
    assert metadata_title("Microsoft Word - Thesis draft.docx") == "Thesis draft"
    assert metadata_title("1 Introduction") is None
    assert metadata_title("untitled") is None
    assert metadata_title("Греческий огонь в византийском флоте") == (
        "Греческий огонь в византийском флоте"
    )


def test_an_authoring_applications_default_title_is_no_title() -> None:
    for default in ("PowerPoint Presentation", "Presentation1", "Keynote", "Document1",
                    "Презентация PowerPoint", "Слайд 1", "Без названия"):  # fmt: skip
        assert metadata_title(default) is None, default
    assert metadata_title("Microsoft PowerPoint - AutoML overview.pptx") == "AutoML overview"
    assert metadata_title("Presentation attacks on face recognition") is not None


def test_undecoded_pdf_strings_are_decoded() -> None:
    utf16 = "\ufeffТеория графов".encode("utf-16-be")
    assert decode_pdf_string(utf16.decode("latin-1")) == "Теория графов"
    assert decode_pdf_string("<FEFF0047007200610070006800730>") == "<FEFF0047007200610070006800730>"
    assert decode_pdf_string("<FEFF004700720061007000680073>") == "Graphs"


def test_the_first_pages_title_stands_in() -> None:
    assert pdf_title(None, "t.dvi", PAGE) == "Sparse Recovery by Greedy Pursuit"
    assert pdf_title(None, "A Real Title", PAGE) == "A Real Title"
    assert pdf_title("Given", "t.dvi", PAGE) == "Given"


def test_an_ingested_pdf_named_after_its_file_gets_its_first_pages_title(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.set_title("t.dvi")
    pdf.add_page()
    pdf.set_font("helvetica", size=16)
    pdf.cell(text="Sparse Recovery by Greedy Pursuit")
    pdf.ln(12)
    pdf.set_font("helvetica", size=11)
    pdf.multi_cell(0, 6, text="Compressed sensing recovers a sparse signal from few measurements.")
    path = tmp_path / "paper.pdf"
    pdf.output(str(path))
    settings = make_settings(tmp_path / "data", ingest_roots=[tmp_path])
    parsed = load_source(str(path), settings)
    assert parsed.title == "Sparse Recovery by Greedy Pursuit"
