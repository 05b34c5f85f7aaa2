"""Which files an analyzer must index again after a change, and the index that results.

A SCIP document says what every name of one file is bound to, and a type checker binds a name
from the file's own bytes and those of the files it imports, directly or through others. So a
change of some files can move the documents of those files and of the files that depend on
them, transitively (an importer reads their names, classes and inferred return types), and of
no other file. Re-indexing that *slice* and keeping the other documents of the previous run
gives the index a whole run over the same bytes gives (code_memory.analyzer_stage keeps the
previous run's documents in process, with the content hash of every file they were made from).

"Depends on" is read from two places, and their union is used:
- the previous documents: a file depends on every file that defines a symbol it names (an
  import, a call, a type), which is what the checker itself resolved;
- for Python, the imports as written (``py_scope.imported_modules``: a module and its parent
  packages), which also name a module that did not exist before (a new file): its importers
  move with it.
JavaScript and TypeScript imports are module specifiers the compiler resolves (extensions,
index files, path aliases); a file added or removed there is not traced: the whole project is
indexed again.

A slice larger than ``MAX_SHARE`` of the analyzer's files is not worth a partial run (the
checker loads what the slice imports anyway): the whole project is indexed instead.

Pure: documents, file lists and hashes in, path sets and documents out.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from pegas_memory.code_memory.model import FileIndex
from pegas_memory.code_memory.py_scope import imported_modules
from pegas_memory.code_memory.scip import Document

MAX_SHARE = 0.5  # past this share of the analyzer's files, the whole project is indexed


@dataclass(frozen=True, slots=True)
class Snapshot:
    """An analyzer's documents after its last run over a repository, and what they were made
    from: the content hash of each of its files, and (Python) each file's module."""

    tool: str
    version: str
    project_root: str
    digests: Mapping[str, str]
    modules: Mapping[str, str]
    documents: Mapping[str, Document]


@dataclass(frozen=True, slots=True)
class SlicePlan:
    """What to run: ``paths`` whose documents are made again (None: the whole project; a
    path gone from the repository is among them and loses its document), and the files whose
    content differs from the snapshot's (changed, added or gone)."""

    paths: frozenset[str] | None
    changed: frozenset[str]


def depends_on(
    documents: Mapping[str, Document], files: Sequence[FileIndex], gone_modules: Mapping[str, str]
) -> dict[str, set[str]]:
    """Path -> the paths it depends on (see the module doc). ``gone_modules``: path -> module
    of Python files that no longer exist, so that their importers are still found."""
    defined: dict[str, str] = {}
    for path in sorted(documents):
        for occ in documents[path].occurrences:
            if occ.is_definition and not occ.symbol.startswith("local "):
                defined.setdefault(occ.symbol, path)
    out: dict[str, set[str]] = defaultdict(set)
    for path, doc in documents.items():
        mine = out[path]
        for occ in doc.occurrences:
            if not occ.is_definition:
                where = defined.get(occ.symbol)
                if where is not None and where != path:
                    mine.add(where)
    python = [f for f in files if f.language == "python"]
    if python:
        path_of: dict[str, set[str]] = defaultdict(set)
        for f in python:
            path_of[f.module].add(f.path)
        for path, module in gone_modules.items():
            path_of[module].add(path)
        modules = set(path_of)
        for f in python:
            for module in imported_modules(f, modules):
                out[f.path] |= path_of[module] - {f.path}
    return out


def dependents(graph: Mapping[str, AbstractSet[str]], seeds: Iterable[str]) -> set[str]:
    """The seeds and every path that depends on one of them, transitively."""
    reverse: dict[str, set[str]] = defaultdict(set)
    for path, needs in graph.items():
        for need in needs:
            reverse[need].add(path)
    out = set(seeds)
    todo = list(out)
    while todo:
        for path in reverse.get(todo.pop(), ()):
            if path not in out:
                out.add(path)
                todo.append(path)
    return out


def plan_slice(
    snapshot: Snapshot | None,
    files: Sequence[FileIndex],
    digests: Mapping[str, str],
    *,
    python: bool,
) -> SlicePlan:
    """The files to index again (``files``: the analyzer's, as they are now; ``digests``:
    their content hashes): the changed ones and their dependents, or None for all of them (no
    snapshot, a tool that changed, a JavaScript/TypeScript file added or removed, a slice past
    ``MAX_SHARE``)."""
    current = {f.path for f in files}
    if snapshot is None:
        return SlicePlan(None, frozenset(current))
    changed = {p for p in current if snapshot.digests.get(p) != digests.get(p)}
    gone = set(snapshot.digests) - current
    touched = frozenset(changed | gone)
    if not touched:
        return SlicePlan(frozenset(), touched)
    added = current - set(snapshot.digests)
    if not python and (added or gone):
        return SlicePlan(None, touched)
    gone_modules = {p: snapshot.modules[p] for p in gone if p in snapshot.modules}
    graph = depends_on(snapshot.documents, files, gone_modules)
    slice_ = dependents(graph, touched) & current
    if len(slice_) > MAX_SHARE * len(current):
        return SlicePlan(None, touched)
    if python and slice_:
        target = python_target(slice_)
        reach = [p for p in current if target is None or p == target or _under(p, target)]
        if len(reach) > MAX_SHARE * len(current):
            return SlicePlan(None, touched)
    return SlicePlan(frozenset(slice_ | gone), touched)


def python_target(paths: AbstractSet[str]) -> str | None:
    """The one path scip-python's ``--target-only`` is given for ``paths`` (it takes one
    prefix): the file itself, or their deepest common directory; None for the root."""
    if not paths:
        return None
    if len(paths) == 1:
        return next(iter(paths))
    common = posixpath.commonpath([posixpath.dirname(p) for p in paths])
    return common or None


def _under(path: str, directory: str) -> bool:
    return path.startswith(directory.rstrip("/") + "/")


def splice(
    snapshot: Snapshot | None, fresh: Mapping[str, Document], paths: AbstractSet[str] | None
) -> dict[str, Document]:
    """The documents after a run: ``fresh`` whole when ``paths`` is None (a whole run), else
    the snapshot's with the documents of ``paths`` taken from ``fresh`` (a path it has no
    document for has none now)."""
    if paths is None or snapshot is None:
        return dict(fresh)
    out = {p: d for p, d in snapshot.documents.items() if p not in paths}
    out.update((p, fresh[p]) for p in paths if p in fresh)
    return out
