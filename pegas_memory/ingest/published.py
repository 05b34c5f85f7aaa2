"""When a source was published: read from what the source says of itself, never the crawl time.

A perishable memory (a web page, news) ages from its publication date (search/fusion.py), so the
date must be the one the page states. `html_published` reads the explicit markup publishers use,
in order of how specific it is: `article:published_time` and other publication meta tags,
`datePublished` in JSON-LD (also inside `@graph` and lists) or as microdata, then a `<time>`
element (one marked `pubdate` or `datePublished` first, else the first with a `datetime`). The
HTML parser falls back to trafilatura's date guess only when none of these is there. PDFs give
/CreationDate (ingest/pdf.py) and EPUBs dc:date (ingest/epub.py); every value goes through
`normalise_date`, which keeps what parses as a date and drops the rest.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime
from email.utils import parsedate_to_datetime
from typing import Any

# Meta tags stating a publication date (property= or name=, compared case-insensitively).
META_PUBLISHED = (
    "article:published_time",
    "og:published_time",
    "og:article:published_time",
    "citation_publication_date",
    "citation_date",
    "dc.date.issued",
    "dcterms.issued",
    "dc.date",
    "dcterms.date",
    "date",
    "pubdate",
    "publish-date",
    "publish_date",
    "sailthru.date",
    "parsely-pub-date",
)
_PARTIAL = re.compile(r"^(\d{4})(?:[-/.](\d{1,2}))?(?:[-/.](\d{1,2}))?$")
_PDF_DATE = re.compile(r"^D:(\d{4})(\d{2})?(\d{2})?")
EARLIEST_YEAR = 1400  # older than print: a parse error, not a date


def normalise_date(value: object) -> str | None:
    """An ISO 8601 date or timestamp for a date as sources write it ("2019-03-01T10:00:00Z",
    "2019-03-01", "2019/3/1", "2019-03", "2019", a PDF "D:20190301...", an RFC 2822 date),
    or None when it is not one (or is before 1400 or more than a year ahead)."""
    if isinstance(value, datetime):
        parsed: datetime | date | None = value
    elif isinstance(value, date):
        parsed = value
    elif isinstance(value, str):
        parsed = _parse(value.strip())
    else:
        return None
    if parsed is None:
        return None
    year = parsed.year
    if year < EARLIEST_YEAR or year > datetime.now(UTC).year + 1:
        return None
    return parsed.isoformat()


def _parse(text: str) -> datetime | date | None:
    if not text:
        return None
    if m := _PARTIAL.match(text):  # a day, a month or a year: a date, not midnight
        return _ymd(m.group(1), m.group(2), m.group(3))
    iso = text.replace("Z", "+00:00") if text.endswith("Z") else text
    try:
        return datetime.fromisoformat(iso)
    except ValueError:
        pass
    if m := _PDF_DATE.match(text):
        return _ymd(m.group(1), m.group(2), m.group(3))
    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None


def _ymd(y: str, m: str | None, d: str | None) -> date | None:
    try:
        return date(int(y), int(m or 1), int(d or 1))
    except ValueError:
        return None


def html_published(markup: bytes | str) -> str | None:
    """The publication date a page states in its markup (see the module docstring), ISO 8601;
    None when it states none or the markup cannot be parsed."""
    import lxml.etree
    import lxml.html

    try:
        root = lxml.html.document_fromstring(markup)
    except (lxml.etree.ParserError, ValueError):
        return None
    metas: dict[str, str] = {}
    for el in root.iter("meta"):
        key = (el.get("property") or el.get("name") or el.get("itemprop") or "").strip().lower()
        content = (el.get("content") or "").strip()
        if key and content and key not in metas:
            metas[key] = content
    for key in META_PUBLISHED:
        if found := normalise_date(metas.get(key)):
            return found
    if found := normalise_date(metas.get("datepublished")):
        return found
    for script in root.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        try:
            data = json.loads(script.text_content() or "")
        except ValueError:
            continue
        if found := normalise_date(_json_ld_published(data)):
            return found
    times = [el for el in root.iter("time") if el.get("datetime")]
    marked = [
        el
        for el in times
        if el.get("pubdate") is not None or (el.get("itemprop") or "").lower() == "datepublished"
    ]
    for el in (*marked, *times[:1]):
        if found := normalise_date(el.get("datetime")):
            return found
    return None


def _json_ld_published(data: Any, depth: int = 0) -> str | None:
    """The first `datePublished` of a JSON-LD value (objects, lists, `@graph`), depth-first."""
    if depth > 8:
        return None
    if isinstance(data, list):
        for item in data:
            if found := _json_ld_published(item, depth + 1):
                return found
        return None
    if not isinstance(data, dict):
        return None
    value = data.get("datePublished")
    if isinstance(value, str) and normalise_date(value):
        return value
    for key, inner in data.items():
        found = None
        if key != "datePublished" and isinstance(inner, dict | list):
            found = _json_ld_published(inner, depth + 1)
        if found:
            return found
    return None
