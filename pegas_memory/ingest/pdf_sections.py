"""A PDF page cut into the outline sections it holds (pure).

An outline (bookmarks) entry points at a page, not at a character, so one section per page named
after the page's last entry cited text under "3 Baz" as "p. 2, Foo" when sections 1-4 all start
on page 2, and glued the heading line "3 Baz" onto the first sentence under it. Here each entry
that starts on a page is found again as a heading line of that page's text (its title, alone on
its line, optionally after a section number: "3 Baz", "2.1 Foo", "A Appendix"), in outline order.
The page is cut there: the text before the first heading still belongs to the section carried
from the page before, each heading starts its own section, and the heading line itself becomes
the section's path instead of text. An entry whose title is not found on the page (a bookmark
without a printed heading) starts at the last heading found before it, or at the page's top,
as the page-level rule did; so a PDF whose headings are not in its text is cut as before.

Offsets stay the page's: a part's `offset` is where its text starts in the (stripped) page text,
so "p. 2, Baz, char N" counts from the page's start for every part of the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A section number before the title: "3", "2.1", "2.1.", "IV", "A", "A.2", "Chapter 3".
_NUMBER = (
    r"(?:(?i:chapter|section|part|appendix|kapitel|abschnitt|teil|глава|раздел|часть)[ \t]+)?"
    r"(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.?|[A-Z](?:\.\d+)*\.?)"
)


@dataclass(frozen=True)
class PagePart:
    """A run of one page's text under one heading path; `offset` is its start in the page."""

    text: str
    path: tuple[str, ...]
    offset: int


def heading_pattern(title: str) -> re.Pattern[str] | None:
    """The title as a line of its own, words separated by any whitespace (a long title wraps),
    optionally after a section number; None for a title with no word to look for."""
    words = title.split()
    if not words:
        return None
    body = r"\s+".join(re.escape(w) for w in words)
    return re.compile(rf"(?m)^[ \t]*(?:{_NUMBER}[ \t]+)?(?i:{body})[ \t]*$")


def split_page(
    text: str, entries: list[tuple[str, ...]], carried: tuple[str, ...]
) -> tuple[list[PagePart], tuple[str, ...]]:
    """The parts of one page (`text` already stripped) and the path in force at its end.

    `entries` are the heading paths of the outline entries that start on this page, in outline
    order (their last element is the title); `carried` is the path in force at the page's top.
    """
    cuts: list[tuple[int, int, tuple[str, ...]]] = []  # (heading start, body start, path)
    pos = 0
    for path in entries:
        pattern = heading_pattern(path[-1]) if path else None
        m = pattern.search(text, pos) if pattern is not None else None
        if m is None:
            # Not printed on the page: in force from the last heading found (or the top).
            cuts[-1:] = [(cuts[-1][0], cuts[-1][1], path)] if cuts else [(0, 0, path)]
            continue
        cuts.append((m.start(), m.end(), path))
        pos = m.end()
    bounds: list[tuple[int, int, tuple[str, ...]]] = []  # (start, end, path)
    start, path = 0, carried
    for head, body_start, new_path in cuts:
        bounds.append((start, head, path))
        start, path = body_start, new_path
    bounds.append((start, len(text), path))
    parts: list[PagePart] = []
    for a, b, part_path in bounds:
        chunk = text[a:b]
        body = chunk.strip()
        if body:
            lead = len(chunk) - len(chunk.lstrip())
            parts.append(PagePart(body, part_path, a + lead))
    return parts, path


def settle_entries(
    outline: dict[int, list[tuple[str, ...]]], texts: dict[int, str]
) -> dict[int, list[tuple[str, ...]]]:
    """The outline with each entry moved to the page its heading is printed on when that is the
    next page's top: LaTeX (hyperref) anchors a section that opens a new page at the bottom of
    the page before ("Stichwortverzeichnis" of a 117-page book pointed one page early), so the
    page-level cut would name the previous page's tail after it. `texts` are the stripped page
    texts by page index; an entry found on its own page, or not at the next page's top, stays."""
    out = {index: list(paths) for index, paths in outline.items()}
    for index in sorted(outline):
        text, nxt = texts.get(index), texts.get(index + 1)
        if text is None or nxt is None:
            continue
        paths = out[index]
        found: list[bool] = []
        pos = 0
        for path in paths:
            pattern = heading_pattern(path[-1]) if path else None
            m = pattern.search(text, pos) if pattern is not None else None
            found.append(m is not None)
            pos = m.end() if m is not None else pos
        tail = len(paths)
        while tail and not found[tail - 1]:
            tail -= 1  # the entries after the page's last printed heading
        moved = 0
        while tail < len(paths) and not moved:
            moved = _opening(paths[tail:], nxt)
            tail += not moved  # a bookmark printed nowhere stays; the ones after it may open
        if moved:
            out[index] = paths[:tail] + paths[tail + moved :]
            out[index + 1] = [*paths[tail : tail + moved], *out.get(index + 1, [])]
    return {index: paths for index, paths in out.items() if paths}


def _opening(paths: list[tuple[str, ...]], text: str) -> int:
    """How many of `paths`, in order, are the heading lines `text` opens with."""
    top = count = 0
    for path in paths:
        pattern = heading_pattern(path[-1]) if path else None
        m = pattern.match(text, top) if pattern is not None else None
        if m is None:
            break
        top = m.end() + len(text[m.end() :]) - len(text[m.end() :].lstrip())
        count += 1
    return count
