"""Cross-file resolution of code references into dependency edges (pm_code_dependency rows).

:func:`resolve` takes the per-file indexes that :func:`code_memory.symbols.extract_file`
produced and turns each written reference into :class:`Dependency` edges between qualified
names. Pure logic: no parsing, no I/O, so the same files always give the same edges.

Python goes through the points-to analysis of :mod:`code_memory.flow` (aliases, imports,
self/super, the class hierarchy, values through calls, returns, containers and annotations).
The other languages resolve by syntax and name: the enclosing type (and the types it extends)
for this/self/receiver calls, the file's own definitions, its imports (relative JS/TS paths, Java
packages, Go module paths, Rust ``crate::`` paths), then a name defined exactly once in the
repository. A reference that resolves to nothing in the repository is kept as an external or
unresolved edge, never dropped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from pegas_memory.code_memory.flow import PythonFlow
from pegas_memory.code_memory.model import Dependency, FileIndex, RefKind

__all__ = ["Dependency", "resolve"]


def resolve(files: Sequence[FileIndex]) -> list[Dependency]:
    """Resolve the references of ``files`` against each other; sorted, without duplicates."""
    python = [f for f in files if f.language == "python"]
    others = [f for f in files if f.language != "python"]
    deps: set[Dependency] = set()
    if python:
        deps.update(PythonFlow(python).dependencies())
    if others:
        deps.update(_resolve_by_name(others))
    return sorted(deps, key=lambda d: (d.src, d.line, d.kind, d.dst_name))


# --- other languages: by syntax and name -------------------------------------------------------

_FAMILY = {"typescript": "js", "tsx": "js", "javascript": "js"}
_TYPE_KINDS = frozenset({"class", "interface", "struct", "enum", "trait"})
_JS_SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")


class _NameIndex:
    """The repository's symbols by name, by owner and by module, for resolution by syntax."""

    def __init__(self, files: Sequence[FileIndex]) -> None:
        self.by_name: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.members: dict[str, dict[str, str]] = defaultdict(dict)  # owner -> name -> qualname
        self.types: set[str] = set()
        self.modules: set[str] = set()
        self.qualnames: set[str] = set()
        for f in files:
            family = _FAMILY.get(f.language, f.language)
            self.modules.add(f.module)
            for s in f.symbols:
                self.qualnames.add(s.qualified_name)
                if s.kind == "module" and s.qualified_name == f.module:
                    continue
                self.by_name[(family, s.name)].append(s.qualified_name)
                owner = s.qualified_name.rpartition(".")[0]
                self.members[owner].setdefault(s.name, s.qualified_name)
                if s.kind in _TYPE_KINDS:
                    self.types.add(s.qualified_name)
        # Dotted spellings of every owner (Java packages, Go package directories, Rust and JS
        # module paths) for imports written as ``com.ex.Foo``, ``github.com/x/repo/pkg`` or
        # ``crate::util::helper``.
        self.dotted: dict[str, list[str]] = defaultdict(list)
        for name in self.qualnames | set(self.members):
            self.dotted[name.replace("/", ".")].append(name)
        self.parents: dict[str, list[str]] = defaultdict(list)

    def unique(self, family: str, name: str) -> str | None:
        found = self.by_name.get((family, name), [])
        return found[0] if len(found) == 1 else None

    def member(self, owner: str, name: str) -> str | None:
        """``name`` defined in ``owner`` or, breadth first, in the types it extends."""
        queue, seen = [owner], {owner}
        while queue:
            current = queue.pop(0)
            found = self.members.get(current, {}).get(name)
            if found is not None:
                return found
            for parent in self.parents.get(current, []):
                if parent not in seen:
                    seen.add(parent)
                    queue.append(parent)
        return None

    def enclosing_type(self, qualname: str) -> str | None:
        current = qualname
        while current:
            if current in self.types:
                return current
            current = current.rpartition(".")[0]
        return None

    def import_target(self, f: FileIndex, target: str) -> str | None:
        """The repository module, package or symbol an import names, or None when external."""
        if _FAMILY.get(f.language) == "js":
            return self._js_import(f, target)
        dotted = target.replace("::", ".").replace("/", ".").removesuffix(".*")
        while dotted.startswith(("crate.", "self.", "super.")):
            dotted = dotted.partition(".")[2]
        if dotted in self.dotted:
            return self.dotted[dotted][0]
        # A unique repository name that ends the import (Rust ``crate::util::helper`` for
        # ``src/util.helper``) or that the import ends with (a Go module path).
        hits = {
            names[0]
            for known, names in self.dotted.items()
            if known.endswith("." + dotted) or dotted.endswith("." + known)
        }
        return hits.pop() if len(hits) == 1 else None

    def _js_import(self, f: FileIndex, target: str) -> str | None:
        source, _, name = target.partition("#")
        if not source.startswith("."):
            return None  # a package from node_modules
        parts = f.module.split("/")[:-1]
        for piece in source.split("/"):
            if piece == "..":
                parts = parts[:-1]
            elif piece not in (".", ""):
                parts.append(piece)
        path = "/".join(parts)
        for suffix in _JS_SUFFIXES:
            path = path.removesuffix(suffix)
        for module in (path, f"{path}/index"):
            if module in self.modules:
                if not name:
                    return module
                return self.members.get(module, {}).get(name)
        return None


