"""Parsers and dispatch: generated PDF and EPUB fixtures, text and HTML files under a root, and
web pages from a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from ebooklib import epub
from fpdf import FPDF
from fpdf.enums import EncryptionMethod

from pegas_memory.config import Settings, load_settings
from pegas_memory.errors import IngestError, InvalidInput, LimitExceeded, SecurityRefused
from pegas_memory.ingest.sources import chunk_source, load_source
from tests.loopback import Replies, serve


def make_pdf(pages: list[str], *, password: str | None = None) -> bytes:
    pdf = FPDF()
    pdf.set_title("Ingest Fixture")
    pdf.set_author("Ada Tester")
    for text in pages:
        pdf.add_page()
        pdf.set_font("helvetica", size=12)
        if text:
            pdf.multi_cell(0, 8, text)
    if password:
        pdf.set_encryption(
            owner_password="owner",
            user_password=password,
            encryption_method=EncryptionMethod.AES_128,
        )
    return bytes(pdf.output())


def make_epub(chapters: list[tuple[str, str]]) -> bytes:
    book = epub.EpubBook()
    book.set_identifier("fixture-1")
    book.set_title("Книга о памяти")
    book.set_language("ru")
    book.add_author("Иван Петров")
    items = []
    for n, (title, body) in enumerate(chapters, start=1):
        item = epub.EpubHtml(title=title, file_name=f"chap_{n}.xhtml", lang="ru")
        item.content = f"<html><body><h1>{title}</h1><p>{body}</p></body></html>"
        book.add_item(item)
        items.append(item)
    book.toc = [epub.Link(i.file_name, i.title, f"c{n}") for n, i in enumerate(items)]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *items]
    out = io.BytesIO()
    epub.write_epub(out, book)
    return out.getvalue()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "docs"
    base.mkdir()
    return base


@pytest.fixture
def settings(root: Path, tmp_path: Path) -> Settings:
    return load_settings(data_dir=tmp_path / "data", ingest_roots=[str(root)])


# --- PDF -----------------------------------------------------------------------------------------

PAGE_1 = "Knowledge atoms are typed units. Each one cites the page it came from."
PAGE_3 = "The third page explains citations and locators in detail."


def test_pdf_pages_metadata_and_empty_page_warning(root: Path, settings: Settings) -> None:
    (root / "paper.pdf").write_bytes(make_pdf([PAGE_1, "", PAGE_3]))
    parsed = load_source(str(root / "paper.pdf"), settings)
    assert parsed.kind == "pdf"
    assert (parsed.title, parsed.author, parsed.language) == ("Ingest Fixture", "Ada Tester", "en")
    assert [s.locator for s in parsed.sections] == ["p. 1", "p. 3"]
    assert "typed units" in parsed.sections[0].text
    assert parsed.warnings and "pages 2 have no extractable text" in parsed.warnings[0]
    assert parsed.metadata["pages"] == 3
    assert parsed.uri == (root / "paper.pdf").as_uri()
    chunks = chunk_source(parsed)
    assert [c.locator for c in chunks] == ["p. 1, char 0", "p. 3, char 0"]


def test_encrypted_pdf_needs_the_password(root: Path, settings: Settings) -> None:
    (root / "locked.pdf").write_bytes(make_pdf([PAGE_1], password="s3cret"))
    with pytest.raises(IngestError, match=r"PDF is encrypted: pass password=\.\.\."):
        load_source(str(root / "locked.pdf"), settings)
    with pytest.raises(IngestError, match=r"password given .* is wrong"):
        load_source(str(root / "locked.pdf"), settings, password="guess")
    parsed = load_source(str(root / "locked.pdf"), settings, password="s3cret")
    assert "typed units" in parsed.sections[0].text


def test_truncated_pdf_is_an_ingest_error(root: Path, settings: Settings) -> None:
    data = make_pdf([PAGE_1, PAGE_3])
    (root / "cut.pdf").write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(IngestError, match="not a readable PDF"):
        load_source(str(root / "cut.pdf"), settings)


def bomb_pdf(inflated: int) -> bytes:
    """A one-page PDF whose content stream inflates to `inflated` bytes (a decompression bomb)."""
    stream = zlib.compress(b"BT /F1 12 Tf 72 712 Td (bomb) Tj ET\n" + b" " * inflated, 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def test_a_decompression_bomb_page_is_named_not_taken_for_a_scan(
    root: Path, settings: Settings
) -> None:
    (root / "bomb.pdf").write_bytes(bomb_pdf(80_000_000))  # past pypdf's 75 MB, in 80 kB
    with pytest.raises(IngestError, match=r"pages 1 could not be parsed \(LimitReachedError"):
        load_source(str(root / "bomb.pdf"), settings)


def test_pdf_page_limit(root: Path, tmp_path: Path) -> None:
    (root / "long.pdf").write_bytes(make_pdf([PAGE_1] * 4))
    s = load_settings(data_dir=tmp_path / "d", ingest_roots=[str(root)], max_pages=3)
    with pytest.raises(LimitExceeded, match="4 pages, over max_pages=3"):
        load_source(str(root / "long.pdf"), s)


# --- EPUB ----------------------------------------------------------------------------------------


def test_epub_chapters_from_navigation(root: Path, settings: Settings) -> None:
    (root / "book.epub").write_bytes(
        make_epub(
            [
                ("Глава первая", "Память агента хранит факты. Т. е. всё, что он прочёл."),
                ("Глава вторая", "Атомы знаний связаны друг с другом."),
            ]
        )
    )
    parsed = load_source(str(root / "book.epub"), settings)
    assert parsed.kind == "epub"
    assert (parsed.title, parsed.author, parsed.language) == (
        "Книга о памяти",
        "Иван Петров",
        "ru",
    )
    assert [s.locator for s in parsed.sections] == ["Глава первая", "Глава вторая"]
    assert parsed.sections[0].text.startswith("# Глава первая")
    assert "Память агента хранит факты." in parsed.sections[0].text
    assert all(c.language == "ru" for c in chunk_source(parsed))


def test_epub_that_is_not_a_zip(root: Path, settings: Settings) -> None:
    (root / "fake.epub").write_bytes(b"<html>not a zip</html>" * 10)
    with pytest.raises(IngestError, match="not a zip archive"):
        load_source(str(root / "fake.epub"), settings, kind="epub")


def test_epub_zip_bomb_is_refused_before_inflating(root: Path, settings: Settings) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        z.writestr("OEBPS/chapter.xhtml", b" " * (16 * 1024 * 1024))
    (root / "bomb.epub").write_bytes(out.getvalue())
    with pytest.raises(LimitExceeded, match="zip bomb"):
        load_source(str(root / "bomb.epub"), settings)


# --- text, markdown, HTML files ------------------------------------------------------------------

MARKDOWN = """# Memory

