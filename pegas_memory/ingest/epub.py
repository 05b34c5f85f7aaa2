"""EPUB (ebooklib): sections per spine document, located by its navigation title, cut at the
headings inside it (the heading path is chapter > heading > subheading).

The zip is checked against bombs before ebooklib opens it (ingest.netguard.check_zip); each spine
document's markup goes through the same visible-text walk as HTML (ingest.html.html_to_text).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from pegas_memory.config import Settings
from pegas_memory.errors import IngestError, LimitExceeded
from pegas_memory.ingest.checks import check_size, language_sample
from pegas_memory.ingest.chunking import ParsedSource, Section, split_markdown_sections
from pegas_memory.ingest.html import html_to_text
from pegas_memory.ingest.netguard import check_zip
from pegas_memory.ingest.published import normalise_date
from pegas_memory.text import detect_language, raw_hash


def parse_epub(
    data: bytes,
    *,
    settings: Settings,
    uri: str,
    title: str | None = None,
    extra: dict[str, Any] | None = None,
) -> ParsedSource:
    """One section per spine document, located by its navigation title (else its file name).

    Raises IngestError (not a zip, not an EPUB, no text), LimitExceeded (zip bomb, more spine
    documents than settings.max_pages, max_text_chars).
    """
    check_zip(data, uri, settings)
    import ebooklib
    from ebooklib import epub

    try:
        book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    except Exception as exc:  # ebooklib raises KeyError, EpubException, lxml errors...
        raise IngestError(f"{uri} is not a valid EPUB ({type(exc).__name__}: {exc})") from None
    toc = _epub_toc(book.toc)
    if len(book.spine) > settings.max_pages:
        raise LimitExceeded(
            f"{uri} has {len(book.spine)} spine documents, over max_pages={settings.max_pages}; "
            "raise PEGAS_MAX_PAGES"
        )
    sections: list[Section] = []
    skipped: list[str] = []
    total = 0
    path: tuple[str, ...] = ()
    for entry in book.spine:
        idref = entry[0] if isinstance(entry, tuple) else entry
        item = book.get_item_with_id(idref) if idref else None
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        if isinstance(item, epub.EpubNav):
            continue
        name = item.get_name()
        try:
            text = html_to_text(item.get_content())
        except ValueError:
            skipped.append(name)
            continue
        if name in toc:
            path = toc[name]
        if not text:
            continue
        total += len(text)
        check_size(total, uri, settings)
        locator = path[-1] if name in toc else Path(name).name
        sections.extend(_inner_sections(text, locator, path))
    if not sections:
        raise IngestError(f"{uri}: the EPUB has no readable text in its spine")
    meta = {
        key: _dc(book, key)
        for key in ("title", "creator", "language", "date", "publisher", "identifier", "rights")
    }
    return ParsedSource(
        kind="epub",
        uri=uri,
        title=title or meta["title"],
        author=meta["creator"],
        language=meta["language"] or detect_language(language_sample(sections)),
        published_at=normalise_date(meta["date"]),  # dc:date: "2011", "2011-05-02", ...
        canonical_url=(extra or {}).get("url_final"),
        sections=tuple(sections),
        raw_hash=raw_hash(data),
        metadata={**(extra or {}), **{k: v for k, v in meta.items() if v}},
        warnings=(f"unreadable documents skipped: {', '.join(skipped)}",) if skipped else (),
    )


def _inner_sections(text: str, locator: str, path: tuple[str, ...]) -> list[Section]:
    """A chapter cut at its own headings (h1..h6 inside the XHTML): each part keeps the
    chapter as its locator and carries chapter > heading > subheading as its heading path, its
    offset counted from the chapter's start (a citation's "char N" stays a chapter position).
    A first heading that repeats the chapter's navigation title is not repeated in the path."""
    parts = split_markdown_sections(text)
    out: list[Section] = []
    for part in parts:
        inner = part.heading_path
        if path and inner and _same_title(inner[0], path[-1]):
            inner = inner[1:]
        out.append(Section(part.text, locator, (*path, *inner), offset=part.offset))
    return out or [Section(text, locator, path)]


def _same_title(a: str, b: str) -> bool:
    def norm(s: str) -> str:
        return " ".join(s.casefold().split())

    return norm(a) == norm(b)


def _dc(book: Any, key: str) -> str | None:
    try:
        values = book.get_metadata("DC", key)
    except Exception:
        return None
    for value, _attrs in values or []:
        if value and str(value).strip():
            return str(value).strip()
    return None


def _epub_toc(items: Any, parent: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
    """Spine file name -> heading path of the first navigation entry that points into it."""
    found: dict[str, tuple[str, ...]] = {}
    for item in items or []:
        if isinstance(item, tuple | list) and len(item) == 2:
            head, children = item
            head_title = str(getattr(head, "title", "") or "").strip()
            here = (*parent, head_title) if head_title else parent
            href = getattr(head, "href", None)
            if href and head_title:
                found.setdefault(str(href).split("#")[0], here)
            for key, value in _epub_toc(children, here).items():
                found.setdefault(key, value)
            continue
        href = getattr(item, "href", None)
        item_title = str(getattr(item, "title", "") or "").strip()
        if href and item_title:
            found.setdefault(str(href).split("#")[0], (*parent, item_title))
    return found
