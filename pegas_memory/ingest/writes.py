"""The rows of one document version: its chunks, its new atoms and every citation, the
near-duplicates kept apart resolved (ingest.versions); and the ingest report they fill in.

The pipeline (ingest.pipeline) writes them in its one transaction, for a new version and for a
re-distill of the same version alike, so both cite, dedup and supersede the same way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from psycopg.types.json import Jsonb

from pegas_memory.db.pool import Conn
from pegas_memory.db.repo import (
    AtomInput,
    ChunkInput,
    StoredClaim,
    add_citation,
    atom_hash,
    document_version,
    insert_atom,
    insert_chunks,
    storable_confidence,
)
from pegas_memory.distill.types import DraftAtom
from pegas_memory.ingest.chunking import Chunk, ParsedSource, citation_locator
from pegas_memory.ingest.dedup import Conflict
from pegas_memory.ingest.published import normalise_date
from pegas_memory.ingest.queries import INGEST_SQL as Q
from pegas_memory.ingest.versions import resolve_conflicts
from pegas_memory.models import DecayProfile
from pegas_memory.search.fusion import default_decay


@dataclass
class IngestReport:
    document_id: int | None = None  # the document's stable identity (its first version's id)
    version_id: int | None = None  # this version's own id
    uri: str = ""
    title: str | None = None
    kind: str = ""
    version: int = 0
    is_current: bool = True
    unchanged: bool = False
    redistilled: str | None = None  # "offline-v4 -> offline-v6": the same bytes read again
    atoms_kept: int = 0  # a re-distill: old atoms the version still cites
    atoms_retyped: int = 0  # a re-distill: kept atoms that took the new distiller's type or term
    chunks: int = 0
    chunks_reused: int = 0
    atoms_new: int = 0
    duplicates_exact: int = 0
    duplicates_semantic: int = 0
    merges: int = 0  # semantic merges recorded (pm_merge): memory_merges lists and splits them
    skipped: int = 0
    marked_stale: int = 0
    revived: int = 0  # stale atoms whose evidence the new version holds again
    superseded: int = 0
    contradictions: int = 0
    kept_apart: int = 0
    atoms_by_type: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    atom_ids: list[int] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(frozen=True)
class PlannedAtom:
    draft: DraftAtom
    chunk_ord: int
    duplicate_of: int | None  # an existing atom it repeats (semantic, or exact when `exact`)
    batch_dup: int | None  # index of an earlier planned atom it repeats
    exact: bool = False  # the repeat is byte-identical (same content hash)
    score: float = 0.0  # its cosine to what it repeats
    conflicts: tuple[Conflict, ...] = ()  # near-duplicates that claim something else


@dataclass(frozen=True)
class VersionWrite:
    """What a version's write needs besides its atoms (the report is filled in as it goes)."""

    parsed: ParsedSource
    chunks: Sequence[Chunk]
    report: IngestReport
    topic: str | None
    tags: tuple[str, ...]
    known: dict[int, StoredClaim]  # stored atoms the claim guard looked at
    distiller_version: str  # the running distiller's: recorded on the version and its atoms
    decay: DecayProfile | None = None  # memory_ingest's profile for the whole document
    decay_document_default: DecayProfile = DecayProfile.TIMELESS  # PEGAS_DECAY_DOCUMENT_DEFAULT

    @property
    def published_at(self) -> str | None:
        """The document's publication date as the source states it (ingest/published.py):
        what its atoms are about and what its perishable knowledge ages from."""
        return normalise_date(self.parsed.published_at)

    def document_decay(self) -> DecayProfile:
        """The profile of the version's passages: the one memory_ingest was given, else the
        kind of the source's default (a web page perishable)."""
        return self.decay or default_decay(
            None, self.parsed.kind, document_default=self.decay_document_default
        )

    def atom_decay(self, atom_type: str) -> DecayProfile:
        """An atom's profile: the one memory_ingest was given, else by its type and the kind
        of the source (search.fusion.default_decay)."""
        return self.decay or default_decay(
            atom_type, self.parsed.kind, document_default=self.decay_document_default
        )

    def metadata(self, **more: Any) -> dict[str, Any]:
        return {
            **jsonable(self.parsed.metadata),
            "canonical_url": self.parsed.canonical_url,
            "warnings": list(self.parsed.warnings),
            "distiller_version": self.distiller_version,
            **more,
        }


def insert_version_chunks(conn: Conn, doc_id: int, chunks: Sequence[Chunk]) -> dict[int, int]:
    return insert_chunks(
        conn,
        doc_id,
        [
            ChunkInput(
                ord=c.ord,
                content=c.text,
                content_hash=c.content_hash,
                locator=c.locator,
                heading_path=tuple(c.heading_path),
                char_start=c.char_start,
                char_end=c.char_end,
                language=c.language,
            )
            for c in chunks
        ],
    )


