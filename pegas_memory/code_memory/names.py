"""The repository's names, indexed once, for resolution by syntax (JS/TS, Go, Rust, Java).

Every lookup the resolver makes is a dictionary probe or a walk of a path's few segments:
members by owner (all same-named definitions, overloads included, in line order), dotted
spellings and every dotted suffix of them (Go module paths, Java packages), the JS/TS export
tables (``module.exports``, ``export default``, re-exports) and the Rust crate roots (workspace
crates by name). Import answers are memoised per (language family, directory, target): an
import written in a thousand files is resolved once. Pure logic: no parsing, no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePosixPath

from pegas_memory.code_memory.java_overloads import Hierarchy, applicable, choose, type_variable
from pegas_memory.code_memory.model import JS_LANGUAGES, TYPE_ONLY, FileIndex, SymbolKind
from pegas_memory.code_memory.typed_locals import java_param_types

FAMILY = {"typescript": "js", "tsx": "js", "javascript": "js"}
_TYPE_KINDS = frozenset({"class", "interface", "struct", "enum", "trait"})
_JS_SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d")
_MAX_HOPS = 6  # re-exports followed before giving up (export cycles exist)


def base_name(qualname: str) -> str:
    """``Gson.fromJson#2@40`` -> ``Gson.fromJson``: the name without overload marks."""
    return qualname.partition("#")[0].partition("@")[0]


def _arity_of(qualname: str) -> int | None:
    mark = qualname.partition("#")[2].partition("@")[0]
    return int(mark) if mark.isdigit() else None


def _varargs(signature: str | None, params: int | None, arity: int) -> bool:
    """Whether a method whose last of ``params`` parameters is varargs takes ``arity`` args."""
    return params is not None and "..." in (signature or "") and arity >= params - 1