Atoms are the retrieval unit.

## Code

```python
def store(atom):
    return atom.id
```

| kind | count |
|---|---|
| fact | 3 |
"""


def test_markdown_file(root: Path, settings: Settings) -> None:
    (root / "notes.md").write_text(MARKDOWN, encoding="utf-8")
    parsed = load_source(str(root / "notes.md"), settings)
    # a markdown file is titled by the heading that opens it (ingest.markup.document_title)
    assert (parsed.kind, parsed.title, parsed.language) == ("text", "Memory", "en")
    assert [s.heading_path for s in parsed.sections] == [("Memory",), ("Memory", "Code")]
    chunks = chunk_source(parsed)
    assert "def store(atom):\n    return atom.id" in chunks[1].text
    assert "| fact | 3 |" in chunks[1].text


def test_cp1251_text_is_decoded_with_a_warning(root: Path, settings: Settings) -> None:
    text = "Память хранит атомы знаний, т. е. проверенные факты. " * 20
    (root / "old.txt").write_bytes(text.encode("cp1251"))
    parsed = load_source(str(root / "old.txt"), settings)
    assert parsed.sections[0].text.startswith("Память хранит")
    assert parsed.language == "ru"
    assert any("not UTF-8" in w for w in parsed.warnings)


def test_binary_garbage(root: Path, settings: Settings) -> None:
    garbage = bytes((i * 7919) % 256 for i in range(4096))
    (root / "data.txt").write_bytes(garbage)
    with pytest.raises(IngestError, match="looks binary"):
        load_source(str(root / "data.txt"), settings)
    with pytest.raises(IngestError, match="looks binary"):
        load_source(garbage.decode("latin-1"), settings, kind="text")


def test_html_file(root: Path, settings: Settings) -> None:
    (root / "page.html").write_text(ARTICLE, encoding="utf-8")
    parsed = load_source(str(root / "page.html"), settings)
    assert parsed.kind == "web"
    assert parsed.title == "How memory works"
    assert any(s.heading_path[-1:] == ("Dedup",) for s in parsed.sections)


# --- dispatch rules and limits -------------------------------------------------------------------


def test_raw_text_and_dispatch_rules(settings: Settings) -> None:
    parsed = load_source("Paris is the capital of France.", settings)
    assert parsed.kind == "text" and parsed.uri == f"text:{parsed.raw_hash}"
    # Looks like a path: a missing file is an error, not silently text.
    with pytest.raises(IngestError, match=r"no such file.*kind='text'"):
        load_source("report.pdf", settings)
    assert load_source("report.pdf", settings, kind="text").sections[0].text == "report.pdf"
    with pytest.raises(SecurityRefused, match="only http and https"):
        load_source("file:///etc/passwd", settings)
    with pytest.raises(InvalidInput):
        load_source("x", settings, kind="docx")


def test_text_limit(tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path / "d", max_text_chars=100)
    with pytest.raises(LimitExceeded, match="PEGAS_MAX_TEXT_CHARS"):
        load_source("word " * 50, s)


def test_file_outside_roots_is_refused(tmp_path: Path, settings: Settings) -> None:
    (tmp_path / "elsewhere.md").write_text("# Hidden\n\ntext\n", encoding="utf-8")
    with pytest.raises(SecurityRefused, match="outside the ingest roots"):
        load_source(str(tmp_path / "elsewhere.md"), settings)


# --- web, over real HTTP on loopback -------------------------------------------------------------

ARTICLE = """<!DOCTYPE html><html lang="en"><head><title>How memory works</title>
<meta name="author" content="Jane Writer">
<meta property="article:published_time" content="2024-05-06">
<link rel="canonical" href="https://example.org/memory">
</head><body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>How memory works</h1>
<p>Memory keeps typed knowledge atoms. Each atom cites the chunk it was distilled from,
so that every claim can be checked against its source by a reader or by the agent itself.</p>
<h2>Dedup</h2>
<p>Near-duplicate atoms are merged by embedding cosine similarity above a threshold, and the
duplicate adds its citation to the atom that was already stored in the knowledge base.</p>
<p>Exact duplicates are caught earlier by a content hash over the normalised text of the atom.</p>
</article><footer>Copyright 2024 Example</footer></body></html>"""


class _Site(Replies):
    pdf = b""

    def do_GET(self) -> None:
        if self.path == "/article":
            self.reply(200, ARTICLE.encode())
        elif self.path == "/download":
            self.reply(200, self.pdf, "application/octet-stream")
        else:
            self.reply(404, b"")


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    _Site.pdf = make_pdf([PAGE_1, PAGE_3])
    with serve(_Site) as url:
        yield url


def test_web_page_main_text_and_metadata(site: str, tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path / "d", url_allowlist=["127.0.0.1"])
    parsed = load_source(f"{site}/article", s)
    assert parsed.kind == "web" and parsed.uri == f"{site}/article"
    assert (parsed.title, parsed.author) == ("How memory works", "Jane Writer")
    assert parsed.published_at == "2024-05-06"
    assert parsed.canonical_url == "https://example.org/memory"
    assert any(s.heading_path[-1:] == ("Dedup",) for s in parsed.sections)
    assert "Copyright" not in parsed.text and "About" not in parsed.text
    assert parsed.metadata["content_type"] == "text/html"


def test_url_serving_a_pdf_is_parsed_as_pdf(site: str, tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path / "d", url_allowlist=["127.0.0.1"])
    parsed = load_source(f"{site}/download", s)
    assert parsed.kind == "pdf"
    assert [sec.locator for sec in parsed.sections] == ["p. 1", "p. 2"]
    assert parsed.metadata["declared_content_type"] == "application/octet-stream"


def test_web_errors(site: str, tmp_path: Path) -> None:
    with pytest.raises(SecurityRefused, match="loopback"):
        load_source(f"{site}/article", load_settings(data_dir=tmp_path / "d"))
    s = load_settings(data_dir=tmp_path / "d", url_allowlist=["127.0.0.1"])
    with pytest.raises(IngestError, match="HTTP 404"):
        load_source(f"{site}/nothing", s)
