"""Call edges from a type checker's SCIP index, laid over the heuristic ones.

A SCIP index (code_memory.scip) says, for every name in a file, which symbol it is: the one a
type checker (pyright in scip-python, the TypeScript compiler in scip-typescript) bound it to.
This module turns that into call edges between the stored symbols:

- **Definitions** are mapped by place, not by name: a SCIP symbol defined at a line of a file
  is the innermost stored symbol of that file with the same name whose lines hold it (overloads
  and redefinitions: the first one, as the heuristic names them). A symbol defined in the
  repository that maps to no stored callable (a field, a variable holding a function, an object
  the extractor has no symbol for) is not an answer.
- **Calls** are the call sites tree-sitter found (``Reference`` rows of kind ``calls``): the
  called name (the last identifier of what is written) is looked up among the SCIP references
  of the call's line (or, for a receiver written over several lines, of the next lines holding
  that name). A name bound to a repository callable is an internal edge; one bound to a symbol
  of another package (the standard library, ``lib.es5.d.ts``, an installed package) is an
  external edge, named as the file imports it where the heuristic knows that name
  (``os.path.join``), else by the checker's symbol; a name the checker bound to a local, a
  parameter, a field or nothing at all leaves the call undecided. scip-python names every
  function a stub re-exports with ``from m import *`` after the first one its run looked up
  (``os.path.join`` written, ``posixpath/abspath().`` in the index): a symbol the index
  writes at a place of another width than its name is such a shared one, and where it is as
  wide as the called name it is taken as that call's (external), so a whole run and a slice's
  run (code_memory.analyzer_slice) answer alike. For the same reason a name imported from a
  stub that re-exports it (``from unittest import skipIf``; ``unittest/__init__.pyi`` has
  ``from .case import skipIf as skipIf``) is the stub's symbol in a run that met
  ``unittest.skipIf`` in an earlier file, and a document-local symbol the document never
  defines in a run that did not (a slice's). Such a local, written as wide as a name the file
  imports from outside the repository (a package none of its modules is in, and the heuristic
  found no symbol for it) on a line of that import, is that import (``_imported``): a call of
  it is external, named as imported, whichever run made the document.
- A Python class called is its ``__init__`` (its own, else the first along its bases) when one
  is stored, else the class, as the heuristic names it; ``new X()`` in JavaScript/TypeScript is
  the class.
- TypeScript merges an interface or a type alias with a function, class or variable of the
  same name into one symbol, defined at both places; a call runs the value, so only the value
  declarations of such a symbol are its targets (``interface $constructor`` and
  ``function $constructor``: the function).
- **Merging**, per call line of a caller: when the analyzer decided every call of the line,
  its edges replace the heuristic ones (``provenance="analyzer"``, one target, confidence 1);
  otherwise its decided edges are added, the heuristic edges of the calls it decided are dropped,
  and the heuristic answers the rest (``provenance="heuristic"``, with its own confidence).
  Imports and base classes stay as the heuristic resolved them.

Pure: an index, the files' extraction and the heuristic edges in, edges and counts out.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import partial

from pegas_memory.code_memory.model import (
    JS_LANGUAGES,
    TYPE_ONLY,
    Dependency,
    DepKind,
    FileIndex,
    Provenance,
    RefKind,
    Symbol,
    SymbolKind,
    TargetKind,
)
from pegas_memory.code_memory.scip import Document, ScipIndex
from pegas_memory.code_memory.scip_symbols import parse_symbol

__all__ = ["AnalyzerCount", "overlay_calls"]

_CALLABLE_KINDS = frozenset(
    {
        SymbolKind.FUNCTION,
        SymbolKind.METHOD,
        SymbolKind.CLASS,
        SymbolKind.STRUCT,
        SymbolKind.INTERFACE,
        SymbolKind.TYPE,
    }
)
_NAME = re.compile(r"#?[A-Za-z_$][\w$]*")
LOOKAHEAD_LINES = 8  # a receiver written over lines: ``(\n  query\n  .filter(..)``
_CALL_KINDS = frozenset({DepKind.CALLS, DepKind.MAY_CALL})
# The called name is the last identifier of what is written: ``self.get_signature`` ->
# ``get_signature``, ``this.#onEvent`` -> ``#onEvent``, ``super().__init__`` -> ``__init__``;
# ``Store.call(this)`` calls ``Store``, as the heuristic has it.
_FUNCTION_METHODS = frozenset({"call", "apply"})
_FUNCTION_TYPES = frozenset({"Function", "CallableFunction", "NewableFunction"})


@dataclass(frozen=True, slots=True)
class AnalyzerCount:
    """How the call lines of the files the analyzer covered were answered."""

    lines: int = 0  # call lines (a caller and a line) of those files
    decided: int = 0  # every call of the line decided by the analyzer
    mixed: int = 0  # some calls decided, the rest left to the heuristic
    heuristic: int = 0  # no call decided: the heuristic's edges kept as they were
    internal: int = 0  # analyzer edges to repository symbols
    external: int = 0  # analyzer edges leaving the repository


@dataclass(frozen=True, slots=True)
class _Answer:
    """What the analyzer says a called name at a line is: repository targets, external names;
    ``undecided`` when some binding of the name was no answer."""

    internal: frozenset[str]
    external: frozenset[str]
    undecided: bool


def overlay_calls(
    index: ScipIndex,
    files: Sequence[FileIndex],
    heuristic: Iterable[Dependency],
    tool: str,
) -> tuple[list[Dependency], AnalyzerCount]:
    """The edges of ``files`` with their calls taken from ``index`` where it decides them (see
    the module doc); edges of files the index has no document for are returned unchanged.
    ``tool`` (``scip-python 0.6.6``) is recorded on every analyzer edge."""
    docs = {d.path: d for d in index.documents}
    covered = {f.path for f in files if f.path in docs}
    symbols_of = {f.path: f.symbols for f in files}
    owner_path = {s.qualified_name: f.path for f in files for s in f.symbols}
    defs = _definitions(index.documents, symbols_of)
    aliased = _aliased(index.documents)
    kinds = {s.qualified_name: s.kind for f in files for s in f.symbols}
    members = _members(files)
    bases: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    passthrough: list[Dependency] = []
    calls: dict[tuple[str, int], list[Dependency]] = defaultdict(list)
    heuristic_imports: list[Dependency] = []
    for dep in sorted(heuristic, key=lambda d: (d.src, d.line, d.kind, d.dst_name)):
        if dep.kind == DepKind.INHERITS:  # (base, in the repository), in the order written
            bases[dep.src].append((dep.dst or dep.dst_name, dep.dst is not None))
        if dep.kind == "imports" and dep.dst is None and dep.target_kind == "external":
            heuristic_imports.append(dep)
        if dep.kind in _CALL_KINDS and owner_path.get(dep.src) in covered:
            calls[(dep.src, dep.line)].append(dep)
        else:
            passthrough.append(dep)
    out = list(passthrough)
    lines = decided_n = mixed = kept = internal_n = external_n = 0
    # An import the heuristic left external but whose package is the repository's (a name it
    # could not find there) is not "from outside": the checker's local stays undecided.
    packages = {f.module.split(".")[0] for f in files if f.module}
    outside = {
        (owner_path.get(d.src), d.line, d.dst_name)
        for d in heuristic_imports
        if d.dst_name.split(".")[0] not in packages
    }
    for f in files:
        if f.path not in covered:
            continue
        language = f.language
        imported = _imported(docs[f.path], f, outside) if language == "python" else {}
        by_line = _occurrences_by_line(docs[f.path], imported)
        ask = partial(  # ask(line, name): what the analyzer says of ``name`` at ``line``
            _answer,
            by_line,
            defs=defs,
            kinds=kinds,
            members=members,
            bases=bases,
            language=language,
            aliased=aliased,
            imported=imported,
        )
        sites: dict[tuple[str, int], list[str]] = defaultdict(list)
        receivers: dict[tuple[str, int, str], str] = {}
        for ref in f.references:
            if ref.kind == RefKind.CALLS:
                found = _NAME.findall(ref.target)
                name = found[-1] if found and not ref.target.rstrip().endswith((")", "]")) else ""
                if name not in sites[(ref.src_qualified_name, ref.line)]:
                    sites[(ref.src_qualified_name, ref.line)].append(name)
                if language in JS_LANGUAGES and name in _FUNCTION_METHODS and len(found) >= 2:
                    receivers[(ref.src_qualified_name, ref.line, name)] = found[-2]
        for (src, line), names in sorted(sites.items()):
            lines += 1
            answers = {n: ask(line, n) for n in names}
            for n in names:  # ``Store.call(this)``: the function ``Store``, its ``this`` given
                receiver = receivers.get((src, line, n))
                if receiver and _is_function_call_method(answers[n]):
                    answers[n] = ask(line, receiver)
            own = calls.pop((src, line), [])
            decided = {n for n, a in answers.items() if not a.undecided}
            made: list[Dependency] = []
            for n in sorted(decided):
                a = answers[n]
                for dst in sorted(a.internal):
                    made.append(_analyzer_call(src, dst, dst, line, tool))
                for name in _external_names(a, n, own):
                    made.append(_analyzer_call(src, name, None, line, tool))
            internal_n += sum(d.dst is not None for d in made)
            external_n += sum(d.dst is None for d in made)
            if not decided:
                kept += 1
                out.extend(own)
                continue
            answered = {d.dst_name for d in made}
            # The heuristic's answers to the calls the analyzer decided go; what it found that
            # no decided name explains stays (a lambda run by ``filter``, a callback).
            rest = [
                d
                for d in own
                if (d.dst or d.dst_name) not in answered and not (_edge_names(d) & decided)
            ]
            out.extend(made)
            out.extend(rest)
            if len(decided) == len(names) and not rest:
                decided_n += 1
            else:
                mixed += 1
    for rest in calls.values():  # heuristic call edges at lines no call reference names
        out.extend(rest)
    count = AnalyzerCount(lines, decided_n, mixed, kept, internal_n, external_n)
    return sorted(set(out), key=lambda d: (d.src, d.line, d.kind, d.dst_name)), count


def _analyzer_call(src: str, name: str, dst: str | None, line: int, tool: str) -> Dependency:
    """A call edge the analyzer decided: to a repository symbol (``dst``) or, with ``dst``
    None, to the external ``name``."""
    kind = TargetKind.INTERNAL if dst is not None else TargetKind.EXTERNAL
    return Dependency(src, DepKind.CALLS, name, dst, line, kind, 1, Provenance.ANALYZER, tool)


def _external_names(answer: _Answer, name: str, heuristic: Sequence[Dependency]) -> list[str]:
    """The names of the external edges of a decided call: the heuristic's import-qualified
    names for it (``os.path.join``, as the file imports it) where it has one ending in the
    called name, else the checker's. scip-python names a function a stub re-exports after
    whichever name its run met first (``ntpath.join`` in one run, ``posixpath.join`` in
    another), so only the name as imported is the same in a whole run and a slice's run."""
    if not answer.external:
        return []
    written = {
        d.dst_name
        for d in heuristic
        if d.target_kind == TargetKind.EXTERNAL
        and "." in d.dst_name
        and d.dst_name.rsplit(".", 1)[1] == name
    }
    return sorted(written or answer.external)


