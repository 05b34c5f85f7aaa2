"""Merges of near-duplicates, listed and split again (issue 32, scope 5).

Ingest does not store a claim that repeats a stored atom by meaning (ingest.dedup): it cites the
stored atom instead and records the merge in `pm_merge`, in the same transaction
(ingest.writes; migrations/0014_merges.sql). Real text joins different statements often enough
that a person must be able to see a merge and undo it:

- `list_merges`: recent merges, newest first, by atom or by document.
- `split`: the merged claim becomes its own atom again (status candidate), the citations it
  brought move from the survivor to it, the merge is marked undone with the reason, and a
  `pm_merge_block` pair keeps dedup from merging the two again. Atom and citation writes go
  through the outbox triggers (the new atom, the moved citations' passages) and the survivor is
  re-projected, so every slice follows. A merge split once is refused with a clear error the
  second time; `dry_run` says what a split would do and writes nothing.

Exact repeats (the same content hash) are not merges: there is no other text to split back into.

- `consolidation`: a dry run over the stored current atoms (at most `MAX_CONSOLIDATE_ATOMS`, the
  oldest first): which pairs dedup would merge now (the same within-batch rule as ingest, claim
  guard included; split pairs left out). Nothing is merged: applying it is not built yet.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pegas_memory.curation.queries import CURATION_SQL as Q
from pegas_memory.db.pool import Conn
from pegas_memory.db.repo import AtomInput, insert_atom
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.ingest.claims import atom_signature
from pegas_memory.ingest.dedup import guarded_batch
from pegas_memory.models import AtomStatus
from pegas_memory.outbox.projection import atom_embed_text

MAX_LIMIT = 200
MAX_CONSOLIDATE_ATOMS = 2000  # each one's claim vector is embedded (cached) and compared to all


def list_merges(
    conn: Conn,
    *,
    atom_id: int | None = None,
    document_id: int | None = None,
    open_only: bool = False,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """Recent merges, newest first (rows of `list_merges`)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}")
    rows = conn.execute(
        Q.list_merges,
        {"atom": atom_id, "doc": document_id, "open": open_only, "limit": limit},
    ).fetchall()
    return [dict(r) for r in rows]


@dataclass(frozen=True)
class SplitOutcome:
    merge_id: int
    survivor_id: int
    atom_id: int | None  # the claim's own atom (None on a dry run)
    created: bool  # False: an atom with the claim's exact text existed already and took it
    citations_moved: list[int]
    undone_at: datetime | None


class SplitPreview(Exception):
    def __init__(self, outcome: SplitOutcome):
        self.outcome = outcome


def split(conn: Conn, merge_id: int, reason: str, *, dry_run: bool = False) -> SplitOutcome:
    """Undo one merge in the caller's transaction (module docstring). Raises NotFound for an
    unknown merge and InvalidInput for one split already or whose citations are gone; nothing is
    written then (the caller's transaction rolls back). A dry run raises `SplitPreview` internally:
    the caller catches it after its transaction rolled back."""
    m = conn.execute(Q.lock_merge, (merge_id,)).fetchone()
    if m is None:
        raise NotFound(
            f"no merge {merge_id}: memory_merges action=list shows the recorded ones (a merge "
            "goes away when its atom or its document is erased)"
        )
    if m["undone_at"] is not None:
        raise InvalidInput(
            f"merge {merge_id} was already split on {m['undone_at']:%Y-%m-%d %H:%M:%S %Z} into "
            f"atom {m['split_atom_id']} ({m['undone_reason']}); nothing was changed"
        )
    survivor = int(m["survivor_id"])
    atom_id, created = insert_atom(
        conn,
        AtomInput(
            type=str(m["type"]),
            claim=str(m["claim"]),
            content=str(m["content"]),
            confidence=float(m["confidence"]),
            status=AtomStatus.CANDIDATE,
            doc_id=m["doc_id"],
            topic=m["topic"],
            tags=tuple(m["tags"] or ()),
            language=m["language"],
            source=str(m["doc_kind"] or "text"),
            prompt_version=m["prompt_version"],
            metadata={**dict(m["metadata"] or {}), "split_from_merge": merge_id},
        ),
    )
    if atom_id == survivor:  # the survivor's text became the claim's own meanwhile
        raise InvalidInput(f"merge {merge_id}: atom {survivor} now says the merged claim itself")
    moved = [
        int(r["id"])
        for r in conn.execute(
            Q.move_merge_citations,
            {
                "atom": atom_id,
                "ids": list(m["citation_ids"]),
                "quotes": list(m["quotes"]),
                "doc": m["doc_id"],
                "survivor": survivor,
            },
        ).fetchall()
    ]
    if not moved:
        raise InvalidInput(
            f"merge {merge_id}: the citations it brought to atom {survivor} are gone (its "
            "document was re-read or re-distilled since); nothing was changed"
        )
    if dry_run:
        raise SplitPreview(SplitOutcome(merge_id, survivor, None, created, moved, None))
    conn.execute(Q.reproject_atom, (survivor,))
    if not created:
        conn.execute(Q.reproject_atom, (atom_id,))
    row = conn.execute(
        Q.mark_merge_undone, {"reason": reason, "atom": atom_id, "id": merge_id}
    ).fetchone()
    conn.execute(Q.block_merge, (survivor, m["content_hash"], merge_id))
    conn.execute(Q.block_merge, (atom_id, m["survivor_hash"], merge_id))
    return SplitOutcome(
        merge_id, survivor, atom_id, created, moved, row["undone_at"] if row else None
    )


@dataclass(frozen=True)
class WouldMerge:
    survivor_id: int
    merged_id: int
    similarity: float


def consolidation(
    conn: Conn, embed: Callable[[Sequence[str]], Sequence[Sequence[float]]], threshold: float
) -> tuple[list[WouldMerge], int, bool]:
    """The pairs of stored current atoms dedup would merge (a dry run: nothing written); the
    number of atoms compared, and whether there were more than `MAX_CONSOLIDATE_ATOMS`."""
    rows = conn.execute(Q.consolidation_atoms, (MAX_CONSOLIDATE_ATOMS + 1,)).fetchall()
    more = len(rows) > MAX_CONSOLIDATE_ATOMS
    rows = rows[:MAX_CONSOLIDATE_ATOMS]
    if len(rows) < 2:
        return [], len(rows), more
    ids = [int(r["id"]) for r in rows]
    vectors = embed([atom_embed_text(r["claim"], r["content"] or "") for r in rows])
    signatures = [atom_signature(r["claim"], r["content"] or "", r["term"]) for r in rows]
    blocked = {
        (int(b["atom_id"]), str(b["content_hash"]))
        for b in conn.execute(Q.merge_blocks_of, (ids,)).fetchall()
    }
    out = []
    for i, d in enumerate(guarded_batch(vectors, signatures, threshold)):
        if d.batch_index is None:
            continue
        survivor = ids[d.batch_index]
        if (survivor, str(rows[i]["content_hash"])) in blocked:
            continue
        out.append(WouldMerge(survivor, ids[i], round(d.score, 4)))
    return out, len(rows), more
