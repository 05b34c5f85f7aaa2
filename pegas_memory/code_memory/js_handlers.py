"""JS handler parameters typed by the package's export objects (``res.send`` in a route handler).

Express defines its request and response as objects, not classes: ``var res =
Object.create(http.ServerResponse.prototype); module.exports = res; res.send = function ..``,
and at run time the router hands every route handler and middleware ``(req, res, next)``
objects whose prototype is that one (``Object.setPrototypeOf(res, app.response)``). Nothing at
the call site types ``res``, so the resolver would leave every ``res.send`` unresolved.

The rule, and why it is sound enough to keep precision: a call ``x.m()`` on a parameter ``x``
(never rebound in the function) resolves to ``M.x.m`` when

1. some module ``M`` exports an *object* named ``x`` (``module.exports = x``, where ``x`` is
   not a function or class of ``M``) and assigns members to it (``x.m = function``);
2. exactly one such ``M`` is *loaded together with* the caller's module: some module imports
   (transitively) both, or the caller itself imports ``M`` (a file of another package that
   never meets ``M`` in one program is not typed by it);
3. the function is *handler-shaped*: another of its parameters is named like a second export
   object loaded together with it (``req`` beside ``res``); a lone ``res`` parameter of a helper
   such as ``sendfile(res, file)`` is not typed;
4. the export object has the member ``m`` (``res.foo`` stays unresolved);
5. the parameter has no declared type (TypeScript ``res: ServerResponse`` is typed by that).

Pure logic over the indexed files and their import edges; built once per resolution.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import pegas_memory.code_memory.lang_js as lang_js
from pegas_memory.code_memory.model import FileIndex, Reference, RefKind
from pegas_memory.code_memory.names import FAMILY, NameIndex


class HandlerTypes:
    """The export objects of a repository's JS modules and the modules each is loaded with."""

    def __init__(self, index: NameIndex, files: Sequence[FileIndex]) -> None:
        self._index = index
        js = [f for f in files if FAMILY.get(f.language) == "js"]
        # object name -> owners (``lib/response.res``), one per module exporting it
        self._objects: dict[str, list[str]] = defaultdict(list)
        home: dict[str, str] = {}  # owner -> its module
        for f in js:
            for exported, local in f.exports:
                owner = f"{f.module}.{local}"
                if (
                    exported == "default"
                    and local.isidentifier()
                    and owner in index.members
                    and local not in index.members.get(f.module, {})
                    and owner not in home
                ):
                    self._objects[local].append(owner)
                    home[owner] = f.module
        self._home = home
        # owner -> modules loaded together with it, computed on first use (memory stays
        # proportional to the objects handlers name, not to every exported object)
        self._with: dict[str, frozenset[str]] = {}
        self._imports: dict[str, set[str]] = defaultdict(set)
        self._importers: dict[str, set[str]] = defaultdict(set)
        if len(self._objects) < 2:  # a handler needs two such objects: nothing can match
            self._objects.clear()
            return
        for f in js:
            for ref in f.references:
                if ref.kind != RefKind.IMPORTS:
                    continue
                target = index.import_target(f, ref.target)
                if target is not None and target in index.modules and target != f.module:
                    self._imports[f.module].add(target)
                    self._importers[target].add(f.module)

    def target(self, f: FileIndex, ref: Reference) -> str | None:
        """The export object's member a handler parameter's call lands on, or None."""
        parsed = lang_js.parse_param_typed(ref.typed)
        if parsed is None or not self._objects:
            return None
        params, name, member = parsed
        owner = self._owner(f.module, name)
        if owner is None:
            return None
        partners = {self._owner(f.module, p) for p in params if p != name} - {None, owner}
        if not partners:  # not handler-shaped: no second parameter named like an export object
            return None
        return self._index.member(owner, member, ref.arity)

    def _owner(self, module: str, name: str) -> str | None:
        found = [o for o in self._objects.get(name, ()) if module in self._loaded_with(o)]
        return found[0] if len(found) == 1 else None

    def _loaded_with(self, owner: str) -> frozenset[str]:
        """The modules some module loads together with ``owner``'s module: everything reachable
        from a module that reaches it (the modules importing it, transitively, included)."""
        if owner not in self._with:
            loaders = _closure([self._home[owner]], self._importers)
            self._with[owner] = frozenset(_closure(loaders, self._imports))
        return self._with[owner]


def _closure(start: Iterable[str], edges: dict[str, set[str]]) -> set[str]:
    """``start`` and everything reachable from it along ``edges`` (iteratively)."""
    seen = set(start)
    stack = list(seen)
    while stack:
        for nxt in edges.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen
