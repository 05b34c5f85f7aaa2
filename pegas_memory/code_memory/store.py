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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pegas_memory.code_memory.graph import Dependency
from pegas_memory.code_memory.symbols import FileIndex, Symbol
from pegas_memory.db.pool import Conn
from pegas_memory.db.repo import set_status

MAX_SIGNATURE_CHARS = 2_000
MAX_DOCSTRING_CHARS = 20_000
MAX_DEP_LINES = 20  # call-site lines kept per dependency row


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

    @property
    def key(self) -> tuple[int, str, str, int]:
        return (self.src_id, self.kind, self.dst_name, self.dst_id or 0)

    def metadata(self) -> dict[str, Any]:
        return {"target": self.target_kind, "lines": list(self.lines)}


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


def dependency_rows(deps: Iterable[Dependency], ids: Mapping[str, int]) -> list[DepRow]:
    """Map qualified names to symbol ids and merge the call sites of one (src, kind, dst) edge."""
    merged: dict[tuple[int, str, str, int], list[Any]] = {}
    for dep in deps:
        src = ids.get(dep.src)
        if src is None:  # the resolver only emits sources it was given; keep it safe anyway
            continue
        dst = ids.get(dep.dst) if dep.dst else None
        name = _clean(dep.dst_name, MAX_SIGNATURE_CHARS) or "?"
        key = (src, dep.kind, name, dst or 0)
        target = (
            dep.target_kind if dst is not None or dep.target_kind != "internal" else "unresolved"
        )
        entry = merged.setdefault(key, [dst, set(), target])
        entry[1].add(dep.line)
    rows = []
    for (src, kind, name, _), (dst, lines, target) in sorted(merged.items()):
        ordered = tuple(sorted(lines))
        rows.append(DepRow(src, kind, name, dst, ordered[0], ordered[:MAX_DEP_LINES], target))
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
    cited = conn.execute(
        """SELECT c.id, c.atom_id, s.id AS symbol_id, s.path, s.qualified_name, s.start_line,
                  a.status
             FROM pm_citation c
             JOIN pm_code_symbol s ON s.id = c.code_symbol_id
             JOIN pm_atom a ON a.id = c.atom_id
            WHERE c.code_symbol_id = ANY(%s)
            ORDER BY c.atom_id, c.id""",
        (ids,),
    ).fetchall()
    reasons: dict[int, list[str]] = defaultdict(list)
    for c in cited:
        where = f"{c['path']}:{c['start_line']}"
        note = f"[removed symbol {c['symbol_id']} {c['qualified_name']} at {where}]"
        conn.execute(
            """UPDATE pm_citation
                  SET doc_id = coalesce(doc_id, %s),
                      locator = left(btrim(locator || ' ' || %s), 500)
                WHERE id = %s""",
            (doc_id, note, c["id"]),
        )
        if c["status"] != "stale":
            reasons[int(c["atom_id"])].append(f"{c['qualified_name']} ({where})")
    conn.execute("DELETE FROM pm_code_symbol WHERE id = ANY(%s)", (ids,))
    for atom_id, gone in reasons.items():
        set_status(
            conn,
            atom_id,
            "stale",
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
) -> int:
    """Update the paired symbols where something differs (one statement over arrays) and insert
    the new ones (COPY; the outbox triggers still fire per row). Returns the number of rows really
    updated."""
    updated = 0
    if moved:
        # Two symbols of one name swapping lines would collide on the unique key mid-update.
        conn.execute(
            "UPDATE pm_code_symbol SET start_line = -id::integer WHERE id = ANY(%s)",
            (list(moved),),
        )
    if updates:
        rows = [(i, *_symbol_values(s, digests)) for i, s in updates]
        columns = [list(column) for column in zip(*rows, strict=True)]  # one array per column
        cur = conn.execute(
            """UPDATE pm_code_symbol AS s
                  SET language = v.language, name = v.name, signature = v.signature,
                      docstring = v.docstring, start_line = v.start_line,
                      end_line = v.end_line, file_hash = v.file_hash
                 FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[],
                             %s::integer[], %s::integer[], %s::text[])
                      AS v(id, language, name, signature, docstring, start_line, end_line,
                           file_hash)
                WHERE s.id = v.id
                  AND (s.language, s.name, s.signature, s.docstring, s.start_line, s.end_line,
                       s.file_hash)
                      IS DISTINCT FROM (v.language, v.name, v.signature, v.docstring,
                                        v.start_line, v.end_line, v.file_hash)""",
            columns,
        )
        updated = max(0, cur.rowcount)
    if inserts:
        with (
            conn.cursor() as cur,
            cur.copy(
                """COPY pm_code_symbol (repo, path, qualified_name, kind, language, name,
                   signature, docstring, start_line, end_line, file_hash) FROM STDIN"""
            ) as copy,
        ):
            for s in inserts:
                copy.write_row(
                    (repo, s.path, s.qualified_name, s.kind, *_symbol_values(s, digests))
                )
    return updated


def write_files(
    conn: Conn,
    repo: str,
    changed: Sequence[FileIndex],
    digests: Mapping[str, str],
    deleted: Sequence[str],
) -> None:
    if deleted:
        conn.execute(
            "DELETE FROM pm_code_file WHERE repo = %s AND path = ANY(%s)", (repo, list(deleted))
        )
    if changed:
        with conn.cursor() as cur:
            cur.executemany(
                """INSERT INTO pm_code_file (repo, path, language, module, content_hash,
                                             has_errors, symbol_count)
                   VALUES (%s, %s, %s, %s, %s, %s, %s)
                   ON CONFLICT (repo, path) DO UPDATE
                      SET language = EXCLUDED.language, module = EXCLUDED.module,
                          content_hash = EXCLUDED.content_hash,
                          has_errors = EXCLUDED.has_errors,
                          symbol_count = EXCLUDED.symbol_count, indexed_at = now()""",
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


def write_dependencies(conn: Conn, repo: str, plan: DepPlan) -> None:
    if plan.deletes:
        conn.execute("DELETE FROM pm_code_dependency WHERE id = ANY(%s)", (list(plan.deletes),))
    if plan.updates:
        conn.execute(
            """UPDATE pm_code_dependency AS d SET line = v.line, metadata = v.metadata
                 FROM unnest(%s::bigint[], %s::integer[], %s::jsonb[]) AS v(id, line, metadata)
                WHERE d.id = v.id""",
            (
                [i for i, _ in plan.updates],
                [d.line for _, d in plan.updates],
                [json.dumps(d.metadata()) for _, d in plan.updates],
            ),
        )
    if plan.inserts:
        with (
            conn.cursor() as cur,
            cur.copy(
                """COPY pm_code_dependency (repo, src_symbol_id, dst_symbol_id, dst_name, kind,
                   line, metadata) FROM STDIN"""
            ) as copy,
        ):
            for d in plan.inserts:
                copy.write_row(
                    (repo, d.src_id, d.dst_id, d.dst_name, d.kind, d.line, json.dumps(d.metadata()))
                )


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
