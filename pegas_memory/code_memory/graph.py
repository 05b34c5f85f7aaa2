"""Cross-file resolution of code references into dependency edges (pm_code_dependency rows).

:func:`resolve` takes the per-file indexes that :func:`code_memory.symbols.extract_file`
produced and turns each written reference into :class:`Dependency` edges between qualified
names. Pure logic: no parsing, no I/O, so the same files always give the same edges.

Python goes through the points-to analysis of :mod:`code_memory.flow` (aliases, imports,
self/super, the class hierarchy, values through calls, returns, containers and annotations).
The other languages resolve by syntax and name: the enclosing type (and the types it extends)
for this/self/receiver calls, the file's own definitions, its imports (relative JS/TS paths, Java
packages and static imports, Go module paths, Rust ``crate::`` paths and the 2015 edition's
crate-relative ones), then a name defined exactly once in the repository. Rust and Java calls
through a receiver chain are typed link by link by :mod:`code_memory.chains`. A reference
that resolves to nothing in the repository is kept as an external or unresolved edge, never
dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from pegas_memory.code_memory.chains import Chains, returns
from pegas_memory.code_memory.flow import PythonFlow
from pegas_memory.code_memory.flow_edges import python_dependencies
from pegas_memory.code_memory.java_members import constructor_of, enclosing_method
from pegas_memory.code_memory.java_overloads import type_variable
from pegas_memory.code_memory.js_handlers import HandlerTypes
from pegas_memory.code_memory.lang_go import GoInterfaces
from pegas_memory.code_memory.model import (
    JS_LANGUAGES,
    Dependency,
    DepKind,
    FileIndex,
    Reference,
    RefKind,
    TargetKind,
)
from pegas_memory.code_memory.names import NameIndex, base_name

__all__ = ["Dependency", "Step", "affected_files", "resolve"]

Step = Callable[[int, int, str], None]
"""Called with (done, total, message) at every step of resolution; it may raise (a cancelled or
overdue index raises LimitExceeded there) and resolution stops at once."""


def resolve(
    files: Sequence[FileIndex],
    *,
    crates: Mapping[str, str] | None = None,
    step: Step | None = None,
    only: AbstractSet[str] | None = None,
) -> list[Dependency]:
    """Resolve the references of ``files`` against each other; sorted, without duplicates.

    ``crates`` names the Rust workspace crates (crate name -> directory of its Cargo.toml), so
    ``use other_crate::x`` resolves into the repository. ``step`` sees progress (and can stop
    the work) at least every few hundred files or a few thousand flow evaluations. ``only``
    (paths) limits the edges of the languages resolved by name to those files (every file still
    supplies names and base types); Python is always resolved whole: its flow analysis is
    global (a value can reach any file)."""
    python = [f for f in files if f.language == "python"]
    others = [f for f in files if f.language != "python"]
    deps: set[Dependency] = set()
    if python:
        deps.update(python_dependencies(PythonFlow(python, step=step)))
    if others:
        deps.update(_resolve_by_name(others, crates or {}, step, only))
    return sorted(deps, key=lambda d: (d.src, d.line, d.kind, d.dst_name))


# --- other languages: by syntax and name -------------------------------------------------------

_STEP_FILES = 200


def _resolve_by_name(
    files: Sequence[FileIndex],
    crates: Mapping[str, str],
    step: Step | None,
    only: AbstractSet[str] | None = None,
) -> list[Dependency]:
    index = NameIndex(files, crates)
    chains = Chains(index, frozenset(f.module for f in files if f.language == "java"))
    handlers = HandlerTypes(index, files)  # ``res.send`` in ``function (req, res)``
    interfaces = GoInterfaces(index, files)  # Go calls through an interface's method
    deps: list[Dependency] = []
    total = 2 * len(files)
    # Base types first: self/this calls look members up along them.
    for n, f in enumerate(files):
        if step is not None and n % _STEP_FILES == 0:
            step(n, total, f"resolving dependencies: base types, file {n + 1} of {len(files)}")
        local = index.local(f)
        imports = dict(f.imports)
        for ref in f.references:
            if ref.kind != RefKind.INHERITS:
                continue
            name = ref.target.replace("::", ".").rsplit(".", 1)[-1]
            if f.language == "java" and "." in ref.target:
                # ``implements Connection.Request``: the type that path names, never the class
                # itself or another type of the file merely named ``Request``.
                around = index.enclosing_type(ref.src_qualified_name.rpartition(".")[0])
                dst = chains.java_type(f.module, ref.target, around)
            else:
                dst = local.get(name)
                if dst is None and name in imports:
                    dst = index.import_target(f, imports[name])
                if dst is None:
                    dst = index.same_package(f, name) or index.unique(f, name)
            if dst is not None:
                index.parents[ref.src_qualified_name].append(dst)
            elif f.language == "java":  # a library type (``implements Path``), by its name
                index.library_parents[ref.src_qualified_name].append(ref.target.split(".")[-1])
            if only is None or f.path in only:
                deps.append(
                    _dep(ref.src_qualified_name, RefKind.INHERITS, ref.target, dst, ref.line)
                )
    index.java_type_of = chains.java_type  # the super types are known: types name classes
    for n, f in enumerate(files):
        if step is not None and n % _STEP_FILES == 0:
            step(len(files) + n, total, f"resolving dependencies: file {n + 1} of {len(files)}")
        if only is not None and f.path not in only:
            continue
        at = _InFile(index, f, index.local(f), dict(f.imports))
        for ref in f.references:
            if ref.kind == RefKind.IMPORTS:
                dst = index.import_target(f, ref.target)
                kind: TargetKind = TargetKind.EXTERNAL
                if dst is None and index.is_internal_import(f, ref.target):
                    # a workspace crate or relative path we cannot follow
                    kind = TargetKind.UNRESOLVED
                deps.append(
                    _dep(ref.src_qualified_name, RefKind.IMPORTS, ref.target, dst, ref.line, kind)
                )
            elif ref.kind == RefKind.CALLS:
                index.args = ref.arg_types
                if f.language == "java":
                    index.args = _java_arguments(chains, at, ref)
                    index.guessed = ()
                dst, kind = _call_target(at, ref.target, ref)
                if dst is None and f.language in ("rust", "java"):
                    dst = _chain_target(chains, at, ref)
                    kind = TargetKind.INTERNAL if dst else kind
                elif dst is None and ref.typed and f.language in JS_LANGUAGES:
                    dst = handlers.target(f, ref) or _made_target(at, ref)
                    kind = TargetKind.INTERNAL if dst else kind
                if dst is not None and f.language == "java":
                    dst = constructor_of(index, dst, ref.arity)  # ``new X(..)``, however named
                if dst is not None and f.language in JS_LANGUAGES:
                    dst = index.value_of(dst)  # never an interface merged with a function
                deps.append(
                    _dep(ref.src_qualified_name, RefKind.CALLS, ref.target, dst, ref.line, kind)
                )
                if f.language == "go":  # on what a call returned; through an interface
                    made = _go_made(interfaces, at, ref)
                    src, name = ref.src_qualified_name, ref.target.rsplit(".", 1)[-1]
                    if dst is None and made is not None:  # ``ent := l.Back(); ent.Next()``
                        dst = index.member(made, name, ref.arity)
                        if dst is not None:
                            deps[-1] = _dep(
                                src, RefKind.CALLS, ref.target, dst, ref.line, TargetKind.INTERNAL
                            )
                    if dst is not None:
                        deps.extend(interfaces.dispatch(src, dst, ref.line, made))
                    elif (owner := _go_owner(at, ref)) is not None:
                        deps.extend(interfaces.through_embedded(src, owner, name, ref.line, made))
    return deps


@dataclass(frozen=True, slots=True)
class _InFile:
    """What a name written in one file can mean: the repository's names (``index``), the file's
    own definitions (``local``: name -> qualified name) and its imports (alias -> what it names)."""

    index: NameIndex
    file: FileIndex
    local: dict[str, str]
    imports: dict[str, str]


def _call_target(at: _InFile, written: str, ref: Reference) -> tuple[str | None, TargetKind]:
    """Where a call as written lands: the enclosing type's members for this/self calls, the
    file's own definitions, what it imported, then (bare names only) a name defined once in the
    repository. A call on a receiver whose type is unknown (``x.unwrap()``) stays unresolved:
    guessing "the only method of that name" sends library calls to unrelated methods."""
    index, f, local, imports = at.index, at.file, at.local, at.imports
    parts = written.replace("::", ".").split(".")
    name, head = parts[-1], parts[0]
    arity, src = ref.arity, ref.src_qualified_name
    js = f.language in JS_LANGUAGES
    if js and len(parts) == 2 and name in ("call", "apply") and not ref.self_call:
        # ``Store.call(this)``: a call of the function ``Store`` with ``this`` given.
        return _call_target(at, head, ref)
    if ref.self_call:
        if len(parts) > 2:  # ``self.mat.invert()``: a field's method, not the type's own
            return None, TargetKind.UNRESOLVED
        owner = index.enclosing_type(src)
        if owner is None and js:
            owner = index.this_owner(src, f.module)
        dst = index.member(owner, name, arity) if owner is not None else None
        if dst is None and f.language == "java" and len(parts) == 1 and owner is not None:
            dst = enclosing_method(index, owner, name, arity)  # a method of a class around
        if dst is None and f.language == "java" and len(parts) == 1 and name in imports:
            return _call_target(at, written, _unqualified(ref))
        if dst is None and f.language == "java" and len(parts) == 1:
            # ``import static com.ex.Util.*;`` then ``helper()``: a member of that class.
            for alias, spelled in f.imports:
                cls = index.dotted.get(spelled.removesuffix(".*")) if alias == "*" else None
                dst = index.member(cls, name, arity) if cls in index.types and cls else None
                if dst is not None:
                    break
        return dst, TargetKind.INTERNAL if dst else TargetKind.UNRESOLVED
    if len(parts) == 1:
        dst = index.local_member(f, local, name, arity)
        if dst is None and name in imports:
            target = index.import_target(f, imports[name])
            if target is not None and target in index.modules:
                target = index.export_of(target, "default")  # ``const f = require('./f'); f()``
            if target is None and f.language == "java":  # ``import static a.B.m``: B.m
                owner, _, member = imports[name].rpartition(".")
                target = index.member(owner, member, arity) if owner in index.types else None
            if target is not None:
                return target, TargetKind.INTERNAL
            return None, TargetKind.UNRESOLVED if index.is_internal_import(
                f, imports[name]
            ) else TargetKind.EXTERNAL
        if dst is None and f.language == "go":
            # Go: the other files of the package see this file's names without an import.
            dst = index.members.get(src.partition(".")[0], {}).get(name, [None])[0]
        if dst is None:
            dst = index.same_package(f, name) or index.unique(f, name)
        return dst, TargetKind.INTERNAL if dst else TargetKind.UNRESOLVED
    if head == "super" and len(parts) == 2 and f.language == "java":
        # ``super.isAnnotated()``: the method as the super class has it, never this override.
        owner = index.enclosing_type(src)
        found = (index.member(p, name, arity) for p in index.parents.get(owner or "", ()))
        dst = next((d for d in found if d is not None), None)
        return dst, TargetKind.INTERNAL if dst else TargetKind.UNRESOLVED
    if head in local and len(parts) == 2:
        dst = index.member(local[head], name, arity)
        return dst, TargetKind.INTERNAL if dst else TargetKind.UNRESOLVED
    if head in imports and len(parts) == 2:
        module = index.import_target(f, imports[head])
        if module is None:
            internal = index.is_internal_import(f, imports[head])
            return None, TargetKind.UNRESOLVED if internal else TargetKind.EXTERNAL
        dst = index.member(module, name, arity) or index.export_of(module, name)
        if dst is None and js:
            # ``const User = require('./user')`` where ``module.exports = User``: ``User.count``
            # is a property of that export.
            default = index.export_of(module, "default")
            dst = index.member(default, name, arity) if default else None
        return dst, TargetKind.INTERNAL if dst else TargetKind.UNRESOLVED
    if len(parts) == 2 and js and f"{f.module}.{head}" in index.members:
        # ``app.map = function`` earlier in the file, then ``app.map(...)``: the file's object.
        dst = index.member(f"{f.module}.{head}", name, arity)
        return dst, TargetKind.INTERNAL if dst else TargetKind.UNRESOLVED
    if len(parts) == 2 and head[:1].isupper():
        owner = index.same_package(f, head)
        if owner is None and f.language == "go":  # a type of the same Go package
            owner = index.members.get(src.partition(".")[0], {}).get(head, [None])[0]
        if owner is not None:
            dst = index.member(owner, name, arity)
            return dst, TargetKind.INTERNAL if dst else TargetKind.UNRESOLVED
    if len(parts) == 3 and f.language == "go" and head in imports:
        # ``simplelru.LRU.Cap``: a method of a type of an imported package (a typed field).
        module = index.import_target(f, imports[head])
        if module is None:  # ``ctx context.Context``: ``ctx.Done()`` is the library's
            return None, TargetKind.EXTERNAL
        dst = index.member(f"{module}.{parts[1]}", name, arity)
        return dst, TargetKind.INTERNAL if dst else TargetKind.UNRESOLVED
    if len(parts) == 3 and f.language == "java" and head[:1].isupper():
        # ``TextStyle.Builder.get``: a nested type of another type, not any ``Builder``.
        outer = local.get(head) or index.same_package(f, head)
        if outer is None and head in imports:
            outer = index.import_target(f, imports[head])
        nested = f"{outer}.{parts[1]}" if outer else ""
        if nested in index.members:
            dst = index.member(nested, name, arity)
            return dst, TargetKind.INTERNAL if dst else TargetKind.UNRESOLVED
    if "::" in written and f.language == "rust":
        dst = index.rust_path(f, written)
        if dst is not None:
            return dst, TargetKind.INTERNAL
    if "::" in written or head[:1].isupper():
        # A path or a type from outside the repository (``String::new``, ``Math.abs``).
        return None, TargetKind.EXTERNAL
    return None, TargetKind.UNRESOLVED


def _unqualified(ref: Reference) -> Reference:
    """A Java bare call that is no method of the enclosing types: a statically imported one."""
    return Reference(ref.src_qualified_name, RefKind.CALLS, ref.target, ref.line, False, ref.arity)


def _chain_target(chains: Chains, at: _InFile, ref: Reference) -> str | None:
    """A Rust or Java method call through a typed receiver or a chain of calls
    (code_memory.chains)."""

    def bare(name: str) -> str | None:
        # Java: an unqualified call is a call on ``this`` (``writeFieldName(..).value()``).
        return _called_at(at, ref, name, self_call=at.file.language == "java")

    scope = at.index.enclosing_type(ref.src_qualified_name)
    return chains.resolve(at.file, ref.typed or ref.target, ref.arity, bare, scope)


def _java_arguments(chains: Chains, at: _InFile, ref: Reference) -> tuple[str, ...]:
    """The argument types of a Java call, for the choice among its overloads: each type the
    call site shows (a class of the repository by its qualified name); a call of a repository
    method typed by the return type that method declares, a field access by the field's
    declared type (JLS 15.12.3, 15.11.1), where the site does not show a type."""
    index, module = at.index, at.file.module
    scope = index.enclosing_type(ref.src_qualified_name)
    out: list[str] = []
    for n, written in enumerate(ref.arg_types):
        inner = ref.arg_calls[n] if n < len(ref.arg_calls) else None
        typ = ""
        if inner is not None and inner.arity is not None:
            typ = _returned(chains, at, inner)
        elif inner is not None:
            typ = _field_read(chains, module, inner.target, scope)
        out.append(typ or _java_named(chains, module, written, scope))
    return tuple(out)


def _java_named(chains: Chains, module: str, written: str, scope: str | None) -> str:
    """A type as written where ``scope`` is: the repository class it names, else as written."""
    if not written[:1].isupper() or written.endswith(("[]", "...")) or type_variable(written):
        return "" if type_variable(written) else written
    return chains.java_type(module, written, scope) or written


def _returned(chains: Chains, at: _InFile, call: Reference) -> str:
    """The type the repository method ``call`` resolves to declares it returns; "" when it
    resolves to none, returns a type variable, or is one of several overloads that may apply
    whose return types differ."""
    index = at.index
    saved = index.args, index.guessed
    index.args, index.guessed = _java_arguments(chains, at, call), ()
    dst, _ = _call_target(at, call.target, call)
    if dst is None:
        dst = _chain_target(chains, at, call)
    targets = index.guessed if dst in index.guessed else (dst,)
    index.args, index.guessed = saved
    found = set()
    for target in targets:
        if target is None or target in index.types:
            return ""
        name = base_name(target).rsplit(".", 1)[-1]
        written = returns(index.signatures.get(target), name) or ""
        owner = base_name(target).rpartition(".")[0]
        around = owner if owner in index.types else None
        found.add(_java_named(chains, index.module_of.get(target, owner), written, around))
    return found.pop() if len(found) == 1 else ""


def _field_read(chains: Chains, module: str, path: str, scope: str | None) -> str:
    """The declared type of the field a path reads (``this.names``, ``Type.CONSTANT``,
    ``local.field``); "" when it is not known."""
    names = path.split(".")
    owner = chains.java_path(module, names[:-1], scope) if len(names) > 1 else None
    declared = chains.field_declared(owner, names[-1]) if owner is not None else None
    return "" if declared is None or type_variable(declared) else declared


def _go_owner(at: _InFile, ref: Reference) -> str | None:
    """The repository type a Go call is written on (``MapSource.GoString``,
    ``simplelru.LRUCache.Len``), or None."""
    index, imports = at.index, at.imports
    parts = ref.target.split(".")
    if len(parts) == 2 and parts[0][:1].isupper():
        package = ref.src_qualified_name.partition(".")[0]
        return index.members.get(package, {}).get(parts[0], [None])[0]
    if len(parts) == 3 and parts[0] in imports:
        module = index.import_target(at.file, imports[parts[0]])
        return f"{module}.{parts[1]}" if module else None
    return None


def _go_made(interfaces: GoInterfaces, at: _InFile, ref: Reference) -> str | None:
    """Go ``c.frequent.Add`` written ``simplelru.NewLRU().Add`` by the walker (the function
    whose result fills the field): the type that function returns, or None."""
    function, _, _ = (ref.typed or "").partition("().")
    if not function:
        return None
    made = _called_at(at, ref, function)
    return interfaces.result_type(made) if made is not None else None


def _made_target(at: _InFile, ref: Reference) -> str | None:
    """``app.use`` after ``var app = express()``: ``use`` of what the factory's result is made
    of (NameIndex.made_by); ``ky.m`` after ``const ky = new Ky()``: ``Ky.m``; or None."""
    factory, _, member = (ref.typed or "").partition("().")
    if not member:  # ``T.m``: a local made by ``new T(..)``
        return _called_at(at, ref, factory, arity=ref.arity)
    if not factory:
        return None
    made = _called_at(at, ref, factory)
    owner = at.index.made_by(made) if made is not None else None
    return at.index.member(owner, member, ref.arity) if owner is not None else None


def _called_at(
    at: _InFile,
    ref: Reference,
    name: str,
    *,
    self_call: bool = False,
    arity: int | None = None,
) -> str | None:
    """Where a call of ``name`` written where ``ref`` is would land, or None."""
    probe = Reference(ref.src_qualified_name, RefKind.CALLS, name, ref.line, self_call, arity)
    dst, _ = _call_target(at, name, probe)
    return dst


def _dep(
    src: str,
    kind: RefKind,
    written: str,
    dst: str | None,
    line: int,
    target_kind: TargetKind = TargetKind.EXTERNAL,
) -> Dependency:
    if dst is not None:
        return Dependency(src, DepKind(kind), dst, dst, line, TargetKind.INTERNAL)
    return Dependency(src, DepKind(kind), written, None, line, target_kind)


_TOKEN = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def affected_files(
    files: Sequence[FileIndex],
    changed: Mapping[str, tuple[AbstractSet[str], AbstractSet[str]]],
) -> set[str]:
    """The files whose edges a change can move: the changed files themselves, and every file
    with a reference naming an identifier that a changed file defined before or defines now but
    not both (a new, removed or renamed symbol can change where that reference resolves, or
    make a unique name ambiguous). ``changed`` maps a changed or deleted path to its (old, new)
    qualified names. An edit that keeps a file's names (a body edit) affects only that file."""
    names: set[str] = set()
    for old, new in changed.values():
        for q in set(old) ^ set(new):
            names.update(_TOKEN.findall(q.partition("#")[0].partition("@")[0].rsplit(".", 1)[-1]))
    out = set(changed)
    if not names:
        return out
    for f in files:
        if f.path in out:
            continue
        if any(names.intersection(_TOKEN.findall(ref.target)) for ref in f.references):
            out.add(f.path)
    return out
