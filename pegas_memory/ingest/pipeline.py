"""The ingest pipeline: source -> chunks -> typed atoms -> Postgres (with dedup and citations).

Parsing, chunking, distillation and embedding happen first, outside any transaction (they can be
slow); then one transaction writes the document version, its chunks, the new atoms, every citation
and, through the triggers, the outbox rows. A failure anywhere leaves nothing half-written.

Versions: a document is keyed by (source URI, content hash). The same bytes again do no work
(recognised before parsing), unless the version's atoms came from another distiller version than
the running one (recorded on the version as `metadata.distiller_version`; for a version stored
before that, its atoms' `prompt_version`s) or `redistill` is asked: then the version is read and
distilled again in place, in one transaction (ingest.versions: kept, superseded and retired
atoms). New bytes become a new version: chunks whose content hash the previous version already
had are reused (not distilled again; their atoms are cited from the new version too), and atoms
whose only evidence was in chunks that vanished are marked stale with the reason.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Protocol

from psycopg.types.json import Jsonb

import pegas_memory.embedding.search_vector as search_vector
from pegas_memory.config import Settings
from pegas_memory.db.pool import Conn, Database
from pegas_memory.db.repo import (
    DocumentInput,
    StoredClaim,
    atom_hash,
    atom_ids_by_hash,
    atoms_for_dedup,
    copy_chunk_citations,
    set_status,
    upsert_document,
)
from pegas_memory.distill.ollama import locate_quote
from pegas_memory.distill.promote import promote
from pegas_memory.distill.types import ChunkContext, CountsDrops, Distiller, DraftAtom
from pegas_memory.distill.xrefs import labels_of, resolve_labels
from pegas_memory.errors import BackendUnavailable, IngestError, InvalidInput
from pegas_memory.ingest.chunking import Chunk, ParsedSource, citation_locator
from pegas_memory.ingest.claims import ClaimSignature, atom_signature, claim_sentences
from pegas_memory.ingest.dedup import Conflict, decide, embed_in_timed_batches, threshold_for
from pegas_memory.ingest.queries import INGEST_SQL as Q
from pegas_memory.ingest.sources import chunk_source, parse_source, read_source
from pegas_memory.ingest.versions import begin_redistill, finish_redistill, retype_kept
from pegas_memory.ingest.writes import (
    IngestReport,
    PlannedAtom,
    VersionWrite,
    insert_version_chunks,
    jsonable,
    write_atoms,
)
from pegas_memory.models import AtomStatus, DecayProfile
from pegas_memory.outbox.projection import atom_embed_text
from pegas_memory.outbox.slices import Engines
from pegas_memory.progress import on_a_clock

log = logging.getLogger(__name__)


class IngestOrder(Protocol):
    """What an ingest is asked to do (`app.requests.IngestRequest` has this shape)."""

    @property
    def source(self) -> str: ...
    @property
    def kind(self) -> str | None: ...
    @property
    def title(self) -> str | None: ...
    @property
    def password(self) -> str | None: ...
    @property
    def topic(self) -> str | None: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def redistill(self) -> bool: ...
    @property
    def decay(self) -> DecayProfile | None: ...


Progress = Callable[[float, float, str], None]
# Runs inside the transaction that writes a new version or a re-distill, before it commits (the
# UI writes its audit line there); not called when nothing is written (unchanged bytes).
IngestAudit = Callable[[Conn, IngestReport], None]

# How much a source of each kind is trusted before verification (recorded on the document).
AUTHORITY = {"pdf": 0.7, "epub": 0.7, "web": 0.5, "text": 0.5, "agent": 0.4, "code_repo": 0.6}
MAX_TOPIC_CHARS = 200
MAX_TAGS = 32
# The claim guard's signatures are read on the clock, looked at every this many atoms (about
# 1.6 ms each, unloaded, after claims memoised its antonym scan).
SIGNATURES_CHECK_EVERY = 8
# The stored distiller version of a version whose atoms say none (stored before it was recorded).
UNRECORDED = "unrecorded"


class IngestPipeline:
    def __init__(
        self,
        settings: Settings,
        db: Database,
        runtime: Engines,
        distiller: Callable[[], Distiller],
    ):
        self.settings = settings
        self.db = db
        self.runtime = runtime
        self._distiller = distiller
        # False: similarity alone merges near-duplicates (the behaviour before ingest.claims);
        # only the benchmarks turn it off, to show both side by side.
        self.claim_guard = True

    def _same_bytes_elsewhere(self, uri: str, raw_hash: str) -> IngestReport | None:
        """Byte-identical content under another path or URL is the same document version: the
        URI is recorded as another name of it (no second copy of its chunks and citations, so it
        never confirms its own claims); None when no current version holds these bytes."""
        with self.db.transaction() as conn:
            other = conn.execute(Q.same_bytes_elsewhere, (raw_hash, uri)).fetchone()
            if other is None:
                return None
            conn.execute(Q.add_alias, {"uri": uri, "id": int(other["id"])})
        report = IngestReport(uri=uri, title=other["title"], kind=other["kind"])
        report.document_id, report.version_id = int(other["identity_id"]), int(other["id"])
        report.version, report.is_current = int(other["version"]), True
        report.unchanged = True
        report.warnings.append(
            f"the same bytes as document {int(other['identity_id'])} ({other['uri']}): "
            "recorded as another name of it, not stored twice"
        )
        return report

    def ingest(
        self,
        request: IngestOrder,
        *,
        progress: Progress | None = None,
        audit: IngestAudit | None = None,
    ) -> IngestReport:
        """Ingest one source (URL, file path or text). Raises IngestError, SecurityRefused,
        LimitExceeded or InvalidInput with an actionable message; writes nothing then.
        `audit` runs in the transaction writing the version (or re-distilling it), with the
        report as it stands, before it commits."""
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
        if not same:
            alias = self._same_bytes_elsewhere(raw.uri, raw.raw_hash)
            if alias is not None:
                alias.seconds = time.monotonic() - started
                say(1, 1, "the same bytes as a stored document: recorded as another name of it")
                return alias
        distiller = self._distiller()
        change = None
        # The current version's bytes are recognised before parsing: nothing is done unless they
        # are re-distilled. Bytes of an earlier version (a file restored, a branch checked out
        # again) are a new version: they are what the source says now (migration 0024).
        if same and same["is_current"]:
            stored = str(same["distiller_version"] or UNRECORDED)
            if request.redistill or stored != distiller.prompt_version:
                change = (stored, distiller.prompt_version)
            else:
                report = IngestReport(uri=raw.uri, title=same["title"], kind=same["kind"])
                report.document_id, report.version_id = int(same["identity_id"]), int(same["id"])
                report.version, report.is_current = int(same["version"]), True
                report.unchanged = True
                if request.decay is not None:  # a new profile for what is stored
                    with self.db.transaction() as conn:
                        conn.execute(
                            Q.set_document_decay, {"decay": request.decay, "id": int(same["id"])}
                        )
                    report.warnings.append(f"unchanged; its decay profile is now {request.decay}")
                report.seconds = time.monotonic() - started
                say(1, 1, "unchanged: nothing to do")
                return report
            say(0, 1, f"re-distilling the unchanged source: {change[0]} -> {change[1]}")
        say(0, 1, "parsing the source")
        parsed = parse_source(raw, self.settings, password=password, title=title, progress=say)
        report = IngestReport(uri=parsed.uri, title=parsed.title, kind=parsed.kind)
        report.warnings.extend(parsed.warnings)
        for reason, n in dict(parsed.metadata.get("layout_removed") or {}).items():
            if "recovered" not in reason and "kept" not in reason:  # repairs, not removals
                report.dropped[f"layout: {reason}"] = int(n)

        chunks = chunk_source(
            parsed, max_chars=self.settings.chunk_chars, max_chunks=self.settings.max_chunks
        )
        report.chunks = len(chunks)
        reused = self._previous_chunks(parsed.uri) if change is None else {}
        fresh = [c for c in chunks if c.content_hash not in reused]
        report.chunks_reused = len(chunks) - len(fresh)

        planned = self._distill(distiller, parsed, fresh, report, say)
        if change is not None and report.errors:  # a half-read document must retire nothing
            raise IngestError(
                f"re-distilling {parsed.uri} stopped, nothing was changed and its atoms stay as "
                f"they were: {report.errors[0]}; fix the distiller and ingest it again"
            )
        # Embedding is steps of its own (one per text), after the chunks' distillation: a long
        # document's progress moves through it instead of sitting at n-1 of n.
        embedded = [0]

        def stage(message: str) -> None:
            say(len(fresh) + embedded[0] + 1, len(fresh) + embedded[0] + 2, message)

        def step(k: int, n: int, message: str) -> None:
            embedded[0] = n
            say(len(fresh) + k, len(fresh) + n + 2, message)

        planned, known = self._dedup(planned, report, stage, step)
        stage("writing to the database")
        write = VersionWrite(
            parsed,
            chunks,
            report,
            topic,
            tuple(tags),
            known,
            distiller.prompt_version,
            decay=request.decay,
            decay_document_default=self.settings.decay_document_default,
        )
        if same and change is not None:
            self._redistill(
                write, int(same["id"]), int(same["identity_id"]), planned, change, say, audit
            )
        else:
            with self.db.transaction() as conn:
                self._write(conn, write, planned, reused)
                if audit is not None:
                    audit(conn, report)
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
        self,
        distiller: Distiller,
        parsed: ParsedSource,
        chunks: Sequence[Chunk],
        report: IngestReport,
        say: Progress,
    ) -> list[PlannedAtom]:
        out: list[PlannedAtom] = []
        total = len(chunks) + 2
        spans: dict[tuple[str, int], list[tuple[int, int, int]]] = {}  # _repeated_by_overlap
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
                if not getattr(distiller, "promotes", False):  # a model's drafts
                    drafts, drops = promote(drafts, chunk.text, context)
                    for reason, n in drops.items():
                        report.dropped[reason] = report.dropped.get(reason, 0) + n
            except Exception as exc:  # one bad chunk must not sink the document
                report.errors.append(f"chunk {chunk.ord} ({chunk.locator}): {exc}"[:500])
                continue
            for draft in resolve_labels(drafts, labels_of(parsed.metadata)):  # a :ref: read
                checked = _checked_quote(draft, chunk.text)
                if checked is None:
                    report.skipped += 1
                    reason = "quote not found in the text"
                    report.dropped[reason] = report.dropped.get(reason, 0) + 1
                    continue
                if _repeated_by_overlap(chunk, checked, spans):
                    reason = "repeated by chunk overlap"
                    report.dropped[reason] = report.dropped.get(reason, 0) + 1
                    continue
                out.append(PlannedAtom(_with_context(checked, context), chunk.ord, None, None))
        return out

    def _dedup(
        self,
        planned: list[PlannedAtom],
        report: IngestReport,
        say: Callable[[str], None],
        step: Callable[[int, int, str], None] | None = None,
    ) -> tuple[list[PlannedAtom], dict[int, StoredClaim]]:
        """Exact repeats first (same content hash, wherever they were stored), then semantic
        near-duplicates of the rest, which must also claim the same (ingest.claims). `step`
        counts the texts embedded as steps (k of n); `say` reports the other stages."""
        counted = step or (lambda k, n, message: say(message))
        known: dict[int, StoredClaim] = {}  # stored atoms the claim guard looked at
        if not planned:
            return planned, known
        hashes = [atom_hash(p.draft.claim, p.draft.content) for p in planned]
        with self.db.connection() as conn:
            stored_hash = atom_ids_by_hash(conn, hashes)
        out, rest = _exact_repeats(planned, hashes, stored_hash)
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
            lambda k, n, note="": counted(
                k, n, f"embedding atoms for deduplication: {k} of {n}{note}"
            ),
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

        read: dict[int, ClaimSignature] = {}  # each stored atom's signature, read once

        def stored(ids: Sequence[int]) -> dict[int, ClaimSignature]:
            missing = [i for i in ids if i not in known]
            if missing:
                with self.db.connection() as conn:
                    known.update(atoms_for_dedup(conn, missing))
            for i in ids:
                if i in known and i not in read:
                    read[i] = _stored_signature(known[i])
            return {i: read[i] for i in ids if i in read}

        def claim_vectors(ids: Sequence[int]) -> dict[int, list[float]]:
            """Stored atoms' claim vectors (the slice holds search vectors: the dedup compares
            claims with claims, embedding.search_vector), from the embedding cache."""
            stored(ids)
            rows = [known[i] for i in ids if i in known]
            texts = [atom_embed_text(r.claim, r.content) for r in rows]
            return {r.id: v for r, v in zip(rows, embedder.embed_documents(texts), strict=True)}

        sentence_vectors: dict[int, list[list[float]]] = {}  # stored atoms', embedded once

        def part_vectors(ids: Sequence[int]) -> dict[int, list[list[float]]]:
            """Stored joined atoms' sentence vectors (ingest.dedup: a claim on its own repeats
            the joined atom that says it)."""
            stored(ids)
            rows = [known[i] for i in ids if i in known and i not in sentence_vectors]
            vectors = _sentence_vectors(embedder.embed_documents, [r.claim for r in rows])
            sentence_vectors.update({r.id: v for r, v in zip(rows, vectors, strict=True)})
            return {i: sentence_vectors[i] for i in ids if i in sentence_vectors}

        parts = None
        if signatures is not None and any(sig.parts for sig in signatures):
            parts = _sentence_vectors(  # calls sized to report every few seconds, as above
                lambda texts: embed_in_timed_batches(
                    embedder.embed_documents,
                    texts,
                    lambda k, n, note="": counted(
                        k, n, f"embedding the sentences of joined atoms: {k} of {n}{note}"
                    ),
                ),
                [p.draft.claim for p in todo],
            )
        blocked = self._merge_blocks(hashes, rest)
        decisions, note = decide(
            vectors,
            index=index,
            collection=collection,
            threshold=threshold,
            signatures=signatures,
            stored=stored if self.claim_guard else None,
            claim_vectors=claim_vectors,
            parts=parts,
            part_vectors=part_vectors if self.claim_guard else None,
            blocked=blocked,
            report=lambda k, n: say(f"checking atoms against the stored ones: {k} of {n}"),
        )
        if note:
            report.warnings.append(note)
        for i, d in zip(rest, decisions, strict=True):
            out[i] = replace(
                planned[i],
                duplicate_of=d.existing_id,
                batch_dup=rest[d.batch_index] if d.batch_index is not None else None,
                score=d.score,
                conflicts=tuple(
                    replace(c, batch_index=rest[c.batch_index]) if c.batch_index is not None else c
                    for c in d.conflicts
                ),
            )
        return out, known

    def _merge_blocks(self, hashes: Sequence[str], rest: Sequence[int]) -> set[tuple[int, int]]:
        """(position in `rest`, atom id) pairs dedup must not merge: a split merge of that claim
        into that atom (pm_merge_block, curation.merges)."""
        wanted = sorted({hashes[i] for i in rest})
        with self.db.connection() as conn:
            rows = conn.execute(Q.merge_blocks, (wanted,)).fetchall()
        atoms: dict[str, set[int]] = {}
        for r in rows:
            atoms.setdefault(str(r["content_hash"]), set()).add(int(r["atom_id"]))
        return {(k, a) for k, i in enumerate(rest) for a in atoms.get(hashes[i], ())}

    def _write(
        self, conn: Conn, w: VersionWrite, planned: Sequence[PlannedAtom], reused: dict[str, int]
    ) -> None:
        """A new version (or a first one): the document, its chunks, atoms and citations."""
        parsed = w.parsed
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
                published_at=w.published_at,
                # the drafts dropped while distilling its new chunks, by reason (the UI's
                # versions list); reused chunks were distilled for an earlier version
                metadata=w.metadata(dropped=dict(w.report.dropped)),
                decay=w.document_decay(),
            ),
        )
        version = conn.execute(Q.document_version, (doc_id,)).fetchone()
        assert version is not None
        chunk_id = insert_version_chunks(conn, doc_id, w.chunks)
        # Reused chunks: cite their atoms from this version too.
        for c in w.chunks:
            old = reused.get(c.content_hash)
            if old is not None:
                copy_chunk_citations(
                    conn,
                    old,
                    doc_id=doc_id,
                    chunk_id=chunk_id[c.ord],
                    chunk_start=c.char_start,
                    locate=functools.partial(citation_locator, c),
                )
        write_atoms(conn, w, doc_id, chunk_id, planned)
        if version["supersedes"] is not None:
            ends = {"old": int(version["supersedes"]), "new": doc_id}
            conn.execute(Q.carry_source_citations, ends)  # notes that named this source
            w.report.marked_stale = _stale_orphans(
                conn, int(version["supersedes"]), doc_id, parsed.uri
            )
            w.report.revived = _revive_cited(conn, doc_id, parsed.uri, int(version["version"]))

    def _redistill(
        self,
        w: VersionWrite,
        doc_id: int,
        identity: int,
        planned: list[PlannedAtom],
        change: tuple[str, str],
        say: Progress,
        audit: IngestAudit | None = None,
    ) -> None:
        """The current version `doc_id` re-distilled in place, in one transaction (ingest.versions):
        the same id and version, its chunks and citations written afresh, a claim produced again
        kept (same atom), a reworded one superseding the atom it rewords, the rest retired."""
        report = w.report
        report.redistilled = f"{change[0]} -> {change[1]}"
        with self.db.connection() as conn:
            old_ids = [int(r["atom_id"]) for r in conn.execute(Q.version_atoms, (doc_id,))]
            w.known.update(atoms_for_dedup(conn, old_ids))
            rows = conn.execute(Q.redistill_protected, {"ids": old_ids}).fetchall()
        held = {int(r["id"]) for r in rows}
        # A near-duplicate of this document's own atom (no other document cites it, the new
        # run does not produce it word for word) is the new distiller's wording of that claim:
        # a new atom that supersedes the old one, not a citation of the old wording. Protected
        # atoms keep their wording (and are cited).
        mine = {i for i in old_ids if i in w.known and w.known[i].identities <= {identity}}
        exact = {p.duplicate_of: p.draft for p in reversed(planned) if p.exact and p.duplicate_of}
        own = mine - held - exact.keys()
        planned = [_reworded(p) if p.duplicate_of in own and not p.exact else p for p in planned]
        reproduced = frozenset(p.duplicate_of for p in planned if p.duplicate_of is not None)
        # produced again word for word: the new distiller's type and term (only this document's)
        kept = [(i, d.type, jsonable(d.metadata)) for i, d in exact.items() if i in mine]
        with self.db.transaction() as conn:
            conn.execute(Q.drop_open_merges, (doc_id,))  # recorded again below where they recur
            start = begin_redistill(conn, doc_id, reproduced)
            chunk_id = insert_version_chunks(conn, doc_id, w.chunks)
            atom_of = write_atoms(conn, w, doc_id, chunk_id, planned, redistilled_by=change[1])
            report.atoms_retyped = retype_kept(conn, kept, change[1])
            say(len(w.chunks) + 1, len(w.chunks) + 2, "re-distilled: retiring what is gone")
            outcome = finish_redistill(
                conn,
                start,
                frozenset(atom_of),
                doc_id=doc_id,
                identity=identity,
                uri=w.parsed.uri,
                change=change,
            )
            meta = w.metadata(
                redistilled={"from": change[0], "to": change[1]}, dropped=dict(report.dropped)
            )
            conn.execute(Q.record_redistill, (w.parsed.title, Jsonb(meta), doc_id))
            report.marked_stale, report.atoms_kept = outcome.retired, outcome.kept
            if audit is not None:
                audit(conn, report)
        report.superseded += outcome.absorbed
        if outcome.held:
            ids = ", ".join(str(i) for i in outcome.held[:20])
            report.warnings.append(
                f"{len(outcome.held)} atom(s) the new distiller no longer extracts were kept "
                f"current because they are verified, contested or linked (atoms {ids}); "
                "retract them with memory_forget if they no longer hold"
            )


def _reworded(p: PlannedAtom) -> PlannedAtom:
    """A near-duplicate of the version's own atom, turned into a new atom kept apart from it
    (so ingest.versions supersedes the old wording)."""
    assert p.duplicate_of is not None
    reason = Conflict(("reworded by the distiller",), p.score, existing_id=p.duplicate_of)
    return replace(p, duplicate_of=None, conflicts=(*p.conflicts, reason))


def _stale_orphans(conn: Conn, old_doc: int, new_doc: int, uri: str) -> int:
    """Atoms cited by the previous version whose evidence is in no current document any more."""
    rows = conn.execute(Q.orphaned_atoms, {"old": old_doc}).fetchall()
    n = 0
    for r in rows:
        status = conn.execute(Q.atom_status, (r["atom_id"],)).fetchone()
        if status and status["status"] != AtomStatus.STALE:
            set_status(
                conn,
                int(r["atom_id"]),
                AtomStatus.STALE,
                reason=f"its evidence is gone from the new version of {uri} (document {new_doc})",
                check_name="reingest",
            )
            n += 1
    return n


def _revive_cited(conn: Conn, doc_id: int, uri: str, version: int) -> int:
    """Atoms an earlier change of the document made stale that this version cites again (a
    sentence restored, a file's earlier bytes back) hold again: each gets back the status it had
    before, and what superseded it no longer does."""
    rows = conn.execute(Q.revivable_atoms, {"doc": doc_id}).fetchall()
    for r in rows:
        set_status(
            conn,
            int(r["id"]),
            AtomStatus(r["from_status"]),
            reason=f"its evidence is back in version {version} of {uri} (document {doc_id})",
            check_name="reingest",
        )
        conn.execute(Q.clear_superseded, {"id": int(r["id"])})
    return len(rows)


def _exact_repeats(
    planned: Sequence[PlannedAtom], hashes: Sequence[str], stored: Mapping[str, int]
) -> tuple[list[PlannedAtom], list[int]]:
    """Each planned atom whose content hash a stored atom has (``stored``: hash -> its id) or an
    earlier atom of the batch has, marked as its exact repeat; and the positions of the rest,
    which no byte-identical atom repeats."""
    out = list(planned)
    first: dict[str, int] = {}
    rest: list[int] = []
    for i, h in enumerate(hashes):
        if h in stored:
            out[i] = replace(planned[i], duplicate_of=stored[h], exact=True)
        elif h in first:
            out[i] = replace(planned[i], batch_dup=first[h], exact=True)
        else:
            first[h] = i
            rest.append(i)
    return out, rest


def _signature(draft: DraftAtom) -> ClaimSignature:
    """What a draft claims, for the dedup claim guard: its claim and content, and its term (and
    each sentence of a joined claim, ingest.claims.atom_signature)."""
    return atom_signature(draft.claim, draft.content, draft.term)


def _stored_signature(atom: StoredClaim) -> ClaimSignature:
    return atom_signature(atom.claim, atom.content, atom.term)


def _sentence_vectors(
    embed: Callable[[Sequence[str]], Sequence[Sequence[float]]], claims: Sequence[str]
) -> list[list[list[float]]]:
    """For each claim, the vectors of its sentences when it has two or more (a joined atom),
    else none; one embedding call for all."""
    sentences = [claim_sentences(c) for c in claims]
    flat = [t for group in sentences for t in group]
    vectors = [list(v) for v in embed(flat)] if flat else []
    out: list[list[list[float]]] = []
    at = 0
    for group in sentences:
        out.append(vectors[at : at + len(group)])
        at += len(group)
    return out


def _with_context(draft: DraftAtom, context: ChunkContext) -> DraftAtom:
    """The draft with its search context (document title > section path) in its metadata: what
    its search vector is moved toward, besides its claim (embedding.search_vector)."""
    where = search_vector.search_context(context.title, context.heading_path)
    if not where:
        return draft
    return replace(draft, metadata={**draft.metadata, "search_context": where})


def _repeated_by_overlap(
    chunk: Chunk, draft: DraftAtom, spans: dict[tuple[str, int], list[tuple[int, int, int]]]
) -> bool:
    """Whether the draft's quote lies inside (and is not all of) the quote of an atom of an
    earlier chunk of the same section, and records its span otherwise; the same span twice is an
    exact repeat, which dedup counts. Neighbouring chunks overlap (`chunking`):
    by whole sentences, or, when none is short enough, by the previous chunk's last words, so
    the next chunk can start mid-sentence, at a capital ("MLB (Лос-Анджелес Доджерс, ...) и MLS
    (...)." after "... включают в себя команды лиги НФЛ (...), НБА (...),"). Its distiller
    cannot tell that tail from a sentence; here its span shows it is part of a stored one. A
    draft that opens inside a stored quote and runs past it is that tail with the sentences
    after it joined on ("`Strictness.STRICT` to overwrite ... Otherwise ..."): a fragment too."""
    key = (chunk.section_locator, chunk.section_offset)
    seen = spans.setdefault(key, [])
    q0, q1 = chunk.char_start + draft.quote_start, chunk.char_start + draft.quote_end
    if any(o != chunk.ord and a <= q0 and q1 <= b and (a, b) != (q0, q1) for a, b, o in seen):
        return True
    if any(o != chunk.ord and a < q0 < b < q1 for a, b, o in seen):
        return True
    seen.append((q0, q1, chunk.ord))
    return False


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
