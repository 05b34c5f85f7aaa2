"""PDF (pypdf): a section per outline section of each page, outline titles as heading path.

The locator is the printed page number (the page label) beside the physical one when they
differ ("p. xvii (pdf page 19)"). Page texts go through ingest.layout first: running headers and
footers, page numbers, dot leaders, figure-label soup and line-end hyphenation are removed (the
counts, by reason, are in the metadata as `layout_removed`), unmapped glyphs are recovered or kept
visibly damaged (a warning lists the pages). A page holding several outline sections is cut at
their heading lines (ingest.pdf_sections), so a citation names the section its passage is under.

Every pypdf failure on hostile or broken input becomes one IngestError that says what to do;
page and character limits come from the settings.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pegas_memory.config import Settings
from pegas_memory.errors import IngestError, LimitExceeded
from pegas_memory.ingest.checks import check_size, language_sample
from pegas_memory.ingest.chunking import ParsedSource, Section
from pegas_memory.ingest.layout import clean_pages
from pegas_memory.ingest.pdf_sections import settle_entries, split_page
from pegas_memory.ingest.pdf_title import pdf_title
from pegas_memory.ingest.published import normalise_date
from pegas_memory.text import detect_language, raw_hash

_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st"})


def parse_pdf(
    data: bytes,
    *,
    settings: Settings,
    uri: str,
    password: str | None = None,
    title: str | None = None,
    extra: dict[str, Any] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> ParsedSource:
    """Sections per page with text ("p. N"), one per outline section the page holds, outline
    titles as the heading path (offsets count from the page's start).
    `progress(done, total, message)` is called before each page (a job's report: a 117-page
    PDF parsed for 28 s on a loaded machine without a word).

    Raises IngestError (truncated/corrupt, encrypted without the right password, no text on any
    page), LimitExceeded (more than settings.max_pages pages, max_text_chars).
    """
    from pypdf import PasswordType, PdfReader

    # pypdf raises many exception types on hostile input; each becomes one actionable error.
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        encrypted = reader.is_encrypted
    except Exception as exc:
        raise IngestError(
            f"{uri} is not a readable PDF (truncated or corrupt: {exc}); fetch or export it again"
        ) from None
    if encrypted:
        try:
            ok = reader.decrypt(password if password is not None else "")
        except Exception as exc:
            raise IngestError(f"{uri}: cannot decrypt the PDF: {exc}") from None
        if ok == PasswordType.NOT_DECRYPTED:
            if password is None:
                raise IngestError(f"PDF is encrypted: pass password=... to open {uri}")
            raise IngestError(f"PDF is encrypted and the password given for {uri} is wrong")
    try:
        page_count = len(reader.pages)
    except Exception as exc:
        raise IngestError(f"{uri} is not a readable PDF (page tree broken: {exc})") from None
    if page_count > settings.max_pages:
        raise LimitExceeded(
            f"{uri} has {page_count} pages, over max_pages={settings.max_pages}; raise "
            "PEGAS_MAX_PAGES or split the PDF"
        )
    outline = _pdf_outline(reader)
    labels = _page_labels(reader, page_count)
    raw_pages: list[str] = []
    readable: list[int] = []  # page indices whose text could be extracted
    empty: list[int] = []
    broken: list[int] = []
    why_broken = ""
    for index in range(page_count):
        if progress is not None:  # outside the try: a job's stop must not count as a bad page
            progress(index, page_count, f"parsing page {index + 1} of {page_count}")
        try:
            text = reader.pages[index].extract_text() or ""
        except Exception as exc:  # a decompression bomb, a broken content stream, ...
            broken.append(index + 1)
            why_broken = why_broken or f"{type(exc).__name__}: {str(exc)[:200]}"
            continue
        # NULs stay: layout.clean_pages recovers minus signs or marks the text damaged.
        raw_pages.append(text.translate(_LIGATURES))
        readable.append(index)
    cleaned = clean_pages(raw_pages)
    sections: list[Section] = []
    total = 0
    path: tuple[str, ...] = ()
    pages_of = dict(zip(readable, cleaned.pages, strict=True))
    outline = settle_entries(outline, {i: p.text.strip() for i, p in pages_of.items()})
    for index in range(page_count):
        page = pages_of.get(index)
        entries = outline.get(index, [])
        if page is None:
            path = entries[-1] if entries else path
            continue
        text = page.text.strip()
        if not text:
            path = entries[-1] if entries else path
            empty.append(index + 1)
            continue
        parts, path = split_page(text, entries, path)
        total += sum(len(p.text) for p in parts)
        check_size(total, uri, settings)
        locator = _page_locator(index, labels)
        sections.extend(Section(p.text, locator, p.path, offset=p.offset) for p in parts)
    warnings = []
    damaged = [readable[n - 1] + 1 for n in cleaned.damaged_pages]
    if damaged:
        warnings.append(
            f"pages {_ranges(damaged)} hold characters the PDF does not map to text (kept as "
            "\ufffd in quotes): check those formulas against the original"
        )
    if empty:
        warnings.append(f"pages {_ranges(empty)} have no extractable text (scanned? OCR them)")
    if broken:
        warnings.append(
            f"pages {_ranges(broken)} could not be parsed and were skipped ({why_broken})"
        )
    if not sections and broken:
        raise IngestError(
            f"{uri}: no page could be read; pages {_ranges(broken)} could not be parsed "
            f"({why_broken}) and the others have no extractable text. The PDF is corrupt or "
            "hostile (a content stream that inflates past pypdf's limit): export it again"
        )
    if not sections:
        raise IngestError(
            f"{uri}: none of its {page_count} pages has extractable text (a scanned PDF?); "
            "OCR it first"
        )
    info = _pdf_info(reader)
    return ParsedSource(
        kind="pdf",
        uri=uri,
        title=pdf_title(title, info.get("title"), sections[0].text),
        author=info.get("author"),
        language=detect_language(language_sample(sections)),
        published_at=normalise_date(info.get("created")),  # /CreationDate
        canonical_url=(extra or {}).get("url_final"),
        sections=tuple(sections),
        raw_hash=raw_hash(data),
        metadata={
            **(extra or {}),
            **info,
            "pages": page_count,
            "empty_pages": empty,
            "damaged_pages": damaged,
            "layout_removed": dict(cleaned.removed),
        },
        warnings=tuple(warnings),
    )


def _page_labels(reader: Any, count: int) -> list[str]:
    """The printed page numbers (PDF page labels: "xvii", "17"), or the physical numbers."""
    try:
        labels = [str(x) for x in reader.page_labels]
    except Exception:  # a broken label tree only loses the printed numbers
        return [str(i + 1) for i in range(count)]
    return labels if len(labels) == count else [str(i + 1) for i in range(count)]


def _page_locator(index: int, labels: list[str]) -> str:
    """ "p. 17" when the printed number is the physical one, else both: "p. xvii (pdf page 19)"."""
    label = labels[index] if index < len(labels) else str(index + 1)
    if not label or label == str(index + 1):
        return f"p. {index + 1}"
    return f"p. {label} (pdf page {index + 1})"


def _pdf_info(reader: Any) -> dict[str, Any]:
    info: dict[str, Any] = {}
    try:
        meta = reader.metadata
        if meta is None:
            return info
        for key, value in (
            ("title", meta.title),
            ("author", meta.author),
            ("producer", meta.producer),
            ("creator", meta.creator),
        ):
            if value and str(value).strip():
                info[key] = str(value).strip()
        try:
            created = meta.creation_date
        except Exception:  # a /CreationDate pypdf cannot parse: read its digits ourselves
            created = normalise_date(str(meta.get("/CreationDate") or ""))
        if isinstance(created, datetime):
            info["created"] = created.isoformat()
        elif created:
            info["created"] = str(created)
    except Exception:  # malformed metadata never stops the text from being ingested
        pass
    return info


def _pdf_outline(reader: Any) -> dict[int, list[tuple[str, ...]]]:
    """Page index -> heading paths of the outline entries that start on that page, in outline
    order (document order)."""
    starts: dict[int, list[tuple[str, ...]]] = {}

    def walk(items: list[Any], parent: tuple[str, ...]) -> None:
        last: tuple[str, ...] = parent
        for item in items:
            if isinstance(item, list):
                walk(item, last)
                continue
            title = str(getattr(item, "title", "") or "").strip()
            if not title:
                continue
            last = (*parent, title)
            try:
                page = reader.get_destination_page_number(item)
            except Exception:
                continue
            if page is not None and page >= 0:
                starts.setdefault(page, []).append(last)

    try:
        walk(list(reader.outline), ())
    except Exception:  # a broken outline only loses heading paths
        return {}
    return starts


def _ranges(pages: list[int]) -> str:
    return ", ".join(map(str, pages[:20])) + (
        f" and {len(pages) - 20} more" if len(pages) > 20 else ""
    )
