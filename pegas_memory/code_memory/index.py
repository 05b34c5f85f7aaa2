"""Code memory: index source trees into Postgres, incrementally, and serve the three code tools.

`CodeMemory.store_code` walks a file, a directory or a repository root (only under the ingest
roots), extracts symbols with tree-sitter (`code_symbols`), resolves dependencies across the whole
repository (`code_graph`) and writes `pm_code_symbol` / `pm_code_dependency` in one transaction;
the outbox triggers carry every change to the graph slice. Search and graph queries live in
`codequery`; `CodeMemory` is the one object the MCP layer needs.

Choices a newcomer may question:
- Incremental by file content hash (`pm_code_file`). Unchanged files are not rewritten, but the
  resolver needs every file of the repository, so their `FileIndex` is rebuilt: from an in-process
  cache keyed by (path, hash), else by re-parsing the bytes (about 15 ms a file). Storing the
  resolver's facts in Postgres would tie the schema to the extractor's internal types. When
  nothing changed, nothing is parsed or resolved at all.
- A change re-resolves only what it can move: for the languages resolved by name, the files
  naming an identifier it added or removed (`graph.affected_files`); for Python, whose calls
  come from a points-to analysis over many files, every Python file (the changed files and
  their importers only when PEGAS_CODE_PYTHON_SCOPED asks for it: `py_scope`, not exact). Only
  those files' edges are read and rewritten; a first index, or a large change, is whole.
- Symbols are matched to their stored rows by (path, qualified name, kind, order), not deleted and
  re-inserted: an edited file keeps its symbol ids, so citations and the edges of other files stay
  put and the outbox sees only real changes.
- A citation whose symbol disappears is moved to the repository's `code_repo` document with a
  locator naming the lost symbol (the row would otherwise violate the citation CHECK), and its
  atom is marked stale with the reason.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from pegas_memory.code_memory.analyzer_cache import SnapshotCache
from pegas_memory.code_memory.analyzer_stage import (
    AnalyzerRunOut,
    overlay_analyzers,
    run_analyzers,
)
from pegas_memory.code_memory.analyzers import find_analyzers
from pegas_memory.code_memory.doc_cites import RepoDocsOut
from pegas_memory.code_memory.file_cache import IndexCache
from pegas_memory.code_memory.graph import Dependency, affected_files, resolve
from pegas_memory.code_memory.model import SymbolKind
from pegas_memory.code_memory.py_scope import python_scope, sources_of
from pegas_memory.code_memory.queries import Q
from pegas_memory.code_memory.query import CodeGraphResult, CodeQuery, CodeSearchResult
from pegas_memory.code_memory.repo_files import count_source_files, workspace_roots
from pegas_memory.code_memory.store import (
    StoredDep,
    StoredSymbol,
    dependency_rows,
    plan_dependencies,
    plan_symbols,
    retire_symbols,
    write_dependencies,
    write_files,
    write_symbols,
)
from pegas_memory.code_memory.symbols import (
    FileIndex,
    Symbol,
    extract_file,
    iter_source_files,
    language_for,
)
from pegas_memory.config import Settings
from pegas_memory.db.pool import Conn, Database
from pegas_memory.db.repo import DocumentInput, upsert_document
from pegas_memory.errors import InvalidInput, LimitExceeded, SecurityRefused
from pegas_memory.ingest.netguard import check_path, ingest_roots, resolve_under_roots
from pegas_memory.outbox.slices import Engines
from pegas_memory.progress import on_a_clock
from pegas_memory.text import raw_hash

if TYPE_CHECKING:
    from pegas_memory.code_memory.requests import CodeGraphRequest, CodeSearchRequest

Progress = Callable[[float, float, str], None]
Check = Callable[[], None]
"""Called at every step of an index; raises (LimitExceeded for a deadline, a cancel) to stop it.
The transaction is rolled back then: nothing of the stopped index stays written or open."""

MAX_REPO_NAME = 200
MAX_PATH_CHARS = 4_096
MAX_WARNINGS = 50


class StoreCodeResult(BaseModel):
    """What memory_store_code did to one repository."""

    repo: str
    root: str = Field(description="repository root on disk; paths are relative to it")
    files_seen: int = Field(description="source files found under the given path")
    files_changed: int = Field(description="files (re-)extracted: new or with a new content hash")
    files_deleted: int = Field(description="files indexed before and gone now")
    files_skipped: int = Field(
        description="source files not indexed: vendored, generated, binary, .gitignored, too large"
    )
    symbols_added: int
    symbols_updated: int
    symbols_removed: int
    symbols_total: int
    dependencies: int = Field(description="dependency rows of the repository after this call")
    dependencies_added: int
    dependencies_removed: int
    unresolved: int = Field(description="dependencies whose target is outside the repository")
    stale_atoms: list[int] = Field(
        default_factory=list, description="atoms marked stale because a cited symbol disappeared"
    )
    seconds: float
    warnings: list[str] = Field(default_factory=list)
    analyzers: list[AnalyzerRunOut] = Field(
        default_factory=list,
        description="the type-checker analyzers run (PEGAS_CODE_ANALYZER=auto): each with "
        "how many call lines it decided; a failed one left the heuristic's edges",
    )
    docs: RepoDocsOut | None = Field(
        default=None, description="with docs=true: the README and docs ingested, code cited"
    )


# --------------------------------------------------------------------------- targets
@dataclass(frozen=True, slots=True)
class _Target:
    repo: str
    root: Path
    scope: Path
    is_file: bool

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    @property
    def scope_prefix(self) -> str:
        """Repository-relative prefix of the scope ("" for the whole repository)."""
        rel = self.scope.relative_to(self.root).as_posix()
        return "" if rel == "." else rel


@dataclass(frozen=True, slots=True)
class _Source:
    """A file of the scope, hashed when listed; its bytes are not kept (files are streamed: read
    to hash, read again only when extracted, then dropped). A file rewritten between the two
    reads is extracted from its new bytes under the old digest, so the next index sees a
    changed hash and extracts it once more."""

    rel: str
    path: Path
    digest: str

    def read(self) -> bytes:
        return self.path.read_bytes()


class CodeMemory:
    """The service layer of memory_store_code, memory_search_code and memory_code_graph."""

    def __init__(
        self,
        settings: Settings,
        db: Database,
        runtime: Engines,
        *,
        max_files: int = 20_000,
        max_file_bytes: int = 1_000_000,
        cache_files: int = 20_000,
    ) -> None:
        self.settings = settings
        self.db = db
        self.runtime = runtime
        self.max_files = max_files
        self.max_file_bytes = max_file_bytes
        self._cache = IndexCache(cache_files)
        self._analyzer_cache = SnapshotCache()  # the analyzers' last runs (PostgreSQL, in process)
        self.query = CodeQuery(db, runtime)

    # ------------------------------------------------------------------ memory_search_code
    def search_code(self, request: CodeSearchRequest) -> CodeSearchResult:
        """Lexical search over symbols; see `CodeQuery.search`."""
        return self.query.search(request)

    # ------------------------------------------------------------------ memory_code_graph
    def code_graph(self, request: CodeGraphRequest) -> CodeGraphResult:
        """Callers, callees, imports and inheritance around a symbol; see `CodeQuery.graph`."""
        return self.query.graph(request)

    # ------------------------------------------------------------------ memory_store_code
    def store_code(
        self,
        path: str,
        *,
        repo: str | None = None,
        progress: Progress | None = None,
        force: bool = False,
        check: Check | None = None,
    ) -> StoreCodeResult:
        """Index a file, a directory or a repository root, incrementally (see the module doc).

        `force` compares every file in scope as if changed (after an upgrade of the extractor,
        whose output may differ for the same bytes).
        Raises SecurityRefused (outside the ingest roots), IngestError (no such path), InvalidInput
        (bad repo name, repo rooted elsewhere), LimitExceeded (too many files); writes nothing
        then. `check`, when given, is called at every step (each file, each batch of resolution
        work, each write); whatever it raises stops the index and rolls its transaction back."""
        started = time.monotonic()
        report = progress or (lambda done, total, message: None)

        def say(done: float, total: float, message: str) -> None:
            if check is not None:
                check()
            report(done, total, message)

        if repo is not None:
            repo = repo.strip()
            if not repo or len(repo) > MAX_REPO_NAME or "\x00" in repo:
                raise InvalidInput(
                    f"repo must be a name of 1 to {MAX_REPO_NAME} characters without NUL; "
                    "omit it to use the directory name"
                )
        if not path or len(path) > MAX_PATH_CHARS or "\x00" in path:
            raise InvalidInput("path must be a file or directory path without NUL characters")
        scope = self._resolve_path(path)
        target = self._target(scope, repo)
        warnings: list[str] = []
        sources, skipped = self._read_scope(target, warnings, say)
        say(0, max(1, len(sources)), f"read {len(sources)} files of {target.repo}")
        with self.db.transaction() as conn:
            conn.execute(Q.lock_repo, (f"pm_code_repo:{target.repo}",))
            doc_id = self._ensure_repo(conn, target)
            result = self._sync(conn, target, doc_id, sources, force, say, warnings)
        result.files_skipped = skipped
        result.seconds = round(time.monotonic() - started, 3)
        if len(warnings) > MAX_WARNINGS:
            warnings[MAX_WARNINGS:] = [f"... and {len(warnings) - MAX_WARNINGS} more warnings"]
        result.warnings = warnings
        say(1, 1, f"indexed {target.repo}: {result.files_changed} files changed")
        return result

    def _resolve_path(self, path: str) -> Path:
        """The resolved file or directory, which must lie under an ingest root (symlinks and `..`
        resolved first); a file must also pass netguard.check_path."""
        resolved = resolve_under_roots(path, self.settings, "file or directory")
        return resolved if resolved.is_dir() else check_path(resolved, self.settings)

    def _target(self, scope: Path, repo: str | None) -> _Target:
        with self.db.connection() as conn:
            known = {r["name"]: Path(r["root"]) for r in conn.execute(Q.repo_roots).fetchall()}
        is_file = scope.is_file()
        if repo is None:
            owners = [
                (len(root.parts), name)
                for name, root in known.items()
                if scope == root or scope.is_relative_to(root)
            ]
            if owners:
                repo = max(owners)[1]
            else:
                root = scope.parent if is_file else scope
                repo = root.name or "root"
                if repo in known and known[repo] != root:
                    raise InvalidInput(
                        f"a repository named {repo!r} is already indexed from {known[repo]}; "
                        f"pass repo='<another name>' to index {root} separately"
                    )
        root = known.get(repo) or (scope.parent if is_file else scope)
        if not (scope == root or scope.is_relative_to(root)):
            raise InvalidInput(
                f"repo {repo!r} is rooted at {root} and {scope} is outside it; index it under "
                "another repo name"
            )
        if not any(root == r or root.is_relative_to(r) for r in ingest_roots(self.settings)):
            raise SecurityRefused(
                f"repo {repo!r} is rooted at {root}, outside the ingest roots; index it under "
                "another repo name or add its folder to PEGAS_INGEST_ROOTS"
            )
        return _Target(repo=repo, root=root, scope=scope, is_file=is_file)

    def _read_scope(
        self, target: _Target, warnings: list[str], say: Progress
    ) -> tuple[list[_Source], int]:
        """The indexable files of the scope, read and hashed, and the number skipped."""
        if target.is_file:
            data = target.scope.read_bytes()
            if language_for(target.scope) is None or b"\x00" in data[:8192]:
                warnings.append(
                    f"{target.rel(target.scope)}: not a source file of a supported "
                    "language (or binary); skipped"
                )
                return [], 1
            if len(data) > self.max_file_bytes:
                raise LimitExceeded(
                    f"{target.scope} has {len(data):,} bytes, over the {self.max_file_bytes:,} "
                    "bytes a source file may have"
                )
            return [_Source(target.rel(target.scope), target.scope, raw_hash(data))], 0
        sources: list[_Source] = []
        for file in iter_source_files(target.scope, max_file_bytes=self.max_file_bytes):
            if len(sources) % 200 == 0:
                say(0, 1, f"reading files: {len(sources)} so far")
            if len(sources) >= self.max_files:
                raise LimitExceeded(
                    f"{target.scope} holds more than {self.max_files:,} source files; index a "
                    "subdirectory at a time"
                )
            try:
                data = file.read_bytes()
            except OSError as exc:
                warnings.append(f"{target.rel(file)}: unreadable ({exc.strerror}); skipped")
                continue
            sources.append(_Source(target.rel(file), file, raw_hash(data)))
            del data
        return sources, max(0, count_source_files(target.scope) - len(sources))

    def _ensure_repo(self, conn: Conn, target: _Target) -> int:
        row = conn.execute(Q.repo_document, (target.repo,)).fetchone()
        if row and row["doc_id"] is not None:
            return int(row["doc_id"])
        doc_id, _ = upsert_document(
            conn,
            DocumentInput(
                kind="code_repo",
                uri=target.root.as_uri(),
                content_hash=raw_hash(f"code_repo:{target.repo}".encode()),
                title=target.repo,
                metadata={"repo": target.repo},
            ),
        )
        conn.execute(Q.upsert_repo, (target.repo, str(target.root), doc_id))
        return doc_id

    # ------------------------------------------------------------------ the sync
    def _sync(
        self,
        conn: Conn,
        target: _Target,
        doc_id: int,
        sources: list[_Source],
        force: bool,
        say: Progress,
        warnings: list[str],
    ) -> StoreCodeResult:
        repo = target.repo
        stored = {
            r["path"]: r["content_hash"] for r in conn.execute(Q.file_hashes, (repo,)).fetchall()
        }
        prefix = target.scope_prefix
        in_scope = {s.rel: s for s in sources}
        changed = [s for s in sources if force or stored.get(s.rel) != s.digest]
        deleted = [p for p in stored if p not in in_scope and _under(p, prefix, target.is_file)]
        result = StoreCodeResult(
            repo=repo,
            root=str(target.root),
            files_seen=len(sources),
            files_changed=0,
            files_deleted=0,
            files_skipped=0,
            symbols_added=0,
            symbols_updated=0,
            symbols_removed=0,
            symbols_total=0,
            dependencies=0,
            dependencies_added=0,
            dependencies_removed=0,
            unresolved=0,
            seconds=0.0,
        )
        if changed or deleted:
            # The resolver needs every file of the repository: re-read the indexed files outside
            # the scope; any that changed or vanished on disk is brought up to date as well.
            outside = self._read_outside(target, stored, in_scope, warnings)
            for rel in sorted(set(stored) - set(in_scope) - set(deleted)):
                src = outside.get(rel)
                if src is None:
                    deleted.append(rel)
                elif src.digest != stored[rel]:
                    changed.append(src)
            everything = list(in_scope.values()) + list(outside.values())
            self._apply(conn, target, doc_id, everything, changed, deleted, say, warnings, result)
        counts = conn.execute(Q.repo_counts, {"r": repo}).fetchone()
        assert counts is not None
        result.symbols_total = int(counts["symbols"])
        result.dependencies = int(counts["deps"])
        result.unresolved = int(counts["unresolved"])
        conn.execute(Q.mark_indexed, (repo,))
        return result

    def _read_outside(
        self,
        target: _Target,
        stored: Mapping[str, str],
        in_scope: Mapping[str, _Source],
        warnings: list[str],
    ) -> dict[str, _Source]:
        out: dict[str, _Source] = {}
        drifted = 0
        for rel in sorted(set(stored) - set(in_scope)):
            if _under(rel, target.scope_prefix, target.is_file):
                continue
            file = target.root / rel
            try:
                if file.is_symlink() or not file.is_file():
                    continue
                data = file.read_bytes()
            except OSError:
                continue
            out[rel] = _Source(rel, file, raw_hash(data))
            drifted += out[rel].digest != stored[rel]
        if drifted:
            warnings.append(
                f"{drifted} indexed files outside {target.scope} had changed on disk and were "
                "re-indexed too (dependencies are resolved across the whole repository)"
            )
        return out

    def _apply(
        self,
        conn: Conn,
        target: _Target,
        doc_id: int,
        everything: list[_Source],
        changed: list[_Source],
        deleted: list[str],
        say: Progress,
        warnings: list[str],
        result: StoreCodeResult,
    ) -> None:
        repo = target.repo
        changed_paths = {s.rel for s in changed}
        total = len(everything) + 2
        indexes = self._extract(everything, changed_paths, say, total, warnings)
        old_rows = conn.execute(
            Q.symbols_of_paths, (repo, sorted(changed_paths | set(deleted)))
        ).fetchall()
        old_by_path: dict[str, list[StoredSymbol]] = defaultdict(list)
        for r in old_rows:
            old_by_path[r["path"]].append(
                StoredSymbol(r["id"], r["path"], r["qualified_name"], r["kind"], r["start_line"])
            )
        removed = [s.id for p in deleted for s in old_by_path.get(p, [])]
        inserts: list[Symbol] = []
        updates: list[tuple[int, Symbol]] = []
        moved: list[int] = []
        for src in changed:
            plan = plan_symbols(old_by_path.get(src.rel, []), indexes[src.rel].symbols)
            inserts.extend(plan.inserts)
            updates.extend(plan.updates)
            removed.extend(plan.deletes)
            moved.extend(plan.moved)
        say(len(everything), total, "writing symbols")
        crates = workspace_roots(target.root, [s.rel for s in everything])
        result.stale_atoms = retire_symbols(conn, repo, doc_id, removed)
        digests = {s.rel: s.digest for s in everything}
        updated = write_symbols(
            conn,
            repo,
            digests,
            inserts,
            updates,
            moved,
            lambda k, n: say(len(everything), total, f"writing symbols: {k} of {n}"),
        )
        write_files(conn, repo, [indexes[s.rel] for s in changed], digests, deleted)
        result.files_changed = len(changed)
        result.files_deleted = len(deleted)
        result.symbols_added = len(inserts)
        result.symbols_updated = updated
        result.symbols_removed = len(removed)

        say(len(everything) + 1, total, "resolving dependencies")
        ids: dict[str, int] = {}
        for r in conn.execute(Q.symbol_ids_by_name, (repo,)).fetchall():
            ids.setdefault(r["qualified_name"], int(r["id"]))  # first definition wins

        def step(done: int, work: int, message: str) -> None:
            say(len(everything) + done / max(work, 1), total, message)

        scope = self._resolution_scope(indexes, changed, deleted, old_by_path)
        py_scoped = self.settings.code_python_scoped  # opt-in: not exact (see py_scope)
        python = {rel for rel, f in indexes.items() if f.language == "python"}
        analyzers = find_analyzers(
            self.settings.code_analyzer,
            self.settings.code_analyzer_path,
            self.settings.code_analyzer_heap_mb,
        )
        analyzed = None
        if analyzers:
            # Before the heuristic: the files whose analyzer answers a change moved (an
            # importer of a changed file) are resolved and rewritten with the scope.
            touched = changed_paths | set(deleted)
            analyzed = run_analyzers(
                list(indexes.values()),
                target.root,
                analyzers,
                gate=None if scope is None else (scope - python) | touched,
                touched=touched,
                digests=digests,
                cache=self._analyzer_cache.bind(conn, repo),
                timeout=self.settings.code_analyzer_timeout,
                say=lambda message: say(len(everything) + 1, total, message),
                warnings=warnings,
            )
            if scope is not None:
                shifted = analyzed.moved
                if shifted is None:
                    ran = {lang for r in analyzed.ran for lang in r.analyzer.languages}
                    shifted = {rel for rel, f in indexes.items() if f.language in ran}
                scope |= shifted - python
        deps, scoped_python = self._resolve(
            indexes, scope, changed, deleted, old_by_path, crates, step, py_scoped
        )
        if analyzed is not None:
            deps, result.analyzers = overlay_analyzers(
                deps, analyzed, say=lambda message: say(len(everything) + 1, total, message)
            )

        def planning(what: str) -> Callable[[int, int], None]:  # on a clock: 300k edges
            return lambda n, of: say(len(everything) + 1, total, f"planning: {what} {n} of {of}")

        edges, mapping = len(deps), planning("edges mapped")
        stored_read = planning("stored edges read")
        say(len(everything) + 1, total, f"planning dependencies: mapping {edges} edges")
        mapped = on_a_clock(deps, lambda n: mapping(n, edges))
        wanted = dependency_rows(mapped, ids, planning("rows built"))
        del deps
        if scope is None:
            stored_rows = conn.execute(Q.stored_dependencies, (repo,)).fetchall()
        else:
            # Only the edges leaving the re-resolved files are compared and rewritten.
            scoped = sorted((scope - python) | scoped_python)
            src_ids = [int(r["id"]) for r in conn.execute(Q.symbol_ids_of_paths, (repo, scoped))]
            keep = set(src_ids)
            wanted = [d for d in wanted if d.src_id in keep]
            stored_rows = conn.execute(Q.stored_dependencies_from, (repo, src_ids)).fetchall()
        old_deps = [
            StoredDep(
                int(r["id"]),
                (int(r["src_symbol_id"]), r["kind"], r["dst_name"], int(r["dst_symbol_id"] or 0)),
                r["line"],
                r["metadata"] or {},
            )
            for r in on_a_clock(stored_rows, lambda n: stored_read(n, len(stored_rows)))
        ]
        say(len(everything) + 1, total, f"planning dependencies: comparing {len(wanted)} edges")
        dep_plan = plan_dependencies(old_deps, wanted)
        say(len(everything) + 1, total, "writing dependencies")
        write_dependencies(
            conn,
            repo,
            dep_plan,
            lambda k, n: say(len(everything) + 1, total, f"writing dependencies: {k} of {n}"),
        )
        result.dependencies_added = len(dep_plan.inserts)
        result.dependencies_removed = len(dep_plan.deletes)

    def _extract(
        self,
        everything: Sequence[_Source],
        changed_paths: set[str],
        say: Progress,
        total: int,
        warnings: list[str],
    ) -> dict[str, FileIndex]:
        """Every file's index (kept by content digest, extracted when new); an unreadable file is
        indexed as empty and said in `warnings`, as is a changed file with syntax errors."""
        indexes: dict[str, FileIndex] = {}
        for n, src in enumerate(everything, start=1):
            say(n, total, f"extracting symbols: file {n} of {len(everything)}")
            try:
                index, _ = self._cache.get(src.rel, src.digest, src.read)
            except OSError as exc:
                # Vanished or unreadable since it was hashed: index it as empty this time.
                warnings.append(f"{src.rel}: unreadable ({exc.strerror}); indexed as empty")
                index = extract_file(src.rel, b"")
            indexes[src.rel] = index
            if src.rel in changed_paths and index.has_errors:
                warnings.append(f"{src.rel}: syntax errors; symbols were recovered partially")
        return indexes

    @staticmethod
    def _resolve(
        indexes: Mapping[str, FileIndex],
        scope: set[str] | None,
        changed: Sequence[_Source],
        deleted: Sequence[str],
        old_by_path: Mapping[str, Sequence[StoredSymbol]],
        crates: Mapping[str, str],
        step: Callable[[int, int, str], None],
        scoped_python: bool = False,
    ) -> tuple[list[Dependency], set[str]]:
        """The edges to compare with the stored ones, and the Python files they cover.

        With no scope, everything is resolved. Otherwise the other languages are resolved for
        the scope's files, and Python for the files a change of Python can move
        (`py_scope.python_scope`: the changed files and their importers, analysed together with
        what they import) when ``scoped_python`` (PEGAS_CODE_PYTHON_SCOPED; not exact, see
        py_scope), else all of them; a change without Python leaves the Python edges alone."""
        files = list(indexes.values())
        if scope is None:
            return resolve(files, crates=crates, step=step), set()
        python = [f for f in files if f.language == "python"]
        others = [f for f in files if f.language != "python"]
        deps = resolve(others, crates=crates, step=step, only=scope) if others else []
        touched = [s.rel for s in changed if s.rel.endswith(".py")] + [
            p for p in deleted if p.endswith(".py")
        ]
        if not touched or not python:
            return deps, set()
        gone = [
            s.qualified_name
            for p in deleted
            for s in old_by_path.get(p, ())
            if s.kind == SymbolKind.MODULE
        ]
        plan = python_scope(python, touched, gone) if scoped_python else None
        if plan is None:
            return deps + resolve(python, step=step), {f.path for f in python}
        analysed = [f for f in python if f.path in plan.analysed]
        source = sources_of(f for f in python if f.path in plan.affected)
        deps += [d for d in resolve(analysed, step=step) if d.src in source]
        return deps, set(plan.affected)

    @staticmethod
    def _resolution_scope(
        indexes: Mapping[str, FileIndex],
        changed: Sequence[_Source],
        deleted: Sequence[str],
        old_by_path: Mapping[str, Sequence[StoredSymbol]],
    ) -> set[str] | None:
        """The files to re-resolve (see `graph.affected_files`), None for all of them: a first
        index, or a change touching more than a quarter of the files, is resolved whole."""
        touched = [s.rel for s in changed] + list(deleted)
        if not old_by_path or len(touched) * 4 > max(len(indexes), 1):
            return None
        names = {
            rel: (
                {s.qualified_name for s in old_by_path.get(rel, ())},
                {s.qualified_name for s in indexes[rel].symbols} if rel in indexes else set(),
            )
            for rel in touched
        }
        return affected_files(list(indexes.values()), names)


def _under(rel: str, prefix: str, exact: bool) -> bool:
    """Whether a repository-relative path lies in the scope given by `prefix`."""
    if exact:
        return rel == prefix
    return not prefix or rel == prefix or rel.startswith(prefix + "/")


__all__ = ["CodeGraphResult", "CodeMemory", "CodeSearchResult", "StoreCodeResult"]
