"""The claim form of a span of chunk text (pure): `clean_claim`.

A quote keeps the chunk's text; its claim is what a reader of the rendered page reads: markdown
escapes, emphasis, links and inline HTML tags go, reStructuredText roles and links read as their
text (`distill.xrefs`), footnote marks go, stress marks go ("Те́трис": "Тетрис") and whitespace is
collapsed. Used by the segment stage (`distill.units`) and the classify stage (`distill.classify`,
which `units` calls and which reads a group's claim text), so it lives in neither.
"""

from __future__ import annotations

import re

from pegas_memory.distill.words_ru import unstressed
from pegas_memory.distill.xrefs import drop_footnote_marks, render_roles

_WS = re.compile(r"\s+")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~])")
_EMPHASIS = re.compile(
    r"(?<![\w*\\])(\*\*\*|___|\*\*|__|\*|_)(?=[^\s*_])(.+?)(?<=[^\s*_\\])\1(?![\w*])"
)
_MARKUP = re.compile(r"\*\*|__|`")
# reStructuredText roles (`distill.xrefs`: ":meth:`~flask.Flask.wsgi_app`" -> "wsgi_app()") and
# markdown links ("[LICENSE.txt](LICENSE.txt)" -> "LICENSE.txt"): the reader sees the name.
# rst hyperlinks ("`Quart <https://...>`_", "`Jinja`_") and a role's own text before its target
# (":doc:`request context </appcontext>`"): the reader sees the text.
_RST_LINK = re.compile(r"(?<![\w`])`([^`<]+?)(?:\s*<[^<>`\s]+>)?`__?(?!\w)")
_LEFT_OF_LABEL = re.compile(r"^[:;,]\s+")
# rst's literal-block marker: "code::" reads "code:", a lone " ::" reads nothing.
_RST_LITERAL = re.compile(r"(?:\s+::|(?<=\S):(:))(?=\s|$)")
_MD_LINK = re.compile(r"(?<!!)\[([^\]\n]+(?:\n[^\]\n]+)*)\]\((?:[^()\s]|\([^()\s]*\))+\)")
# An inline HTML tag; the classify stage reads a link line without it (`classify`).
INLINE_TAG = re.compile(r"</?(?:u|b|i|em|strong|sup|sub|span|mark|s|del|ins)>", re.IGNORECASE)
_PARKED = re.compile("[\U000f0000-\U000ffffd]")  # escaped characters, parked


def clean_claim(text: str) -> str:
    """The claim form of a span: markdown escapes and emphasis removed, whitespace collapsed."""
    # Escaped characters are literal: park them in private-use code points while the emphasis
    # markers go, then put them back.
    escaped: list[str] = []

    def park(m: re.Match[str]) -> str:
        escaped.append(m[1])
        return chr(0xF0000 + len(escaped) - 1)

    text = INLINE_TAG.sub("", text)
    text = render_roles(_RST_LINK.sub(r"\1", _MD_LINK.sub(r"\1", text)))
    text = drop_footnote_marks(text)
    text = _RST_LITERAL.sub(lambda m: ":" if m[1] else "", text)
    # Text that already holds such code points is unescaped first (escaped markers then go too).
    text = _ESCAPE.sub(r"\1" if _PARKED.search(text) else park, text)
    for _ in range(2):  # "***x***" and nested emphasis
        text = _EMPHASIS.sub(r"\2", text)
    text = _MARKUP.sub("", text)
    if escaped:
        text = _PARKED.sub(lambda m: escaped[ord(m[0]) - 0xF0000], text)
    # What is left of a label cut off before it ("**Note 1**: If ...").
    return _LEFT_OF_LABEL.sub("", _WS.sub(" ", unstressed(text)).strip())  # "Те́трис": "Тетрис"
