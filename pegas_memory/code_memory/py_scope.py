"""Which Python files a one-file change must re-analyse, and which files that analysis needs.

Opt-in (`Settings.code_python_scoped`, PEGAS_CODE_PYTHON_SCOPED): by default store_code resolves
every Python file, because this scope is not exact (below; on sqlalchemy an edited test file got
600 extra and 9 missing edges of 1,910 against a whole run).

Python calls are resolved by a points-to analysis over many files (`code_memory.flow`), so a
changed file cannot simply be re-resolved alone. The edges that can move are those of the files
that import it, directly or through others (an importer reads its names, classes and return
values): the *affected* files. Their analysis needs every module they import, transitively (the
*context*), so that the values they read are the ones a whole-repository run computes. The
analysis then runs over affected + context, and only the affected files' edges are rewritten;
the context files' edges stay as stored.

What this leaves out, on purpose: a value the changed file *passes into* a context module (a
callback given to a function of a module it imports) can in principle move that module's edges,
and a value another, unrelated file stores in a shared context module can reach an affected
file. A whole-repository run sees both; this one does not. An index that touches many files
(more than `MAX_SHARE` of the Python files need analysing) is resolved whole anyway, so the
first index and large changes stay exact. Pure logic: no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from pegas_memory.code_memory.model import FileIndex, RefKind

MAX_SHARE = 0.75  # past this share of the Python files, the whole repository is analysed


@dataclass(frozen=True)
class PythonScope:
    """The files whose edges are rewritten, and every file their analysis reads."""

    affected: frozenset[str]
    analysed: frozenset[str]


def imported_modules(f: FileIndex, modules: AbstractSet[str]) -> set[str]:
    """The repository modules a file imports: each import target and its parent packages (an
    import of ``a.b.c`` runs ``a`` and ``a.b`` first; ``from a.b import f`` names ``a.b.f``)."""
    targets = {target for _, target in f.imports}
    targets.update(r.target for r in f.references if r.kind == RefKind.IMPORTS)
    out: set[str] = set()
    for target in targets:
        parts = target.split(".")
        for n in range(1, len(parts) + 1):
            name = ".".join(parts[:n])
            if name in modules:
                out.add(name)
    out.discard(f.module)
    return out


def python_scope(
    files: Sequence[FileIndex], changed: Iterable[str], deleted_modules: Iterable[str] = ()
) -> PythonScope | None:
    """The affected and analysed Python files for a change of the paths in ``changed``;
    ``deleted_modules`` names the modules of deleted files (no longer in ``files``: their
    importers are found by the name). None when nothing Python is touched or the analysis would
    cover more than `MAX_SHARE` of the Python files (then resolve them all)."""
    python = [f for f in files if f.language == "python"]
    by_path = {f.path: f for f in python}
    touched = set(changed)
    touched_modules = {by_path[p].module for p in touched if p in by_path}
    touched_modules |= set(deleted_modules)
    if not touched_modules or not python:
        return None
    modules = {f.module for f in python} | touched_modules
    imports = {f.path: imported_modules(f, modules) for f in python}
    path_of: dict[str, list[str]] = defaultdict(list)
    for f in python:
        path_of[f.module].append(f.path)
    importers: dict[str, set[str]] = defaultdict(set)  # module -> paths importing it
    for path, mods in imports.items():
        for m in mods:
            importers[m].add(path)
    affected = {p for p in touched if p in by_path}
    frontier = list(touched_modules)
    seen_modules = set(frontier)
    while frontier:
        module = frontier.pop()
        for path in importers.get(module, ()):
            if path not in affected:
                affected.add(path)
                m = by_path[path].module
                if m not in seen_modules:
                    seen_modules.add(m)
                    frontier.append(m)
    analysed = set(affected)
    stack = [m for p in affected for m in imports[p]]
    while stack:
        for path in path_of.get(stack.pop(), ()):
            if path not in analysed:
                analysed.add(path)
                stack.extend(imports[path])
    if len(analysed) > MAX_SHARE * len(python):
        return None
    return PythonScope(frozenset(affected), frozenset(analysed))


def sources_of(files: Iterable[FileIndex]) -> Mapping[str, str]:
    """Qualified name -> path of every symbol of the files (the source file of an edge)."""
    return {s.qualified_name: f.path for f in files for s in f.symbols}