def write_atoms(
    conn: Conn,
    w: VersionWrite,
    doc_id: int,
    chunk_id: dict[int, int],
    planned: Sequence[PlannedAtom],
    *,
    redistilled_by: str | None = None,
) -> list[int]:
    """The planned atoms of a version (new ones inserted, repeats cited), then the conflicts
    resolved (ingest.versions); returns planned index -> atom id."""
    parsed, report = w.parsed, w.report
    where = document_version(conn, doc_id)
    report.document_id, report.version_id = where.identity_id, doc_id
    report.version, report.is_current = where.version, where.is_current
    by_ord = {c.ord: c for c in w.chunks}
    atom_of: list[int] = []
    apart: list[tuple[int, PlannedAtom]] = []  # new atoms kept apart from a near-duplicate
    for p in planned:
        chunk = by_ord[p.chunk_ord]
        d = p.draft
        repeats = atom_of[p.batch_dup] if p.batch_dup is not None else p.duplicate_of
        if repeats is not None:
            atom_id, created = repeats, False
            if p.exact:
                report.duplicates_exact += 1
            else:
                report.duplicates_semantic += 1
        else:
            atom_id, created = insert_atom(
                conn,
                AtomInput(
                    type=d.type,
                    claim=d.claim,
                    content=d.content,
                    confidence=d.confidence,
                    doc_id=doc_id,
                    topic=w.topic,
                    tags=w.tags,
                    language=d.language or chunk.language,
                    source=parsed.kind,
                    prompt_version=str(d.metadata.get("prompt_version") or w.distiller_version),
                    metadata=jsonable(d.metadata),
                    decay=w.atom_decay(d.type),
                    about_at=w.published_at,
                ),
            )
            if created:
                report.atoms_new += 1
                report.atom_ids.append(atom_id)
                report.atoms_by_type[d.type] = report.atoms_by_type.get(d.type, 0) + 1
                if p.conflicts:
                    apart.append((atom_id, p))
            else:
                report.duplicates_exact += 1
        atom_of.append(atom_id)
        citation = add_citation(
            conn,
            atom_id,
            doc_id=doc_id,
            chunk_id=chunk_id[p.chunk_ord],
            locator=citation_locator(chunk, d.quote_start),
            quote=d.quote,
            char_start=chunk.char_start + d.quote_start,
            char_end=chunk.char_start + d.quote_end,
        )
        if repeats is not None and not p.exact and citation is not None:
            _record_merge(conn, w, doc_id, atom_id, p, chunk, citation)
    report.kept_apart = len(apart)
    outcome = resolve_conflicts(
        conn,
        [(atom_id, p.conflicts) for atom_id, p in apart],
        atom_of,
        w.known,
        identity=where.identity_id,
        doc_id=doc_id,
        uri=parsed.uri,
        version=where.version,
        redistilled_by=redistilled_by,
    )
    report.superseded, report.contradictions = outcome.superseded, outcome.contradictions
    return atom_of


def _record_merge(
    conn: Conn,
    w: VersionWrite,
    doc_id: int,
    survivor: int,
    p: PlannedAtom,
    chunk: Chunk,
    citation: int,
) -> None:
    """A semantic merge: the claim `p` was not stored, its citation went to `survivor`. Recorded
    (pm_merge) so it can be listed and split again (curation.merges); exact repeats are not."""
    d = p.draft
    where = "an earlier claim of this document" if p.batch_dup is not None else "a stored atom"
    reason = (
        f"repeats {where} by meaning (claim cosine {p.score:.3f} at or above the dedup "
        "threshold) and the claim guard found no difference (numbers, dates, negation, names, "
        "quantifiers, antonyms, defined terms)"
    )
    conn.execute(
        Q.record_merge,
        {
            "survivor": survivor,
            "doc": doc_id,
            "claim": d.claim.strip(),
            "content": d.content,
            "type": d.type,
            "hash": atom_hash(d.claim, d.content),
            "language": d.language or chunk.language,
            "confidence": storable_confidence(d.confidence),
            "topic": w.topic,
            "tags": list(w.tags),
            "prompt_version": str(d.metadata.get("prompt_version") or w.distiller_version),
            "metadata": Jsonb(jsonable(d.metadata)),
            "citations": [citation],
            "quotes": [d.quote],
            "similarity": round(float(p.score), 4),
            "reason": reason,
        },
    )
    w.report.merges += 1


def jsonable(value: Any) -> dict[str, Any]:
    try:
        return dict(json.loads(json.dumps(dict(value), default=str)))
    except (TypeError, ValueError):
        return {}
