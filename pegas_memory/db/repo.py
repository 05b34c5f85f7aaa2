"""The repository: parameterised SQL over one open transaction.

The statements are named blocks of `db/queries.sql` (`DB_SQL`); every value is a bound parameter.

Every function takes a connection that is already inside `Database.transaction()`. The outbox
rows are written by triggers in that same transaction (migrations/0001_init.sql), so a caller can
never write a domain row without its outbox row, nor the reverse.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from pegas_memory.db.pool import Conn
from pegas_memory.db.queries import DB_SQL as Q
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.models import ATOM_STATUSES, AtomStatus, DecayProfile, GapStatus
from pegas_memory.text import content_hash, detect_language, ts_config_for


@dataclass(frozen=True)
class AtomInput:
    type: str
    claim: str
    content: str = ""
    confidence: float = 0.5
    status: AtomStatus = AtomStatus.CANDIDATE
    doc_id: int | None = None
    topic: str | None = None
    tags: tuple[str, ...] = ()
    language: str | None = None
    source: str | None = None
    prompt_version: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    decay: DecayProfile = DecayProfile.TIMELESS  # search.fusion.default_decay chooses one
    about_at: datetime | str | None = None  # the time the claim is about (None: when recorded)

    @property
    def content_hash(self) -> str:
        return atom_hash(self.claim, self.content)


# Below the smallest normal float4 (confidence columns are `real`) PostgreSQL refuses a value
# with "underflow" instead of rounding it: such a confidence is zero for every purpose.
_REAL_MIN = 1.2e-38


def storable_confidence(value: float) -> float:
    """A confidence as a `real` column stores it: values too small for float4 become 0."""
    return 0.0 if abs(value) < _REAL_MIN else float(value)


def atom_hash(claim: str, content: str) -> str:
    """The dedup key of an atom: its normalised claim and content."""
    return content_hash(claim, content)


@dataclass(frozen=True)
class DocumentInput:
    kind: str
    uri: str
    content_hash: str
    title: str | None = None
    author: str | None = None
    language: str | None = None
    authority: float = 0.5
    published_at: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    decay: DecayProfile = DecayProfile.TIMELESS  # its passages' (search.fusion.default_decay)


# ---------------------------------------------------------------------- documents
def upsert_document(conn: Conn, doc: DocumentInput) -> tuple[int, bool]:
    """The version of `doc.uri` holding `doc.content_hash`: the current one when it holds those
    bytes, else a new version that supersedes it (also when an earlier version held the same
    bytes: they came back); return (id, created)."""
    conn.execute(Q.lock_document_uri, (doc.uri,))
    row = conn.execute(Q.document_by_hash, (doc.uri, doc.content_hash)).fetchone()
    if row:
        return int(row["id"]), False
    prev = conn.execute(Q.current_document_for_update, (doc.uri,)).fetchone()
    if prev:
        conn.execute(Q.retire_document, (prev["id"],))
    row = conn.execute(
        Q.insert_document,
        (
            doc.kind,
            doc.uri,
            doc.title,
            doc.author,
            doc.language,
            doc.authority,
            doc.content_hash,
            (prev["version"] + 1) if prev else 1,
            prev["id"] if prev else None,
            Jsonb(dict(doc.metadata)),
            doc.published_at,
            prev["identity_id"] if prev else None,
            doc.decay,
        ),
    ).fetchone()
    assert row is not None
    return int(row["id"]), True


def source_document(conn: Conn, doc: DocumentInput) -> int:
    """The document an atom stored with `doc.uri` as its source cites: the URI's current version
    when there is one (an ingested file or page: a note citing it must not replace it with a
    version of its own), else a document made for it (`upsert_document`)."""
    conn.execute(Q.lock_document_uri, (doc.uri,))
    row = conn.execute(Q.current_document_for_update, (doc.uri,)).fetchone()
    if row:
        return int(row["id"])
    return upsert_document(conn, doc)[0]


@dataclass(frozen=True)
class DocumentVersion:
    """Where one stored version stands: its document's stable identity (the first version's id,
    shared by every version of the URI), its number, and whether it is the current one."""

    id: int
    identity_id: int
    version: int
    is_current: bool


def document_version(conn: Conn, doc_id: int) -> DocumentVersion:
    row = conn.execute(Q.document_identity, (doc_id,)).fetchone()
    if row is None:
        raise NotFound(f"document {doc_id} not found; memory_ingest returns document ids")
    return DocumentVersion(
        doc_id, int(row["identity_id"]), int(row["version"]), bool(row["is_current"])
    )


def document_versions(conn: Conn, doc_ids: Sequence[int]) -> list[int]:
    """Every version id of the documents these ids name (an id of any version names the
    document): filters and erasure keep working with an id from an earlier answer."""
    if not doc_ids:
        return []
    rows = conn.execute(Q.document_versions, (list(doc_ids),)).fetchall()
    return [int(r["id"]) for r in rows]


@dataclass(frozen=True)
class ChunkInput:
    """One chunk of a document version, as the chunker cut it (ingest.chunking.Chunk)."""

    ord: int
    content: str
    content_hash: str
    locator: str
    heading_path: tuple[str, ...] = ()
    char_start: int = 0
    char_end: int = 0
    language: str | None = None


# ---------------------------------------------------------------------- chunks
def insert_chunks(conn: Conn, doc_id: int, chunks: Sequence[ChunkInput]) -> dict[int, int]:
    """Store a document version's chunks (one statement each); return ord -> chunk id."""
    ids: dict[int, int] = {}
    with conn.cursor() as cur:
        for c in chunks:
            cur.execute(
                Q.insert_chunk,
                (
                    doc_id,
                    c.ord,
                    c.content,
                    c.content_hash,
                    c.locator,
                    list(c.heading_path),
                    c.char_start,
                    c.char_end,
                    c.language,
                ),
            )
            row = cur.fetchone()
            assert row is not None
            ids[c.ord] = int(row["id"])
    return ids


