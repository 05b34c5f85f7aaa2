"""The repository: parameterised SQL over one open transaction.

Every function takes a connection that is already inside `Database.transaction()`. The outbox
rows are written by triggers in that same transaction (migrations/0001_init.sql), so a caller can
never write a domain row without its outbox row, nor the reverse.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from psycopg.types.json import Jsonb

from pegas_memory.db.pool import Conn
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.models import ATOM_STATUSES
from pegas_memory.text import content_hash, detect_language, ts_config_for


@dataclass(frozen=True)
class AtomInput:
    type: str
    claim: str
    content: str = ""
    confidence: float = 0.5
    status: str = "candidate"
    doc_id: int | None = None
    topic: str | None = None
    tags: tuple[str, ...] = ()
    language: str | None = None
    source: str | None = None
    prompt_version: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

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


# ---------------------------------------------------------------------- documents
def upsert_document(conn: Conn, doc: DocumentInput) -> tuple[int, bool]:
    """Insert a document version keyed by (uri, content hash); return (id, created).

    A new hash for a known URI becomes a new version that supersedes the current one.
    """
    row = conn.execute(
        "SELECT id FROM pm_document WHERE uri = %s AND content_hash = %s",
        (doc.uri, doc.content_hash),
    ).fetchone()
    if row:
        return int(row["id"]), False
    prev = conn.execute(
        "SELECT id, version FROM pm_document WHERE uri = %s AND is_current "
        "ORDER BY version DESC LIMIT 1 FOR UPDATE",
        (doc.uri,),
    ).fetchone()
    if prev:
        conn.execute("UPDATE pm_document SET is_current = false WHERE id = %s", (prev["id"],))
    row = conn.execute(
        """INSERT INTO pm_document (kind, uri, title, author, language, authority, content_hash,
                                    version, supersedes, metadata, published_at)
           VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::timestamptz)
           RETURNING id""",
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
        ),
    ).fetchone()
    assert row is not None
    return int(row["id"]), True


# ---------------------------------------------------------------------- atoms
def insert_atom(conn: Conn, atom: AtomInput) -> tuple[int, bool]:
    """Insert an atom unless one with the same content hash exists; return (id, created)."""
    if atom.status not in ATOM_STATUSES:
        raise InvalidInput(f"unknown status {atom.status!r}; use one of {', '.join(ATOM_STATUSES)}")
    language = atom.language or detect_language(f"{atom.claim} {atom.content}")
    row = conn.execute(
        """INSERT INTO pm_atom (type, claim, content, content_hash, confidence, status, doc_id,
                                topic, tags, language, ts_config, source, prompt_version, metadata)
           VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::regconfig, %s, %s, %s)
           ON CONFLICT (content_hash) DO NOTHING
           RETURNING id""",
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
        ),
    ).fetchone()
    if row:
        return int(row["id"]), True
    existing = conn.execute(
        "SELECT id FROM pm_atom WHERE content_hash = %s", (atom.content_hash,)
    ).fetchone()
    assert existing is not None
    return int(existing["id"]), False


def get_atom(conn: Conn, atom_id: int) -> dict[str, Any]:
    row = conn.execute(
        "SELECT id, type, claim, content, confidence, status, status_reason, doc_id, topic, tags, "
        "language, source, metadata, created_at, updated_at FROM pm_atom WHERE id = %s",
        (atom_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"atom {atom_id} not found; use memory_search to find atom ids")
    return dict(row)


def set_status(
    conn: Conn,
    atom_id: int,
    status: str,
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
    conn.execute("SELECT set_config('pegas.check_name', %s, true)", (check_name,))
    row = conn.execute(
        """UPDATE pm_atom a SET status = %s, status_reason = %s,
                  confidence = coalesce(%s, a.confidence)
             FROM (SELECT id, status FROM pm_atom WHERE id = %s FOR UPDATE) old
            WHERE a.id = old.id
        RETURNING old.status AS old_status""",
        (status, reason, None if confidence is None else storable_confidence(confidence), atom_id),
    ).fetchone()
    conn.execute("SELECT set_config('pegas.check_name', '', true)")
    if row is None:
        raise NotFound(f"atom {atom_id} not found; use memory_search to find atom ids")
    if evidence is not None and row["old_status"] != status:
        conn.execute(
            """UPDATE pm_status_change SET evidence = %s
                WHERE id = (SELECT max(id) FROM pm_status_change WHERE atom_id = %s)""",
            (Jsonb(evidence), atom_id),
        )
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
        """INSERT INTO pm_citation (atom_id, doc_id, chunk_id, code_symbol_id, locator,
                                    quoted_text, char_start, char_end)
           VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
           ON CONFLICT DO NOTHING RETURNING id""",
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
        """INSERT INTO pm_atom_link (src_atom_id, dst_atom_id, kind, confidence, source, inferred,
                                     metadata)
           VALUES (%s, %s, %s, %s, %s, %s, %s)
           ON CONFLICT (src_atom_id, dst_atom_id, kind) DO UPDATE
              SET confidence = greatest(pm_atom_link.confidence, EXCLUDED.confidence),
                  -- an extracted link replaces an inferred one with the same key
                  inferred = pm_atom_link.inferred AND EXCLUDED.inferred,
                  source = CASE WHEN EXCLUDED.inferred THEN pm_atom_link.source
                                ELSE EXCLUDED.source END
              WHERE pm_atom_link.confidence < EXCLUDED.confidence
                 OR (pm_atom_link.inferred AND NOT EXCLUDED.inferred)
           RETURNING id, (xmax = 0) AS created""",
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
    existing = conn.execute(
        "SELECT id FROM pm_atom_link WHERE src_atom_id = %s AND dst_atom_id = %s AND kind = %s",
        (src, dst, kind),
    ).fetchone()
    assert existing is not None
    return int(existing["id"]), False


def citations_for(conn: Conn, atom_ids: Sequence[int]) -> dict[int, list[dict[str, Any]]]:
    """Citations of many atoms at once, with their document's title and URI."""
    out: dict[int, list[dict[str, Any]]] = {i: [] for i in atom_ids}
    if not atom_ids:
        return out
    rows = conn.execute(
        """SELECT c.atom_id, c.doc_id, d.title, d.uri, c.locator, c.quoted_text,
                  c.code_symbol_id, c.chunk_id
             FROM pm_citation c LEFT JOIN pm_document d ON d.id = c.doc_id
            WHERE c.atom_id = ANY(%s) ORDER BY c.id""",
        (list(atom_ids),),
    ).fetchall()
    for r in rows:
        out[int(r["atom_id"])].append(dict(r))
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
        """INSERT INTO pm_episodic_trace (session_id, kind, content, content_hash, language,
                                          ts_config, metadata)
           VALUES (%s, %s, %s, %s, %s, %s::regconfig, %s) RETURNING id""",
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
    by_type = conn.execute("SELECT type, count(*) AS n FROM pm_atom GROUP BY type").fetchall()
    by_status = conn.execute("SELECT status, count(*) AS n FROM pm_atom GROUP BY status").fetchall()
    gaps = conn.execute(
        "SELECT status, count(*) AS n FROM pm_research_gap GROUP BY status"
    ).fetchall()
    counts = conn.execute(
        """SELECT (SELECT count(*) FROM pm_atom) AS atoms,
                  (SELECT count(*) FROM pm_document) AS documents,
                  (SELECT count(*) FROM pm_chunk) AS chunks,
                  (SELECT count(*) FROM pm_citation) AS citations,
                  (SELECT count(*) FROM pm_atom_link) AS links,
                  (SELECT count(*) FROM pm_atom_link WHERE inferred) AS links_inferred,
                  (SELECT count(*) FROM pm_code_symbol) AS code_symbols,
                  (SELECT count(*) FROM pm_code_dependency) AS code_dependencies,
                  (SELECT count(*) FROM pm_episodic_trace) AS traces,
                  (SELECT count(*) FROM pm_outbox
                    WHERE processed_at IS NULL AND parked_at IS NULL) AS outbox_pending,
                  (SELECT count(*) FROM pm_outbox WHERE parked_at IS NOT NULL) AS outbox_parked,
                  (SELECT extract(epoch FROM now() - min(created_at)) FROM pm_outbox
                    WHERE processed_at IS NULL AND parked_at IS NULL) AS oldest_pending"""
    ).fetchone()
    assert counts is not None
    gaps_by_status = {r["status"]: int(r["n"]) for r in gaps}
    return {
        "atoms_total": int(counts["atoms"]),
        "atoms_by_type": {r["type"]: int(r["n"]) for r in by_type},
        "atoms_by_status": {r["status"]: int(r["n"]) for r in by_status},
        "documents": int(counts["documents"]),
        "chunks": int(counts["chunks"]),
        "citations": int(counts["citations"]),
        "links": int(counts["links"]),
        "links_inferred": int(counts["links_inferred"]),
        "code_symbols": int(counts["code_symbols"]),
        "code_dependencies": int(counts["code_dependencies"]),
        "episodic_traces": int(counts["traces"]),
        "gaps_by_status": gaps_by_status,
        "open_gaps": gaps_by_status.get("open", 0) + gaps_by_status.get("researching", 0),
        "outbox_pending": int(counts["outbox_pending"]),
        "outbox_parked": int(counts["outbox_parked"]),
        "oldest_pending_age_seconds": (
            float(counts["oldest_pending"]) if counts["oldest_pending"] is not None else None
        ),
    }
