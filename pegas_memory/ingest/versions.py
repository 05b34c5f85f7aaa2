"""What happens to a near-duplicate that claims something else (after ingest.dedup kept both).

- Same document, an earlier version: the source was edited ("1773" became "1775", "не имеет"
  became "имеет"). The new wording supersedes the old atom: it becomes stale with
  `superseded_by` and the reason (which parts changed), recorded as a status change, and a
  `supersedes` link joins the two, so search and get_context answer from the current version.
  Not when the new version still states the old claim somewhere else.
- Another document: both claims stay. When they differ only in negation, a number or a date
  (the same subject, one of them must be wrong) they are linked `contradicts` and both become
  contested; any other difference (another entity, quantifier, antonym) is left to memory_verify.
- The same version (two near-identical statements in one text): both stay, nothing else.

A re-distill (the same bytes read again by another distiller version, or on request) rewrites
one version in place, in the ingest's one transaction: `begin_redistill` locks the version,
notes the atoms it cites and drops their citations and its chunks; the pipeline then writes the
new chunks, atoms and citations as for any version (a claim produced again is the same atom, so
its id stays and it is cited once; `retype_kept` gives it the new distiller's type and term); a
reworded claim supersedes the old atom here as above; and `finish_redistill` retires what the
new distiller no longer extracts: superseded by the new atom that now quotes its quote within
its own (a sentence joined with its neighbour), else stale with the reason ("re-distilled by
offline-v6: no longer extracted from ..."), unless another current document or an agent's
citation still holds it. Never retired, never superseded, and still cited by their old quote
(the bytes did not change, so it is still there): verified and contested atoms and atoms an
agent or memory_verify linked; a judgement made about them stands until the agent revisits it
(the result names them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from psycopg.types.json import Jsonb

from pegas_memory.db.pool import Conn
from pegas_memory.db.repo import (
    StoredClaim,
    add_link,
    set_status,
    supersede_atom,
    withdraw_reason,
)
from pegas_memory.errors import IngestError
from pegas_memory.ingest.claims import is_contradiction
from pegas_memory.ingest.dedup import Conflict
from pegas_memory.ingest.queries import INGEST_SQL as Q
from pegas_memory.models import AtomStatus, LinkKind


@dataclass(frozen=True)
class ConflictOutcome:
    superseded: int = 0
    contradictions: int = 0


def resolve_conflicts(
    conn: Conn,
    apart: Sequence[tuple[int, tuple[Conflict, ...]]],
    atom_of: Sequence[int],
    known: Mapping[int, StoredClaim],
    *,
    identity: int,
    doc_id: int,
    uri: str,
    version: int,
    redistilled_by: str | None = None,
) -> ConflictOutcome:
    """Supersede or contest, for each new atom and the near-duplicates it was kept apart from
    (`atom_of`: planned index -> atom id, for conflicts inside the batch). `redistilled_by`:
    the distiller version of a re-distill of this version (the reason says so)."""
    superseded = contradictions = 0
    for new_id, conflicts in apart:
        for c in conflicts:
            if c.existing_id is None:  # another statement of this same version
                continue
            old = known.get(c.existing_id)
            if old is None or old.id == new_id or old.status == AtomStatus.STALE:
                continue
            why = "; ".join(c.reasons)
            if identity in old.identities:
                cited = conn.execute(Q.atom_cited_in, (old.id, doc_id)).fetchone()
                if cited and cited["cited"]:
                    continue
                reason = f"superseded by atom {new_id} in version {version} of {uri} ({why})"
                evidence: dict[str, object] = {
                    "document_id": identity, "version": version, "changed": why,
                }  # fmt: skip
                if redistilled_by is not None:
                    reason = f"re-distilled by {redistilled_by}: {reason}"
                    evidence["redistilled_by"] = redistilled_by
                if supersede_atom(conn, old.id, new_id, reason=reason, evidence=evidence):
                    add_link(conn, new_id, old.id, LinkKind.SUPERSEDES, source="ingest")
                    superseded += 1
            elif is_contradiction(c.reasons):
                add_link(conn, new_id, old.id, LinkKind.CONTRADICTS, source="ingest")
                for atom_id, other in ((new_id, old.id), (old.id, new_id)):
                    set_status(
                        conn,
                        atom_id,
                        AtomStatus.CONTESTED,
                        reason=f"contradicts atom {other} ({why}); check with memory_verify",
                        check_name="ingest",
                        evidence={LinkKind.CONTRADICTS: other, "changed": why},
                    )
                contradictions += 1
    return ConflictOutcome(superseded, contradictions)


@dataclass(frozen=True)
class RedistillStart:
    """What a re-distill found in its version before it wrote: the atoms the version cited and,
    of those, the ones it never retires (verified, contested, linked)."""

    old_atoms: frozenset[int]
    protected: frozenset[int]
    spans: Mapping[int, tuple[int, int]]  # atom -> where the version quoted it (first quote)


@dataclass(frozen=True)
class RedistillOutcome:
    kept: int  # old atoms the version still cites (produced again, or protected)
    retired: int  # old atoms made stale: no longer extracted, and nothing else holds them
    absorbed: int  # of those, the ones whose quote a new atom now holds: superseded by it
    held: tuple[int, ...]  # protected atoms the new distiller no longer extracts, kept current


def begin_redistill(conn: Conn, doc_id: int, reproduced: frozenset[int]) -> RedistillStart:
    """In the re-distill's transaction, before anything is written: lock the version, note its
    atoms, drop its chunks and its citations but those of the protected atoms the new run does
    not produce again (so a kept atom is cited once, by the new run or by its old quote)."""
    row = conn.execute(Q.lock_version, (doc_id,)).fetchone()
    if row is None or not row["is_current"]:
        raise IngestError(
            f"document version {doc_id} was replaced or erased while it was re-distilled; "
            "ingest the source again"
        )
    old = frozenset(int(r["atom_id"]) for r in conn.execute(Q.version_atoms, (doc_id,)))
    rows = conn.execute(Q.redistill_protected, {"ids": sorted(old)}).fetchall()
    protected = frozenset(int(r["id"]) for r in rows)
    spans: dict[int, tuple[int, int]] = {}
    for r in conn.execute(Q.version_spans, (doc_id,)).fetchall():
        spans.setdefault(int(r["atom_id"]), (int(r["char_start"]), int(r["char_end"])))
    withdraw_reason(conn, "re-distilled: the version is cited afresh")
    conn.execute(Q.drop_version_citations, {"doc": doc_id, "keep": sorted(protected - reproduced)})
    conn.execute(Q.drop_version_chunks, (doc_id,))
    return RedistillStart(old, protected, spans)


def retype_kept(
    conn: Conn, kept: Sequence[tuple[int, str, Mapping[str, Any]]], version: str
) -> int:
    """The version's own atoms a re-distill produced again, given the new distiller's type and
    metadata (`kept`: atom id, type, metadata): a claim now typed otherwise ("text" became
    "definition", another defined term) is retyped in place; returns how many were."""
    n = 0
    for atom_id, kind, meta in kept:
        row = conn.execute(
            Q.retype_atom,
            {
                "id": atom_id,
                "type": kind,
                "version": version,
                "term": meta.get("term"),
                "metadata": Jsonb(dict(meta)),
            },
        ).fetchone()
        n += row is not None
    return n


def finish_redistill(
    conn: Conn,
    start: RedistillStart,
    cited: frozenset[int],
    *,
    doc_id: int,
    identity: int,
    uri: str,
    change: tuple[str, str],
) -> RedistillOutcome:
    """After the new atoms and citations are written: the kept citations find their new chunk,
    and the old atoms nothing holds any more become stale with the reason (`change`: the stored
    distiller version and the running one; `cited`: the atoms this run cited). One whose quote
    a new atom of this run quotes within its own (the new rules joined the sentence with its
    neighbour, or took the whole of a cut sentence) is superseded by that atom; the others are
    no longer extracted."""
    conn.execute(Q.rechunk_citations, (doc_id,))
    gone = sorted(start.old_atoms - start.protected)
    retired = absorbed = 0
    for r in conn.execute(Q.redistill_orphans, {"ids": gone}).fetchall():
        atom_id = int(r["id"])
        evidence = {"document_id": identity, "from": change[0], "to": change[1]}
        span = start.spans.get(atom_id)
        cover = None
        if span is not None:
            cover = conn.execute(
                Q.covering_atom,
                {"doc": doc_id, "cited": sorted(cited - start.old_atoms), "atom": atom_id,
                 "start": span[0], "end": span[1]},
            ).fetchone()  # fmt: skip
        retired += 1
        if cover is not None:
            new_id = int(cover["atom_id"])
            reason = f"re-distilled by {change[1]}: its quote is now part of atom {new_id} of {uri}"
            if supersede_atom(conn, atom_id, new_id, reason=reason, evidence=evidence):
                add_link(conn, new_id, atom_id, LinkKind.SUPERSEDES, source="ingest")
            absorbed += 1
            continue
        set_status(
            conn,
            atom_id,
            AtomStatus.STALE,
            reason=f"re-distilled by {change[1]}: no longer extracted from {uri} "
            f"(document {identity})",
            check_name="redistill",
            evidence=evidence,
        )
    row = conn.execute(Q.count_kept, {"doc": doc_id, "ids": sorted(start.old_atoms)}).fetchone()
    held = tuple(sorted(start.protected - cited))
    return RedistillOutcome(int(row["n"]) if row else 0, retired - absorbed, absorbed, held)
