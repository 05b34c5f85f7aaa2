"""The sentences of a prose unit, as the distiller cuts them (pure logic, offsets into the chunk).

`pegas_memory.sentences.split_sentences` (razdel and its abbreviation layer) cuts the text.
Three of its cuts leave a fragment on one side, so `prose_sentences` glues them back:
- a cut inside inline code: the ". " of "do `. /path/to/_rg.ps1` instead" (markdown backticks,
  rST ``literals`` and roles) is code, not a sentence end;
- a cut after the letters of an abbreviation written with points ("«Агенты "Щ.И.Т."», или «Щ. И.
  Т.»" | "(English: Agents of S.H.I.E.L.D.) — американский телесериал, ..."): two or more single
  letters with points, maybe closed by a quote or a bracket, before a text that goes on with a
  bracket, a dash or a lower-case word (razdel keeps "S.H.I.E.L.D. The" and "А. С. Пушкин"
  whole itself);
- a cut inside a quotation opened in the sentence and closed within the next ones: «Война и
  мир. Том 1», "It was hard. We tried." (a quotation that closes nowhere near stays cut).
`inline_split` also cuts around share buttons glued into the text ("... continuum.'Click To
Tweet Think about it:"), and `left_open` tells a sentence that does not end where it stops (a
bracket still open, a clause ending in ";"), which `distill.units` joins with the next one.
"""

from __future__ import annotations

import re

from pegas_memory.sentences import Sentence, split_sentences

_INLINE_WIDGET = re.compile(r"\s*\bclick to tweet\b\s*", re.IGNORECASE)
# Inline code: a run of backticks and the same run closing it, within a paragraph; code that
# opens or closes on a space is a closing run taken for an opening one (a stray "```" before),
# unless it is only spaces ("unlike `.` and ` `").
_CODE = re.compile(r"(?<!`)(`+)(?:(?![`\s]).+?(?<![`\s])| +)\1(?!`)", re.S)
# Two or more single letters with points at the end ("Щ.И.Т.", "Щ. И. Т.»", "S.H.I.E.L.D.)").
_INITIALS_END = re.compile(r"(?<![^\W\d_])(?:[^\W\d_]\.[ \t]?){2,}[»\"”“’'`)\]]*\s*$")
_GOES_ON = re.compile(r"\s*[(\[—–a-zа-яё]")
# A quotation glued back only when it closes within this many characters of the sentence start.
_MAX_QUOTED = 800
_LEADING_CLOSERS = re.compile(r"\s*[\"»”“]+(?=\s|$)")


def _code_spans(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _CODE.finditer(text) if "\n\n" not in m[0]]


def _open_quotes(piece: str, stack: str = "") -> str:
    """The quotation marks still open after `piece`, innermost last, from `stack`. A straight
    '"' opens at a word's start (after a space, a bracket or a dash, before a letter) and
    closes otherwise; "“" closes a German „ and opens otherwise."""
    for i, ch in enumerate(piece):
        prev = piece[i - 1] if i else " "
        nxt = piece[i + 1] if i + 1 < len(piece) else " "
        if ch == '"':
            if (prev.isspace() or prev in "([{«„“—–-/") and not nxt.isspace():
                stack += ch
            elif '"' in stack:
                stack = stack[: stack.rindex('"')]
        elif ch == "“" and stack.endswith("„"):
            stack = stack[:-1]
        elif ch in "«„“":
            stack += ch
        elif ch in "»”" and stack:
            stack = stack[:-1]
    return stack


def _glued(text: str, a: tuple[int, int], b: tuple[int, int], code: list[tuple[int, int]]) -> bool:
    """Whether the cut between spans a and b (b right after a) is no sentence end."""
    if "\n\n" in text[a[1] : b[0]]:
        return False
    if any(c0 < a[1] and b[0] < c1 for c0, c1 in code):
        return True
    return (
        _INITIALS_END.search(text, a[0], a[1]) is not None
        and _GOES_ON.match(text, b[0], b[1]) is not None
    )


def _quoted_until(text: str, spans: list[tuple[int, int]], i: int) -> int:
    """The last span the quotation opened in span i runs to, or i (none open, or none closing
    within _MAX_QUOTED characters or the paragraph)."""
    stack = _open_quotes(text[spans[i][0] : spans[i][1]])
    j = i
    while stack and j + 1 < len(spans) and spans[j + 1][1] - spans[i][0] <= _MAX_QUOTED:
        if "\n\n" in text[spans[j][1] : spans[j + 1][0]]:
            break
        lead = _LEADING_CLOSERS.match(text, spans[j + 1][0], spans[j + 1][1])
        if lead is not None and not _open_quotes(lead[0], stack):
            return j  # razdel put the closing mark after the cut ('error. " With ...')
        j += 1
        stack = _open_quotes(text[spans[j][0] : spans[j][1]], stack)
    return i if stack else j


def prose_sentences(text: str) -> list[Sentence]:
    """The sentences of `text` with their spans: `split_sentences` with the cuts inside inline
    code, after an abbreviation's letters and inside a closed quotation glued back."""
    spans = [(s.start, s.end) for s in split_sentences(text)]
    code = _code_spans(text) if "`" in text else []
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        j = _quoted_until(text, spans, i)
        start = spans[i][0]
        while j + 1 < len(spans) and _glued(text, (start, spans[j][1]), spans[j + 1], code):
            j = max(j + 1, _quoted_until(text, spans, j + 1))
        out.append((start, spans[j][1]))
        i = j + 1
    return [Sentence(text[a:b], a, b) for a, b in out]


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
    for s in prose_sentences(text[start:end]):
        s0, s1 = start + s.start, start + s.end
        for m in _INLINE_WIDGET.finditer(text, s0, s1):
            out.append((s0, m.start()))
            s0 = m.end()
        out.append((s0, s1))
    return [(a, b) for a, b in out if text[a:b].strip()]