def copy_chunk_citations(
    conn: Conn,
    old_chunk_id: int,
    *,
    doc_id: int,
    chunk_id: int,
    chunk_start: int,
    locate: Callable[[int], str],
) -> None:
    """Cite every atom of a reused chunk from its copy in a new version too: the same quote at
    the same place in the chunk, so its offsets move with the chunk (`chunk_start`, the copy's
    start) and its locator is the quote's own (`locate(quote_start)`), not the chunk's start. A
    citation already there is not added twice."""
    for r in conn.execute(Q.chunk_citations, (old_chunk_id,)).fetchall():
        start = int(r["quote_start"])
        add_citation(
            conn,
            int(r["atom_id"]),
            doc_id=doc_id,
            chunk_id=chunk_id,
            locator=locate(start),
            quote=r["quoted_text"],
            char_start=chunk_start + start,
            char_end=chunk_start + start + int(r["quote_length"]),
        )


# ---------------------------------------------------------------------- atoms
def insert_atom(conn: Conn, atom: AtomInput) -> tuple[int, bool]:
    """Insert an atom unless one with the same content hash exists; return (id, created)."""
    if atom.status not in ATOM_STATUSES:
        raise InvalidInput(f"unknown status {atom.status!r}; use one of {', '.join(ATOM_STATUSES)}")
    language = atom.language or detect_language(f"{atom.claim} {atom.content}")
    row = conn.execute(
        Q.insert_atom,
        (
            atom.type,
            atom.claim.strip(),
            atom.content,
            atom.content_hash,
            storable_confidence(atom.confidence),
            atom.status,
            atom.doc_id,
            atom.topic,
            list(atom.tags),
            language,
            ts_config_for(language),
            atom.source,
            atom.prompt_version,
            Jsonb(dict(atom.metadata)),
            atom.decay,
            atom.about_at,
        ),
    ).fetchone()
    if row:
        return int(row["id"]), True
    existing = conn.execute(Q.atom_id_by_hash, (atom.content_hash,)).fetchone()
    assert existing is not None
    return int(existing["id"]), False


def atom_ids_by_hash(conn: Conn, hashes: Sequence[str]) -> dict[str, int]:
    """content hash -> existing atom id, for the hashes already stored (exact duplicates)."""
    if not hashes:
        return {}
    rows = conn.execute(Q.atom_ids_by_hash, (list(set(hashes)),)).fetchall()
    return {str(r["content_hash"]): int(r["id"]) for r in rows}


@dataclass(frozen=True)
class StoredClaim:
    """What the dedup claim guard needs of a stored atom."""

    id: int
    claim: str
    content: str
    status: str
    term: str | None
    identities: frozenset[int]  # the document identities that cite it


