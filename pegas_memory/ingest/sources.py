"""Sources: a URL, a file or raw text becomes a `ParsedSource` of structural sections.

`load_source` decides what the source string is, fetches or reads it safely (ingest.netguard),
sniffs the real format from the bytes and dispatches to one parser module each:

- text and markdown (here): sections by heading (ingest.chunking.split_markdown_sections);
- PDF (ingest.pdf, pypdf): one section per page, locator "p. N", outline titles as heading path;
- EPUB (ingest.epub, ebooklib): one section per spine document, located by its navigation title;
- HTML (ingest.html, trafilatura): main text as markdown, so headings become sections.

Every failure of a third-party parser is translated in its module into IngestError or
LimitExceeded with a message that says what to do; no parser exception leaves the ingest
package. The chunker (ingest.chunking) then cuts the sections; the models are defined there, and
this module re-exports them with every parser, so `pegas_memory.ingest.sources` stays the one
import for callers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pegas_memory.config import Settings
from pegas_memory.errors import IngestError, InvalidInput, SecurityRefused
from pegas_memory.ingest.checks import check_size, language_sample
from pegas_memory.ingest.chunking import (
    Chunk,
    ParsedSource,
    Section,
    chunk_source,
    split_markdown_sections,
)
from pegas_memory.ingest.epub import parse_epub
from pegas_memory.ingest.html import html_to_text, parse_html
from pegas_memory.ingest.markup import (
    Flavour,
    blank_footers,
    document_title,
    flavour_of,
    normalise,
    rst_labels,
)
from pegas_memory.ingest.netguard import (
    decode_text,
    fetch_url,
    read_checked_file,
    sniff_content_type,
)
from pegas_memory.ingest.pdf import parse_pdf
from pegas_memory.ingest.render import browser_path, has_script, needs_render, render_page
from pegas_memory.text import detect_language, raw_hash
from pegas_memory.vocabulary import WebRender

__all__ = [
    "Chunk",
    "ParsedSource",
    "RawSource",
    "Section",
    "chunk_source",
    "html_to_text",
    "load_source",
    "parse_epub",
    "parse_html",
    "parse_pdf",
    "parse_source",
    "parse_text",
    "read_source",
]

KINDS = ("text", "markdown", "web", "html", "pdf", "epub")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://\S*$")
_DOC_EXTENSIONS = {
    ".pdf": "pdf",
    ".epub": "epub",
    **dict.fromkeys((".html", ".htm", ".xhtml"), "html"),
    **dict.fromkeys((".txt", ".text", ".md", ".markdown", ".rst"), "text"),
}


@dataclass(frozen=True)
class RawSource:
    """A source read but not parsed yet: its bytes (or text) identify its version, so an
    unchanged source is recognised before the parser runs (a 117-page PDF took 8.6 s to parse
    only to find out it was unchanged)."""

    uri: str
    data: bytes | None  # None: `text` is the source itself
    text: str | None = None
    page_url: str | None = None
    sniffed: str = ""
    suffix: str = ""
    kind: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  # what reading it found (a page its scripts write, unread)

    @property
    def raw_hash(self) -> str:
        """The hash the parsed source will carry as `ParsedSource.raw_hash`."""
        return raw_hash(self.data if self.data is not None else self.text or "")


def load_source(
    source: str,
    settings: Settings,
    *,
    kind: str | None = None,
    password: str | None = None,
    title: str | None = None,
) -> ParsedSource:
    """Fetch or read `source` and parse it into sections (`read_source`, then `parse_source`).

    What `source` is, in this order:
    1. kind="text" or kind="markdown": the string is the text itself.
    2. A single token of the form `scheme://...`: a URL (only http and https are fetched).
    3. A single line that looks like a path (starts with "/", "~", "./" or "../", or ends in a
       document extension (.pdf .epub .html .htm .xhtml .txt .md .markdown .rst) and has no
       spaces or has a "/"): a file, read only under settings.ingest_roots; a missing file is an
       error, never silently text.
    4. Anything else is the text itself.

    kind="pdf"/"epub"/"web"/"html" forces that parser for a URL's or file's bytes; otherwise the
    format is sniffed from the bytes (an URL that serves a PDF is parsed as a PDF).

    Raises InvalidInput (unknown kind), SecurityRefused (address, scheme or path refused),
    IngestError (fetch failed, corrupt or encrypted file, binary given as text), LimitExceeded
    (bytes, pages, characters or zip size over the settings' limits).
    """
    raw = read_source(source, settings, kind=kind)
    return parse_source(raw, settings, password=password, title=title)


def read_source(source: str, settings: Settings, *, kind: str | None = None) -> RawSource:
    """Fetch a URL or read a file (under the same rules as `load_source`), without parsing."""
    if kind is not None and kind not in KINDS:
        raise InvalidInput(f"kind={kind!r} is not one of {', '.join(KINDS)} (or None to detect)")
    stripped = source.strip()
    if kind in ("text", "markdown"):
        return RawSource(uri=f"text:{raw_hash(source)}", data=None, text=source, kind=kind)
    if _URL.match(stripped):
        scheme = stripped.split("://", 1)[0].lower()
        if scheme not in ("http", "https"):
            hint = "; pass the file's path instead" if scheme == "file" else ""
            raise SecurityRefused(f"URL scheme {scheme!r} refused: only http and https{hint}")
        fetched = fetch_url(stripped, settings)
        raw = RawSource(
            uri=stripped,
            data=fetched.body,
            page_url=fetched.url_final,
            sniffed=fetched.content_type,
            suffix=Path(urlsplit(stripped).path).suffix.lower(),
            kind=kind,
            extra={
                "url_final": fetched.url_final,
                "status": fetched.status,
                "content_type": fetched.content_type,
                "declared_content_type": fetched.headers.get("content-type"),
                "redirects": list(fetched.redirects),
            },
        )
        return rendered(raw, settings)
    if kind in ("pdf", "epub", "web", "html") or _looks_like_path(stripped):
        resolved, data = read_checked_file(stripped, settings)
        return RawSource(
            uri=resolved.as_uri(),
            data=data,
            sniffed=sniff_content_type(data),
            suffix=resolved.suffix.lower(),
            kind=kind,
            extra={"path": str(resolved), "file_name": resolved.name},
        )
    return RawSource(uri=f"text:{raw_hash(source)}", data=None, text=source, kind=kind)


def rendered(raw: RawSource, settings: Settings) -> RawSource:
    """A fetched HTML page as its scripts leave it (ingest/render.py), when it came as an app
    shell (or PEGAS_WEB_RENDER=always); unchanged, with a warning, when no browser is here."""
    if settings.web_render == WebRender.NEVER or raw.data is None:
        return raw
    if _format_of(raw.sniffed, raw.suffix) != "html" or raw.kind not in (None, "web", "html"):
        return raw
    if settings.web_render == WebRender.AUTO:
        if not has_script(raw.data):  # most pages: no second parse for the visible text
            return raw
        try:
            shell = needs_render(html_to_text(raw.data), raw.data)
        except ValueError:
            return raw
        if not shell:
            return raw
    executable = browser_path(settings)
    if executable is None:
        return replace(
            raw,
            warnings=(
                "the page writes its text with scripts and no headless browser is installed: "
                "only its HTML was read; install chromium or set PEGAS_BROWSER",
            ),
        )
    page = render_page(raw.uri, settings, executable=executable)
    body = page.html.encode("utf-8")
    notes = tuple(f"the browser was refused {r}" for r in page.refused[:5])
    if len(page.refused) > 5:
        notes += (f"... and {len(page.refused) - 5} more requests refused",)
    return replace(
        raw,
        data=body,
        page_url=page.url_final,
        sniffed="text/html",
        warnings=notes,
        extra={
            **raw.extra,
            "url_final": page.url_final,
            "rendered": True,
            "render_requests": page.requests,
            "render_refused": len(page.refused),
        },
    )


def parse_source(
    raw: RawSource,
    settings: Settings,
    *,
    password: str | None = None,
    title: str | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> ParsedSource:
    """Parse what `read_source` read, with the parser its bytes call for (a PDF reports
    `progress` per page)."""
    parsed = _parse_raw(raw, settings, password=password, title=title, progress=progress)
    if raw.warnings:
        parsed = replace(parsed, warnings=(*raw.warnings, *parsed.warnings))
    return parsed


def _parse_raw(
    raw: RawSource,
    settings: Settings,
    *,
    password: str | None,
    title: str | None,
    progress: Callable[[int, int, str], None] | None,
) -> ParsedSource:
    if raw.data is None:
        flavour: Flavour | None = "markdown" if raw.kind == "markdown" else None
        return parse_text(raw.text or "", settings=settings, title=title, flavour=flavour)
    data, uri, suffix, extra = raw.data, raw.uri, raw.suffix, dict(raw.extra)
    fmt = raw.kind or _format_of(raw.sniffed, suffix)
    if fmt == "pdf":
        return parse_pdf(
            data,
            settings=settings,
            uri=uri,
            password=password,
            title=title,
            extra=extra,
            progress=progress,
        )
    if fmt == "epub":
        return parse_epub(data, settings=settings, uri=uri, title=title, extra=extra)
    if fmt in ("html", "web"):
        return parse_html(
            data, settings=settings, uri=uri, url=raw.page_url, title=title, extra=extra
        )
    if fmt == "zip":
        raise IngestError(f"{uri} is a zip archive but not an EPUB; unpack it and ingest the files")
    if fmt == "mismatch":
        raise IngestError(
            f"{uri} is named {suffix} but its bytes are not a {suffix[1:].upper()} file (broken, "
            "truncated or mislabelled); check the file, or pass kind='text' if it is text"
        )
    if fmt == "binary":
        raise IngestError(f"{uri} looks binary: not text, PDF, EPUB or HTML; pass one of those")
    text, warning = decode_text(data, uri)
    path = Path(extra.get("path", "") or extra.get("file_name", ""))
    return parse_text(
        text,
        settings=settings,
        title=title,
        uri=uri,
        raw=data,
        extra=extra,
        warnings=(warning,) if warning else (),
        flavour=flavour_of(path.name),
        file_name=path.name,
        directory=path.parent.name,
    )


def _looks_like_path(s: str) -> bool:
    if not s or "\n" in s or len(s) > 4096:
        return False
    if s.startswith(("/", "~", "./", "../")) or re.match(r"^[A-Za-z]:[\\/]", s):
        return True
    # "notes.md" or "papers/My Paper.pdf" are paths; "read notes.md" is a sentence.
    has_ext = Path(s).suffix.lower() in _DOC_EXTENSIONS
    return has_ext and (not re.search(r"\s", s) or "/" in s or "\\" in s)


def _format_of(content_type: str, suffix: str) -> str:
    """The parser for sniffed bytes; the extension only breaks ties the bytes leave open."""
    if content_type == "application/pdf":
        return "pdf"
    if content_type == "application/epub+zip":
        return "epub"
    if content_type == "application/zip":
        return "epub" if suffix == ".epub" else "zip"
    if suffix in (".pdf", ".epub"):
        # The name promises a binary format the bytes do not have: a broken or mislabelled file.
        return "mismatch"
    if content_type == "text/html" or _DOC_EXTENSIONS.get(suffix) == "html":
        return "html" if content_type != "application/octet-stream" else "binary"
    if content_type == "application/octet-stream":
        return "binary"
    return "text"


# --- text ----------------------------------------------------------------------------------------


def _check_text_string(text: str, uri: str) -> None:
    sample = text[:8192]
    controls = sum(1 for c in sample if ord(c) < 32 and c not in "\t\n\r\f\x1b")
    replacement = sample.count("\ufffd")
    if "\x00" in sample or controls > max(2, len(sample) // 100) or replacement > len(sample) // 20:
        raise IngestError(
            f"{uri}: the text looks binary (control or undecodable characters); pass readable "
            "text, or the file's path so its format is detected"
        )


def parse_text(
    text: str,
    *,
    settings: Settings,
    title: str | None = None,
    uri: str | None = None,
    raw: bytes | None = None,
    extra: dict[str, Any] | None = None,
    warnings: tuple[str, ...] = (),
    flavour: Flavour | None = None,
    file_name: str = "",
    directory: str = "",
) -> ParsedSource:
    """Plain text or markdown, sectioned by its headings. Raw text gets the uri "text:<sha256>".

    A markup document (`flavour`: a .md or .rst file, kind="markdown") is read through
    `ingest.markup.normalise` first (badges, HTML, directives blanked in place, so offsets stay
    the file's); its title is the heading that opens it, its front matter's, or for a README
    the project its directory names, else the file's name. Plain text keeps its first heading.

    Raises IngestError (binary-looking text, no text), LimitExceeded (max_text_chars).
    """
    digest = raw_hash(raw if raw is not None else text)
    uri = uri or f"text:{digest}"
    check_size(len(text), uri, settings)
    _check_text_string(text, uri)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    levels: dict[int, int] = {}
    front: str | None = None
    if flavour != "rst":
        text = blank_footers(text)
    if flavour == "rst" and (labels := rst_labels(text)):
        extra = {**(extra or {}), "rst_labels": labels}  # what a bare :ref: shows (xrefs)
    if flavour is not None:
        text, levels, front = normalise(text, flavour)
    sections = split_markdown_sections(text, levels=levels)
    if not sections:
        raise IngestError(f"{uri} has no text to ingest")
    first = next(((s.offset, s.heading_path[0]) for s in sections if s.heading_path), None)
    if flavour is not None:
        named = document_title(text, first, file_name=file_name, directory=directory)
        title = title or front or named or Path(file_name).stem or None
    else:
        title = title or Path(file_name).stem or (first[1] if first else None)
    return ParsedSource(
        kind="text",
        uri=uri,
        title=title,
        author=None,
        language=detect_language(language_sample(sections)),
        published_at=None,
        canonical_url=None,
        sections=tuple(sections),
        raw_hash=digest,
        metadata=dict(extra or {}),
        warnings=warnings,
    )
