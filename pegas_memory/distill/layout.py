"""What a draft is by its place in the document's layout, not by its words (pure).

A reference list's entries, a table of contents, front matter (authors, affiliations,
identifiers, funding), figure and table captions and PDF glyph debris are searchable in their
passage but state nothing by themselves. Each test reads a shape that every document of the
kind shares (an entry's authors, year, venue and pages; a contents line's page number after a
dot leader; a caption's "Figure 3:"), so that it carries to documents nobody has looked at.
The section a chunk sits in says the same for a whole chunk (`section_kind`), and so does the
share of a chunk's lines that look like entries (`ChunkLayout`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru

REFERENCE = "reference list entry"
CONTENTS = "table of contents"
FRONT_MATTER = "front matter"
CAPTION = "caption"
DEBRIS = "glyph debris"

_SECTIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        REFERENCE,
        re.compile(
            r"^(?:references|bibliography|works cited|literature cited|cited literature"
            r"|список (?:использованн\w+ |цитированн\w+ )?(?:литературы|источников)"
            r"|библиография|библиографический список)$"
        ),
    ),
    (CONTENTS, re.compile(r"^(?:contents|table of contents|содержание|оглавление)$")),
    (
        FRONT_MATTER,
        re.compile(
            r"^(?:acknowledge?ments?|funding|author contributions|about the authors?"
            r"|conflicts? of interest|declaration of competing interest|data availability"
            r"|благодарности|об авторах|сведения об авторах|финансирование)$"
        ),
    ),
)
# "7 ", "7.1. ", "IV. ", "A) ", "Б. " before a heading's name.
# Names a reference list shares with a section of content ("Литература" of a country's
# article is its writers): entries there still need their shape, but a looser one.
_MAYBE_REFERENCES = re.compile(r"^(?:literature|sources|further reading|литература|источники)$")
_NUMBERING = re.compile(r"^\s*(?:(?:\d{1,3}(?:\.\d{1,3})*|[IVX]{1,4})[.)]?\s+|[A-ZА-Я][.)]\s+)*")

# A reference list entry's parts (`reference_score`).
_INITIALS_AFTER = re.compile(r"\b[A-ZА-ЯЁ][\w'’-]+,?\s+(?:[A-ZА-ЯЁ]\.\s?-?){1,3}")
_INITIALS_BEFORE = re.compile(r"(?:\b[A-ZА-ЯЁ]\.\s?){1,3}\s?[A-ZА-ЯЁ][a-zа-яё'’-]+")
_YEAR = re.compile(r"(?:\(\s*(?:1[89]|20)\d\d[a-z]?\s*\)|(?<![\d.])(?:1[89]|20)\d\d[a-z]?[.,;:])")
_ET_AL = re.compile(r"\bet al\.|\bи др\.", re.IGNORECASE)
_PAGES = re.compile(r"(?:\b(?:pp?|[СсPS])\.\s?\d+(?:\s?[-–—]\s?\d+)?)")
_VOLUME = re.compile(
    r"(?:\b(?:vol|Vol|VOL|no|No|Т|т|Вып|вып|iss|Iss)\.\s?\d+|№\s?\d+|\b\d+\s?\(\d+\)\s?[:,])"
)
_IDENTIFIER = re.compile(r"(?:\bdoi\b|\b10\.\d{4,}/|https?://|\burl:|\barxiv:\s?\d|\bisbn\b)", re.I)
_GOST = re.compile(r"\s//\s|\s—\s(?:[СсМ]\.|\d{4}\.)")
_ENTRY_NUMBER = re.compile(r"^\s*(?:\[\d{1,3}\]|\d{1,3}\.)\s*")
_ENTRY_START = re.compile(r"^\s*(?:\[\d{1,3}\]|\d{1,3}\.\s+[A-ZА-ЯЁ][\w'’-]+,?\s+(?:[A-ZА-ЯЁ]\.))")

# A contents line: a title, a dot leader or a run of spaces, a page number.
_CONTENTS_LINE = re.compile(r"(?:(?:\.\s?){3,}|…+|\s{3,}|\t)\s*\d{1,4}\s*$")
_CAPTION = re.compile(
    r"^\s*(?:figure|fig\.|table|tab\.|listing|algorithm|chart|scheme|plate|exhibit|рис\."
    r"|рисунок|таблица|табл\.|схема|листинг|диаграмма|график|иллюстрация)\s*"
    r"(?:[\dIVX]+[\w.]*|[A-ZА-Я]\.?\d*)\s*[.:—–-]",
    re.IGNORECASE,
)
_CAPTION_INSIDE = re.compile(
    r"(?:^|\s)(?:figure|fig\.|table|рис\.|рисунок|таблица)\s*\d+[\w.]*\s*:\s+\S",
    re.IGNORECASE,
)
# Marks of code in a prose claim: a comment, a block after a call, an arrow, a call's statement
# end (one at least), and braces or semicolons: three in all make it a piece of a code block that
# lost its fence, not a sentence ("The set {1, 2} has two elements; ..." has no strong one).
_CODE_STRONG = re.compile(r"(?<![:\w/])//\s|\)\s*\{|=>|\);")
_CODE_WEAK = re.compile(r"[{}]|;(?=\s|$)")
_CODE_MARKS_MIN = 3
# Words a PDF ran together when its spaces were lost ("Atextdocumentisasequenceof..."): no
# word of either language is this long.
_RUN_TOGETHER = re.compile(r"[^\W\d_]{28,}")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_POSTCODE = re.compile(r"(?<!\d)\d{5,6}(?!\d)")
_LIST_LINES = 3
_ENTRY_CHARS = 500  # a reference list entry is seldom longer
_MATH = set("=+−-/^_|∑∫∂∈∉≤≥<>×·*∞√≈≠∀∃→←⇒⇔⊂⊆∪∩")


def _names(heading_path: tuple[str, ...]) -> list[str]:
    return [_NUMBERING.sub("", h).strip().strip(":.").casefold() for h in heading_path]


def section_kind(heading_path: tuple[str, ...]) -> str | None:
    """The layout a chunk's whole section is, by its heading ("References", "Список
    литературы", "Contents", "Acknowledgements"), or None for a section of content."""
    for name in _names(heading_path):
        for kind, pattern in _SECTIONS:
            if pattern.match(name):
                return kind
    return None


