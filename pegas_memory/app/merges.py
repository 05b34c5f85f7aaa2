"""memory_merges: list recorded merges of near-duplicates, split one, or run one bounded batch of
consolidation over the stored atoms (a dry run unless applied). The rules are curation.merges;
this module turns a call into transactions and a `MergesResult`.

Apart from `service` for size: `MemoryService.merges` hands its arguments here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pegas_memory.app.inputs import MAX_REASON_CHARS, clean_text
from pegas_memory.app.store import StoreOwner  # settings, db, runtime: all merges need too
from pegas_memory.curation.merges import (
    SplitOutcome,
    SplitPreview,
    consolidation,
    list_merges,
    merge_as_duplicate,
    split,
)
from pegas_memory.curation.queries import CURATION_SQL as Q_CUR
from pegas_memory.db.pool import Conn
from pegas_memory.errors import InvalidInput
from pegas_memory.ingest.dedup import threshold_for
from pegas_memory.models import AtomStatus, MergeOut, MergesResult, WouldMergeOut
from pegas_memory.qdrant_store.index import VectorFilter

CURRENT = (AtomStatus.CANDIDATE, AtomStatus.VERIFIED, AtomStatus.CONTESTED)


def split_merge(
    owner: StoreOwner,
    merge_id: int | None,
    reason: str,
    dry_run: bool,
    *,
    audit: Callable[[Conn, SplitOutcome], None] | None = None,
) -> MergesResult:
    """Split merge `merge_id` (or say what a split would do); `audit` runs in the split's
    transaction, before it commits (the UI's audit line)."""
    if merge_id is None:
        raise InvalidInput("split needs merge_id (memory_merges action=list shows them)")
    why = clean_text(reason or "", "reason", MAX_REASON_CHARS, required=False) or "no reason given"
    try:
        with owner.db.transaction() as conn:
            outcome = split(conn, merge_id, why, dry_run=dry_run)
            if audit is not None:
                audit(conn, outcome)
    except SplitPreview as preview:  # rolled back: nothing written
        outcome = preview.outcome
    with owner.db.connection() as conn:
        rows = list_merges(conn, atom_id=outcome.survivor_id, limit=200)
    now = [merge_out(r) for r in rows if int(r["id"]) == merge_id]
    back = outcome.restored_status
    if dry_run and back is not None:
        message = (
            f"dry run: the stale duplicate of merge {merge_id} would be {back} again and its "
            f"duplicate_of link to atom {outcome.survivor_id} withdrawn; nothing written"
        )
    elif dry_run:
        message = (
            f"dry run: merge {merge_id} would become its own atom (candidate) with citation(s) "
            f"{outcome.citations_moved} moved from atom {outcome.survivor_id}; nothing written"
        )
    elif back is not None:
        message = (
            f"split: atom {outcome.atom_id} is {back} again, no longer a duplicate of atom "
            f"{outcome.survivor_id}; dedup will not merge the two again"
        )
    else:
        message = (
            f"split: merge {merge_id} is atom {outcome.atom_id} again"
            + ("" if outcome.created else " (an atom with this exact claim existed)")
            + f", citation(s) {outcome.citations_moved} moved from atom "
            f"{outcome.survivor_id}; dedup will not merge the two again"
        )
    return MergesResult(
        action="split",
        merges=now,
        dry_run=dry_run,
        atom_id=outcome.atom_id,
        citations_moved=outcome.citations_moved,
        message=message,
    )


def consolidate(
    owner: StoreOwner,
    *,
    similarity: float | None,
    limit: int,
    after: int,
    batch: int,
    apply: bool,
) -> MergesResult:
    """One batch of consolidation (curation.merges.consolidation); applied, every pair is merged
    in one transaction (the merged atom stale, linked, recorded: each can be split)."""
    if similarity is not None and not 0.5 <= similarity <= 1.0:
        raise InvalidInput("similarity must be between 0.5 and 1")
    if after < 0:
        raise InvalidInput("after_id must be 0 or a positive atom id")
    embedder = owner.runtime.embedder.get()
    threshold = similarity or threshold_for(embedder.model_id, owner.settings.dedup_threshold)
    index = owner.runtime.vectors.get()
    collection = owner.runtime.projector.collection("atom")

    def nearest(vector: Sequence[float], k: int) -> list[int]:
        where = VectorFilter(statuses=CURRENT)
        return [h.id for h in index.search(collection, list(vector), k=k, where=where)]

    with owner.db.connection() as conn:
        found = consolidation(
            conn, embedder.embed_documents, nearest, threshold, after=after, batch=batch
        )
    merge_ids: list[int] = []
    if apply and found.pairs:
        reason = f"consolidation: claim cosine >= {threshold:.3f}, the claim guard agreeing"
        with owner.db.transaction() as conn:
            for p in found.pairs:
                got = merge_as_duplicate(
                    conn,
                    p.survivor_id,
                    p.merged_id,
                    similarity=p.similarity,
                    reason=reason,
                    merged_by="consolidate",
                    check_name="consolidation",
                )
                if got is not None:
                    merge_ids.append(got)
    with owner.db.connection() as conn:
        claims = {
            int(r["id"]): str(r["claim"])
            for r in conn.execute(
                Q_CUR.existing_atom_ids_claims,
                ([i for p in found.pairs[:limit] for i in (p.survivor_id, p.merged_id)],),
            ).fetchall()
        }
    done = (
        f"{len(merge_ids)} merged (each recorded: memory_merges action=split undoes it)"
        if apply
        else "a dry run: nothing was merged (apply=true merges them)"
    )
    more = (
        f"; the next batch starts after atom {found.next_after}"
        if found.next_after is not None
        else "; that was the last batch"
    )
    return MergesResult(
        action="consolidate",
        dry_run=not apply,
        pairs=[
            WouldMergeOut(
                survivor_id=p.survivor_id,
                survivor_claim=claims.get(p.survivor_id, ""),
                merged_id=p.merged_id,
                merged_claim=claims.get(p.merged_id, ""),
                similarity=p.similarity,
            )
            for p in found.pairs[:limit]
        ],
        merge_ids=merge_ids,
        next_after=found.next_after,
        message=f"{len(found.pairs)} pair(s) among {found.compared} stored atoms after atom "
        f"{after} at cosine >= {threshold:.3f}: {done}{more}",
    )


def merge_out(row: dict[str, Any]) -> MergeOut:
    return MergeOut(
        id=int(row["id"]),
        survivor_id=int(row["survivor_id"]),
        survivor_claim=str(row["survivor_claim"]),
        claim=str(row["claim"]),
        type=str(row["type"]),
        language=row["language"],
        document_id=row["identity_id"],
        version_id=row["doc_id"],
        uri=row["uri"],
        citation_ids=[int(c) for c in row["citation_ids"]],
        similarity=float(row["similarity"]),
        reason=str(row["reason"]),
        merged_by=str(row["merged_by"]),
        created_at=row["created_at"],
        undone_at=row["undone_at"],
        undone_reason=row["undone_reason"],
        merged_atom_id=row["merged_atom_id"],
        merged_status=row["merged_status"],
        split_atom_id=row["split_atom_id"],
    )
