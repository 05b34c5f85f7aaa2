"""Sentence segmentation for Russian and English text.

razdel's rules know Russian abbreviations ("т. е.", "проф.", "ч."), «» and "" quotes, initials
and decimal numbers, and handle English abbreviations ("Dr.", "e.g.", "D.C.") as well.
"""

from __future__ import annotations

from dataclasses import dataclass

from razdel import sentenize


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    start: int  # character offsets into the text that was split
    end: int


def split_sentences(text: str) -> list[Sentence]:
    """Sentences of `text` with their character spans; empty input gives an empty list."""
    return [Sentence(s.text, s.start, s.stop) for s in sentenize(text) if s.text.strip()]
