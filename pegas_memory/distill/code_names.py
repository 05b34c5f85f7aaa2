"""The names a code block defines, for its atom's claim ("Code (python) defines entropy").

A definition opens its line (after indentation and modifiers such as `export default async`
or `pub(crate)`), so a keyword inside a comment or a configuration rule names nothing: the
ProGuard rule "-keep class com.google.gson.reflect.TypeToken" once gave the claim "Code defines
TypeToken, com". A dotted name is a reference to something defined elsewhere. Pure.
"""

from __future__ import annotations

import re

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
