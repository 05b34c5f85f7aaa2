"""Feedback: the agent reports which returned atoms or passages it used and whether they helped
or misled (memory_feedback, issue 32 scope 3).

Each reported item becomes one row of the append-only `pm_feedback_event` (with the session,
query and note given); a trigger moves the item's counters (`pm_atom_feedback`,
`pm_passage_feedback`) in the same transaction. A report is all or nothing: an id that names no
atom or passage refuses the whole report before anything is written. Feedback never touches an
atom's status, its confidence column or its citations, and is not projected: search reads the
counters from PostgreSQL and derives a Beta posterior from them (search/fusion.py), which moves
ranking only when `PEGAS_FEEDBACK_WEIGHT` is above 0. Erasing an atom or a document takes its
feedback with it (foreign keys, ON DELETE CASCADE). Passage feedback belongs to its chunk: a new
version of the document has new chunks without it, and a re-distill (which chunks afresh) drops
it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pegas_memory.curation.queries import CURATION_SQL as Q
from pegas_memory.db.pool import Conn
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.models import FeedbackItem
from pegas_memory.search.fusion import Feedback

MAX_ITEMS = 200

FeedbackStore = Literal["atom", "passage"]


def check_items(items: Sequence[FeedbackItem]) -> None:
    """A report names at least one item, at most MAX_ITEMS, and each (store, id) once."""
    if not items:
        raise InvalidInput("name at least one hit: items=[{id, store, outcome}]")
    if len(items) > MAX_ITEMS:
        raise InvalidInput(f"at most {MAX_ITEMS} items per report, got {len(items)}")
    seen: set[tuple[str, int]] = set()
    twice: list[str] = []
    for item in items:
        key = (item.store, item.id)
        if key in seen:
            twice.append(f"{item.store} {item.id}")
        seen.add(key)
    if twice:
        raise InvalidInput(
            f"each hit once per report; given more than once: {', '.join(twice)} (nothing "
            "was recorded)"
        )


def record(
    conn: Conn,
    items: Sequence[FeedbackItem],
    *,
    session_id: str | None = None,
    query: str | None = None,
    note: str | None = None,
) -> dict[tuple[FeedbackStore, int], Feedback]:
    """Write one event per item in the caller's transaction; return each item's counters after
    it. Unknown ids raise NotFound naming them, before anything is written."""
    check_items(items)
    atoms = sorted({i.id for i in items if i.store == "atom"})
    chunks = sorted({i.id for i in items if i.store == "passage"})
    known_atoms = {int(r["id"]) for r in conn.execute(Q.feedback_atoms_known, (atoms,))}
    known_chunks = {int(r["id"]) for r in conn.execute(Q.feedback_chunks_known, (chunks,))}
    unknown = [f"atom {i}" for i in atoms if i not in known_atoms]
    unknown += [f"passage {i}" for i in chunks if i not in known_chunks]
    if unknown:
        raise NotFound(
            f"no such hit: {', '.join(unknown)}; give ids (with their store) as memory_search "
            "or memory_get_context returned them. Nothing was recorded"
        )
    conn.execute(
        Q.insert_feedback_events,
        {
            "atoms": [i.id if i.store == "atom" else None for i in items],
            "chunks": [i.id if i.store == "passage" else None for i in items],
            "outcomes": [i.outcome for i in items],
            "session_id": session_id,
            "query": query,
            "note": note,
        },
    )
    return counts(conn, atoms, chunks)


def counts(
    conn: Conn, atoms: Sequence[int], chunks: Sequence[int]
) -> dict[tuple[FeedbackStore, int], Feedback]:
    """The counters of these atoms and passages (those with any feedback)."""
    out: dict[tuple[FeedbackStore, int], Feedback] = {}
    if atoms:
        for r in conn.execute(Q.atom_feedback_counts, (list(atoms),)):
            out["atom", int(r["id"])] = Feedback(r["helped"], r["misled"], r["used"])
    if chunks:
        for r in conn.execute(Q.passage_feedback_counts, (list(chunks),)):
            out["passage", int(r["id"])] = Feedback(r["helped"], r["misled"], r["used"])
    return out


def events_of(conn: Conn, atoms: Sequence[int], docs: Sequence[int]) -> int:
    """How many feedback reports name these atoms or the chunks of these documents (what an
    erase of them takes with it)."""
    if not atoms and not docs:
        return 0
    row = conn.execute(Q.feedback_events_of, {"atoms": list(atoms), "docs": list(docs)}).fetchone()
    return int(row["n"]) if row else 0
