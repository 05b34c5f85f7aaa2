"""Citations a person can follow (issue 15): the section path and the quote's own position in
every locator, and the printed page number (PDF page label) beside the physical page."""

from __future__ import annotations

import io
from pathlib import Path

from fpdf import FPDF
from pypdf import PdfReader, PdfWriter

from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.service import MemoryService


def citations(svc: MemoryService) -> list[dict[str, object]]:
    with svc.db.connection() as conn:
        return [
            dict(r)
            for r in conn.execute(
                "SELECT locator, quoted_text FROM pm_citation ORDER BY id"
            ).fetchall()
        ]


MARKDOWN = """# Rivers

Intro paragraph about rivers of the world and their many deltas and basins.

## Lakes

Some filler sentence about lakes comes first in this section of the notes.
Lake Baikal is the deepest lake in the world, reaching 1642 metres of depth.
"""


def test_text_citation_has_section_path_and_the_quotes_own_position(
    service: MemoryService, tmp_path: Path
) -> None:
    path = tmp_path / "files" / "notes.md"
    path.write_text(MARKDOWN)
    service.ingest(IngestRequest(source=str(path)))
    cites = citations(service)
    baikal = next(c for c in cites if "Baikal" in str(c["quoted_text"]))
    locator, quote = str(baikal["locator"]), str(baikal["quoted_text"])
    assert locator.startswith("Rivers > Lakes, char ")
    position = int(locator.rsplit("char ", 1)[1])
    assert MARKDOWN[position : position + len(quote)] == quote  # the quote, not its chunk


def make_labelled_pdf() -> bytes:
    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    bodies = [
        "Preface: this book is about metric spaces and their many useful properties.",
        "Contents and more front matter that nobody reads before the first chapter.",
        "A metric space is a set together with a distance function on pairs of points.",
        "Every compact metric space is complete and totally bounded in its metric.",
    ]
    for n, body in enumerate(bodies):
        pdf.add_page()
        if n == 2:
            pdf.start_section("Chapter 1 Metric spaces")
        if n == 3:
            pdf.start_section("Compactness", level=1)
        pdf.multi_cell(0, 8, body)
    raw = bytes(pdf.output())
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(raw)))
    writer.set_page_label(0, 1, style="/r")  # i, ii
    writer.set_page_label(2, 3, style="/D", start=1)  # 1, 2
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_pdf_citation_has_printed_page_and_outline_path(
    service: MemoryService, tmp_path: Path
) -> None:
    path = tmp_path / "files" / "book.pdf"
    path.write_bytes(make_labelled_pdf())
    service.ingest(IngestRequest(source=str(path)))
    cites = citations(service)
    compact = next(c for c in cites if "compact metric space" in str(c["quoted_text"]))
    preface = next(c for c in cites if "Preface" in str(c["quoted_text"]))
    assert str(compact["locator"]).startswith(
        "p. 2 (pdf page 4), Chapter 1 Metric spaces > Compactness, char "
    )
    assert str(preface["locator"]).startswith("p. i (pdf page 1)")
