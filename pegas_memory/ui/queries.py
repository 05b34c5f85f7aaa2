"""What the UI pages read from PostgreSQL beyond the service's own answers (memory_stats,
memory_search, the gap and job lists): a claim with its history, citations and links, a document
with its versions and passages, the code repositories, and the audit trail (`queries.sql`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, LiteralString

from pegas_memory.db.pool import Conn
from pegas_memory.db.sql import load_queries

Row = dict[str, Any]


@dataclass(frozen=True)
class UiQueries:
    code_repos: LiteralString
    recent_documents: LiteralString
    atom: LiteralString
    status_history: LiteralString
    citations: LiteralString
    links_out: LiteralString
    links_in: LiteralString
    document: LiteralString
    document_identity: LiteralString
    document_atoms_by_type: LiteralString
    document_chunks: LiteralString
    document_spans: LiteralString
    atom_state: LiteralString
    gap_state: LiteralString
    lock_audit: LiteralString
    mark_undone: LiteralString
    audit_lines: LiteralString
    chunk_position: LiteralString
    search_topics: LiteralString
    search_languages: LiteralString


Q = load_queries(UiQueries, "pegas_memory.ui", "queries.sql")


def code_repos(conn: Conn, limit: int = 50) -> list[Row]:
    return conn.execute(Q.code_repos, {"limit": limit}).fetchall()


def recent_documents(conn: Conn, limit: int = 30, offset: int = 0) -> list[Row]:
    return conn.execute(Q.recent_documents, {"limit": limit, "offset": offset}).fetchall()


def atom(conn: Conn, atom_id: int) -> Row | None:
    return conn.execute(Q.atom, {"id": atom_id}).fetchone()


def status_history(conn: Conn, atom_id: int) -> list[Row]:
    return conn.execute(Q.status_history, {"id": atom_id}).fetchall()


def citations(conn: Conn, atom_id: int) -> list[Row]:
    return conn.execute(Q.citations, {"id": atom_id}).fetchall()


def links(conn: Conn, atom_id: int) -> tuple[list[Row], list[Row]]:
    """(links out of the atom, links into it)."""
    out = conn.execute(Q.links_out, {"id": atom_id}).fetchall()
    into = conn.execute(Q.links_in, {"id": atom_id}).fetchall()
    return out, into


def document(conn: Conn, doc_id: int) -> Row | None:
    return conn.execute(Q.document, {"id": doc_id}).fetchone()


def document_atoms_by_type(conn: Conn, doc_id: int) -> list[Row]:
    return conn.execute(Q.document_atoms_by_type, {"id": doc_id}).fetchall()


def document_chunks(conn: Conn, doc_id: int, limit: int, offset: int) -> list[Row]:
    return conn.execute(
        Q.document_chunks, {"id": doc_id, "limit": limit, "offset": offset}
    ).fetchall()


def chunk_position(conn: Conn, doc_id: int, chunk_id: int) -> int:
    row = conn.execute(Q.chunk_position, {"doc": doc_id, "chunk": chunk_id}).fetchone()
    return int(row["n"]) if row else 0


def document_spans(conn: Conn, chunk_ids: list[int]) -> list[Row]:
    if not chunk_ids:
        return []
    return conn.execute(Q.document_spans, {"chunks": chunk_ids}).fetchall()


def atom_state(conn: Conn, atom_id: int) -> Row | None:
    return conn.execute(Q.atom_state, {"id": atom_id}).fetchone()


def gap_state(conn: Conn, gap_id: int) -> Row | None:
    return conn.execute(Q.gap_state, {"id": gap_id}).fetchone()


def audit_lines(
    conn: Conn,
    *,
    target: str | None = None,
    target_id: int | None = None,
    limit: int = 50,
    offset: int = 0,
) -> list[Row]:
    return conn.execute(
        Q.audit_lines,
        {"target": target, "target_id": target_id, "limit": limit, "offset": offset},
    ).fetchall()


def search_topics(conn: Conn, limit: int = 200) -> list[str]:
    return [str(r["topic"]) for r in conn.execute(Q.search_topics, {"limit": limit}).fetchall()]


def search_languages(conn: Conn) -> list[str]:
    return [str(r["language"]) for r in conn.execute(Q.search_languages).fetchall()]