def _is_function_call_method(answer: _Answer) -> bool:
    """The answer is JavaScript's ``Function.prototype.call``/``apply`` and nothing else."""
    return (
        not answer.undecided
        and not answer.internal
        and bool(answer.external)
        and all(n.rsplit(".", 2)[-2:][0] in _FUNCTION_TYPES for n in answer.external)
    )


def _edge_names(dep: Dependency) -> set[str]:
    """The names a heuristic edge may answer: its target's last name, and for a constructor
    (``X.__init__``, ``X.constructor``) the class's name too."""
    name = dep.dst or dep.dst_name
    parts = [p for p in re.split(r"[.:]", name) if p]
    out = {parts[-1]} if parts else set()
    if len(parts) >= 2 and parts[-1] in ("__init__", "constructor"):
        out.add(parts[-2])
    found = _NAME.findall(name)
    if found:
        out.add(found[-1])
    return out


def _definitions(
    documents: Sequence[Document], symbols_of: Mapping[str, Sequence[Symbol]]
) -> dict[str, str | None]:
    """SCIP symbol -> the stored qualified name it is defined as (the first definition in file
    and line order that maps), None for a repository symbol that maps to no stored one."""
    out: dict[str, str | None] = {}
    for doc in sorted(documents, key=lambda d: d.path):
        named: dict[str, list[Symbol]] = defaultdict(list)
        for sym in symbols_of.get(doc.path, ()):
            if sym.kind != SymbolKind.MODULE:
                named[sym.name].append(sym)
        for occ in sorted(doc.occurrences, key=lambda o: (o.line, o.col)):
            if not occ.is_definition or occ.symbol.startswith("local "):
                continue
            if out.get(occ.symbol) is not None:
                continue
            parsed = parse_symbol(occ.symbol)
            name = parsed.name
            line = occ.line + 1
            best: Symbol | None = None
            for s in named.get(name, ()):
                if s.start_line <= line <= s.end_line and (
                    best is None or s.start_line >= best.start_line
                ):
                    best = s
            out[occ.symbol] = best.qualified_name if best is not None else None
    return out


