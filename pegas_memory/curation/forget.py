"""Forgetting: retract (an atom stays, marked stale with the reason, and stops ranking as current)
or erase (the row is deleted from Postgres; the outbox removes it from every slice; its cached
embedding, links, citations, inferred edges resting on it, status history and the agent's
feedback about it go with it).

Erasing a document removes its chunks and every atom whose only evidence it was; atoms that other
documents also cite lose only this document's citations. What is erased cannot come back from a
rebuild, since slices are rebuilt from Postgres alone. Feedback reports about erased atoms and
chunks are deleted by their foreign keys in the same transaction; the report counts them.

Merge records (pm_merge, curation.merges) go with what they rest on: erasing the surviving atom
or the document the merged claim came from deletes them (foreign keys, CASCADE); erasing the
survivor's own documents, so that only the merged claim's citation is left on it, deletes the
record too (nothing left to split it from).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pegas_memory.curation.feedback import events_of
from pegas_memory.curation.queries import CURATION_SQL as Q
from pegas_memory.db.pool import Conn
from pegas_memory.db.repo import document_versions, set_status, withdraw_reason
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.models import AtomStatus
from pegas_memory.outbox.projection import atom_contexts, atom_embed_text
from pegas_memory.text import raw_hash

MAX_IDS = 500


@dataclass
class ForgetReport:
    mode: str
    atoms: list[int] = field(default_factory=list)
    traces: list[int] = field(default_factory=list)
    documents: list[int] = field(default_factory=list)
    links_removed: int = 0
    embeddings_removed: int = 0
    feedback_removed: int = 0
    not_found: list[int] = field(default_factory=list)


def retract(conn: Conn, atom_ids: Sequence[int], reason: str) -> ForgetReport:
    report = ForgetReport(mode="retract")
    for atom_id in atom_ids:
        try:
            why = f"retracted: {reason}"
            old = set_status(conn, atom_id, AtomStatus.STALE, reason=why, check_name="forget")
            if old == AtomStatus.STALE:
                conn.execute(Q.record_retraction, {"id": atom_id, "reason": why})
            report.atoms.append(atom_id)
        except NotFound:
            report.not_found.append(atom_id)
    return report


def _erase_atoms(conn: Conn, atom_ids: Sequence[int], report: ForgetReport) -> None:
    rows = conn.execute(Q.atoms_to_erase, (list(atom_ids),)).fetchall()
    found = {int(r["id"]) for r in rows}
    report.not_found += [i for i in atom_ids if i not in found]
    if not rows:
        return
    hashes = [raw_hash(atom_embed_text(r["claim"], r["content"])) for r in rows]
    hashes += sorted({raw_hash(c) for c in atom_contexts(rows) if c})  # their sections' vectors
    links = conn.execute(
        Q.count_links_of,
        {"ids": sorted(found)},
    ).fetchone()
    report.links_removed += int(links["n"]) if links else 0
    report.feedback_removed += events_of(conn, sorted(found), [])
    conn.execute(Q.delete_atoms, (sorted(found),))
    cur = conn.execute(Q.delete_cached_vectors, (hashes,))
    report.embeddings_removed += cur.rowcount
    report.atoms += sorted(found)


def erase_atoms(conn: Conn, atom_ids: Sequence[int]) -> ForgetReport:
    """Erase these atoms (their links, citations, cached vectors, feedback) in the caller's
    transaction, under the withdraw reason it set."""
    report = ForgetReport(mode="erase")
    if atom_ids:
        _erase_atoms(conn, atom_ids, report)
    return report


def erase(
    conn: Conn,
    *,
    atom_ids: Sequence[int] = (),
    trace_ids: Sequence[int] = (),
    document_ids: Sequence[int] = (),
) -> ForgetReport:
    report = ForgetReport(mode="erase")
    withdraw_reason(conn, "erased by memory_forget")
    if document_ids:
        docs = conn.execute(Q.existing_document_ids, (list(document_ids),)).fetchall()
        found_docs = [int(r["id"]) for r in docs]
        report.not_found += [d for d in document_ids if d not in found_docs]
        found_docs = document_versions(conn, found_docs)  # an id names every version
        only_here = conn.execute(
            Q.atoms_only_in_documents,
            {"docs": found_docs},
        ).fetchall()
        _erase_atoms(conn, [int(r["atom_id"]) for r in only_here], report)
        conn.execute(Q.detach_atoms_from_documents, (found_docs,))
        report.feedback_removed += events_of(conn, [], found_docs)  # about their passages
        conn.execute(Q.delete_documents, (found_docs,))  # their merge records cascade
        conn.execute(Q.drop_unsplittable_merges)
        report.documents = found_docs
    if atom_ids:
        _erase_atoms(conn, atom_ids, report)
    if trace_ids:
        rows = conn.execute(
            Q.delete_traces,
            (list(trace_ids),),
        ).fetchall()
        gone = {int(r["id"]) for r in rows}
        report.traces = sorted(gone)
        report.not_found += [t for t in trace_ids if t not in gone]
        if rows:
            cur = conn.execute(
                Q.delete_cached_vectors,
                ([raw_hash(r["content"][:4000]) for r in rows],),
            )
            report.embeddings_removed += cur.rowcount
    return report


def check_ids(*groups: Sequence[int]) -> None:
    total = sum(len(g) for g in groups)
    if total == 0:
        raise InvalidInput("name what to forget: atom_ids, trace_ids or document_ids")
    if total > MAX_IDS:
        raise InvalidInput(f"at most {MAX_IDS} ids per call")
