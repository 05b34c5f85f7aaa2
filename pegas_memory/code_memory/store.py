"""The code tables' repository: what store_code writes, planned in pure functions, applied in SQL.

The planning half (`plan_symbols`, `dependency_rows`, `plan_dependencies`) takes and returns frozen
dataclasses and touches no database: it decides which stored rows to keep, update, insert or
delete so that a re-index changes only what really changed. The writing half runs parameterised
SQL on a connection already inside `Database.transaction()`; the outbox triggers of
migrations/0001_init.sql record every row it touches in that same transaction.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pegas_memory.code_memory.graph import Dependency
from pegas_memory.code_memory.model import Provenance, TargetKind
from pegas_memory.code_memory.queries import Q
from pegas_memory.code_memory.symbols import FileIndex, Symbol
from pegas_memory.db.pool import Conn
from pegas_memory.db.repo import set_status
from pegas_memory.models import AtomStatus
from pegas_memory.progress import on_a_clock

MAX_SIGNATURE_CHARS = 2_000
MAX_DOCSTRING_CHARS = 20_000
MAX_DEP_LINES = 20  # call-site lines kept per dependency row
# Rows per COPY statement: each statement stays far inside the statement timeout (a whole
# repository in one COPY, sqlalchemy's 60k symbols with their outbox triggers, ran past 60 s on
# a loaded machine and failed the index), and the caller's `step` runs between them.
COPY_BATCH = 2_000

Step = Callable[[int, int], None]


# --------------------------------------------------------------------------- planning
@dataclass(frozen=True, slots=True)
class StoredSymbol:
    id: int
    path: str
    qualified_name: str
    kind: str
    start_line: int


@dataclass(frozen=True, slots=True)
class SymbolPlan:
    """How to turn the stored symbols of one file into the new ones."""

    inserts: tuple[Symbol, ...]
    updates: tuple[tuple[int, Symbol], ...]
    deletes: tuple[int, ...]
    moved: tuple[int, ...]  # updated ids whose start line changes inside a shared (name, kind)


def plan_symbols(old: Sequence[StoredSymbol], new: Sequence[Symbol]) -> SymbolPlan:
    """Pair stored and new symbols by (qualified name, kind) in line order; the rest is added or
    removed. Duplicates of the unique key (path, qualified name, kind, start line) are dropped."""
    seen: set[tuple[str, str, int]] = set()
    groups_new: dict[tuple[str, str], list[Symbol]] = defaultdict(list)
    for sym in sorted(new, key=lambda s: (s.start_line, s.end_line)):
        unique = (sym.qualified_name, sym.kind, sym.start_line)
        if unique not in seen:
            seen.add(unique)
            groups_new[(sym.qualified_name, sym.kind)].append(sym)
    groups_old: dict[tuple[str, str], list[StoredSymbol]] = defaultdict(list)
    for row in sorted(old, key=lambda r: (r.start_line, r.id)):
        groups_old[(row.qualified_name, row.kind)].append(row)
    inserts: list[Symbol] = []
    updates: list[tuple[int, Symbol]] = []
    deletes: list[int] = []
    moved: list[int] = []
    for key in sorted(set(groups_new) | set(groups_old)):
        olds, news = groups_old.get(key, []), groups_new.get(key, [])
        for row, sym in zip(olds, news, strict=False):
            updates.append((row.id, sym))
            if len(olds) > 1 and row.start_line != sym.start_line:
                moved.append(row.id)
        deletes.extend(row.id for row in olds[len(news) :])
        inserts.extend(news[len(olds) :])
    return SymbolPlan(tuple(inserts), tuple(updates), tuple(deletes), tuple(moved))


@dataclass(frozen=True, slots=True)
class DepRow:
    """One desired pm_code_dependency row (its unique key is the first four fields)."""

    src_id: int
    kind: str
    dst_name: str
    dst_id: int | None
    line: int
    lines: tuple[int, ...]
    target_kind: str
    candidates: int = 1
    provenance: str = Provenance.HEURISTIC
    tool: str | None = None  # the analyzer and its version, on an analyzer edge

    @property
    def key(self) -> tuple[int, str, str, int]:
        return (self.src_id, self.kind, self.dst_name, self.dst_id or 0)

    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"target": self.target_kind, "lines": list(self.lines)}
        if self.dst_id is not None:  # where a resolved edge came from and how sure it is
            meta["provenance"] = self.provenance
            meta["confidence"] = round(1.0 / max(self.candidates, 1), 3)
            if self.candidates > 1:
                meta["candidates"] = self.candidates
        elif self.provenance == Provenance.ANALYZER:
            # a call the type checker saw leave the repository
            meta["provenance"] = self.provenance
        if self.tool is not None:
            meta["analyzer"] = self.tool
        return meta


@dataclass(frozen=True, slots=True)
class StoredDep:
    id: int
    key: tuple[int, str, str, int]
    line: int | None
    metadata: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class DepPlan:
    inserts: tuple[DepRow, ...]
    updates: tuple[tuple[int, DepRow], ...]
    deletes: tuple[int, ...]


def dependency_rows(
    deps: Iterable[Dependency],
    ids: Mapping[str, int],
    rows_built: Callable[[int, int], None] | None = None,
) -> list[DepRow]:
    """Map qualified names to symbol ids and merge the call sites of one (src, kind, dst) edge.
    `rows_built(n, of)` is called on a clock while the merged rows are built (on_a_clock)."""
    merged: dict[tuple[int, str, str, int], list[Any]] = {}
    for dep in deps:
        src = ids.get(dep.src)
        if src is None:  # the resolver only emits sources it was given; keep it safe anyway
            continue
        dst = ids.get(dep.dst) if dep.dst else None
        name = _clean(dep.dst_name, MAX_SIGNATURE_CHARS) or "?"
        key = (src, dep.kind, name, dst or 0)
        target = (
            dep.target_kind
            if dst is not None or dep.target_kind != TargetKind.INTERNAL
            else TargetKind.UNRESOLVED
        )
        entry = merged.setdefault(
            key, [dst, set(), target, dep.candidates, dep.provenance, dep.tool]
        )
        entry[1].add(dep.line)
        entry[3] = min(entry[3], dep.candidates)
        if dep.provenance == Provenance.ANALYZER:
            entry[4], entry[5] = Provenance.ANALYZER, dep.tool
    rows = []
    ordered_edges = sorted(merged.items())
    report = rows_built or (lambda n, of: None)
    built = on_a_clock(ordered_edges, lambda n: report(n, len(ordered_edges)))
    for (src, kind, name, _), (dst, lines, target, candidates, provenance, tool) in built:
        ordered = tuple(sorted(lines))
        rows.append(
            DepRow(
                src,
                kind,
                name,
                dst,
                ordered[0],
                ordered[:MAX_DEP_LINES],
                target,
                candidates,
                provenance,
                tool,
            )
        )
    return rows


def plan_dependencies(old: Sequence[StoredDep], new: Sequence[DepRow]) -> DepPlan:
    """Rows to insert, update (line or call sites moved) and delete to make `old` equal `new`."""
    stored = {d.key: d for d in old}
    wanted = {d.key: d for d in new}
    inserts = tuple(d for k, d in wanted.items() if k not in stored)
    deletes = tuple(d.id for k, d in stored.items() if k not in wanted)
    updates = tuple(
        (stored[k].id, d)
        for k, d in wanted.items()
        if k in stored and (stored[k].line != d.line or dict(stored[k].metadata) != d.metadata())
    )
    return DepPlan(inserts, updates, deletes)


def _clean(text: str | None, limit: int) -> str | None:
    # Postgres text cannot hold NUL; a binary tail after the sniffed head would otherwise abort
    # the whole transaction.
    if text is None:
        return None
    return text.replace("\x00", "")[:limit]


# --------------------------------------------------------------------------- writing
def retire_symbols(conn: Conn, repo: str, doc_id: int, ids: list[int]) -> list[int]:
    """Move citations of disappearing symbols to the repo document and mark their atoms
    stale; then delete the symbols (their dependencies cascade). Returns the stale atoms."""
    if not ids:
        return []
    cited = conn.execute(Q.citations_of_symbols, (ids,)).fetchall()
    reasons: dict[int, list[str]] = defaultdict(list)
    for c in cited:
        where = f"{c['path']}:{c['start_line']}"
        note = f"[removed symbol {c['symbol_id']} {c['qualified_name']} at {where}]"
        conn.execute(Q.move_citation, (doc_id, note, c["id"]))
        if c["status"] != AtomStatus.STALE:
            reasons[int(c["atom_id"])].append(f"{c['qualified_name']} ({where})")
    conn.execute(Q.delete_symbols, (ids,))
    for atom_id, gone in reasons.items():
        set_status(
            conn,
            atom_id,
            AtomStatus.STALE,
            reason=(
                f"cited code symbol {', '.join(gone)} disappeared when repository {repo!r} "
                "was re-indexed; re-check the claim against the current code"
            )[:2000],
            check_name="code_reindex",
        )
    return sorted(reasons)


def write_symbols(
    conn: Conn,
    repo: str,
    digests: Mapping[str, str],
    inserts: Sequence[Symbol],
    updates: Sequence[tuple[int, Symbol]],
    moved: Sequence[int],
    step: Step | None = None,
) -> int:
    """Update the paired symbols where something differs (one statement over arrays) and insert
    the new ones (COPY in batches, `step(done, total)` after each; the outbox triggers still fire
    per row). Returns the number of rows really updated."""
    updated = 0
    if moved:
        # Two symbols of one name swapping lines would collide on the unique key mid-update.
        conn.execute(Q.park_moved_symbols, (list(moved),))
    if updates:
        rows = [(i, *_symbol_values(s, digests)) for i, s in updates]
        columns = [list(column) for column in zip(*rows, strict=True)]  # one array per column
        cur = conn.execute(Q.update_symbols, columns)
        updated = max(0, cur.rowcount)
    for start in range(0, len(inserts), COPY_BATCH):
        with (
            conn.cursor() as cur,
            cur.copy(Q.copy_symbols) as copy,
        ):
            for s in inserts[start : start + COPY_BATCH]:
                copy.write_row(
                    (repo, s.path, s.qualified_name, s.kind, *_symbol_values(s, digests))
                )
        if step is not None:
            step(min(len(inserts), start + COPY_BATCH), len(inserts))
    return updated


def write_files(
    conn: Conn,
    repo: str,
    changed: Sequence[FileIndex],
    digests: Mapping[str, str],
    deleted: Sequence[str],
) -> None:
    if deleted:
        conn.execute(Q.delete_files, (repo, list(deleted)))
    if changed:
        with conn.cursor() as cur:
            cur.executemany(
                Q.upsert_file,
                [
                    (
                        repo,
                        f.path,
                        f.language,
                        f.module,
                        digests[f.path],
                        f.has_errors,
                        len(f.symbols),
                    )
                    for f in changed
                ],
            )


def write_dependencies(conn: Conn, repo: str, plan: DepPlan, step: Step | None = None) -> None:
    if plan.deletes:
        conn.execute(Q.delete_dependencies, (list(plan.deletes),))
    if plan.updates:
        conn.execute(
            Q.update_dependencies,
            (
                [i for i, _ in plan.updates],
                [d.line for _, d in plan.updates],
                [json.dumps(d.metadata()) for _, d in plan.updates],
            ),
        )
    inserts = plan.inserts
    for start in range(0, len(inserts), COPY_BATCH):
        with (
            conn.cursor() as cur,
            cur.copy(Q.copy_dependencies) as copy,
        ):
            for d in inserts[start : start + COPY_BATCH]:
                copy.write_row(
                    (repo, d.src_id, d.dst_id, d.dst_name, d.kind, d.line, json.dumps(d.metadata()))
                )
        if step is not None:
            step(min(len(inserts), start + COPY_BATCH), len(inserts))


def _symbol_values(s: Symbol, digests: Mapping[str, str]) -> tuple[Any, ...]:
    return (
        s.language,
        _clean(s.name, MAX_SIGNATURE_CHARS),
        _clean(s.signature, MAX_SIGNATURE_CHARS),
        _clean(s.docstring, MAX_DOCSTRING_CHARS),
        max(0, s.start_line),
        max(0, s.end_line),
        digests.get(s.path),
    )


# --------------------------------------------------------------------------- reading back
EdgeRow = tuple[str, str, str, str | None, int | None, str]
"""A dependency row by names: source, kind, target as written, target symbol (None: outside the
repository), line, metadata as JSON text."""


def repo_edges(conn: Conn, repo: str) -> set[EdgeRow]:
    """Every dependency row of ``repo`` by names, ids left out: two indexes of the same bytes
    give the same set (the re-index tests and bench/bench_code_analyzers.py compare them)."""
    return {
        (r["src"], r["kind"], r["dst_name"], r["dst"], r["line"], r["meta"])
        for r in conn.execute(Q.repo_edges, (repo,)).fetchall()
    }