def _members(files: Sequence[FileIndex]) -> set[str]:
    return {s.qualified_name for f in files for s in f.symbols}


def _imported(
    doc: Document, file: FileIndex, outside: AbstractSet[tuple[str | None, int, str]]
) -> dict[str, tuple[str, str]]:
    """The document-local symbols ``doc`` never defines that stand for a name ``file`` imports
    from outside the repository (see the module doc): local symbol -> (the name bound, the
    import-qualified name: ``("skipIf", "unittest.skipIf")``). Such a local is written on its
    import's line, as wide as the name bound there; a width two imports of that line share
    is left alone."""
    defined = {o.symbol for o in doc.occurrences if o.is_definition}
    bound: dict[int, list[tuple[str, str]]] = defaultdict(list)  # line -> (local, target)
    targets = {t for _, t in file.imports}
    for ref in file.references:
        if ref.kind == "imports" and ref.target in targets:
            if (file.path, ref.line, ref.target) not in outside:
                continue
            for local, target in file.imports:
                if (
                    target == ref.target
                    and "." in target
                    and (local, target) not in bound[ref.line]
                ):
                    bound[ref.line].append((local, target))
    out: dict[str, tuple[str, str]] = {}
    for occ in doc.occurrences:
        if not occ.symbol.startswith("local ") or occ.symbol in defined or occ.symbol in out:
            continue
        if occ.end_line != occ.line:
            continue
        wide = [b for b in bound.get(occ.line + 1, ()) if len(b[0]) == occ.end_col - occ.col]
        if len(wide) == 1:
            out[occ.symbol] = wide[0]
    return out


