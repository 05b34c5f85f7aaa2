"""One qualified name per definition in a file, so that no definition hides another.

A file may define one name twice: Java overloads, a function redefined further down, Go
functions of one name in different blocks. Stored under one qualified name, all but one would be
lost to resolution. Pure: symbols and references in, symbols and references out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from pegas_memory.code_memory.model import Reference, Symbol


def distinct_names(
    symbols: list[Symbol], references: list[Reference], overload_arity: Mapping[int, int]
) -> tuple[list[Symbol], list[Reference]]:
    """Give same-named definitions distinct qualified names: an overload (``overload_arity``:
    the parameter count of the symbol at that position, Java's) gets ``#arity``
    (``Gson.fromJson#2``), any still equal (and same-named functions elsewhere) ``@line`` after
    the first. The first symbol (the module) keeps its name. References move with their symbol:
    each goes to the definition of that name whose lines enclose it most tightly."""
    symbols = list(symbols)
    groups: dict[str, list[int]] = {}
    for i, sym in enumerate(symbols):
        if i:
            groups.setdefault(sym.qualified_name, []).append(i)
    renamed: dict[str, list[Symbol]] = {}
    for qualname, positions in groups.items():
        if len(positions) < 2:
            continue
        seen: set[str] = set()
        for i in positions:
            sym = symbols[i]
            new = qualname
            if i in overload_arity:
                new = f"{qualname}#{overload_arity[i]}"
            if new in seen:
                new = f"{new}@{sym.start_line}"
            seen.add(new)
            symbols[i] = sym = replace(sym, qualified_name=new)
            renamed.setdefault(qualname, []).append(sym)
    if not renamed:
        return symbols, list(references)
    return symbols, [_moved(ref, renamed) for ref in references]


def _moved(ref: Reference, renamed: Mapping[str, list[Symbol]]) -> Reference:
    options = renamed.get(ref.src_qualified_name)
    if options is None:
        return ref
    inside = [s for s in options if s.start_line <= ref.line <= s.end_line]
    best = min(inside or options, key=lambda s: s.end_line - s.start_line)
    return replace(ref, src_qualified_name=best.qualified_name)
