"""The claim of a code atom: the names it defines, or a line that says something, and where (pure).

A name is defined where a definition keyword opens its line (after indentation and modifiers
such as `export default async` or `pub(crate)`), so a keyword inside a comment or a
configuration rule names nothing: the ProGuard rule "-keep class com.google.gson.reflect.
TypeToken" once gave the claim "Code defines TypeToken, com". A dotted name is a reference to
something defined elsewhere (`defined_names`).

A code block without a definition used to be claimed by its first line, "Code: " + line. For
most blocks that line reads ("Code (go): rootCmd.Flags().StringVarP(...)"), but a sequence
diagram cut by the chunker at line ends gave "Code: incoming", a program's output "Code:
Output:", a Maven snippet "Code (xml): <dependency>", a file tree "Code (console): ├── cmd": a
lone word, a label, an opening bracket or box drawing, which say nothing read alone.

So the leading lines that carry at most one word and no code (a comment marker, punctuation,
a tree's branches) are read on to the first line that says something, up to a few, all of them
in the claim ("incoming web request -> web request -> # The registry ...", "<dependency>
<groupId>com.google.code.gson</groupId>"), and such a claim says where the block stands, by its
section heading, which a reader can look up: 'Code under "Using Thread-Local Scope with Web
Applications": incoming web request -> ...'. A block whose first line already reads keeps its
claim as it was; a block with names keeps "defines ..."; a block of one such line ("Output:"
between two fences) is no atom.

Whether a piece is one part of a block the chunker split is not told here: a chunk does not
know where the chunk before it ended, so "part 2 of 3" cannot be counted from one chunk.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_WORD = re.compile(r"[^\W_]\w*")
_SPACES = re.compile(r"\s+")
_CODE = re.compile(r"[=(\[]|->|::|\$")
_MAX_SKIPPED = 3
_MAX_LINE = 120
_UNDER = {"en": 'under "{h}"', "ru": "в разделе «{h}»"}


_MODIFIER = (
    r"(?:export|default|public|private|protected|static|abstract|final|async|pub(?:\([\w:]+\))?"
    r"|unsafe|extern|sealed|data|open|inline)"
)
_DEFINED_NAME = re.compile(
    rf"^[ \t]*(?:{_MODIFIER}[ \t]+)*"
    r"(?:def|class|function|func|fn|struct|interface|trait|enum|impl|procedure)[ \t]+"
    r"([A-Za-z_]\w*)\b(?!\.)",
    re.MULTILINE,
)


def defined_names(code: str, limit: int = 8) -> list[str]:
    """The first `limit` distinct names the code defines, in order."""
    return list(dict.fromkeys(_DEFINED_NAME.findall(code)))[:limit]


def _weak(line: str) -> bool:
    """A line with at most one word and no code in it: "incoming", "Output:", "<dependency>",
    "dependencies {", "├── cmd", "#" ("templates = []", "f()" are code)."""
    return len(_WORD.findall(line)) <= 1 and _CODE.search(line) is None


def telling_line(code: str) -> tuple[str, bool]:
    """(the first lines of `code` up to the first that says something, joined, whitespace
    collapsed: "incoming web request -> ...", "<dependency> <groupId>...</groupId>"; whether
    weak lines were met, so the claim needs its heading). A block of weak lines only gives its
    first line."""
    lines = [ln.strip() for ln in code.splitlines() if ln.strip()]
    if not lines:
        return "", True
    for n, line in enumerate(lines[: _MAX_SKIPPED + 1]):
        if not _weak(line):
            return (_SPACES.sub(" ", " ".join(lines[: n + 1])), True) if n else (line, False)
    return lines[0], True


def says_nothing(code: str) -> bool:
    """Whether a block is one weak line ("Output:" between two fences): no atom at all."""
    lines = [ln for ln in code.splitlines() if ln.strip()]
    return len(lines) == 1 and _weak(lines[0])


def code_claim(
    head: str, defines: str, names: Sequence[str], code: str, heading: str, lang: str | None
) -> str:
    """The claim of a code atom: "<head> defines a, b"; else "<head>: <first line>"; a first
    line that says nothing gives way to the first that does, under the section's heading."""
    if names:
        return f"{head} {defines} {', '.join(names)}"
    line, needs_place = telling_line(code)
    place = heading.replace("`", "").strip()  # a heading's inline-code marks are no text
    if needs_place and place:
        where = _UNDER["ru" if lang == "ru" else "en"].format(h=place)
        return f"{head} {where}: {line[:_MAX_LINE]}"
    return f"{head}: {line[:_MAX_LINE]}"