class NameIndex:
    """The repository's symbols by name, by owner and by module, for resolution by syntax."""

    def __init__(self, files: Sequence[FileIndex], crates: Mapping[str, str]) -> None:
        self.by_name: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.members: dict[str, dict[str, list[str]]] = defaultdict(dict)
        self.types: set[str] = set()
        self.modules: set[str] = set()
        self.qualnames: set[str] = set()
        self.module_methods: set[str] = set()  # JS/TS object-literal methods named by the module
        self.type_only: set[str] = set()  # JS/TS interfaces and type aliases: no value to call
        self.exports: dict[str, list[tuple[str, str]]] = {}
        self.imports_of: dict[str, dict[str, str]] = {}
        self.packages: dict[str, str] = {}  # Java file module -> package
        self.java_types: set[str] = set()
        self.signatures: dict[str, str | None] = {}  # Rust, Java: return types (chains)
        self.module_of: dict[str, str] = {}
        self.mixins: dict[str, list[tuple[str, str]]] = defaultdict(list)  # JS factories
        # Java: class -> field -> (module of the declaring file, declared type as written).
        self.java_fields: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
        for f in files:
            for cls, name, written in f.fields:
                self.java_fields[cls].setdefault(name, (f.module, written))
            for fn, source in f.mixins:
                self.mixins[fn].append((f.module, source))
            if f.language in ("rust", "java"):
                for s in f.symbols:
                    if s.kind in (SymbolKind.FUNCTION, SymbolKind.METHOD):
                        self.signatures[s.qualified_name] = s.signature
                        self.module_of[s.qualified_name] = f.module
            family = FAMILY.get(f.language, f.language)
            self.modules.add(f.module)
            if f.exports:
                self.exports[f.module] = list(f.exports)
            self.imports_of[f.module] = dict(f.imports)
            for s in f.symbols:
                self.qualnames.add(s.qualified_name)
                if s.kind == SymbolKind.MODULE and s.qualified_name == f.module:
                    continue
                owner = base_name(s.qualified_name).rpartition(".")[0]
                if s.kind != SymbolKind.METHOD:  # a bare name never calls a method
                    self.by_name[(family, s.name)].append(s.qualified_name)
                self.members[owner].setdefault(s.name, []).append(s.qualified_name)
                if s.kind == SymbolKind.METHOD and owner == f.module:
                    self.module_methods.add(s.qualified_name)  # of an exported object literal
                if s.kind in TYPE_ONLY and f.language in JS_LANGUAGES:
                    self.type_only.add(s.qualified_name)
                if s.kind in _TYPE_KINDS:
                    self.types.add(s.qualified_name)
                    if f.language == "java":
                        self.packages.setdefault(f.module, owner)
                        self.java_types.add(s.qualified_name)
        # Associated items (Rust ``type Err`` of an impl) are no bare names either.
        for found in self.by_name.values():
            found[:] = [q for q in found if not _associated(q, self.types)]
        # Dotted spellings of every owner and symbol, and each of their dotted suffixes.
        self.dotted: dict[str, str] = {}
        self.suffixes: dict[str, set[str]] = defaultdict(set)
        for name in sorted(self.qualnames | set(self.members)):
            dotted = name.replace("/", ".")
            self.dotted.setdefault(dotted, name)
            parts = dotted.split(".")
            for i in range(1, len(parts)):
                self.suffixes[".".join(parts[i:])].add(self.dotted[dotted])
        self.parents: dict[str, list[str]] = defaultdict(list)
        # Java: the super types a class names that are not the repository's (simple names).
        self.library_parents: dict[str, list[str]] = defaultdict(list)
        self.args: tuple[str, ...] = ()  # the call being resolved: its argument types (Java)
        # Java: the overloads the last pick chose among without Java's rules telling which
        # (set by _pick, cleared by the resolver before each call).
        self.guessed: tuple[str, ...] = ()
        # Java: (module, type as written, class it is written in) -> the repository type it
        # names; set by the resolver once the super types are known (code_memory.chains).
        self.java_type_of: Callable[[str, str, str | None], str | None] | None = None
        self._param_memo: dict[str, list[str]] = {}
        self._supertypes_memo: dict[str, tuple[frozenset[str], bool] | None] = {}
        self._java_simple: set[str] | None = None
        self._crate_roots = _crate_roots(files, crates)
        # Go: go.mod module path -> its directory, and package directory -> the owner its
        # symbols are named under (the directory, or the package name at the repository root).
        self.go_modules = {name: d for name, d in crates.items() if "/" in name or "." in name}
        self.go_dirs: dict[str, str] = {}
        for f in files:
            top = (s for s in f.symbols if s.kind not in (SymbolKind.MODULE, SymbolKind.METHOD))
            first = next(top, None) if f.language == "go" else None
            if first is not None:
                directory = PurePosixPath(f.path).parent.as_posix()
                self.go_dirs.setdefault(
                    "" if directory == "." else directory,
                    base_name(first.qualified_name).rpartition(".")[0],
                )
        self._memo: dict[tuple[str, str, str], str | None] = {}

    # -- members --

    def local(self, f: FileIndex) -> dict[str, str]:
        """The file's own definitions by name (the first of each name), methods left out: a
        bare name never calls a method in these languages (``accepts(this)`` inside
        ``req.acceptsEncodings`` is the imported package, not ``req.accepts``; Java's bare
        calls are self calls, resolved through the enclosing type)."""
        out: dict[str, str] = {}
        for s in f.symbols:
            if s.qualified_name == f.module or s.kind == SymbolKind.METHOD:
                continue
            owner = base_name(s.qualified_name).rpartition(".")[0]
            if s.kind not in (SymbolKind.TYPE, SymbolKind.CONSTANT) or owner not in self.types:
                out.setdefault(s.name, s.qualified_name)
        return out

    def local_member(
        self, f: FileIndex, local: Mapping[str, str], name: str, arity: int | None
    ) -> str | None:
        first = local.get(name)
        if first is None:
            return None
        owner = base_name(first).rpartition(".")[0]
        return self._pick(self.members.get(owner, {}).get(name, [first]), arity)

    def unique(self, f: FileIndex, name: str) -> str | None:
        """The one definition of ``name`` in the repository (overloads of one method count
        once), for a bare call nothing else explains."""
        found = self.by_name.get((FAMILY.get(f.language, f.language), name), [])
        return found[0] if found and len({base_name(q) for q in found}) == 1 else None

    def same_package(self, f: FileIndex, name: str) -> str | None:
        """Java: a type of the file's own package, which needs no import."""
        package = self.packages.get(f.module)
        if package is None:
            return None
        found = self.members.get(package, {}).get(name)
        return found[0] if found else None

    def _pick(self, found: Sequence[str], arity: int | None) -> str | None:
        """Among overloads, those taking ``arity`` arguments; among several, the one Java's
        rules pick for the argument types the call site shows (``args``, set per call by the
        resolver; :mod:`code_memory.java_overloads`), else of those that may apply the one whose
        parameter types match most argument types, else the first."""
        if not found:
            return None
        if len(found) > 1 and arity is not None:
            exact = [q for q in found if self._arity(q) == arity]
            if exact and all(self._applies(q) is False for q in exact) and any(self.args):
                exact = []  # none applies by phases 1 and 2 (JLS 15.12.2.2-3): phase 3
            if not exact:  # ``get("x", 1, 2)`` of ``get(String, Object...)``: varargs
                exact = [
                    q for q in found if _varargs(self.signatures.get(q), self._arity(q), arity)
                ]
            if not exact:
                exact = [q for q in found if self._arity(q) == arity]
            if len(exact) > 1 and any(self.args):
                overloads = [(q, self._params(q)) for q in exact]
                exact = choose(self.args, overloads, self._hierarchy())
            if len(exact) > 1 and any(self.args):
                scored = []
                for q in exact:
                    name = base_name(q).rsplit(".", 1)[-1]
                    params = java_param_types(self.signatures.get(q), name)
                    scored.append((sum(a == p for a, p in zip(self.args, params, strict=False)), q))
                best = max(score for score, _ in scored)
                exact = [q for score, q in scored if score == best] if best else exact
            if len(exact) > 1 and base_name(exact[0]).rpartition(".")[0] in self.java_types:
                self.guessed = tuple(exact)  # the first is a guess: the resolver says so
            if exact:
                return exact[0]
        return found[0]

    def _hierarchy(self) -> Hierarchy | None:
        """What java_overloads knows of the repository's classes, once their names resolve."""
        return self if self.java_type_of is not None else None

    def library(self, name: str) -> bool:
        """Java: whether no class of the repository has the simple name ``name`` ends with."""
        if self._java_simple is None:
            self._java_simple = {base_name(t).rsplit(".", 1)[-1] for t in self.java_types}
        return name not in self.java_types and name.rsplit(".", 1)[-1] not in self._java_simple

    def supertypes(self, qualname: str) -> tuple[frozenset[str], bool] | None:
        """Java: every type the repository class ``qualname`` extends or implements,
        transitively (the repository's qualified, the library's by simple name), and whether
        all of them are the repository's; None when ``qualname`` is no repository class."""
        if qualname not in self.java_types:
            return None
        if qualname not in self._supertypes_memo:
            queue, seen, library = [qualname], {qualname}, set[str]()
            while queue:
                current = queue.pop(0)
                library.update(self.library_parents.get(current, ()))
                for parent in self.parents.get(current, []):
                    if parent not in seen:
                        seen.add(parent)
                        queue.append(parent)
            self._supertypes_memo[qualname] = (frozenset(seen | library), not library)
        return self._supertypes_memo[qualname]

    def _params(self, qualname: str) -> list[str]:
        """A Java method's parameter types; a type variable (``T``, ``K``) as unknown (""), a
        class of the repository by its qualified name (once ``java_type_of`` is set)."""
        memo = self._param_memo.get(qualname)
        if memo is not None:
            return memo
        name = base_name(qualname).rsplit(".", 1)[-1]
        params = java_param_types(self.signatures.get(qualname), name)
        owner = base_name(qualname).rpartition(".")[0]
        resolve = self.java_type_of if owner in self.java_types else None
        out: list[str] = []
        for p in params:
            if type_variable(p):
                p = ""
            elif resolve is not None and p[:1].isupper() and not p.endswith(("[]", "...")):
                p = resolve(self.module_of.get(qualname, owner), p, owner) or p
            out.append(p)
        if resolve is not None:
            self._param_memo[qualname] = out
        return out

    def _arity(self, qualname: str) -> int | None:
        """The parameter count: the overload mark, else (a method inherited alongside other
        overloads) its signature's."""
        marked = _arity_of(qualname)
        owner = base_name(qualname).rpartition(".")[0]
        if marked is not None or owner not in self.java_types or not self.signatures.get(qualname):
            return marked
        return len(self._params(qualname))

    def _applies(self, qualname: str) -> bool | None:
        """Whether the method applies to the call's ``args`` by Java's phases 1-2 (None:
        unknown)."""
        phase = applicable(self.args, self._params(qualname), self._hierarchy())
        return None if phase == "?" else phase is not None

    def member(self, owner: str, name: str, arity: int | None = None) -> str | None:
        """``name`` defined in ``owner`` or, breadth first, in the types it extends; among
        overloads the one taking ``arity`` arguments. A Java method's overloads are those of
        the type and of its super types together (JLS 15.12.2.1: inherited methods are
        members), nearer ones first and overridden ones left out."""
        queue, seen = [owner], {owner}
        java = owner in self.java_types and arity is not None
        inherited: list[str] = []  # Java: the overloads of every type up the hierarchy
        while queue:
            current = queue.pop(0)
            found = self.members.get(current, {}).get(name)
            if found and java:
                inherited.extend(self._not_overridden(found, inherited))
            elif found:
                return self._pick(found, arity)
            for parent in self.parents.get(current, []):
                if parent not in seen:
                    seen.add(parent)
                    queue.append(parent)
        return self._pick(inherited, arity) if inherited else None

    def _not_overridden(self, found: Sequence[str], nearer: Sequence[str]) -> list[str]:
        """The methods of a super type a nearer one does not override (same parameters)."""
        taken = {tuple(self._params(q)) for q in nearer}
        return [q for q in found if tuple(self._params(q)) not in taken]

    def value_of(self, qualname: str) -> str:
        """What a JS/TS call of ``qualname`` runs: a value declaration of that name and owner
        where ``qualname`` is an interface or a type alias merged with one (TypeScript's
        declaration merging: ``interface $constructor`` and ``function $constructor``); a type
        has no value to call or ``new``. Anything else is returned as it is."""
        if qualname not in self.type_only:
            return qualname
        owner, _, name = base_name(qualname).rpartition(".")
        found = self.members.get(owner, {}).get(name, ())
        return next((q for q in found if q not in self.type_only), qualname)

    def enclosing_type(self, qualname: str) -> str | None:
        current = base_name(qualname)
        while current:
            if current in self.types:
                return current
            current = current.rpartition(".")[0]
        return None

    def this_owner(self, qualname: str, module: str) -> str | None:
        """JS/TS ``this`` outside a class: the object a function was assigned to
        (``res.clearCookie = function`` -> ``res``, ``View.prototype.lookup`` -> ``View``), when
        that object has members of its own; None for a plain function of the module."""
        owner = base_name(qualname).rpartition(".")[0]
        if owner == module and qualname in self.module_methods:
            return owner  # ``module.exports = { m() { this.n() } }``: the module is the object
        if not owner or owner == module or owner in self.modules:
            return None
        return owner if owner in self.members else None

    def export_of(self, module: str, name: str) -> str | None:
        """What JS/TS module ``module`` exports as ``name``, following re-exports."""
        return self._export(module, name, _MAX_HOPS)

    def _export(self, module: str, name: str, hops: int) -> str | None:
        if hops <= 0:
            return None
        found = self.members.get(module, {}).get(name)
        if found and name != "default":
            return found[0]
        stars: list[str] = []
        for exported, target in self.exports.get(module, ()):
            if exported == "*":
                stars.append(target)
            elif exported == name:
                source, sep, orig = target.partition("#")
                if not sep:  # a local name of the module, or a name it imported
                    local = self.members.get(module, {}).get(target)
                    if local:
                        return local[0]
                    imported = self.imports_of.get(module, {}).get(target)
                    if imported is None:
                        return None
                    source, sep, orig = imported.partition("#")
                    other = self._js_module(module, source)
                    if other is None:
                        return None
                    return self._export(other, orig, hops - 1) if sep else other
                other = self._js_module(module, source)
                return self._export(other, orig, hops - 1) if other else None
        for source in stars:
            other = self._js_module(module, source)
            hit = self._export(other, name, hops - 1) if other else None
            if hit is not None:
                return hit
        return None

    def made_by(self, factory: str) -> str | None:
        """The object a JS factory's result carries the members of: the default export of the
        module it mixed in (``createApplication`` -> ``lib/application.app``)."""
        for module, source in self.mixins.get(factory, ()):
            other = self._js_module(module, source)
            for exported, local in self.exports.get(other or "", ()):
                owner = f"{other}.{local}"
                if exported == "default" and "#" not in local and owner in self.members:
                    return owner
        return None

    # -- imports --

    def is_internal_import(self, f: FileIndex, target: str) -> bool:
        """Whether an import names the repository itself (a relative JS path, ``crate::``, a
        workspace crate), so a miss is "unresolved", not "external"."""
        if FAMILY.get(f.language) == "js":
            return target.startswith(".")
        if f.language == "rust":
            first = target.split("::", 1)[0]
            return first in ("crate", "self", "super") or first in self._crate_roots
        return False

    def import_target(self, f: FileIndex, target: str) -> str | None:
        """The repository module, package or symbol an import names, or None when external."""
        family = FAMILY.get(f.language, f.language)
        where = f.module.rpartition("/")[0] if family in ("js", "rust") else ""
        key = (
            family,
            where if family == "js" or target.startswith(("self", "super")) else "",
            target,
        )
        if f.language == "rust" and target.startswith("crate"):
            key = (family, self._crate_of(f.path) or "", target)
        if key not in self._memo:
            self._memo[key] = self._import_target(f, target)
        return self._memo[key]

    def _import_target(self, f: FileIndex, target: str) -> str | None:
        if FAMILY.get(f.language) == "js":
            source, _, name = target.partition("#")
            module = self._js_module(f.module, source)
            if module is None or not name:
                return module
            return self.export_of(module, name)
        if f.language == "rust":
            hit = self.rust_path(f, target)
            if hit is not None or self.is_internal_import(f, target):
                return hit
        if f.language == "go" and self.go_modules:
            package = self._go_package(target)
            if package is not None:
                return package
        dotted = target.replace("::", ".").replace("/", ".").removesuffix(".*")
        while dotted.startswith(("crate.", "self.", "super.")):
            dotted = dotted.partition(".")[2]
        if dotted in self.dotted:
            return self.dotted[dotted]
        # A unique repository name that ends the import (Rust ``crate::util::helper`` for
        # ``src/util.helper``) or that the import ends with (a Go module path).
        hits = set(self.suffixes.get(dotted, ()))
        parts = dotted.split(".")
        for i in range(1, len(parts)):
            known = self.dotted.get(".".join(parts[i:]))
            if known is not None:
                hits.add(known)
        return hits.pop() if len(hits) == 1 else None

    def _go_package(self, path: str) -> str | None:
        """The repository package a Go import path names through a go.mod module path
        (``github.com/urfave/cli/v3`` -> the root package ``cli``), or None."""
        for module, directory in sorted(self.go_modules.items(), key=lambda kv: -len(kv[0])):
            if path == module or path.startswith(module + "/"):
                rest = path[len(module) :].strip("/")
                parts = [p for p in (directory.strip("/"), rest) if p and p != "."]
                return self.go_dirs.get("/".join(parts))
        return None

    def _js_module(self, from_module: str, source: str) -> str | None:
        if not source.startswith("."):
            return None  # a package from node_modules
        parts = from_module.split("/")[:-1]
        for piece in source.split("/"):
            if piece == "..":
                parts = parts[:-1]
            elif piece not in (".", ""):
                parts.append(piece)
        path = "/".join(parts)
        for suffix in _JS_SUFFIXES:
            path = path.removesuffix(suffix)
        for module in (path, f"{path}/index") if path else ("index",):  # ``require('../../')``
            if module in self.modules:
                return module
        return None

    # -- Rust paths --

    def _crate_of(self, path: str) -> str | None:
        """The root directory of the crate ``path`` belongs to. A file under ``tests/``,
        ``examples/`` or ``benches/`` is a crate of its own (``crate::util`` is its sibling)."""
        parent = PurePosixPath(path).parent
        if parent.name in ("tests", "examples", "benches"):
            return parent.as_posix()
        best = None
        for root in self._crate_roots.values():
            if (path.startswith(root + "/") or not root) and (
                best is None or len(root) > len(best)
            ):
                best = root
        return best

    def rust_path(self, f: FileIndex, written: str, hops: int = _MAX_HOPS) -> str | None:
        """A ``crate::a::b``, ``self::x``, ``super::x`` or ``other_crate::x`` path: the module
        file, then its members, then (``pub use``) what the module re-exports under that name."""
        segs = [s for s in written.replace("::*", "").split("::") if s]
        if not segs or hops <= 0:
            return None
        here = PurePosixPath(f.module)
        module_dir = here.parent if here.name in ("mod", "lib", "main") else here
        root: str | None
        if segs[0] == "crate":
            root = self._crate_of(f.path)
            segs = segs[1:]
        elif segs[0] == "self":
            root, segs = module_dir.as_posix(), segs[1:]
        elif segs[0] == "super":
            up = module_dir
            while segs and segs[0] == "super":
                up, segs = up.parent, segs[1:]
            root = up.as_posix()
        elif segs[0] in self._crate_roots:
            root, segs = self._crate_roots[segs[0]], segs[1:]
        else:
            return self._rust_relative(f, segs, module_dir.as_posix(), hops)
        if root is None:
            return None
        return self._rust_lookup(root, segs, hops)

    def _rust_relative(
        self, f: FileIndex, segs: list[str], module_dir: str, hops: int
    ) -> str | None:
        """A path without ``crate::``/``self::``/``super::``: through the file's import of its
        first segment (``use std::io;`` then ``io::stdout``: outside), else a child module of
        this one (``mod cmd;`` then ``cmd::cat::run``), else, as the 2015 edition reads ``use``
        paths and ``::a::b``, from the crate root (``use util;``, ``use index::Indexed;``)."""
        imported = self.imports_of.get(f.module, {}).get(segs[0])
        if imported is not None and imported != segs[0]:
            return self.rust_path(f, "::".join([imported, *segs[1:]]), hops - 1)
        hit = self._rust_lookup(module_dir, segs, hops)
        if hit is not None:
            return hit
        root = self._crate_of(f.path)
        return self._rust_lookup(root, segs, hops) if root is not None else None

    def _rust_lookup(self, root: str, segs: list[str], hops: int) -> str | None:
        prefix = f"{root}/" if root and root != "." else ""
        for k in range(len(segs), -1, -1):
            mod_path = prefix + "/".join(segs[:k])
            candidates = [f"{mod_path}/mod", mod_path] if k else []
            candidates += [f"{prefix}lib", f"{prefix}main", f"{prefix}mod"] if not k else []
            for module in candidates:
                if module.rstrip("/") not in self.modules:
                    continue
                module = module.rstrip("/")
                rest = segs[k:]
                if not rest:
                    return module
                qualname = ".".join([module, *rest])
                if qualname in self.qualnames:
                    return qualname
                if len(rest) == 1:  # ``pub use inner::Thing;`` in that module
                    again = self.imports_of.get(module, {}).get(rest[0])
                    if again is not None:
                        there = FileIndex(module + ".rs", "rust", module, "", (), ())
                        return self.rust_path(there, again, hops - 1)
        return None


