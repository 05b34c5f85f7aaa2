"""The publication date a source states (ingest/published.py): HTML meta tags, JSON-LD,
<time>; a PDF's /CreationDate; an EPUB's dc:date. Never the time it was read."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from pegas_memory.config import load_settings
from pegas_memory.ingest.epub import parse_epub
from pegas_memory.ingest.html import parse_html
from pegas_memory.ingest.pdf import parse_pdf
from pegas_memory.ingest.published import html_published, normalise_date
from tests.ingest.books import epub_bytes
from tests.ingest.test_parsers import make_pdf

BODY = (
    "<article><h1>Rivers</h1><p>The Volga flows into the Caspian Sea and is the longest river "
    "of Europe, draining most of Western Russia.</p><p>Its basin holds many reservoirs built "
    "in the twentieth century for power and irrigation.</p></article>"
)


def page(head: str = "", body: str = BODY) -> str:
    return f"<html><head><title>Rivers</title>{head}</head><body>{body}</body></html>"


@pytest.mark.parametrize(
    ("head", "body", "expected"),
    [
        (
            '<meta property="article:published_time" content="2015-03-01T08:00:00Z">'
            '<meta property="article:modified_time" content="2024-01-01T00:00:00Z">',
            BODY,
            "2015-03-01T08:00:00+00:00",
        ),
        ('<meta name="citation_publication_date" content="2011/05/02">', BODY, "2011-05-02"),
        (
            '<script type="application/ld+json">{"@context": "https://schema.org", "@graph": '
            '[{"@type": "WebSite"}, {"@type": "NewsArticle", "dateModified": "2023-02-02", '
            '"datePublished": "2019-07-04T12:00:00+02:00"}]}</script>',
            BODY,
            "2019-07-04T12:00:00+02:00",
        ),
        (
            "",
            '<p>Comments <time datetime="2024-09-09">later</time></p>'
            '<article><time pubdate datetime="2018-10-10">10 Oct</time>' + BODY + "</article>",
            "2018-10-10",
        ),
        ("", '<p>Posted <time datetime="2017-01-31T10:00:00Z">then</time></p>' + BODY, None),
    ],
)
def test_html_states_its_publication_date(head: str, body: str, expected: str | None) -> None:
    found = html_published(page(head, body))
    if expected is None:  # the first <time> with a datetime, when nothing is marked
        assert found == "2017-01-31T10:00:00+00:00"
    else:
        assert found == expected


def test_html_without_any_date_has_none() -> None:
    assert html_published(page()) is None
    assert html_published(page('<meta property="article:published_time" content="soon">')) is None


def test_parse_html_keeps_the_stated_date_not_the_crawl(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path / "d")
    markup = page('<meta property="article:published_time" content="2015-03-01T08:00:00Z">')
    parsed = parse_html(markup.encode(), settings=settings, uri="https://example.org/volga")
    assert parsed.published_at == "2015-03-01T08:00:00+00:00"
    undated = parse_html(page().encode(), settings=settings, uri="https://example.org/undated")
    today = datetime.now(UTC).date().isoformat()
    assert not (undated.published_at or "").startswith(today)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2019-03-01T10:00:00Z", "2019-03-01T10:00:00+00:00"),
        ("2019-03-01", "2019-03-01"),
        ("2019-3-1", "2019-03-01"),
        ("2019/03", "2019-03-01"),
        ("2011", "2011-01-01"),
        ("D:20190301120000+01'00'", "2019-03-01"),
        ("Fri, 01 Mar 2019 10:00:00 GMT", "2019-03-01T10:00:00+00:00"),
        ("not a date", None),
        ("", None),
        ("0001-01-01", None),  # a placeholder, not a date
        ("2019-02-30", None),
        (None, None),
    ],
)
def test_dates_as_sources_write_them(raw: str | None, expected: str | None) -> None:
    assert normalise_date(raw) == expected


def test_pdf_creation_date_is_its_publication_date(tmp_path: Path) -> None:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf(["The Volga is a river."]))))
    writer.add_metadata({"/CreationDate": "D:20120304050607Z"})
    out = io.BytesIO()
    writer.write(out)
    settings = load_settings(data_dir=tmp_path / "d")
    parsed = parse_pdf(out.getvalue(), settings=settings, uri="volga.pdf")
    assert parsed.published_at is not None and parsed.published_at.startswith("2012-03-04")


def test_epub_dc_date_is_its_publication_date(tmp_path: Path) -> None:
    chapters = [("One", "<p>The Volga is a river.</p>")]
    data = epub_bytes(chapters, language="en", title="Dated", identifier="dated", date="2009")
    settings = load_settings(data_dir=tmp_path / "d")
    parsed = parse_epub(data, settings=settings, uri="dated.epub")
    assert parsed.published_at == "2009-01-01"
