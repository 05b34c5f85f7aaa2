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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pegas_memory.db.pool import Conn
from pegas_memory.db.repo import StoredClaim, add_link, set_status, supersede_atom
from pegas_memory.ingest.claims import is_contradiction
from pegas_memory.ingest.dedup import Conflict
from pegas_memory.ingest.queries import INGEST_SQL as Q


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
) -> ConflictOutcome:
    """Supersede or contest, for each new atom and the near-duplicates it was kept apart from
    (`atom_of`: planned index -> atom id, for conflicts inside the batch)."""
    superseded = contradictions = 0
    for new_id, conflicts in apart:
        for c in conflicts:
            if c.existing_id is None:  # another statement of this same version
                continue
            old = known.get(c.existing_id)
            if old is None or old.id == new_id or old.status == "stale":
                continue
            why = "; ".join(c.reasons)
            if identity in old.identities:
                cited = conn.execute(Q.atom_cited_in, (old.id, doc_id)).fetchone()
                if cited and cited["cited"]:
                    continue
                if supersede_atom(
                    conn,
                    old.id,
                    new_id,
                    reason=f"superseded by atom {new_id} in version {version} of {uri} ({why})",
                    evidence={"document_id": identity, "version": version, "changed": why},
                ):
                    add_link(conn, new_id, old.id, "supersedes", source="ingest")
                    superseded += 1
            elif is_contradiction(c.reasons):
                add_link(conn, new_id, old.id, "contradicts", source="ingest")
                for atom_id, other in ((new_id, old.id), (old.id, new_id)):
                    set_status(
                        conn,
                        atom_id,
                        "contested",
                        reason=f"contradicts atom {other} ({why}); check with memory_verify",
                        check_name="ingest",
                        evidence={"contradicts": other, "changed": why},
                    )
                contradictions += 1
    return ConflictOutcome(superseded, contradictions)
