"""Research gaps: questions the memory cannot answer yet, and their lifecycle.

open -> researching -> filled | abandoned. A question that repeats a live gap (the same words once
normalised, or nearly the same by trigram similarity) is merged into it rather than added twice:
the priority rises to the higher one and the new reason is appended.
"""

from __future__ import annotations

import re
from typing import Any

from psycopg.types.json import Jsonb

from pegas_memory.curation.queries import CURATION_SQL as Q
from pegas_memory.db.pool import Conn
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.models import GapOut, GapStatus
from pegas_memory.text import normalize_text

GAP_STATUSES: tuple[str, ...] = GapStatus.values()
SIMILAR_QUESTION = 0.8  # pg_trgm similarity above which two questions are the same gap
MAX_QUESTION_CHARS = 2_000
_PUNCT = re.compile(r"[^\w\s]+", re.UNICODE)


def question_key(question: str) -> str:
    """The dedup key: normalised text without punctuation."""
    return " ".join(_PUNCT.sub(" ", normalize_text(question)).split())


def _gap_out(row: dict[str, Any], filled_by: list[int]) -> GapOut:
    return GapOut(
        id=int(row["id"]),
        question=row["question"],
        reason=row["reason"],
        priority=int(row["priority"]),
        status=row["status"],
        created_at=row["created_at"].isoformat(),
        updated_at=row["updated_at"].isoformat(),
        attempts=list(row["attempts"] or []),
        filled_by=filled_by,
    )


def _filled_by(conn: Conn, gap_ids: list[int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {g: [] for g in gap_ids}
    if gap_ids:
        for r in conn.execute(
            Q.gap_atoms,
            (gap_ids,),
        ):
            out[int(r["gap_id"])].append(int(r["atom_id"]))
    return out


def add_gap(
    conn: Conn, question: str, *, reason: str | None = None, priority: int = 3
) -> tuple[GapOut, bool]:
    """Register a gap or merge it into the live gap it repeats; return (gap, created)."""
    if "\x00" in question or "\x00" in (reason or ""):
        raise InvalidInput("the question or reason contains a NUL character")
    if not question.strip():
        raise InvalidInput("the question is empty; say what the memory should find out")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidInput(f"the question is over {MAX_QUESTION_CHARS} characters; shorten it")
    if not 1 <= priority <= 5:
        raise InvalidInput("priority must be 1 (low) to 5 (urgent)")
    key = question_key(question)
    existing = conn.execute(
        Q.live_gap_like,
        {"key": key, "sim": SIMILAR_QUESTION},
    ).fetchone()
    if existing:
        row = conn.execute(
            Q.merge_gap,
            (priority, reason, reason, reason, reason, existing["id"]),
        ).fetchone()
        assert row is not None
        return _gap_out(row, _filled_by(conn, [int(row["id"])])[int(row["id"])]), False
    row = conn.execute(
        Q.insert_gap,
        (question.strip(), key, reason, priority),
    ).fetchone()
    if row is None:  # a concurrent call registered it first: merge into that one
        return add_gap(conn, question, reason=reason, priority=priority)
    return _gap_out(row, []), True


def list_gaps(
    conn: Conn, *, status: GapStatus | None = GapStatus.OPEN, limit: int = 20, offset: int = 0
) -> tuple[list[GapOut], int]:
    if status is not None and status not in GAP_STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(GAP_STATUSES)} (or omitted for all)")
    if not 1 <= limit <= 500 or offset < 0:
        raise InvalidInput("limit must be 1..500 and offset >= 0")
    rows = conn.execute(
        Q.list_gaps,
        {"status": status, "limit": limit, "offset": offset},
    ).fetchall()
    filled = _filled_by(conn, [int(r["id"]) for r in rows])
    total = int(rows[0]["total"]) if rows else 0
    return [_gap_out(r, filled[int(r["id"])]) for r in rows], total


def set_gap_status(
    conn: Conn,
    gap_id: int,
    status: GapStatus,
    *,
    attempt: dict[str, Any] | None = None,
    atom_ids: list[int] | None = None,
) -> GapOut:
    """Move a gap along its lifecycle, record what was tried, link the atoms that filled it."""
    if status not in GAP_STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(GAP_STATUSES)}")
    row = conn.execute(
        Q.set_gap_status,
        (status, Jsonb(attempt) if attempt else None, Jsonb(attempt) if attempt else None, gap_id),
    ).fetchone()
    if row is None:
        raise NotFound(f"gap {gap_id} not found; use memory_list_gaps to see gap ids")
    for atom_id in atom_ids or []:
        conn.execute(
            Q.link_gap_atom,
            (gap_id, atom_id),
        )
    return _gap_out(row, _filled_by(conn, [gap_id])[gap_id])
