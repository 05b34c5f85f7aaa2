"""The sentences of a prose unit, as the distiller cuts them (pure logic, offsets into the chunk).

`pegas_memory.sentences.split_sentences` (razdel and its abbreviation layer) cuts the text;
`inline_split` also cuts around share buttons glued into it ("... continuum.'Click To Tweet
Think about it:"), and `left_open` tells a sentence that does not end where it stops (a bracket
still open, a clause ending in ";"), which `distill.units` joins with the next one.
"""

from __future__ import annotations

import re

from pegas_memory.sentences import split_sentences

_INLINE_WIDGET = re.compile(r"\s*\bclick to tweet\b\s*", re.IGNORECASE)


def left_open(sentence: str) -> bool:
    """Whether the sentence does not end there: a bracket is still open (closing brackets
    without an opening one, "1) ... 2)", are ignored) or it stops at a semicolon."""
    if sentence.rstrip().endswith(";"):
        return True
    depth = 0
    for ch in sentence:
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
    return depth > 0


def inline_split(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans of text[start:end], also cut around share buttons glued into the text
    ("... continuum.'Click To Tweet Think about it:")."""
    out: list[tuple[int, int]] = []
    for s in split_sentences(text[start:end]):
        s0, s1 = start + s.start, start + s.end
        for m in _INLINE_WIDGET.finditer(text, s0, s1):
            out.append((s0, m.start()))
            s0 = m.end()
        out.append((s0, s1))
    return [(a, b) for a, b in out if text[a:b].strip()]