def _associated(qualname: str, types: set[str]) -> bool:
    owner = base_name(qualname).rpartition(".")[0]
    return owner in types and qualname not in types


def _crate_roots(files: Sequence[FileIndex], crates: Mapping[str, str]) -> dict[str, str]:
    """Crate name (``-`` as ``_``) -> the directory of its lib.rs/main.rs. Named from
    ``crates`` (Cargo.toml) when the root lies under a crate's directory, else after the
    directory above ``src``."""
    roots: list[str] = []
    crates = {name: d for name, d in crates.items() if "/" not in name and "." not in name}
    for f in files:
        p = PurePosixPath(f.path)
        if f.language == "rust" and p.name in ("lib.rs", "main.rs"):
            roots.append(p.parent.as_posix() if p.parent.as_posix() != "." else "")
    out: dict[str, str] = {}
    for root in sorted(set(roots), key=lambda r: (r.endswith("/bin"), len(r))):
        named = None
        for name, directory in crates.items():
            d = directory.strip("/")
            inside = root == d or root.startswith(d + "/") or d in ("", ".")
            if inside and (named is None or len(d) > len(named[1])):
                named = (name, d)
        if named is not None:
            name = named[0]
        else:
            parts = PurePosixPath(root).parts
            if len(parts) >= 2 and parts[-1] == "src":
                name = parts[-2]
            else:
                name = parts[-1] if parts else "crate"
        out.setdefault(name.replace("-", "_"), root)
    return out