def atoms_for_dedup(conn: Conn, atom_ids: Sequence[int]) -> dict[int, StoredClaim]:
    if not atom_ids:
        return {}
    rows = conn.execute(Q.atoms_for_dedup, (list(set(atom_ids)),)).fetchall()
    return {
        int(r["id"]): StoredClaim(
            int(r["id"]),
            str(r["claim"]),
            str(r["content"] or ""),
            str(r["status"]),
            r["term"],
            frozenset(int(i) for i in r["identities"] or ()),
        )
        for r in rows
    }


def supersede_atom(
    conn: Conn, old_id: int, new_id: int, *, reason: str, evidence: Mapping[str, Any]
) -> bool:
    """Mark `old_id` stale as replaced by `new_id` (a new version of its document reworded the
    claim); the status change records the reason and evidence. False when it was stale already."""
    conn.execute(Q.mark_superseded, (new_id, old_id))
    old = set_status(
        conn,
        old_id,
        AtomStatus.STALE,
        reason=reason,
        check_name="reingest",
        evidence={**dict(evidence), "superseded_by": new_id},
    )
    return old != AtomStatus.STALE


def withdraw_reason(conn: Conn, reason: str) -> None:
    """Say why the links, citations and atoms this transaction deletes are withdrawn: each
    delete leaves an audit line with the reason (pm_withdrawal), which as-of answers read."""
    conn.execute(Q.set_withdraw_reason, (reason,))


TRIM_STEP = 10_000  # audit lines deleted per statement: a long backlog is trimmed in steps


def trim_withdrawals(conn: Conn, before: datetime, *, limit: int = TRIM_STEP) -> int:
    """Delete up to `limit` audit lines of re-distills and truth maintenance withdrawn before
    `before` (migration 0022) and move the as-of horizon to `before` when any went; return how
    many went. Erasure, forget and split lines are kept."""
    gone = conn.execute(Q.trim_withdrawals, {"before": before, "limit": limit}).rowcount
    if gone > 0:
        conn.execute(Q.record_withdrawal_trim, (before, gone))
    return max(0, gone)


def as_of_horizon(conn: Conn) -> datetime | None:
    """The earliest instant an as-of answer is exact at (None: nothing was ever trimmed)."""
    row = conn.execute(Q.as_of_horizon).fetchone()
    return row["horizon"] if row else None


def set_status(
    conn: Conn,
    atom_id: int,
    status: AtomStatus,
    *,
    reason: str,
    check_name: str,
    confidence: float | None = None,
    evidence: Any = None,
) -> str | None:
    """Change an atom's status (a trigger records from, to, reason, check); return the old one.

    `evidence` (any JSON) is attached to the status-change record the trigger wrote."""
    if status not in ATOM_STATUSES:
        raise InvalidInput(f"unknown status {status!r}; use one of {', '.join(ATOM_STATUSES)}")
    conn.execute(Q.set_check_name, (check_name,))
    row = conn.execute(
        Q.update_status,
        (status, reason, None if confidence is None else storable_confidence(confidence), atom_id),
    ).fetchone()
    conn.execute(Q.clear_check_name)
    if row is None:
        raise NotFound(f"atom {atom_id} not found; use memory_search to find atom ids")
    if evidence is not None and row["old_status"] != status:
        conn.execute(Q.attach_status_evidence, (Jsonb(evidence), atom_id))
    return str(row["old_status"])


# ---------------------------------------------------------------------- citations and links
def add_citation(
    conn: Conn,
    atom_id: int,
    *,
    doc_id: int | None = None,
    chunk_id: int | None = None,
    code_symbol_id: int | None = None,
    locator: str = "",
    quote: str = "",
    char_start: int | None = None,
    char_end: int | None = None,
) -> int | None:
    """Attach evidence to an atom; an identical citation is not added twice. Returns its id."""
    row = conn.execute(
        Q.insert_citation,
        (atom_id, doc_id, chunk_id, code_symbol_id, locator, quote, char_start, char_end),
    ).fetchone()
    return int(row["id"]) if row else None


def add_link(
    conn: Conn,
    src: int,
    dst: int,
    kind: str,
    *,
    confidence: float = 1.0,
    source: str = "agent",
    inferred: bool = False,
    metadata: Mapping[str, Any] | None = None,
) -> tuple[int, bool]:
    """Link two atoms; an existing (src, dst, kind) link keeps the higher confidence."""
    row = conn.execute(
        Q.upsert_link,
        (
            src,
            dst,
            kind,
            storable_confidence(confidence),
            source,
            inferred,
            Jsonb(dict(metadata or {})),
        ),
    ).fetchone()
    if row:
        return int(row["id"]), bool(row["created"])
    existing = conn.execute(Q.link_id, (src, dst, kind)).fetchone()
    assert existing is not None
    return int(existing["id"]), False