def _resolve_by_name(files: Sequence[FileIndex]) -> list[Dependency]:
    index = _NameIndex(files)
    deps: list[Dependency] = []
    # Base types first: self/this calls look members up along them.
    for f in files:
        family = _FAMILY.get(f.language, f.language)
        local = {s.name: s.qualified_name for s in f.symbols if s.qualified_name != f.module}
        imports = dict(f.imports)
        for ref in f.references:
            if ref.kind != "inherits":
                continue
            name = ref.target.replace("::", ".").rsplit(".", 1)[-1]
            dst = local.get(name)
            if dst is None and name in imports:
                dst = index.import_target(f, imports[name])
            if dst is None:
                dst = index.unique(family, name)
            if dst is not None:
                index.parents[ref.src_qualified_name].append(dst)
            deps.append(_dep(ref.src_qualified_name, "inherits", ref.target, dst, ref.line))
    for f in files:
        family = _FAMILY.get(f.language, f.language)
        local = {s.name: s.qualified_name for s in f.symbols if s.qualified_name != f.module}
        imports = dict(f.imports)
        for ref in f.references:
            if ref.kind == "imports":
                dst = index.import_target(f, ref.target)
                deps.append(_dep(ref.src_qualified_name, "imports", ref.target, dst, ref.line))
            elif ref.kind == "calls":
                dst = _call_target(
                    index,
                    f,
                    family,
                    local,
                    imports,
                    ref.target,
                    ref.self_call,
                    ref.src_qualified_name,
                )
                deps.append(_dep(ref.src_qualified_name, "calls", ref.target, dst, ref.line))
    return deps


def _call_target(
    index: _NameIndex,
    f: FileIndex,
    family: str,
    local: dict[str, str],
    imports: dict[str, str],
    written: str,
    self_call: bool,
    src: str,
) -> str | None:
    """Where a call as written lands: the enclosing type's members for this/self calls, the
    file's own definitions, what it imported, then a name defined once in the repository."""
    parts = written.replace("::", ".").split(".")
    name, head = parts[-1], parts[0]
    if self_call:
        owner = index.enclosing_type(src)
        dst = index.member(owner, name) if owner is not None else None
    elif len(parts) == 1:
        dst = local.get(name)
        if dst is None and name in imports:
            return index.import_target(f, imports[name])
        if dst is None and f.language == "go":
            # Go: the other files of the package see this file's names without an import.
            dst = index.members.get(src.partition(".")[0], {}).get(name)
    elif head in local:
        dst = index.member(local[head], name)
    elif head in imports:
        module = index.import_target(f, imports[head])
        # A member of an external package (``fmt.Println``) is external, whatever its name.
        return index.member(module, name) if module is not None else None
    elif "::" in written or head[:1].isupper():
        return None  # a path or a type from outside the repository (``String::new``, ``Math.abs``)
    else:
        dst = None
    return dst if dst is not None else index.unique(family, name)


def _dep(src: str, kind: RefKind, written: str, dst: str | None, line: int) -> Dependency:
    if dst is not None:
        return Dependency(src, kind, dst, dst, line, "internal")
    return Dependency(src, kind, written, None, line, "external")
