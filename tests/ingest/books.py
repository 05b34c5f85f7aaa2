"""EPUB books for the ingest tests, written with ebooklib as a publisher's tool writes them."""

from __future__ import annotations

import io

from ebooklib import epub


def epub_bytes(
    chapters: list[tuple[str, str]],
    *,
    language: str,
    title: str = "Fixture",
    identifier: str = "fixture",
    author: str | None = None,
    date: str | None = None,
) -> bytes:
    """A book of `chapters` (title, body HTML): chapter N is `chap_N.xhtml`, its <h1> the title,
    listed in the table of contents and the spine after the navigation page."""
    book = epub.EpubBook()
    book.set_identifier(identifier)
    book.set_title(title)
    book.set_language(language)
    if author:
        book.add_author(author)
    if date:
        book.add_metadata("DC", "date", date)
    items = []
    for n, (heading, body) in enumerate(chapters, start=1):
        item = epub.EpubHtml(title=heading, file_name=f"chap_{n}.xhtml", lang=language)
        item.content = f"<html><body><h1>{heading}</h1>{body}</body></html>"
        book.add_item(item)
        items.append(item)
    book.toc = [epub.Link(i.file_name, i.title, f"c{n}") for n, i in enumerate(items)]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *items]
    out = io.BytesIO()
    epub.write_epub(out, book)
    return out.getvalue()