@dataclass(frozen=True, slots=True)
class Citation:
    """One citation of an atom, with its document's title, URI and version (a row of
    `citations_for`)."""

    atom_id: int
    doc_id: int | None
    title: str | None
    uri: str | None
    locator: str
    quoted_text: str
    code_symbol_id: int | None
    chunk_id: int | None
    char_start: int | None
    char_end: int | None
    document_identity: int | None
    document_version: int | None
    document_is_current: bool | None


def citations_for(conn: Conn, atom_ids: Sequence[int]) -> dict[int, list[Citation]]:
    """Citations of many atoms at once, with their document's title and URI.

    A document's older versions repeat the citations of its current one (reused chunks are cited
    from every version): an atom cited by a current version shows only the current versions'
    citations (and those without a document); an atom whose evidence exists only in old versions
    keeps those, so its source can still be followed."""
    out: dict[int, list[Citation]] = {i: [] for i in atom_ids}
    if not atom_ids:
        return out
    rows = conn.execute(Q.citations_for, (list(atom_ids),)).fetchall()
    for r in rows:
        out[int(r["atom_id"])].append(Citation(**r))
    for atom_id, cites in out.items():
        current = [c for c in cites if c.doc_id is None or c.document_is_current]
        if any(c.doc_id is not None for c in current):
            out[atom_id] = current
    return out


def citations_as_of(conn: Conn, atom_ids: Sequence[int], at: datetime) -> dict[int, list[Citation]]:
    """The citations of many atoms as they were at an instant: recorded by then and not yet
    withdrawn (a withdrawn one is read from its audit line, migration 0016)."""
    out: dict[int, list[Citation]] = {i: [] for i in atom_ids}
    if not atom_ids:
        return out
    rows = conn.execute(Q.citations_as_of, {"ids": list(atom_ids), "t": at}).fetchall()
    for r in rows:
        row = dict(r)
        row.pop("created_at", None)
        out[int(row["atom_id"])].append(Citation(**row))
    return out


# ---------------------------------------------------------------------- episodic traces
def insert_trace(
    conn: Conn,
    kind: str,
    content: str,
    *,
    session_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> int:
    language = detect_language(content)
    row = conn.execute(
        Q.insert_trace,
        (
            session_id,
            kind,
            content,
            content_hash(kind, content),
            language,
            ts_config_for(language),
            Jsonb(dict(metadata or {})),
        ),
    ).fetchone()
    assert row is not None
    return int(row["id"])


# ---------------------------------------------------------------------- statistics
def stats(conn: Conn) -> dict[str, Any]:
    by_type: dict[str, int] = {}
    by_status: dict[str, int] = {}
    for r in conn.execute(Q.atoms_by_type_status).fetchall():
        by_type[r["type"]] = by_type.get(r["type"], 0) + int(r["n"])
        by_status[r["status"]] = by_status.get(r["status"], 0) + int(r["n"])
    gaps = conn.execute(Q.gaps_by_status).fetchall()
    counts = conn.execute(Q.counts).fetchone()
    assert counts is not None
    feedback = conn.execute(Q.feedback_totals).fetchone()
    assert feedback is not None
    gaps_by_status = {r["status"]: int(r["n"]) for r in gaps}
    return {
        "atoms_total": sum(by_type.values()),
        "atoms_by_type": by_type,
        "atoms_by_status": by_status,
        "documents": int(counts["documents"]),
        "chunks": int(counts["chunks"]),
        "citations": int(counts["citations"]),
        "links": int(counts["links"]),
        "links_inferred": int(counts["links_inferred"]),
        "code_symbols": int(counts["code_symbols"]),
        "code_dependencies": int(counts["code_dependencies"]),
        "episodic_traces": int(counts["traces"]),
        "gaps_by_status": gaps_by_status,
        "open_gaps": gaps_by_status.get(GapStatus.OPEN, 0)
        + gaps_by_status.get(GapStatus.RESEARCHING, 0),
        "outbox_pending": int(counts["outbox_pending"]),
        "outbox_parked": int(counts["outbox_parked"]),
        "oldest_pending_age_seconds": (
            float(counts["oldest_pending"]) if counts["oldest_pending"] is not None else None
        ),
        "feedback": {k: int(v) for k, v in feedback.items()},
    }
