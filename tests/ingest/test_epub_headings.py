"""EPUB citations carry the headings inside a chapter (h1..h6 of the XHTML), not only the
chapter: the section path of each citation's locator is chapter > heading > subheading."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.config import load_settings
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext
from pegas_memory.ingest.chunking import chunk_source, citation_locator
from pegas_memory.ingest.epub import parse_epub
from tests.ingest.books import epub_bytes


def _book(language: str, chapters: list[tuple[str, str]]) -> bytes:
    return epub_bytes(chapters, language=language, identifier=f"headings-{language}")


def _locators(data: bytes, tmp_path: Path) -> dict[str, str]:
    """claim -> citation locator, for every atom of the book."""
    parsed = parse_epub(data, settings=load_settings(data_dir=tmp_path / "d"), uri="book.epub")
    out: dict[str, str] = {}
    for chunk in chunk_source(parsed):
        context = ChunkContext(parsed.title, chunk.heading_path, chunk.language)
        for atom in OfflineDistiller().distill(chunk.text, context):
            assert chunk.text[atom.quote_start : atom.quote_end] == atom.quote
            out[atom.claim] = citation_locator(chunk, atom.quote_start)
    return out


def test_citations_carry_headings_inside_a_chapter_en(tmp_path: Path) -> None:
    body = (
        "<p>The engine stores every version of a document in PostgreSQL.</p>"
        "<h2>Vector slice</h2><p>The vector slice is projected from the outbox by a worker.</p>"
        "<h3>Rebuild</h3><p>A rebuild reads every atom from PostgreSQL again.</p>"
        "<h2>Graph slice</h2><p>The graph slice holds the links between atoms.</p>"
    )
    found = _locators(_book("en", [("Storage", body)]), tmp_path)
    by_start = {claim.split()[1]: where for claim, where in found.items()}
    assert by_start["engine"].startswith("Storage, char ")
    assert by_start["vector"].startswith("Storage > Vector slice, char ")
    assert by_start["rebuild"].startswith("Storage > Vector slice > Rebuild, char ")
    assert by_start["graph"].startswith("Storage > Graph slice, char ")
    # "char N" is the quote's position in the chapter, not in the heading's part of it.
    chapter = parse_epub(
        _book("en", [("Storage", body)]), settings=load_settings(data_dir=tmp_path / "e"),
        uri="b",
    ).sections  # fmt: skip
    graph = next(s for s in chapter if s.heading_path[-1] == "Graph slice")
    assert graph.offset > 0 and graph.locator == "Storage"


def test_citations_carry_headings_inside_a_chapter_ru(tmp_path: Path) -> None:
    body = (
        "<p>Память агента хранит факты в базе данных.</p>"
        "<h2>Первый раздел</h2><p>Атомы знаний связаны друг с другом ссылками.</p>"
    )
    found = _locators(_book("ru", [("Глава первая", body)]), tmp_path)
    assert found["Память агента хранит факты в базе данных."].startswith("Глава первая, char ")
    assert found["Атомы знаний связаны друг с другом ссылками."].startswith(
        "Глава первая > Первый раздел, char "
    )
