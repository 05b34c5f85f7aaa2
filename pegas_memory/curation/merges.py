"""Merges of near-duplicates, listed and split again (issue 32, scope 5).

Two kinds of merge leave a `pm_merge` row, each written in the transaction that merges:

- Ingest does not store a claim that repeats a stored atom by meaning (ingest.dedup): it cites
  the stored atom instead (ingest.writes; migrations/0014_merges.sql). A split recreates the
  claim as its own atom (status candidate) and moves the citations it brought back to it.
- Verification (a duplicate verdict, curation.verify) and an applied consolidation find two
  atoms already stored: the newer becomes stale, linked `duplicate_of` the older
  (`merge_as_duplicate`, migrations/0022). A split gives it back the status it had and
  withdraws the link.

Either split marks the merge undone with the reason and writes `pm_merge_block` pairs that keep
dedup, verification and consolidation from merging the two again. Writes go through the outbox
triggers, so every slice follows. A merge split once is refused the second time; `dry_run` says
what a split would do and writes nothing. A moved citation keeps its history (0022): as-of
answers show it under the survivor before the split and under the split atom after.

memory_store merges nothing by meaning: an exact repeat (the same content hash) is the atom's own
text word for word and is not a merge, there as at ingest: there is no other text to split back.

- `consolidation`: one bounded batch of the stored current atoms (by id after a cursor, so
  repeated calls cover every atom); each is compared with its nearest stored atoms in the
  vector slice that are older (the older survives), by claim vectors and the claim guard, as
  ingest's dedup compares; split pairs are left out. A dry run names the pairs; applied, each
  is merged by `merge_as_duplicate` (merged_by `consolidate`), and can be split like any other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from pegas_memory.curation.forget import erase
from pegas_memory.curation.queries import CURATION_SQL as Q
from pegas_memory.db.pool import Conn
from pegas_memory.db.repo import (
    AtomInput,
    add_link,
    insert_atom,
    set_status,
    withdraw_reason,
)
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.ingest.claims import atom_signature, differences
from pegas_memory.models import AtomStatus, LinkKind
from pegas_memory.outbox.projection import atom_embed_text

MAX_LIMIT = 200
MAX_CONSOLIDATE_BATCH = 2000  # atoms per consolidation call; a cursor takes the next batch
NEIGHBOURS = 8  # nearest stored atoms each atom of a batch is compared with


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
    restored_status: str | None = None  # a merge that kept both atoms: the status given back


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
    if m["merged_atom_id"] is not None:
        return _split_duplicate(conn, m, reason, dry_run=dry_run)
    withdraw_reason(conn, f"split of merge {merge_id}: {reason}")
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


def _split_duplicate(conn: Conn, m: Any, reason: str, *, dry_run: bool) -> SplitOutcome:
    """Undo a merge that kept both atoms: the merged atom gets its status back and its
    duplicate_of link goes. Refused when the atom is no longer stale (someone changed it since:
    its status is theirs now)."""
    merge_id, survivor, atom = int(m["id"]), int(m["survivor_id"]), int(m["merged_atom_id"])
    row = conn.execute(Q.atom_for_merge, (atom,)).fetchone()
    if row is None or row["status"] != AtomStatus.STALE:
        raise InvalidInput(
            f"merge {merge_id}: atom {atom} is {row['status'] if row else 'gone'} now, not stale "
            "as the merge left it; nothing was changed"
        )
    back = AtomStatus.parse(str(m["merged_status"]), "status")
    if dry_run:
        raise SplitPreview(SplitOutcome(merge_id, survivor, None, False, [], None, back))
    withdraw_reason(conn, f"split of merge {merge_id}: {reason}")
    conn.execute(Q.drop_duplicate_link, (atom, survivor))
    set_status(
        conn,
        atom,
        back,
        reason=f"split from atom {survivor} (merge {merge_id}): {reason}",
        check_name="split",
        evidence={"merge_id": merge_id},
    )
    done = conn.execute(
        Q.mark_merge_undone, {"reason": reason, "atom": atom, "id": merge_id}
    ).fetchone()
    conn.execute(Q.block_merge, (survivor, m["content_hash"], merge_id))
    conn.execute(Q.block_merge, (atom, m["survivor_hash"], merge_id))
    return SplitOutcome(
        merge_id, survivor, atom, False, [], done["undone_at"] if done else None, back
    )


def merge_as_duplicate(
    conn: Conn,
    survivor: int,
    merged: int,
    *,
    similarity: float,
    reason: str,
    merged_by: str,
    check_name: str,
) -> int | None:
    """`merged` repeats `survivor`: it becomes stale, linked duplicate_of the survivor, and the
    merge is recorded with the status it had, so a split gives it back. Returns the merge id, or
    None (nothing written) when the atom is stale already or the pair was split before."""
    row = conn.execute(Q.atom_for_merge, (merged,)).fetchone()
    if row is None or row["status"] == AtomStatus.STALE:
        return None
    if conn.execute(Q.merge_blocked, (survivor, row["content_hash"])).fetchone() is not None:
        return None
    got = conn.execute(
        Q.record_duplicate_merge,
        {
            "survivor": survivor,
            "doc": row["doc_id"],
            "claim": row["claim"],
            "content": row["content"] or "",
            "type": row["type"],
            "hash": row["content_hash"],
            "language": row["language"],
            "confidence": row["confidence"],
            "topic": row["topic"],
            "tags": list(row["tags"] or ()),
            "prompt_version": row["prompt_version"],
            "similarity": round(float(similarity), 4),
            "reason": reason,
            "merged_by": merged_by,
            "atom": merged,
            "status": row["status"],
        },
    ).fetchone()
    merge_id = int(got["id"]) if got else None
    set_status(
        conn,
        merged,
        AtomStatus.STALE,
        reason=f"duplicate of atom {survivor}: {reason}",
        check_name=check_name,
        evidence={LinkKind.DUPLICATE_OF: survivor, "merge_id": merge_id},
    )
    add_link(conn, merged, survivor, LinkKind.DUPLICATE_OF, source=merged_by)
    return merge_id


@dataclass(frozen=True)
class WouldMerge:
    survivor_id: int
    merged_id: int
    similarity: float


@dataclass(frozen=True)
class ConsolidationBatch:
    pairs: list[WouldMerge]
    compared: int  # atoms of this batch
    next_after: int | None  # the cursor of the next batch (None: this was the last)


def consolidation(
    conn: Conn,
    embed: Callable[[Sequence[str]], Sequence[Sequence[float]]],
    nearest: Callable[[Sequence[float], int], Sequence[int]],
    threshold: float,
    *,
    after: int = 0,
    batch: int = 500,
) -> ConsolidationBatch:
    """The pairs of one batch of stored current atoms (id > `after`, at most `batch`) that
    dedup would merge now (module docstring); nothing is written. `nearest(vector, k)` gives the
    ids of the stored atoms nearest a claim vector (the vector slice)."""
    if not 1 <= batch <= MAX_CONSOLIDATE_BATCH:
        raise InvalidInput(f"batch must be between 1 and {MAX_CONSOLIDATE_BATCH}")
    rows = conn.execute(Q.consolidation_atoms, {"after": after, "limit": batch}).fetchall()
    if not rows:
        return ConsolidationBatch([], 0, None)
    vectors = embed([atom_embed_text(r["claim"], r["content"] or "") for r in rows])
    near = {int(r["id"]): [i for i in nearest(v, NEIGHBOURS) if i < int(r["id"])]
            for r, v in zip(rows, vectors, strict=True)}  # fmt: skip
    wanted = sorted({i for ids in near.values() for i in ids})
    others = {int(r["id"]): r for r in conn.execute(Q.consolidation_neighbours, (wanted,))}
    other_ids = list(others)
    texts = [atom_embed_text(others[i]["claim"], others[i]["content"] or "") for i in other_ids]
    other_vectors = dict(zip(other_ids, embed(texts) if texts else [], strict=True))
    blocked = {
        (int(b["atom_id"]), str(b["content_hash"]))
        for b in conn.execute(Q.merge_blocks_of, (other_ids,)).fetchall()
    }
    merged: set[int] = set()
    out: list[WouldMerge] = []
    for row, vector in zip(rows, vectors, strict=True):
        atom = int(row["id"])
        mine = atom_signature(row["claim"], row["content"] or "", row["term"])
        best: tuple[float, int] | None = None
        for other in near[atom]:
            if other not in others or other in merged:
                continue
            if (other, str(row["content_hash"])) in blocked:
                continue
            score = _cosine(vector, other_vectors[other])
            if score < threshold or (best is not None and score <= best[0]):
                continue
            o = others[other]
            if differences(atom_signature(o["claim"], o["content"] or "", o["term"]), mine):
                continue  # the claim guard: numbers, negation, names... keep them apart
            best = (score, other)
        if best is not None:
            merged.add(atom)
            out.append(WouldMerge(best[1], atom, round(min(1.0, best[0]), 4)))
    last = int(rows[-1]["id"])
    return ConsolidationBatch(out, len(rows), last if len(rows) == batch else None)


def rejoin(conn: Conn, merge_id: int, moved: Sequence[int], *, created: bool) -> None:
    """Undo a split in the caller's transaction (the UI's undo of "split again"): the citations
    the split `moved` go back to the survivor, the merge is open again and its pair no longer
    blocked, and the claim's own atom is erased when the split `created` it. Only while the split
    atom is as the split left it (a candidate holding those citations and no other): else
    InvalidInput, and nothing is written."""
    m = conn.execute(Q.lock_merge, (merge_id,)).fetchone()
    if m is None:
        raise NotFound(f"no merge {merge_id} (its atom or its document was erased)")
    if m["undone_at"] is None or m["split_atom_id"] is None:
        raise InvalidInput(f"merge {merge_id} is not split (or its split atom was erased)")
    if m["merged_atom_id"] is not None:
        _rejoin_duplicate(conn, m)
        return
    atom_id, survivor = int(m["split_atom_id"]), int(m["survivor_id"])
    state = conn.execute(Q.split_atom_state, {"id": atom_id}).fetchone()
    held = sorted(int(c) for c in state["citations"]) if state else []
    if state is None or not set(moved) <= set(held):
        raise InvalidInput(f"atom {atom_id} no longer holds the citations merge {merge_id} moved")
    if created and (state["status"] != "candidate" or held != sorted(moved)):
        raise InvalidInput(
            f"atom {atom_id} changed since the split (it is {state['status']} with citations "
            f"{held}); joining it back would lose that"
        )
    conn.execute(Q.move_citations_back, {"survivor": survivor, "atom": atom_id, "ids": list(moved)})
    conn.execute(Q.unblock_merge, {"id": merge_id})
    conn.execute(Q.unmark_merge_undone, {"id": merge_id})
    conn.execute(Q.reproject_atom, (survivor,))
    if created:
        erase(conn, atom_ids=[atom_id])
    else:
        conn.execute(Q.reproject_atom, (atom_id,))


def _rejoin_duplicate(conn: Conn, m: Any) -> None:
    """Undo the split of a merge that kept both atoms: the atom is a stale duplicate of the
    survivor again (status, `duplicate_of` link, the merge open, the pair no longer blocked).
    Only while the atom has the status the split gave back; else InvalidInput."""
    merge_id, survivor, atom = int(m["id"]), int(m["survivor_id"]), int(m["merged_atom_id"])
    row = conn.execute(Q.atom_for_merge, (atom,)).fetchone()
    if row is None or row["status"] != str(m["merged_status"]):
        raise InvalidInput(
            f"atom {atom} is {row['status'] if row else 'gone'} now, not {m['merged_status']} as "
            f"the split of merge {merge_id} left it; joining it back would lose that"
        )
    withdraw_reason(conn, f"split of merge {merge_id} undone")
    set_status(
        conn,
        atom,
        AtomStatus.STALE,
        reason=f"duplicate of atom {survivor} again: the split of merge {merge_id} was undone",
        check_name="split",
        evidence={LinkKind.DUPLICATE_OF: survivor, "merge_id": merge_id},
    )
    add_link(conn, atom, survivor, LinkKind.DUPLICATE_OF, source=str(m["merged_by"] or "verify"))
    conn.execute(Q.unblock_merge, {"id": merge_id})
    conn.execute(Q.unmark_merge_undone, {"id": merge_id})


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    norm = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y) / norm if norm else 0.0
