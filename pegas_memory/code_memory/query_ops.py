"""What an agent reads from code memory besides search and walks, and the writes beside indexing.

- `resolve_citation`: the symbol a memory_store citation names (by id, or repository + qualified
  name), checked, with its locator `path:first-last`. The citation row keeps the symbol id, so a
  re-index that removes or renames the symbol marks the atom stale with the reason
  (`code_memory.store.retire_symbols`).
- `symbol_source`: a symbol's text as the file reads now, bounded in lines and characters (a
  10k-line class would otherwise be one answer of 100k tokens), with a note when cut and a
  warning when the file changed since it was indexed.
- `file_symbols`, `list_repos`: compact listings, paginated.
- `drop_repo`: every row of a repository deleted in one transaction; the outbox triggers record
  each deleted symbol and dependency, so the graph slice loses them too. Citing atoms become
  stale with the reason, their citations kept on the repository document.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, LiteralString

from pegas_memory.code_memory.results import (
    CodeFileOut,
    CodeFileSymbolOut,
    CodeRepoOut,
    CodeSourceOut,
    CodeSymbolOut,
    like_escape,
    text_arg,
)
from pegas_memory.db.pool import Conn
from pegas_memory.db.repo import set_status
from pegas_memory.db.sql import load_queries
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.models import AtomStatus, CodeCitationIn, CodeDropOut
from pegas_memory.text import raw_hash
from pegas_memory.validation import bounded_int

MAX_SOURCE_LINES = 400
MAX_SOURCE_CHARS = 40_000
DEFAULT_SOURCE_LINES = 120
DEFAULT_SOURCE_CHARS = 12_000
MAX_FILE_SYMBOLS = 500


@dataclass(frozen=True)
class CodeOpsQueries:
    """The named blocks of code_memory/query_ops.sql."""

    symbol_by_id: LiteralString
    symbols_by_qname: LiteralString
    repo_root: LiteralString
    file_symbols: LiteralString
    file_known: LiteralString
    similar_files: LiteralString
    list_repos: LiteralString
    lock_repo: LiteralString
    repo_for_drop: LiteralString
    repo_citations: LiteralString
    move_citation: LiteralString
    delete_repo_symbols: LiteralString
    delete_repo_dependencies: LiteralString
    delete_repo_inferred: LiteralString
    delete_repo: LiteralString


Q = load_queries(CodeOpsQueries, "pegas_memory.code_memory", "query_ops.sql")


@dataclass(frozen=True, slots=True)
class ResolvedCitation:
    symbol_id: int
    repo: str
    qualified_name: str
    locator: str


# --------------------------------------------------------------------------- citations
def resolve_citation(conn: Conn, cite: CodeCitationIn) -> ResolvedCitation:
    """The symbol `cite` names. Raises InvalidInput (neither or both ways of naming it, lines
    outside the symbol, an ambiguous name) or NotFound."""
    by_name = cite.repo is not None or cite.qualified_name is not None
    if (cite.symbol_id is None) == (not by_name):
        raise InvalidInput(
            "cite_code needs symbol_id, or repo and qualified_name (not both); find them with "
            "memory_search_code"
        )
    if cite.symbol_id is not None:
        row = conn.execute(Q.symbol_by_id, (cite.symbol_id,)).fetchone()
        if row is None:
            raise NotFound(
                f"code symbol {cite.symbol_id} does not exist (removed by a re-index?); find "
                "the current id with memory_search_code"
            )
    else:
        if not cite.repo or not cite.qualified_name:
            raise InvalidInput("cite_code by name needs both repo and qualified_name")
        repo = text_arg(cite.repo, "cite_code.repo", 200)
        qname = text_arg(cite.qualified_name, "cite_code.qualified_name", 2_000).strip()
        rows = conn.execute(Q.symbols_by_qname, (repo, qname)).fetchall()
        if not rows:
            raise NotFound(
                f"no symbol {qname!r} in repository {repo!r}; memory_search_code finds the "
                "exact qualified name"
            )
        if cite.start_line is not None:
            rows = [r for r in rows if r["start_line"] <= cite.start_line <= r["end_line"]] or rows
        if len(rows) > 1:
            ids = ", ".join(f"{r['id']} ({r['path']}:{r['start_line']})" for r in rows[:10])
            raise InvalidInput(
                f"{qname!r} names {len(rows)} symbols in {repo!r}: {ids}; pass symbol_id, or "
                "start_line inside the one you mean"
            )
        row = rows[0]
    first, last = _cited_lines(row, cite.start_line, cite.end_line)
    return ResolvedCitation(
        symbol_id=int(row["id"]),
        repo=row["repo"],
        qualified_name=row["qualified_name"],
        locator=f"{row['path']}:{first}-{last}",
    )


def _cited_lines(row: Any, start: int | None, end: int | None) -> tuple[int, int]:
    lo, hi = int(row["start_line"]), max(int(row["end_line"]), int(row["start_line"]))
    first = lo if start is None else start
    last = (hi if start is None else first) if end is None else end
    if not lo <= first <= last <= hi:
        raise InvalidInput(
            f"lines {first}-{last} are outside {row['qualified_name']} (lines {lo}-{hi}); cite "
            "lines inside the symbol, or none"
        )
    return first, last


# --------------------------------------------------------------------------- reading
def symbol_source(
    conn: Conn,
    symbol: CodeSymbolOut,
    *,
    max_lines: int = DEFAULT_SOURCE_LINES,
    max_chars: int = DEFAULT_SOURCE_CHARS,
    from_line: int | None = None,
    warnings: list[str],
) -> CodeSourceOut:
    """The lines of `symbol` (from `from_line`, to page through a long one), at most `max_lines`
    lines and `max_chars` characters."""
    max_lines = bounded_int(max_lines, "max_lines", 1, MAX_SOURCE_LINES)
    max_chars = bounded_int(max_chars, "max_chars", 200, MAX_SOURCE_CHARS)
    row = conn.execute(Q.repo_root, {"repo": symbol.repo, "path": symbol.path}).fetchone()
    if row is None:
        raise NotFound(f"repo {symbol.repo!r} is not indexed; use memory_store_code first")
    root = Path(row["root"]).resolve()
    file = (root / symbol.path).resolve()
    if not file.is_relative_to(root) or not file.is_file():
        raise NotFound(
            f"{symbol.path} is no longer in {root}; re-index the repository with memory_store_code"
        )
    data = file.read_bytes()
    if row["content_hash"] is not None and raw_hash(data) != row["content_hash"]:
        warnings.append(
            f"{symbol.path} changed since it was indexed; the lines may have moved (re-index "
            "with memory_store_code)"
        )
    lines = data.decode("utf-8", "replace").splitlines()
    lo, hi = max(1, symbol.start_line), max(symbol.start_line, symbol.end_line, 1)
    first = lo if from_line is None else bounded_int(from_line, "from_line", lo, hi)
    last = min(hi, first + max_lines - 1, len(lines))
    picked: list[str] = []
    used = 0
    for number in range(first, last + 1):
        line = lines[number - 1]
        if used + len(line) + 1 > max_chars:
            if not picked:  # one huge line: cut it rather than return nothing
                picked.append(line[: max_chars - 1])
            break
        picked.append(line)
        used += len(line) + 1
    shown_last = first + len(picked) - 1
    truncated = shown_last < hi or first > lo
    note = None
    if shown_last < hi:
        note = (
            f"showing lines {first}-{shown_last} of {lo}-{hi} (at most {max_lines} lines and "
            f"{max_chars} characters); pass from_line={shown_last + 1} for the rest"
        )
    return CodeSourceOut(
        symbol=symbol,
        start_line=first,
        end_line=shown_last,
        text="\n".join(picked),
        truncated=truncated,
        note=note,
    )


def file_symbols(
    conn: Conn, repo: str, path: str, *, limit: int, offset: int, detail: bool
) -> CodeFileOut:
    """The symbols of one file, compact unless `detail` (signatures)."""
    path = text_arg(path, "path", 4096).strip().removeprefix("./")
    limit = bounded_int(limit, "limit", 1, MAX_FILE_SYMBOLS)
    offset = bounded_int(offset, "offset", 0, 100_000)
    params = {"repo": repo, "path": path, "limit": limit, "offset": offset}
    known = conn.execute(Q.file_known, params).fetchone()
    if known is None:
        similar = conn.execute(
            Q.similar_files, {"repo": repo, "pattern": "%" + like_escape(Path(path).name)}
        ).fetchall()
        hint = (
            f"; indexed paths like it: {', '.join(r['path'] for r in similar)}" if similar else ""
        )
        raise NotFound(
            f"{path} is not an indexed file of {repo!r}{hint}; paths are relative to the "
            "repository root"
        )
    rows = conn.execute(Q.file_symbols, params).fetchall()
    return CodeFileOut(
        path=path,
        language=known["language"],
        module=known["module"],
        total=int(rows[0]["total"]) if rows else int(known["symbol_count"]),
        offset=offset,
        symbols=[
            CodeFileSymbolOut(
                id=int(r["id"]),
                qualified_name=r["qualified_name"],
                kind=r["kind"],
                start_line=int(r["start_line"]),
                end_line=int(r["end_line"]),
                signature=r["signature"] if detail else None,
            )
            for r in rows
        ],
    )


def list_repos(conn: Conn) -> list[CodeRepoOut]:
    return [
        CodeRepoOut(
            name=r["name"],
            root=r["root"],
            files=int(r["files"]),
            symbols=int(r["symbols"]),
            dependencies=int(r["dependencies"]),
            unresolved=int(r["unresolved"]),
            derived=int(r["derived"]),
            languages=list(r["languages"] or []),
            created_at=_iso(r["created_at"]),
            indexed_at=_iso(r["indexed_at"]),
        )
        for r in conn.execute(Q.list_repos).fetchall()
    ]


def _iso(value: datetime) -> str:
    return value.isoformat(timespec="seconds")


# --------------------------------------------------------------------------- dropping
def drop_repo(conn: Conn, repo: str) -> CodeDropOut:
    """Delete every row of `repo` (inside the caller's transaction). Raises NotFound."""
    repo = text_arg(repo, "repo", 200)
    conn.execute(Q.lock_repo, (f"pm_code_repo:{repo}",))
    row = conn.execute(Q.repo_for_drop, (repo,)).fetchone()
    if row is None:
        raise NotFound(f"repo {repo!r} is not indexed; memory_code_read op=repos lists them")
    gone: dict[int, list[str]] = {}
    for c in conn.execute(Q.repo_citations, (repo,)).fetchall():
        where = f"{c['path']}:{c['start_line']}"
        note = f"[dropped symbol {c['qualified_name']} at {where}]"
        conn.execute(Q.move_citation, (row["doc_id"], note, c["id"]))
        if c["status"] != AtomStatus.STALE:
            gone.setdefault(int(c["atom_id"]), []).append(f"{c['qualified_name']} ({where})")
    conn.execute(Q.delete_repo_inferred, (repo,))
    deps = conn.execute(Q.delete_repo_dependencies, (repo,)).rowcount
    symbols = conn.execute(Q.delete_repo_symbols, (repo,)).rowcount
    conn.execute(Q.delete_repo, (repo,))
    for atom_id, names in gone.items():
        set_status(
            conn,
            atom_id,
            AtomStatus.STALE,
            reason=(
                f"cited code symbol {', '.join(names)} went away when repository {repo!r} was "
                "dropped from code memory; re-index it with memory_store_code and re-check"
            )[:2000],
            check_name="code_drop",
        )
    return CodeDropOut(
        repo=repo,
        symbols_removed=max(0, symbols),
        dependencies_removed=max(0, deps),
        stale_atoms=sorted(gone),
    )
