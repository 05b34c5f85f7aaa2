"""Go at resolution time: calls through interfaces, and the module's own import paths.

A call on a value whose declared type is an interface (``c.frequent.Add(k, v)`` with
``frequent simplelru.LRUCache[K, V]``) binds, as the type checker binds it, to the interface's
method, which the walker indexes as a method of the interface. Which method runs is decided at
run time by the value's dynamic type: every type of the repository whose method set holds all
of the interface's methods (Go has no ``implements``; embedded types and embedded interfaces
count) is a possible target. Those edges are kept with an honest confidence: one implementation
gives a ``calls`` edge of confidence 1/2 (a type outside the repository, or a test double, may
be the one), several give ``may_call`` candidates of 1/(n+1), shown only when asked.

(``go.mod``'s module path, which says which import paths are the repository's own packages,
is read by :mod:`code_memory.repo_files` and followed by :class:`~code_memory.names.NameIndex`.)
Pure logic over the :class:`~code_memory.names.NameIndex`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pegas_memory.code_memory.model import (
    Dependency,
    DepKind,
    FileIndex,
    RefKind,
    SymbolKind,
    TargetKind,
)
from pegas_memory.code_memory.names import NameIndex, base_name

__all__ = ["GoInterfaces"]


class GoInterfaces:
    """The repository's Go interfaces, their method sets and the types implementing them."""

    def __init__(self, index: NameIndex, files: Sequence[FileIndex]) -> None:
        self.index = index
        self.interfaces: set[str] = set()
        self.concrete: list[str] = []  # Go types with methods: the possible implementations
        self.signatures: dict[str, str] = {}  # Go functions: their declaration heads
        self._embeds: dict[str, int] = {}  # type -> how many types it embeds, resolved or not
        for f in files:
            if f.language != "go":
                continue
            for s in f.symbols:
                if s.kind in (SymbolKind.FUNCTION, SymbolKind.METHOD) and s.signature:
                    self.signatures[s.qualified_name] = s.signature
                if s.kind == SymbolKind.INTERFACE:
                    self.interfaces.add(s.qualified_name)
                elif s.kind in (SymbolKind.STRUCT, SymbolKind.TYPE):
                    self.concrete.append(s.qualified_name)
            for ref in f.references:
                if ref.kind == RefKind.INHERITS:
                    src = ref.src_qualified_name
                    self._embeds[src] = self._embeds.get(src, 0) + 1
        self._methods: dict[str, frozenset[tuple[str, int]]] = {}
        self._impls: dict[str, list[str]] = {}

    def method_set(self, typ: str) -> frozenset[tuple[str, int]]:
        """(name, parameter count) of the methods of ``typ`` and of the types (or interfaces)
        it embeds: ``Lookup(string)`` and ``Lookup()`` are different methods to a type check."""
        known = self._methods.get(typ)
        if known is not None:
            return known
        self._methods[typ] = frozenset()  # an embedding cycle ends here
        names = {
            (name, _params(self.signatures.get(q, ""), name))
            for name, found in self.index.members.get(typ, {}).items()
            for q in found[:1]
            if q not in self.index.types
        }
        for parent in self.index.parents.get(typ, ()):
            names |= self.method_set(parent)
        self._methods[typ] = frozenset(names)
        return self._methods[typ]

    def implementations(self, interface: str) -> list[str]:
        """The repository's non-interface types whose method set covers the interface's."""
        found = self._impls.get(interface)
        if found is None:
            wanted = self.method_set(interface)
            found = (
                sorted(t for t in self.concrete if wanted <= self.method_set(t)) if wanted else []
            )
            self._impls[interface] = found
        return found

    def result_type(self, function: str) -> str | None:
        """The repository type a Go function's or method's (first) result is, as ``pkg.T``:
        ``func NewLRU[K comparable, V any](..) (*LRU[K, V], error)`` -> ``simplelru.LRU``,
        ``func (l *LruList[K, V]) Back() *Entry[K, V]`` -> ``internal.Entry``."""
        head = self.signatures.get(function, "")
        name = base_name(function).rsplit(".", 1)[-1]
        found = re.search(rf"\bfunc\s+(\([^)]*\)\s*)?{re.escape(name)}\b", head)
        if found is None:
            return None
        rest = _skip_group(head[found.end() :].lstrip(), "[]")  # type parameters
        rest = _skip_group(rest, "()")  # parameters
        if rest is None:
            return None
        rest = rest.strip().removeprefix("(").lstrip().lstrip("*")
        typ = re.match(r"[A-Z]\w*", rest)
        if typ is None:
            return None
        owner = f"{base_name(function).partition('.')[0]}.{typ.group(0)}"  # the package's
        return owner if owner in self.index.types else None

    def dispatch(self, src: str, dst: str, line: int, made: str | None = None) -> list[Dependency]:
        """The run-time edges of a call that resolved to ``dst``: when ``dst`` is a method of
        an interface, one edge to that method of each implementation (see the module doc);
        ``made`` (the type every value stored where the call reads it has, when the file shows
        it) narrows them to that type when it implements the interface."""
        owner, _, name = base_name(dst).rpartition(".")
        if owner not in self.interfaces:
            return []
        return self._edges(src, owner, name, self.implementations(owner), line, made, dst)

    def through_embedded(
        self, src: str, owner: str, name: str, line: int, made: str | None = None
    ) -> list[Dependency]:
        """A call of ``name`` through interface ``owner`` that declares no such method but
        embeds an interface from outside the repository (``fmt.GoStringer`` in ``MapSource``):
        the implementations are the types holding the interface's own methods and ``name``."""
        if owner not in self.interfaces:
            return []
        if self._embeds.get(owner, 0) <= len(self.index.parents.get(owner, ())):
            return []  # every embedded interface is known: the method is not there
        wanted = self.method_set(owner)
        impls = sorted(
            t
            for t in self.concrete
            if wanted <= self.method_set(t) and any(n == name for n, _ in self.method_set(t))
        )
        return self._edges(src, owner, name, impls, line, made, None)

    def _edges(
        self,
        src: str,
        owner: str,
        name: str,
        impls: list[str],
        line: int,
        made: str | None,
        dst: str | None,
    ) -> list[Dependency]:
        if made is not None and made in impls:
            impls = [made]
        targets = [
            hit
            for impl in impls
            if (hit := self.index.member(impl, name)) is not None and hit != dst
        ]
        unique = sorted(set(targets))
        kind: DepKind = DepKind.CALLS if len(unique) == 1 else DepKind.MAY_CALL
        n = len(unique) + 1  # the implementations, and one the repository does not hold
        return [
            Dependency(src, kind, t, t, line, TargetKind.INTERNAL, candidates=n) for t in unique
        ]


def _skip_group(text: str | None, pair: str) -> str | None:
    """``text`` after the balanced group it starts with (``[..]`` or ``(..)``), unchanged when
    it does not start with one; None when the group does not close."""
    if text is None or not text.startswith(pair[0]):
        return text
    depth = 0
    for i, c in enumerate(text):
        depth += (c == pair[0]) - (c == pair[1])
        if depth == 0:
            return text[i + 1 :]
    return None


def _params(signature: str, name: str) -> int:
    """How many parameters a Go method's head declares (``Lookup(name string)``: 1,
    ``Add(key, value V)``: 2); -1 when the head does not show them."""
    found = re.search(rf"\b{re.escape(name)}\s*(\[[^\]]*\])?\s*\(", signature)
    if found is None:
        return -1
    depth, commas, empty = 1, 0, True
    for c in signature[found.end() :]:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return 0 if empty else commas + 1
        elif c == "," and depth == 1:
            commas += 1
        if not c.isspace():
            empty = False
    return -1