def _occurrences_by_line(
    doc: Document, imported: Mapping[str, tuple[str, str]] | None = None
) -> dict[int, list[tuple[str, str, int]]]:
    """1-based line -> (name, symbol, width) of the references written on it (definitions and
    imports left out); the width is the characters the occurrence spans, -1 over lines. A local
    that stands for an import (`_imported`) has the name it binds."""
    out: dict[int, list[tuple[str, str, int]]] = defaultdict(list)
    for occ in doc.occurrences:
        if occ.is_definition or occ.is_import:
            continue
        parsed = parse_symbol(occ.symbol)
        name = parsed.name
        if imported and occ.symbol in imported:
            name = imported[occ.symbol][0]
        if parsed.is_constructor and len(parsed.descriptors) >= 2:
            name = parsed.descriptors[-2].name  # ``new Square(2)`` names ``Square``
        width = occ.end_col - occ.col if occ.end_line == occ.line else -1
        out[occ.line + 1].append((name, occ.symbol, width))
    return out


def _aliased(documents: Sequence[Document]) -> frozenset[str]:
    """External callables the index names at a place of another width than their name: the
    symbols scip-python gives to several names. It names every function a stub re-exports with
    ``from m import *`` (``os.path`` from ``posixpath``) after the first one its run looked up
    (``os.path.join`` and ``os.path.isfile`` as ``posixpath/abspath().``), so which name is
    right at a place depends on what else the run indexed."""
    out: set[str] = set()
    for doc in documents:
        for occ in doc.occurrences:
            if occ.end_line != occ.line or occ.is_definition or occ.symbol in out:
                continue
            parsed = parse_symbol(occ.symbol)
            if parsed.local or not parsed.callable or parsed.is_constructor:
                continue
            if occ.end_col - occ.col != len(parsed.name):
                out.add(occ.symbol)
    return frozenset(out)


