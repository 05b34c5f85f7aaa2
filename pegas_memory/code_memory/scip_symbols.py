"""SCIP symbol strings, read: which package a symbol is of, and its descriptors.

A global symbol is ``<scheme> <manager> <package> <version> <descriptors>`` (a space inside a
field is written twice); a local one is ``local <id>``. Descriptors are written one after the
other, each a name and a suffix: ``pkg/`` a namespace, ``Cls#`` a type, ``x.`` a term,
``m().`` or ``m(+1).`` a method, ``(p)`` a parameter, ``[T]`` a type parameter, ``x:`` a meta
and ``x!`` a macro. A name with other characters than ``[A-Za-z0-9_+$-]`` is between backticks
(a backtick in it doubled): ``` `#onInterval`().``` is the method ``#onInterval``.

Pure; never raises on a malformed symbol: it reads as having no descriptors.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

Suffix = str  # "namespace" | "type" | "term" | "method" | "parameter" | "type_parameter" | ...

_SIMPLE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-$")
_CALLABLE = frozenset({"type", "method"})
# The suffixes written as one character after the name.
_SUFFIX_MARKS: dict[str, Suffix] = {
    "/": "namespace",
    "#": "type",
    ".": "term",
    ":": "meta",
    "!": "macro",
}


@dataclass(frozen=True, slots=True)
class Descriptor:
    name: str
    suffix: Suffix


@dataclass(frozen=True, slots=True)
class ScipSymbol:
    """A parsed symbol: ``local`` for a document-local one (no package, no descriptors)."""

    local: bool
    package: str
    descriptors: tuple[Descriptor, ...]

    @property
    def name(self) -> str:
        """The last descriptor's name: what the symbol is called where it is written."""
        return self.descriptors[-1].name if self.descriptors else ""

    @property
    def suffix(self) -> Suffix:
        return self.descriptors[-1].suffix if self.descriptors else ""

    @property
    def callable(self) -> bool:
        """A method or a type (a class called, or ``new``): what a call can land on by name.
        A term (a field or a variable holding a function) names where the callee is kept,
        not the callee."""
        return self.suffix in _CALLABLE

    @property
    def is_constructor(self) -> bool:
        """``Cls#`<constructor>`().``: scip-typescript's name for a class's constructor."""
        return self.suffix == "method" and self.name == "<constructor>"

    def dotted(self) -> str:
        """A readable name for a symbol outside the repository: the namespaces joined by
        ``.`` (a file's extension dropped), then the type and member names: ``hashlib.sha1``,
        ``builtins.isinstance``, ``lib.es5.Array.splice``."""
        parts: list[str] = []
        for d in self.descriptors:
            if d.suffix in ("parameter", "type_parameter"):
                continue
            name = d.name
            if d.suffix == "namespace":
                for ext in (".d.ts", ".d.mts", ".d.cts", ".ts", ".tsx", ".js", ".mjs", ".cjs"):
                    if name.endswith(ext):
                        name = name[: -len(ext)]
                        break
                parts.extend(p for p in name.split("/") if p and p != "__init__")
            else:
                parts.append(name)
        return ".".join(parts) or self.package


@lru_cache(maxsize=100_000)  # an index names each symbol at every one of its occurrences
def parse_symbol(symbol: str) -> ScipSymbol:
    """Read a SCIP symbol string (see the module doc)."""
    if symbol.startswith("local "):
        return ScipSymbol(True, "", ())
    fields: list[str] = []
    pos = 0
    while len(fields) < 4 and pos <= len(symbol):
        end = pos
        buf: list[str] = []
        while end < len(symbol):
            if symbol[end] == " ":
                if end + 1 < len(symbol) and symbol[end + 1] == " ":
                    buf.append(" ")
                    end += 2
                    continue
                break
            buf.append(symbol[end])
            end += 1
        fields.append("".join(buf))
        pos = end + 1
    if len(fields) < 4:
        return ScipSymbol(False, "", ())
    return ScipSymbol(False, fields[2], tuple(_descriptors(symbol[pos:])))


def _descriptors(text: str) -> list[Descriptor]:
    out: list[Descriptor] = []
    pos = 0
    n = len(text)
    while pos < n:
        ch = text[pos]
        if ch == "(":  # a parameter
            name, pos = _name(text, pos + 1)
            if pos >= n or text[pos] != ")":
                return out
            out.append(Descriptor(name, "parameter"))
            pos += 1
            continue
        if ch == "[":  # a type parameter
            name, pos = _name(text, pos + 1)
            if pos >= n or text[pos] != "]":
                return out
            out.append(Descriptor(name, "type_parameter"))
            pos += 1
            continue
        name, pos = _name(text, pos)
        if pos >= n:
            return out
        mark = text[pos]
        if mark in _SUFFIX_MARKS:
            out.append(Descriptor(name, _SUFFIX_MARKS[mark]))
            pos += 1
        elif mark == "(":  # a method: ``name(disambiguator).``
            close = text.find(").", pos)
            if close < 0:
                return out
            out.append(Descriptor(name, "method"))
            pos = close + 2
        else:
            return out
    return out


def _name(text: str, pos: int) -> tuple[str, int]:
    if pos < len(text) and text[pos] == "`":
        buf: list[str] = []
        pos += 1
        while pos < len(text):
            if text[pos] == "`":
                if pos + 1 < len(text) and text[pos + 1] == "`":
                    buf.append("`")
                    pos += 2
                    continue
                return "".join(buf), pos + 1
            buf.append(text[pos])
            pos += 1
        return "".join(buf), pos
    start = pos
    while pos < len(text) and text[pos] in _SIMPLE:
        pos += 1
    return text[start:pos], pos
