"""memory_store: one typed atom or one episodic trace, checked, written in one transaction, and
visible to every search arm when the call returns (read your writes).

Apart from `service` for size: `MemoryService.store` hands its `StoreRequest` here.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pegas_memory.app.inputs import (
    MAX_CLAIM_CHARS,
    MAX_METADATA_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    clean_text,
)
from pegas_memory.app.queries import Q
from pegas_memory.app.requests import StoreRequest
from pegas_memory.app.runtime import ProjectionRuntime
from pegas_memory.code_memory.query_ops import resolve_citation
from pegas_memory.config import Settings
from pegas_memory.db.pool import Database
from pegas_memory.db.repo import (
    AtomInput,
    DocumentInput,
    add_citation,
    insert_atom,
    insert_trace,
    source_document,
)
from pegas_memory.errors import InvalidInput, PegasMemoryError
from pegas_memory.models import (
    ATOM_TYPES,
    TRACE_KINDS,
    UNSOURCED,
    CodeCitationIn,
    DecayProfile,
    StoreResult,
    TraceKind,
)
from pegas_memory.outbox.worker import pending_events
from pegas_memory.search.fusion import default_decay
from pegas_memory.text import raw_hash
from pegas_memory.vocabulary import StoreProvenance


class StoreOwner(Protocol):
    """What a store needs of the service: its settings, database and projection runtime."""

    @property
    def settings(self) -> Settings: ...

    @property
    def db(self) -> Database: ...

    @property
    def runtime(self) -> ProjectionRuntime: ...


log = logging.getLogger(__name__)

STORE_WAIT_SECONDS = 3.0  # memory_store waits at most this long for its own projection
# A write of at most this many rows projects them itself (an ingest's hundreds are left to the
# worker, which batches them better).
DIRECT_MAX_IDS = 64


def store(svc: StoreOwner, request: StoreRequest) -> StoreResult:
    """Store one typed atom (scope knowledge) or one episodic trace (scope episodic);
    `cite_code` names the code symbol the atom rests on (a re-index that removes it marks
    the atom stale). Raises InvalidInput before any write when an argument is refused."""
    claim = clean_text(request.claim, "claim", MAX_CLAIM_CHARS, required=True)
    limit = svc.settings.max_argument_chars
    content = clean_text(request.content or "", "content", limit, required=False)
    metadata = dict(request.metadata or {})
    try:
        meta_json = json.dumps(metadata, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"metadata is not JSON-serialisable: {exc}") from exc
    clean_text(meta_json, "metadata", MAX_METADATA_CHARS, required=False)
    if request.scope == "episodic":
        return _store_trace(svc, request, claim, content, metadata)
    return _store_atom(svc, _checked_atom(svc.settings, request, claim, content, metadata))


def _store_trace(
    svc: StoreOwner, request: StoreRequest, claim: str, content: str, metadata: dict[str, Any]
) -> StoreResult:
    if request.cite_code is not None:
        raise InvalidInput("cite_code applies to knowledge atoms, not episodic traces")
    if request.decay not in (None, DecayProfile.CONVERSATIONAL) or request.about is not None:
        raise InvalidInput(
            "decay and about apply to knowledge atoms: an episodic trace is conversational "
            "and ages from when it was stored"
        )
    kind = request.trace_kind or TraceKind.OBSERVATION
    if kind not in TRACE_KINDS:
        raise InvalidInput(f"trace_kind must be one of {', '.join(TRACE_KINDS)}")
    text = claim if not content else f"{claim}\n\n{content}"
    with svc.db.transaction() as conn:
        trace_id = insert_trace(conn, kind, text, session_id=request.session_id, metadata=metadata)
    late = await_projection(svc, "trace", [trace_id])
    return StoreResult(
        id=trace_id,
        scope="episodic",
        created=True,
        decay=DecayProfile.CONVERSATIONAL,
        message=f"stored {kind} trace {trace_id}" + (f"; {late}" if late else ""),
    )


@dataclass(frozen=True)
class _CheckedAtom:
    """A knowledge atom's arguments once checked: the row to insert and what it cites."""

    atom: AtomInput
    source: str | None
    source_kind: str | None  # "web", "agent" or "code" (what decides the default decay)
    locator: str
    quote: str
    cite_code: CodeCitationIn | None


def _checked_atom(
    settings: Settings, request: StoreRequest, claim: str, content: str, metadata: dict[str, Any]
) -> _CheckedAtom:
    """Pure: the atom a knowledge store writes, its arguments checked (InvalidInput when one is
    refused); `metadata` gains the unsourced mark when the provenance gate flags it."""
    type, tags, topic, source = request.type, request.tags, request.topic, request.source
    cite_code = request.cite_code
    if request.scope != "knowledge":
        raise InvalidInput("scope must be 'knowledge' (curated atoms) or 'episodic' (traces)")
    if type not in ATOM_TYPES:
        raise InvalidInput(f"type must be one of {', '.join(ATOM_TYPES)}; got {type!r}")
    confidence = request.confidence
    if confidence is not None and not 0.0 <= confidence <= 1.0:
        raise InvalidInput("confidence must be between 0 and 1")
    if len(tags) > MAX_TAGS:
        raise InvalidInput(f"at most {MAX_TAGS} tags")
    clean_tags = tuple(
        sorted({clean_text(t, "tag", MAX_TAG_CHARS, required=True).strip() for t in tags})
    )
    if topic is not None:
        topic = clean_text(topic, "topic", 200, required=True).strip()
    if source is not None:
        source = clean_text(source, "source", 2_000, required=True).strip()
    locator = clean_text(request.locator or "", "locator", 500, required=False)
    quote = clean_text(request.quote or "", "quote", 20_000, required=False)
    if not (source or quote.strip() or request.session_id or cite_code):
        gate = settings.store_provenance
        if gate == StoreProvenance.ENFORCE:
            raise InvalidInput(
                "this memory stores a claim only with its provenance: give `source` (a URL, a "
                "file path or a name), `quote`, `session_id` or `cite_code`; nothing was stored "
                "(PEGAS_STORE_PROVENANCE=flag would store it marked unsourced)"
            )
        if gate == StoreProvenance.FLAG:
            metadata[UNSOURCED] = True

    about = request.about
    if about is not None and about.tzinfo is None:
        raise InvalidInput(
            "about needs a time zone (e.g. 2024-05-01T12:00:00Z); a naive time is ambiguous"
        )
    source_kind = None
    if source:
        source_kind = "web" if source.startswith(("http://", "https://")) else "agent"
    elif cite_code is not None:
        source_kind = "code"
    decay = request.decay or default_decay(
        type, source_kind, document_default=settings.decay_document_default
    )
    atom = AtomInput(
        type=type,
        decay=decay,
        about_at=about,
        claim=claim,
        content=content,
        confidence=0.5 if confidence is None else confidence,
        topic=topic,
        tags=clean_tags,
        source=source or "agent",
        metadata=metadata,
    )
    return _CheckedAtom(atom, source, source_kind, locator, quote, cite_code)


