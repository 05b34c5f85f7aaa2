"""Layout noise of extracted PDF pages, removed before the text is chunked (pure, no I/O).

pypdf gives each page's text with the page furniture in it: running headers and footers
("8 1.2. METRISCHE RÄUME", "3.2. Stetigkeit 17"), bare page numbers, table-of-contents dot leaders,
the letters and numbers of drawings as one-word lines, words hyphenated at line ends, and NUL
characters where a glyph had no Unicode mapping (GeoTopo's minus signs: "f⁻¹(A)" comes out as
"f\\x001(A)"). Any of these that reaches the distiller becomes a junk atom, and a dropped minus
turns a true formula into a false one.

`clean_pages(pages)` takes the page texts in reading order and returns one `CleanPage` per page
(same order, same count): the cleaned text, whether it still holds characters that could not be
recovered (`damaged`; they are kept as U+FFFD so a quote shows the gap), and counts of what was
removed and why. It is meant to run in the PDF parser on all page texts before sections are built
(after `extract_text`, instead of dropping NULs).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

REPLACEMENT = "\ufffd"

_ROMAN = r"(?:[ivxlc]{1,6}|[IVXLC]{1,6})"
_PAGE_NO = re.compile(
    rf"^[\s\-–—]*(?:(?:page|seite|стр\.?|s\.)\s*)?(?:\d{{1,4}}|{_ROMAN})"
    r"(?:\s*(?:/|of|von|из)\s*\d{1,4})?[\s\-–—]*$",
    re.IGNORECASE,
)
_EDGE_NUMBER = re.compile(r"^(\d{1,4})\s+(?=\S)|(?<=\S)\s+(\d{1,4})$")
_DOT_LEADER = re.compile(r"(?:\.\s?){4,}\s*(?:\d{1,4}|[ivxlc]{1,6})\s*$|…{2,}\s*\d{1,4}\s*$")
_TOC_ENTRY = re.compile(r"^\S.{1,100}?[\s,]\d{1,4}(?:\s*[,–-]\s*\d{1,4})*$")
_SOUP_TOKEN = re.compile(r"^[\x00−\-–+]?(?:[^\W_]|\d{1,3}|[^\W\d_]\d)[′'.,]?$")
_HYPHEN = re.compile(r"(?<=[^\W\d_]{2})-\n(?=[a-zäöüßа-яё])")
_EDGE_LINES = 2  # lines at the top and at the bottom of a page that may be furniture


@dataclass(frozen=True)
class CleanPage:
    text: str
    damaged: bool = False  # holds REPLACEMENT characters: glyphs pypdf could not map
    removed: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class CleanedPages:
    pages: tuple[CleanPage, ...]
    removed: Mapping[str, int]  # totals over the pages, by reason

    @property
    def damaged_pages(self) -> tuple[int, ...]:
        """1-based numbers of the pages that kept unrecoverable characters."""
        return tuple(i + 1 for i, p in enumerate(self.pages) if p.damaged)


def clean_pages(pages: Sequence[str]) -> CleanedPages:
    """The pages without furniture, hyphenation or NULs (module docstring); never drops a page."""
    split = [page.split("\n") for page in pages]
    offset = _page_number_offset(split)
    repeated = _repeated_edges(split)
    out: list[CleanPage] = []
    totals: Counter[str] = Counter()
    for index, lines in enumerate(split):
        removed: Counter[str] = Counter()
        kept = _strip_furniture(lines, index, offset, repeated, removed)
        kept = _strip_body_noise(kept, removed)
        text = "\n".join(kept)
        text, n = _HYPHEN.subn("", text)
        removed["hyphenation"] += n
        text, recovered, damaged = recover_unmapped(text)
        removed["minus recovered"] += recovered
        removed["unmapped kept"] += damaged
        removed = Counter({k: v for k, v in removed.items() if v})
        totals.update(removed)
        out.append(CleanPage(text.strip(), damaged > 0, dict(removed)))
    out, moved = _join_page_breaks(out)
    if moved:
        totals["sentence across pages"] = moved
    return CleanedPages(tuple(out), dict(totals))


_OPEN_END = re.compile(r"(?:[^\W\d_]|[,;–—-])$")  # a page that stops on a word or a comma
_PAGE_HYPHEN = re.compile(r"(?<=[^\W\d_]{2})-$")
_SENTENCE_END = re.compile(r"[.!?…](?:[\"”»’)\]]*)(?=\s|$)")
_MAX_CARRIED = 600  # characters of the next page moved back at most


def _join_page_breaks(pages: list[CleanPage]) -> tuple[list[CleanPage], int]:
    """A sentence cut by a page break, put back together on the page where it starts: the page
    stops on a word ("... how the letters are") and the next page goes on in lower case
    ("written and an impression of the look. This ..."). Each page is its own section and
    chunk, so each half became an atom or a fragment. The next page's words up to the end of
    that sentence move to the end of the page before (a hyphen at the break joins the word);
    nothing moves when the sentence does not end soon or would take the whole next page."""
    out = list(pages)
    moved = 0
    for i in range(len(out) - 1):
        page, nxt = out[i].text, out[i + 1].text
        if not page or not nxt[:1].islower() or not _OPEN_END.search(page):
            continue
        end = _SENTENCE_END.search(nxt, 0, _MAX_CARRIED)
        if end is None or not nxt[end.end() :].strip():
            continue
        head, rest = nxt[: end.end()], nxt[end.end() :].strip()
        hyphen = _PAGE_HYPHEN.search(page) is not None  # "Bo-" / "rel." is "Borel."
        joined = page[:-1] + head if hyphen else page + "\n" + head
        out[i] = replace(out[i], text=joined)
        out[i + 1] = replace(out[i + 1], text=rest)
        moved += 1
    return out, moved


def recover_unmapped(text: str) -> tuple[str, int, int]:
    """(text, NULs recovered as minus signs, NULs kept as U+FFFD).

    A NUL glued to a letter, `)` or `]` and followed by digits is a superscript minus of an
    exponent ("f\\x001(A)" -> "f⁻¹(A)"); one after a space, an opening bracket, `=` or the line
    start is a minus sign ("x1 \\x00x2" -> "x1 −x2"). Anything else is ambiguous and stays visible.
    """
    recovered = 0

    def superscript(m: re.Match[str]) -> str:
        nonlocal recovered
        recovered += 1
        return "⁻" + m[1].translate(_SUPERSCRIPT)

    text = re.sub(r"(?<=[^\W\d_]|[)\]])\x00(\d{1,2})(?!\d)", superscript, text)
    text, n = re.subn(r"(?:(?<=[\s(\[{=,;:|])|^)\x00(?=[\w(\s∞∑∫√∆∂ϕπγκε])", "−", text, flags=re.M)
    recovered += n
    damaged = text.count("\x00")
    return text.replace("\x00", REPLACEMENT), recovered, damaged


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _page_number_offset(split: Sequence[Sequence[str]]) -> int | None:
    """The constant (printed page number - page index) when enough edge lines carry one."""
    votes: Counter[int] = Counter()
    for index, lines in enumerate(split):
        seen: set[int] = set()
        for line in _edges(lines):
            for number in _edge_numbers(line):
                seen.add(number - index)
        votes.update(seen)
    if not votes:
        return None
    offset, count = votes.most_common(1)[0]
    return offset if count >= max(2, len(split) // 4) else None


def _edge_numbers(line: str) -> list[int]:
    line = line.strip()
    if re.fullmatch(r"\d{1,4}", line):
        return [int(line)]
    return [int(g) for m in _EDGE_NUMBER.finditer(line) for g in m.groups() if g]


def _edges(lines: Sequence[str]) -> list[str]:
    content = [ln for ln in lines if ln.strip()]
    return content[:_EDGE_LINES] + content[-_EDGE_LINES:]


def _shape(line: str) -> str:
    """A header's identity across pages: digits and case do not count."""
    return re.sub(r"\d+", "#", re.sub(r"\s+", " ", line.strip())).casefold()