def reference_score(text: str) -> int:
    """How many parts of a reference list entry `text` has: authors with initials at its start
    (two for several), a year in brackets or before a stop, "et al.", pages, a volume or issue, a
    venue or publisher, an identifier (DOI, URL, arXiv), a ГОСТ separator, an entry number."""
    # Authors open an entry ("Smith, J. A., Brown, K.", "Иванов И. И., Петров П. П."); prose
    # names people with initials anywhere ("под руководством Э. Ферми").
    head = _ENTRY_NUMBER.sub("", text, count=1)
    authors = 0
    if _INITIALS_AFTER.match(head) or _INITIALS_BEFORE.match(head):
        authors = 1 + (len(_INITIALS_AFTER.findall(head[:160])) >= 2)
    venue = en.VENUE.search(text) is not None or ru.VENUE.search(text) is not None
    parts = (
        _YEAR.search(text),
        _ET_AL.search(text),
        _PAGES.search(text),
        _VOLUME.search(text),
        venue,
        _IDENTIFIER.search(text),
        _GOST.search(text),
        _ENTRY_START.match(text),
    )
    return authors + sum(1 for part in parts if part)


@dataclass(frozen=True)
class ChunkLayout:
    """What a chunk's lines look like as a whole: the share of its lines that read as reference
    list entries (two parts or more) and as contents lines, when there are three such lines or
    more (a list)."""

    reference_share: float
    contents_share: float
    maybe_references: bool = False  # under a heading a reference list may have

    @classmethod
    def of(cls, text: str, heading_path: tuple[str, ...] = ()) -> ChunkLayout:
        maybe = any(_MAYBE_REFERENCES.match(name) for name in _names(heading_path))
        lines = [line for line in text.splitlines() if len(line.strip()) > 3]
        if not lines:
            return cls(0.0, 0.0, maybe)
        references = sum(1 for line in lines if reference_score(line) >= 2)
        contents = sum(1 for line in lines if _CONTENTS_LINE.search(line))
        # a list is three lines or more: one line that looks like an entry is no list
        references = references if references >= _LIST_LINES else 0
        contents = contents if contents >= _LIST_LINES else 0
        return cls(references / len(lines), contents / len(lines), maybe)


