"""A PDF's title: its metadata title when it names the work, else the first page's title (pure).

Metadata titles are often not titles at all: the file the PDF was made from ("t.dvi",
"paper.tex", "Microsoft Word - draft3.docx"), a PDF string pypdf left undecoded (UTF-16 with its
byte-order mark read as Latin-1: "þÿ\\x00T\\x00h..."; or its hex form "<FEFF0054...>"), a section
heading ("1 Introduction"), or a placeholder ("untitled"). Those are decoded or rejected, and
the first page's first line that reads like a title stands in.
"""

from __future__ import annotations

import re

_FILE_NAME = re.compile(
    r"^[\w\-. ()]*\.(dvi|tex|pdf|docx?|rtf|odt|ps|eps|indd|pages|txt|html?|md|qxd|pub)$", re.I
)
_MADE_BY = re.compile(
    r"^(microsoft (word|powerpoint|excel)|untitled|print|document)\s*[-:]\s*", re.I
)
# Placeholders and the default title an authoring application writes ("PowerPoint
# Presentation", "Presentation1", "Keynote", "Google Docs document").
_PLACEHOLDER = re.compile(
    r"^(untitled|no title|title|(new |blank )?document\s*\d*|unknown|none|slide\s*\d*|draft"
    r"|template|(new )?presentation\s*\d*|(microsoft |ms )?(office )?powerpoint( presentation)?"
    r"|keynote( presentation)?|google (docs|slides)( document| presentation)?|(libre|open)office"
    r"( impress| writer)?( presentation| document)?|слайд\s*\d*|презентация( powerpoint)?\s*\d*"
    r"|документ\s*\d*|без названия)$",
    re.I,
)
_NUMBERED_HEADING = re.compile(r"^(\d+(\.\d+)*|[IVX]+\.?)\s+\S")
_HEX = re.compile(r"^<?(FEFF(?:[0-9A-F]{4})+)>?$", re.I)
_LETTER = re.compile(r"[^\W\d_]")
MAX_TITLE = 200


def decode_pdf_string(value: str) -> str:
    """A PDF text string pypdf left encoded: UTF-16BE with its BOM read as Latin-1, or hex."""
    hexed = _HEX.match(value.strip())
    if hexed:
        try:
            return bytes.fromhex(hexed.group(1)).decode("utf-16-be").lstrip("\ufeff")
        except ValueError:
            return value
    if value.startswith(("\u00fe\u00ff", "\u00ff\u00fe")):
        try:
            raw = value.encode("latin-1")
            codec = "utf-16-be" if raw[:2] == b"\xfe\xff" else "utf-16-le"
            return raw[2:].decode(codec)
        except (UnicodeEncodeError, UnicodeDecodeError):
            return value
    return value


def metadata_title(value: str | None) -> str | None:
    """The metadata title cleaned, or None when it does not name the work."""
    if not value:
        return None
    title = " ".join(decode_pdf_string(value).replace("\x00", "").split())
    title = _MADE_BY.sub("", title)
    title = re.sub(r"\.(docx?|odt|rtf|pptx?)$", "", title, flags=re.I).strip()
    if (
        not title
        or _FILE_NAME.match(title)
        or _PLACEHOLDER.match(title)
        or _NUMBERED_HEADING.match(title)
        or len(_LETTER.findall(title)) < 3
        or len(title) > MAX_TITLE
    ):
        return None
    return title


def first_page_title(text: str) -> str | None:
    """The first line of the first page that reads like a title: a few words, mostly letters,
    not a running head with a URL or an identifier, not a sentence."""
    for line in text.splitlines()[:15]:
        line = " ".join(line.split())
        letters = len(_LETTER.findall(line))
        words = line.split()
        if letters < 8 or len(words) < 2 or len(line) > 150:
            continue
        if letters < 0.6 * len(line.replace(" ", "")):
            continue  # numbers, dates, identifiers
        if re.search(r"https?://|www\.|doi:|arxiv|@|©|\bvol\.|\bpp\.", line, re.I):
            continue
        if line.endswith((".", ",", ";")) and len(words) > 12:
            continue  # a sentence, not a title
        return line
    return None


def pdf_title(given: str | None, metadata: str | None, first_page: str) -> str | None:
    """The title to store: the caller's, else the metadata's if it names the work, else the
    first page's title line (None: the document is named by its file)."""
    if given:
        return given
    return metadata_title(metadata) or first_page_title(first_page)
