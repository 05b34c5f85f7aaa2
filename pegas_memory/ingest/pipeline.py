"""The ingest pipeline: source -> chunks -> typed atoms -> Postgres (with dedup and citations).

Parsing, chunking, distillation and embedding happen first, outside any transaction (they can be
slow); then one transaction writes the document version, its chunks, the new atoms, every citation
and, through the triggers, the outbox rows. A failure anywhere leaves nothing half-written.

Versions: a document is keyed by (source URI, content hash). The same bytes again do no work. New
bytes become a new version: chunks whose content hash the previous version already had are reused
(not distilled again; their atoms are cited from the new version too), and atoms whose only
evidence was in chunks that vanished are marked stale with the reason.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import pegas_memory.embedding.search_vector as search_vector
from pegas_memory.config import Settings
from pegas_memory.db.pool import Conn, Database
from pegas_memory.db.repo import (
    AtomInput,
    ChunkInput,
    DocumentInput,
    StoredClaim,
    add_citation,
    atom_hash,
    atom_ids_by_hash,
    atoms_for_dedup,
    copy_chunk_citations,
    document_version,
    insert_atom,
    insert_chunks,
    set_status,
    upsert_document,
)
from pegas_memory.distill.ollama import locate_quote
from pegas_memory.distill.types import ChunkContext, CountsDrops, Distiller, DraftAtom
from pegas_memory.errors import BackendUnavailable, InvalidInput
from pegas_memory.ingest.chunking import Chunk, ParsedSource, citation_locator
from pegas_memory.ingest.claims import ClaimSignature, claim_signature
from pegas_memory.ingest.dedup import Conflict, decide, embed_in_timed_batches, threshold_for
from pegas_memory.ingest.queries import INGEST_SQL as Q
from pegas_memory.ingest.sources import chunk_source, parse_source, read_source
from pegas_memory.ingest.versions import resolve_conflicts
from pegas_memory.outbox.projection import atom_embed_text
from pegas_memory.progress import on_a_clock
from pegas_memory.runtime import ProjectionRuntime

if TYPE_CHECKING:
    from pegas_memory.requests import IngestRequest

log = logging.getLogger(__name__)

Progress = Callable[[float, float, str], None]

# How much a source of each kind is trusted before verification (recorded on the document).
AUTHORITY = {"pdf": 0.7, "epub": 0.7, "web": 0.5, "text": 0.5, "agent": 0.4, "code_repo": 0.6}
MAX_TOPIC_CHARS = 200
MAX_TAGS = 32
# The claim guard's signatures are read on the clock, looked at every this many atoms (about
# 1.6 ms each, unloaded, after claims memoised its antonym scan).
SIGNATURES_CHECK_EVERY = 8


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
    chunks: int = 0
    chunks_reused: int = 0
    atoms_new: int = 0
    duplicates_exact: int = 0
    duplicates_semantic: int = 0
    skipped: int = 0
    marked_stale: int = 0
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
    conflicts: tuple[Conflict, ...] = ()  # near-duplicates that claim something else


class IngestPipeline:
    def __init__(
        self,
        settings: Settings,
        db: Database,
        runtime: ProjectionRuntime,
        distiller: Callable[[], Distiller],
    ):
        self.settings = settings
        self.db = db
        self.runtime = runtime
        self._distiller = distiller
        # False: similarity alone merges near-duplicates (the behaviour before ingest.claims);
        # only the benchmarks turn it off, to show both side by side.
        self.claim_guard = True

    def ingest(self, request: IngestRequest, *, progress: Progress | None = None) -> IngestReport:
        """Ingest one source (URL, file path or text). Raises IngestError, SecurityRefused,
        LimitExceeded or InvalidInput with an actionable message; writes nothing then."""
        source, kind, title = request.source, request.kind, request.title
        password, topic, tags = request.password, request.topic, request.tags
        started = time.monotonic()
        say = progress or (lambda done, total, message: None)
        if topic is not None and len(topic) > MAX_TOPIC_CHARS:
            raise InvalidInput(f"topic is over {MAX_TOPIC_CHARS} characters")
        if len(tags) > MAX_TAGS:
            raise InvalidInput(f"at most {MAX_TAGS} tags")
        say(0, 1, "reading the source")
        raw = read_source(source, self.settings, kind=kind)
        with self.db.connection() as conn:
            same = conn.execute(Q.same_version, (raw.uri, raw.raw_hash)).fetchone()
        if same:  # recognised from the bytes: nothing is parsed
            report = IngestReport(uri=raw.uri, title=same["title"], kind=same["kind"])
            report.document_id, report.version_id = int(same["identity_id"]), int(same["id"])
            report.version, report.is_current = int(same["version"]), bool(same["is_current"])
            report.unchanged = True
            report.seconds = time.monotonic() - started
            say(1, 1, "unchanged: nothing to do")
            return report
        say(0, 1, "parsing the source")
        parsed = parse_source(raw, self.settings, password=password, title=title, progress=say)
        report = IngestReport(uri=parsed.uri, title=parsed.title, kind=parsed.kind)
        report.warnings.extend(parsed.warnings)
        for reason, n in dict(parsed.metadata.get("layout_removed") or {}).items():
            if "recovered" not in reason and "kept" not in reason:  # repairs, not removals
                report.dropped[f"layout: {reason}"] = int(n)

        chunks = chunk_source(parsed, max_chunks=self.settings.max_chunks)
        report.chunks = len(chunks)
        reused = self._previous_chunks(parsed.uri)
        fresh = [c for c in chunks if c.content_hash not in reused]
        report.chunks_reused = len(chunks) - len(fresh)

        planned = self._distill(parsed, fresh, report, say)
        planned, known = self._dedup(
            planned, report, lambda m: say(len(fresh) + 1, len(fresh) + 2, m)
        )
        say(len(fresh) + 1, len(fresh) + 2, "writing to the database")
        with self.db.transaction() as conn:
            self._write(conn, parsed, chunks, planned, reused, report, topic, tuple(tags), known)
        self.runtime_notify()
        report.seconds = round(time.monotonic() - started, 3)
        say(1, 1, f"done: {report.atoms_new} new atoms")
        return report

    def runtime_notify(self) -> None:
        """Nothing to do: the outbox rows were committed with the atoms and NOTIFY woke the
        worker. Kept as the single place a synchronous projection hook would go."""

    # ------------------------------------------------------------------ steps
    def _previous_chunks(self, uri: str) -> dict[str, int]:
        """content hash -> chunk id in the current version of this URI (for reuse)."""
        with self.db.connection() as conn:
            rows = conn.execute(Q.current_chunks, (uri,)).fetchall()
        return {r["content_hash"]: int(r["id"]) for r in rows}

    def _distill(
        self, parsed: ParsedSource, chunks: Sequence[Chunk], report: IngestReport, say: Progress
    ) -> list[PlannedAtom]:
        distiller = self._distiller()
        out: list[PlannedAtom] = []
        total = len(chunks) + 2
        for n, chunk in enumerate(chunks, start=1):
            if n == 1 or n % 5 == 0:
                say(n, total, f"distilling chunk {n} of {len(chunks)}")
            context = ChunkContext(
                title=parsed.title, heading_path=chunk.heading_path, language=chunk.language
            )
            try:
                if isinstance(distiller, CountsDrops):
                    drafts, drops = distiller.distill_counted(chunk.text, context)
                    for reason, n in drops.items():
                        report.dropped[reason] = report.dropped.get(reason, 0) + n
                else:
                    drafts = distiller.distill(chunk.text, context)
            except Exception as exc:  # one bad chunk must not sink the document
                report.errors.append(f"chunk {chunk.ord} ({chunk.locator}): {exc}"[:500])
                continue
            for draft in drafts:
                checked = _checked_quote(draft, chunk.text)
                if checked is None:
                    report.skipped += 1
                    reason = "quote not found in the text"
                    report.dropped[reason] = report.dropped.get(reason, 0) + 1
                    continue
                out.append(PlannedAtom(_with_context(checked, context), chunk.ord, None, None))
        return out

    def _dedup(
        self, planned: list[PlannedAtom], report: IngestReport, say: Callable[[str], None]
    ) -> tuple[list[PlannedAtom], dict[int, StoredClaim]]:
        """Exact repeats first (same content hash, wherever they were stored), then semantic
        near-duplicates of the rest, which must also claim the same (ingest.claims)."""
        known: dict[int, StoredClaim] = {}  # stored atoms the claim guard looked at
        if not planned:
            return planned, known
        hashes = [atom_hash(p.draft.claim, p.draft.content) for p in planned]
        with self.db.connection() as conn:
            stored_hash = atom_ids_by_hash(conn, hashes)
        out = list(planned)
        first: dict[str, int] = {}
        rest: list[int] = []  # indices of planned atoms no byte-identical atom repeats
        for i, h in enumerate(hashes):
            if h in stored_hash:
                out[i] = replace(planned[i], duplicate_of=stored_hash[h], exact=True)
            elif h in first:
                out[i] = replace(planned[i], batch_dup=first[h], exact=True)
            else:
                first[h] = i
                rest.append(i)
        if not rest:
            return out, known
        try:
            embedder = self.runtime.embedder.get()
        except BackendUnavailable as exc:
            report.warnings.append(f"semantic dedup skipped: {exc}")
            return out, known
        todo = [planned[i] for i in rest]
        texts = [atom_embed_text(p.draft.claim, p.draft.content) for p in todo]
        vectors = embed_in_timed_batches(  # calls sized to report every few seconds
            embedder.embed_documents,
            texts,
            lambda k, n, note="": say(f"embedding atoms for deduplication: {k} of {n}{note}"),
        )
        index = None
        collection = None
        try:
            index = self.runtime.vectors.get()
            collection = self.runtime.projector.collection("atom")
        except BackendUnavailable as exc:
            report.warnings.append(f"semantic dedup against stored atoms skipped: {exc}")
        threshold = threshold_for(embedder.model_id, self.settings.dedup_threshold)
        # What each atom claims, on the clock (GeoTopo's 719 took 7.8 s, silent, issue 17).
        claims = on_a_clock(
            todo,
            lambda k: say(f"reading the atoms' claims for the claim guard: {k} of {len(todo)}"),
            check_every=SIGNATURES_CHECK_EVERY,
        )
        signatures = [_signature(p.draft) for p in claims] if self.claim_guard else None

        def stored(ids: Sequence[int]) -> dict[int, ClaimSignature]:
            missing = [i for i in ids if i not in known]
            if missing:
                with self.db.connection() as conn:
                    known.update(atoms_for_dedup(conn, missing))
            return {i: _stored_signature(known[i]) for i in ids if i in known}

        def claim_vectors(ids: Sequence[int]) -> dict[int, list[float]]:
            """Stored atoms' claim vectors (the slice holds search vectors: the dedup compares
            claims with claims, embedding.search_vector), from the embedding cache."""
            stored(ids)
            rows = [known[i] for i in ids if i in known]
            texts = [atom_embed_text(r.claim, r.content) for r in rows]
            return {r.id: v for r, v in zip(rows, embedder.embed_documents(texts), strict=True)}

        decisions, note = decide(
            vectors,
            index=index,
            collection=collection,
            threshold=threshold,
            signatures=signatures,
            stored=stored if self.claim_guard else None,
            claim_vectors=claim_vectors,
            report=lambda k, n: say(f"checking atoms against the stored ones: {k} of {n}"),
        )
        if note:
            report.warnings.append(note)
        for i, d in zip(rest, decisions, strict=True):
            out[i] = replace(
                planned[i],
                duplicate_of=d.existing_id,
                batch_dup=rest[d.batch_index] if d.batch_index is not None else None,
                conflicts=tuple(
                    replace(c, batch_index=rest[c.batch_index]) if c.batch_index is not None else c
                    for c in d.conflicts
                ),
            )
        return out, known

    def _write(
        self,
        conn: Conn,
        parsed: ParsedSource,
        chunks: Sequence[Chunk],
        planned: Sequence[PlannedAtom],
        reused: dict[str, int],
        report: IngestReport,
        topic: str | None,
        tags: tuple[str, ...],
        known: dict[int, StoredClaim],
    ) -> None:
        doc_id, _created = upsert_document(
            conn,
            DocumentInput(
                kind=parsed.kind,
                uri=parsed.uri,
                content_hash=parsed.raw_hash,
                title=parsed.title,
                author=parsed.author,
                language=parsed.language,
                authority=AUTHORITY.get(parsed.kind, 0.5),
                published_at=_date_or_none(parsed.published_at),
                metadata={
                    **_jsonable(parsed.metadata),
                    "canonical_url": parsed.canonical_url,
                    "warnings": list(parsed.warnings),
                },
            ),
        )
        version = conn.execute(Q.document_version, (doc_id,)).fetchone()
        assert version is not None
        where = document_version(conn, doc_id)
        report.document_id, report.version_id = where.identity_id, doc_id
        report.version, report.is_current = where.version, where.is_current
        chunk_id = insert_chunks(
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
        by_ord = {c.ord: c for c in chunks}
        # Reused chunks: cite their atoms from this version too.
        for c in chunks:
            old = reused.get(c.content_hash)
            if old is not None:
                copy_chunk_citations(
                    conn, old, doc_id=doc_id, chunk_id=chunk_id[c.ord], locator=c.locator
                )
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
                        topic=topic,
                        tags=tags,
                        language=d.language or chunk.language,
                        source=parsed.kind,
                        prompt_version=str(d.metadata.get("prompt_version") or "") or None,
                        metadata=_jsonable(d.metadata),
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
            add_citation(
                conn,
                atom_id,
                doc_id=doc_id,
                chunk_id=chunk_id[p.chunk_ord],
                locator=citation_locator(chunk, d.quote_start),
                quote=d.quote,
                char_start=chunk.char_start + d.quote_start,
                char_end=chunk.char_start + d.quote_end,
            )
        report.kept_apart = len(apart)
        outcome = resolve_conflicts(
            conn,
            [(atom_id, p.conflicts) for atom_id, p in apart],
            atom_of,
            known,
            identity=where.identity_id,
            doc_id=doc_id,
            uri=parsed.uri,
            version=where.version,
        )
        report.superseded, report.contradictions = outcome.superseded, outcome.contradictions
        if version["supersedes"] is not None:
            report.marked_stale = _stale_orphans(
                conn, int(version["supersedes"]), doc_id, parsed.uri
            )


def _stale_orphans(conn: Conn, old_doc: int, new_doc: int, uri: str) -> int:
    """Atoms cited by the previous version whose evidence is in no current document any more."""
    rows = conn.execute(Q.orphaned_atoms, {"old": old_doc}).fetchall()
    n = 0
    for r in rows:
        status = conn.execute(Q.atom_status, (r["atom_id"],)).fetchone()
        if status and status["status"] != "stale":
            set_status(
                conn,
                int(r["atom_id"]),
                "stale",
                reason=f"its evidence is gone from the new version of {uri} (document {new_doc})",
                check_name="reingest",
            )
            n += 1
    return n


def _signature(draft: DraftAtom) -> ClaimSignature:
    """What a draft claims, for the dedup claim guard: its claim and content, and its term."""
    return claim_signature(f"{draft.claim}\n{draft.content}", draft.term)


def _stored_signature(atom: StoredClaim) -> ClaimSignature:
    return claim_signature(f"{atom.claim}\n{atom.content}", atom.term)


def _with_context(draft: DraftAtom, context: ChunkContext) -> DraftAtom:
    """The draft with its search context (document title > section path) in its metadata: what
    its search vector is moved toward, besides its claim (embedding.search_vector)."""
    where = search_vector.search_context(context.title, context.heading_path)
    if not where:
        return draft
    return replace(draft, metadata={**draft.metadata, "search_context": where})


def _checked_quote(draft: DraftAtom, text: str) -> DraftAtom | None:
    """The draft with a quote that really occurs in the chunk at its offsets, or None."""
    q0, q1 = draft.quote_start, draft.quote_end
    if draft.quote and 0 <= q0 < q1 <= len(text) and text[q0:q1] == draft.quote:
        return draft
    if not draft.quote:
        return None
    found = locate_quote(text, draft.quote)
    if found is None:
        return None
    q0, q1 = found
    return replace(draft, quote=text[q0:q1], quote_start=q0, quote_end=q1)


def _date_or_none(value: str | None) -> str | None:
    if not value:
        return None
    for parse in (datetime.fromisoformat, date.fromisoformat):
        try:
            parse(value)
            return value
        except ValueError:
            continue
    return None


def _jsonable(value: Any) -> dict[str, Any]:
    try:
        return dict(json.loads(json.dumps(dict(value), default=str)))
    except (TypeError, ValueError):
        return {}