def reference_entry(text: str, quote_start: int, quote: str, layout: ChunkLayout) -> bool:
    """Whether the quote is (part of) an entry of a reference list: three parts of an entry in
    the quote, or in its paragraph when the paragraph is as short as an entry (the sentence
    splitter cuts an entry at its stops: "Deep learning for graphs." is its title), or two in
    a chunk whose lines are mostly entries."""
    score = reference_score(quote)
    if score >= 3 or (score >= 2 and layout.reference_share >= 0.3):
        return True
    start = text.rfind("\n\n", 0, quote_start) + 1
    end = text.find("\n\n", quote_start)
    paragraph = text[start : end if end >= 0 else len(text)]
    short = len(paragraph) <= _ENTRY_CHARS or layout.reference_share >= 0.3
    needed = 2 if layout.maybe_references else 3
    return short and reference_score(paragraph) >= needed


def contents_line(quote: str, layout: ChunkLayout) -> bool:
    """Whether the quote is lines of a table of contents (a page number after a dot leader or
    a gap), or a line of a chunk that is mostly such lines."""
    if re.search(r"(?:\.\s?){4,}|…{2,}", quote):
        return True  # a dot leader: no sentence has one
    lines = [line for line in quote.splitlines() if line.strip()]
    leaders = sum(1 for line in lines if _CONTENTS_LINE.search(line))
    return bool(lines) and leaders >= max(1, len(lines) // 2) and layout.contents_share >= 0.3


def front_matter(quote: str) -> bool:
    """Whether the quote is front or back matter: identifiers (УДК, ISBN, DOI), keywords,
    dates received and accepted, copyright, funding, an e-mail address, or an affiliation
    with a postcode."""
    if en.FRONT.search(quote) or ru.FRONT.search(quote) or _EMAIL.search(quote):
        return True
    affiliation = en.AFFILIATION.search(quote) or ru.AFFILIATION.search(quote)
    return bool(affiliation) and _POSTCODE.search(quote) is not None


def caption(text: str, quote_start: int, quote: str = "") -> bool:
    """Whether the quote belongs to a figure's or table's caption: its paragraph (since the
    last blank line) opens with "Figure 3:", "Table 2.", "Рис. 1 —", "Таблица 4.", or the
    quote holds a caption's label with its colon after the figure's own text, which a PDF
    gives as words before it ("200 250 300 Seconds since start Figure 8: Throughput ...")."""
    paragraph = text.rfind("\n\n", 0, quote_start) + 1
    line = text.rfind("\n", 0, quote_start) + 1
    if _CAPTION_INSIDE.search(quote):
        return True
    return any(_CAPTION.match(text[start : quote_start + 80]) for start in {paragraph, line})


def glyph_debris(claim: str) -> bool:
    """Whether the claim is text a PDF's fonts tore apart: mostly tokens without a word of
    two letters, mostly mathematical symbols, unmapped glyphs ("(cid:12)", U+FFFD), words
    run together where the spaces were lost, or code torn out of its block."""
    strong = len(_CODE_STRONG.findall(claim))
    if strong and strong + len(_CODE_WEAK.findall(claim)) >= _CODE_MARKS_MIN:
        return True  # "// Error: ... } catch(e) { alert(e.message); }": code torn out of its block
    tokens = claim.split()
    letters = sum(1 for c in claim if c.isalpha())
    run_together = sum(len(m) for m in _RUN_TOGETHER.findall(claim))
    if letters and run_together / letters >= 0.3:
        return True
    if claim.count("\ufffd") >= 2 or len(re.findall(r"\(cid:\d+\)", claim)) >= 1:
        return True
    if len(tokens) < 4:
        return False
    is_word = [re.search(r"[^\W\d_]{2,}", t) is not None for t in tokens]
    visible = [c for c in claim if not c.isspace()]
    in_words = sum(len(w) for w in re.findall(r"[^\W\d_]{3,}", claim))
    run = longest = 0
    for word in is_word:
        run = 0 if word else run + 1
        longest = max(longest, run)
    if sum(is_word) / len(tokens) < 0.5 and (in_words / len(visible) < 0.5 or longest >= 5):
        return True  # "rank r /+/1 x y = k": not "f(x) → 0 при стремлении x к бесконечности"
    return sum(1 for c in visible if c in _MATH) / len(visible) > 0.3
