"""HTML: the main text of a page (trafilatura) as markdown, or all its visible text.

`html_to_text` is the fallback walk over the markup (also used for EPUB spine documents): blocks
separated by blank lines, headings as markdown "#" lines so they become sections.
"""

from __future__ import annotations

import re
from typing import Any

from pegas_memory.config import Settings
from pegas_memory.errors import IngestError
from pegas_memory.ingest.checks import check_size, language_sample
from pegas_memory.ingest.chunking import ParsedSource, split_markdown_sections
from pegas_memory.ingest.furniture import prune_furniture
from pegas_memory.ingest.published import html_published, normalise_date
from pegas_memory.text import detect_language, raw_hash

_BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "figcaption", "figure",
    "footer", "header", "hr", "li", "main", "nav", "ol", "p", "section", "table", "tr", "ul",
}  # fmt: skip
_SKIP_TAGS = {"script", "style", "head", "noscript", "template", "svg", "math"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SPACES = re.compile(r"\s+")


def html_to_text(markup: bytes | str) -> str:
    """All visible text of an (X)HTML document, blocks separated by blank lines, headings as
    markdown "#" lines (so they become sections), <pre> kept verbatim, a <figcaption> as a
    markdown image label ("![caption]") so that it is not read as running text.

    Raises ValueError when the markup cannot be parsed at all.
    """
    import lxml.etree
    import lxml.html

    try:
        root = lxml.html.document_fromstring(markup)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise ValueError(f"unparseable HTML: {exc}") from exc
    out: list[str] = []

    def inline(text: str | None) -> None:
        if text:
            out.append(_SPACES.sub(" ", text))

    def walk(el: Any) -> None:
        tag = el.tag.split("}")[-1].lower() if isinstance(el.tag, str) else ""
        if not tag or tag in _SKIP_TAGS:  # comments, processing instructions, scripts
            if tag or el.tail:
                inline(el.tail)
            return
        if tag == "pre":
            out.append("\n\n```\n" + el.text_content().strip("\n") + "\n```\n\n")
            inline(el.tail)
            return
        if tag == "figcaption":
            # Written as a markdown image label, so the distiller knows it is a caption.
            caption = _SPACES.sub(" ", el.text_content()).strip().replace("]", ")")
            if caption:
                out.append(f"\n\n![{caption}]\n\n")
            inline(el.tail)
            return
        if tag == "br":
            out.append("\n")
            inline(el.tail)
            return
        level = _HEADINGS.get(tag)
        block = level is not None or tag in _BLOCK_TAGS
        if block:
            out.append("\n\n" + ("#" * level + " " if level else ""))
        if tag in ("td", "th"):
            out.append(" ")
        inline(el.text)
        for child in el:
            walk(child)
        if block:
            out.append("\n\n")
        inline(el.tail)

    walk(root)
    lines = (line.strip() for line in "".join(out).split("\n"))
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


_HEADING_LINE = re.compile(r"^#{1,6} \S", re.M)
# The share of all visible text the main text must hold for a page to count as all main text.
MAIN_SHARE = 0.8


def _with_structure(data: bytes | str, text: str) -> str:
    """The main text, or the page's own text with its headings when the extraction dropped
    every heading of a page that is nearly all main text (a book chapter in XHTML, a long
    article): its sections then name their locators instead of bare character positions."""
    if _HEADING_LINE.search(text):
        return text
    try:
        whole = html_to_text(data)
    except ValueError:
        return text
    headings = len(_HEADING_LINE.findall(whole))
    plain = _HEADING_LINE.sub("", whole)
    if headings >= 2 and len(text) >= MAIN_SHARE * len(plain):
        return whole
    return text


def parse_html(
    data: bytes | str,
    *,
    settings: Settings,
    uri: str,
    url: str | None = None,
    title: str | None = None,
    extra: dict[str, Any] | None = None,
) -> ParsedSource:
    """Main text (trafilatura) as markdown, sectioned by its headings; title, author, date and
    canonical URL from the page. A page where trafilatura finds no main text keeps all its
    visible text, with a warning.

    Raises IngestError (no text at all), LimitExceeded (max_text_chars).
    """
    import trafilatura
    from trafilatura.xml import xmltotxt

    warnings: list[str] = []
    try:
        # Parsed the way trafilatura parses (its encoding guess), furniture pruned, then handed
        # over as a tree (ingest/furniture.py says what goes and why).
        tree = trafilatura.load_html(data)
        if tree is not None:
            prune_furniture(tree)
        doc = trafilatura.bare_extraction(
            tree if tree is not None else data,
            url=url,
            with_metadata=True,
            include_formatting=True,
            include_comments=False,
            include_tables=True,
            # Measured on 181 real pages (bench/bench_extraction.py): precision mode keeps
            # fewer boilerplate lines, F1 0.961 vs 0.957 without it.
            favor_precision=True,
        )
    except Exception as exc:  # trafilatura/lxml on hostile markup: fall back to all text
        warnings.append(f"main-text extraction failed ({type(exc).__name__}); kept all text")
        doc = None
    body = getattr(doc, "body", None)
    text = xmltotxt(body, True).strip() if body is not None else ""
    if not text:
        try:
            text = html_to_text(data)
        except ValueError:
            text = ""
        if not warnings:
            warnings.append("no main text found; kept all visible text of the page")
    if not text:
        raise IngestError(f"{uri}: the page has no text (a script-only page?); try another URL")
    text = _with_structure(data, text)
    check_size(len(text), uri, settings)
    sections = split_markdown_sections(text)
    return ParsedSource(
        kind="web",
        uri=uri,
        title=title or getattr(doc, "title", None),
        author=getattr(doc, "author", None),
        language=detect_language(language_sample(sections)) or getattr(doc, "language", None),
        # What the page states first (ingest/published.py), trafilatura's guess only without it.
        published_at=html_published(data) or normalise_date(getattr(doc, "date", None)),
        canonical_url=getattr(doc, "url", None) or url,
        sections=tuple(sections),
        raw_hash=raw_hash(data),
        metadata={
            **(extra or {}),
            **{
                key: value
                for key in ("sitename", "description", "hostname")
                if (value := getattr(doc, key, None))
            },
        },
        warnings=tuple(warnings),
    )