def _store_atom(svc: StoreOwner, checked: _CheckedAtom) -> StoreResult:
    atom, source, cite_code = checked.atom, checked.source, checked.cite_code
    quote, claim, metadata, decay = checked.quote, atom.claim, atom.metadata, atom.decay
    with svc.db.transaction() as conn:
        doc_id = None
        if source:
            kind = checked.source_kind or "agent"
            doc_id = source_document(
                conn,
                DocumentInput(
                    kind=kind,
                    uri=source,
                    content_hash=raw_hash(source),
                    title=source[:200],
                    decay=default_decay(
                        None, kind, document_default=svc.settings.decay_document_default
                    ),
                ),
            )
        atom_id, created = insert_atom(conn, atom)
        if doc_id is not None:
            add_citation(
                conn, atom_id, doc_id=doc_id, locator=checked.locator, quote=quote or claim
            )
        cited = None
        if cite_code is not None:
            cited = resolve_citation(conn, cite_code)
            add_citation(
                conn,
                atom_id,
                code_symbol_id=cited.symbol_id,
                locator=cited.locator,
                quote=quote or claim,
            )
        row = conn.execute(Q.atom_status, (atom_id,)).fetchone()
    status = row["status"] if row else None
    if created:
        message = f"stored {atom.type} atom {atom_id} (status {status}, decay {decay})"
        if metadata.get(UNSOURCED):
            message += (
                "; unsourced (no source, quote, session or code citation): it ranks below "
                "sourced atoms until one cites it"
            )
        late = await_projection(svc, "atom", [atom_id])
        message += f"; {late}" if late else ""
    else:
        message = f"an atom with the same content already exists: {atom_id}" + (
            "; the source was added to its citations" if doc_id else ""
        )
    return StoreResult(
        id=atom_id,
        scope="knowledge",
        created=created,
        duplicate_of=None if created else atom_id,
        status=status,
        document_id=doc_id,
        code_symbol_id=cited.symbol_id if cited else None,
        code_locator=cited.locator if cited else None,
        decay=decay if created else None,
        message=message + (f"; cites {cited.qualified_name} ({cited.locator})" if cited else ""),
    )


def await_projection(
    svc: StoreOwner, entity: str, ids: Sequence[int], timeout: float = STORE_WAIT_SECONDS
) -> str | None:
    """After the commit: wait for the rows' projection (`wait_projected`), never raising. The
    rows are in PostgreSQL whatever happens here, so a failure (a full disk, PostgreSQL gone
    right after the commit) is a note for the caller's answer, not an error that would read as
    if nothing had been written."""
    try:
        wait_projected(svc, entity, ids, timeout)
    except PegasMemoryError as exc:
        log.warning("%s %s committed; waiting for its projection failed: %s", entity, ids, exc)
        return (
            f"it is committed in PostgreSQL, but checking its projection into the search "
            f"slices failed ({exc}); the outbox projects it once that is fixed, until then "
            "keyword search finds it and meaning search may not"
        )
    return None


def wait_projected(
    svc: StoreOwner, entity: str, ids: Sequence[int], timeout: float = STORE_WAIT_SECONDS
) -> None:
    """Read your writes: when this process projects the outbox itself, wait (briefly) until
    these new rows are in the vector and graph slices, so a search right after a store or an
    ingest finds them by meaning too, across languages. Bounded by `timeout`; a slower
    projection only means the rows show up in dense results a moment later.

    A small write projects its own events first (`outbox.direct`), so its wait is its own
    work and not the backlog's: with thousands of events ahead of it in the outbox, the
    worker would reach them only after the timeout."""
    if not ids or not svc.runtime.projecting_here:
        return
    # A cold engine host first (bounded like any call that needs it): its projection can
    # only start once the host serves.
    svc.runtime.wait_for_host(svc.settings.tool_timeout / 2)
    deadline = time.monotonic() + timeout
    if len(ids) <= DIRECT_MAX_IDS:
        try:
            svc.runtime.direct().project_entities(entity, ids)
        except PegasMemoryError as exc:  # the worker retries it; the wait below is bounded
            log.info("projecting its own %s %s failed: %s", entity, list(ids), exc)
    while True:
        with svc.db.connection() as conn:
            waiting = pending_events(conn, [entity], ids)
        if not waiting or time.monotonic() > deadline:
            return
        time.sleep(0.02)