def _misnamed(
    by_line: Mapping[int, list[tuple[str, str, int]]],
    line: int,
    name: str,
    defs: Mapping[str, str | None],
    aliased: frozenset[str],
) -> list[str]:
    """The aliased external callables (`_aliased`) written on ``line`` as wide as ``name``:
    the call of ``name`` leaves the repository all the same, in every run."""
    return [
        symbol
        for _, symbol, width in by_line.get(line, ())
        if width == len(name) and symbol in aliased and symbol not in defs
    ]


def _answer(
    by_line: Mapping[int, list[tuple[str, str, int]]],
    line: int,
    name: str,
    defs: Mapping[str, str | None],
    kinds: Mapping[str, str],
    members: set[str],
    bases: Mapping[str, list[tuple[str, bool]]],
    language: str,
    aliased: frozenset[str] = frozenset(),
    imported: Mapping[str, tuple[str, str]] | None = None,
) -> _Answer:
    found = [s for n, s, _ in by_line.get(line, ()) if n == name]
    if not found and name:
        for ahead in range(line + 1, line + 1 + LOOKAHEAD_LINES):
            found = [s for n, s, _ in by_line.get(ahead, ()) if n == name]
            if found:
                break
    if not found and name:
        found = _misnamed(by_line, line, name, defs, aliased)
    if not found:
        return _Answer(frozenset(), frozenset(), True)
    internal: set[str] = set()
    external: set[str] = set()
    undecided = False
    for symbol in dict.fromkeys(found):
        parsed = parse_symbol(symbol)
        if parsed.local:
            if imported and symbol in imported:
                external.add(imported[symbol][1])  # an import from outside, left unnamed
            else:
                undecided = True
            continue
        if symbol in defs:
            target = defs[symbol]
            if parsed.is_constructor and target is None:
                target = _owner_class(symbol, defs)
            if target is None or not parsed.callable or kinds.get(target) not in _CALLABLE_KINDS:
                undecided = True
                continue
            if language == "python" and kinds.get(target) == "class":
                target, inside = _python_init(target, members, bases)
                if not inside:
                    external.add(target)
                    continue
            internal.add(target)
        elif parsed.callable and parsed.descriptors:
            external.add(parsed.dotted())
        else:
            undecided = True  # a parameter, a field, a variable: where the callee is kept
    if language in JS_LANGUAGES:
        internal = _values(internal, kinds)
    return _Answer(frozenset(internal), frozenset(external), undecided)


def _values(targets: set[str], kinds: Mapping[str, str]) -> set[str]:
    """The value declarations among a JS/TS call's targets, where there are any: TypeScript
    merges an interface (or a type alias) and a function of one name into one symbol whose
    definitions are both, but a call (or ``new``) runs only the value."""
    values = {t for t in targets if kinds.get(t) not in TYPE_ONLY}
    return values or targets


def _owner_class(symbol: str, defs: Mapping[str, str | None]) -> str | None:
    """The class of a ``Cls#`<constructor>`().`` symbol, as stored."""
    owner = symbol[: symbol.rfind("#") + 1] if "#" in symbol else ""
    return defs.get(owner) if owner else None


def _python_init(
    cls: str, members: set[str], bases: Mapping[str, list[tuple[str, bool]]]
) -> tuple[str, bool]:
    """What calling a Python class runs, and whether it is in the repository: ``__init__`` of
    the first class along its bases (in order, depth first) that stores one; a base from
    outside the repository before that (``click.Group``) is that base's ``__init__``; with no
    ``__init__`` anywhere, the class itself."""
    seen: set[str] = set()
    todo: list[tuple[str, bool]] = [(cls, True)]
    while todo:
        c, inside = todo.pop(0)
        if not inside:
            return f"{c}.__init__", False
        if c in seen:
            continue
        seen.add(c)
        if f"{c}.__init__" in members:
            return f"{c}.__init__", True
        todo[0:0] = bases.get(c, [])
    return cls, True
