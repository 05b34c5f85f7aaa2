"""Where quoted words sit inside a passage, and a passage cut into marked and unmarked pieces.

Pure: the templates render each piece as text (escaped) inside a `<mark>` or not, so no markup
is ever built from stored words.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Piece:
    """A run of a passage's text and the atoms whose citations cover it (none: not cited)."""

    text: str
    atoms: tuple[int, ...] = ()

    @property
    def marked(self) -> bool:
        return bool(self.atoms)


def locate(
    text: str, quote: str, start: int | None = None, end: int | None = None
) -> tuple[int, int] | None:
    """The span of `quote` in `text`: the recorded offsets when they hold the quote, else its
    first occurrence, else its words with any whitespace between them (a quote re-flowed by
    extraction), else the recorded offsets alone when they fit the text; None when nothing fits."""
    fits = start is not None and end is not None and 0 <= start < end <= len(text)
    if fits and (not quote or text[start:end] == quote):
        return start, end  # type: ignore[return-value]
    if quote:
        at = text.find(quote)
        if at >= 0:
            return at, at + len(quote)
        words = quote.split()
        if words:
            found = re.search(r"\s+".join(re.escape(w) for w in words), text)
            if found:
                return found.span()
    if fits:
        return start, end  # type: ignore[return-value]
    return None


def pieces(text: str, spans: Iterable[tuple[int, int, int]]) -> list[Piece]:
    """`text` cut at every span's ends, each piece with the atoms (`(start, end, atom)`) that
    cover it; overlapping citations mark their overlap with both atoms."""
    spans = [(max(0, s), min(len(text), e), a) for s, e, a in spans if s < e]
    cuts = sorted({0, len(text)} | {s for s, _, _ in spans} | {e for _, e, _ in spans})
    out: list[Piece] = []
    for lo, hi in itertools.pairwise(cuts):
        if lo >= hi:
            continue
        atoms = tuple(sorted({a for s, e, a in spans if s <= lo and hi <= e}))
        if out and out[-1].atoms == atoms:
            out[-1] = Piece(out[-1].text + text[lo:hi], atoms)
        else:
            out.append(Piece(text[lo:hi], atoms))
    return out


def citation_view(c: dict[str, Any], atom_id: int) -> dict[str, Any]:
    """A citation with its passage cut into pieces, the quoted words marked."""
    text = c["chunk_content"] or ""
    found = None
    if text:
        base = c["chunk_start"] or 0
        start = c["char_start"] - base if c["char_start"] is not None else None
        end = c["char_end"] - base if c["char_end"] is not None else None
        found = locate(text, c["quoted_text"] or "", start, end)
    parts: list[Piece] = pieces(text, [(found[0], found[1], atom_id)] if found else [])
    return {**c, "pieces": parts, "quote_found": found is not None}


def passage_view(chunk: dict[str, Any], spans: list[dict[str, Any]]) -> dict[str, Any]:
    """A passage cut into pieces, each cited span marked with the atoms citing it."""
    text = chunk["content"]
    base = chunk["char_start"] or 0
    marks = []
    for s in spans:
        if s["chunk_id"] != chunk["id"]:
            continue
        start = s["char_start"] - base if s["char_start"] is not None else None
        end = s["char_end"] - base if s["char_end"] is not None else None
        found = locate(text, s["quoted_text"] or "", start, end)
        if found:
            marks.append((found[0], found[1], int(s["atom_id"])))
    return {**chunk, "pieces": pieces(text, marks)}