def _repeated_edges(split: Sequence[Sequence[str]]) -> frozenset[str]:
    """Shapes of edge lines repeated on at least three pages (a header without a page number)."""
    counts: Counter[str] = Counter()
    for lines in split:
        counts.update({_shape(line) for line in _edges(lines) if len(line.strip()) > 3})
    least = max(3, len(split) // 10)
    return frozenset(shape for shape, n in counts.items() if n >= least and len(split) >= 3)


def _strip_furniture(
    lines: Sequence[str],
    index: int,
    offset: int | None,
    repeated: frozenset[str],
    removed: Counter[str],
) -> list[str]:
    kept: list[str | None] = list(lines)

    def furniture(line: str) -> str | None:
        stripped = line.strip()
        if not stripped:
            return None
        if _PAGE_NO.match(stripped) and (
            not stripped.isdigit() or offset is None or int(stripped) == index + offset
        ):
            return "page number"
        if offset is not None and index + offset in _edge_numbers(stripped):
            return "running header"
        if _shape(stripped) in repeated:
            return "running header"
        return None

    for positions in (range(len(kept)), range(len(kept) - 1, -1, -1)):
        seen = 0
        for i in positions:
            line = kept[i]
            if line is None or not line.strip():
                continue
            if seen >= _EDGE_LINES:
                break
            seen += 1
            reason = furniture(line)
            if reason is None:
                break
            removed[reason] += 1
            kept[i] = None
    return [ln for ln in kept if ln is not None]


def _strip_body_noise(lines: Sequence[str], removed: Counter[str]) -> list[str]:
    """Table-of-contents lines (dot leaders, or a page that is mostly "title ... number" lines:
    a contents page or an index) and runs of figure labels."""
    out: list[str] = []
    soup = [_is_soup(line) for line in lines]
    content = [ln for ln in lines if ln.strip()]
    entries = sum(bool(_TOC_ENTRY.match(ln.strip())) for ln in content)
    toc_page = len(content) >= 6 and entries >= 0.6 * len(content)
    for i, line in enumerate(lines):
        if _DOT_LEADER.search(line) or (toc_page and _TOC_ENTRY.match(line.strip())):
            removed["toc line"] += 1
            continue
        neighbour = (i > 0 and soup[i - 1]) or (i + 1 < len(lines) and soup[i + 1])
        single = len(line.split()) == 1 and len(line.strip().lstrip("\x00−-")) <= 2
        if soup[i] and (neighbour or single):
            removed["figure label"] += 1
            continue
        out.append(line)
    return out


def _is_soup(line: str) -> bool:
    """A short line of single letters and small numbers: the labels of a drawing."""
    tokens = line.split()
    return 0 < len(tokens) <= 8 and all(_SOUP_TOKEN.match(t) for t in tokens)
