"""Taking back a new version of a document: the version before it becomes current again.

A re-ingest of changed bytes wrote, in one transaction (ingest.pipeline): the new version with
its chunks and citations (reused chunks cite their atoms again), the atoms it created, merge
records, the previous version no longer current, and changes to other atoms: those whose
evidence vanished made stale, reworded ones superseded (with a `supersedes` link), near-
duplicates of other documents contested (with a `contradicts` link). `revert_version` undoes
that in one transaction, from what the re-ingest's audit line kept (`app/audit.py`'s
`version_changes`: the atoms it created, its status changes and its links):

- the new version is withdrawn as an erase of one version does it: the atoms only it cites are
  erased (curation.forget), its chunks, citations and merge records deleted;
- the version before is current again: its passages go back into the slices (migration 0009's
  trigger queues them), its atoms are cited by the current version again;
- each status change the re-ingest made is put back (stale -> what it was, contested -> what it
  was, `superseded_by` cleared), but only on an atom still as the re-ingest left it (its status
  the same and no later change): a later judgement is not overwritten, it is reported;
- the re-ingest's links that are left (their atoms were not erased) are deleted.

Refused (InvalidInput, nothing changed) unless the document is as the re-ingest left it: the
new version still current and the newest, not re-distilled since, the version before still
there, and none of the atoms the revert would erase changed since (a status change, or a link
that is not derived). Every delete leaves its as-of line (pm_withdrawal) with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, LiteralString

from pegas_memory.curation.forget import erase_atoms
from pegas_memory.curation.queries import CURATION_SQL as CQ
from pegas_memory.db.pool import Conn
from pegas_memory.db.queries import DB_SQL
from pegas_memory.db.repo import set_status, withdraw_reason
from pegas_memory.db.sql import load_queries
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.models import ATOM_STATUSES, AtomStatus

MAX_LISTED = 20  # atom ids named in a refusal


@dataclass(frozen=True)
class RevertQueries:
    version_uri: LiteralString
    lock_version: LiteralString
    newer_versions: LiteralString
    atoms_only_here: LiteralString
    touched_since: LiteralString
    make_current: LiteralString
    delete_version: LiteralString
    atom_now: LiteralString
    unsupersede: LiteralString
    delete_links: LiteralString


Q = load_queries(RevertQueries, "pegas_memory.curation", "revert.sql")


@dataclass(frozen=True)
class VersionChanges:
    """What a new version's transaction did besides its own rows (recorded at the time)."""

    atoms_created: tuple[int, ...] = ()
    status_changes: tuple[tuple[int, str, str], ...] = ()  # atom, from, to; in order
    links: tuple[int, ...] = ()

    @classmethod
    def from_json(cls, data: Any) -> VersionChanges:
        """Raises InvalidInput for a record this product did not write."""
        try:
            changes = tuple(
                (int(a), str(f), str(t)) for a, f, t in (data.get("status_changes") or [])
            )
            return cls(
                atoms_created=tuple(int(i) for i in data.get("atoms_created") or []),
                status_changes=changes,
                links=tuple(int(i) for i in data.get("links") or []),
            )
        except (AttributeError, TypeError, ValueError) as exc:
            raise InvalidInput("the re-ingest's record of what it changed is unreadable") from exc


@dataclass
class RevertReport:
    version_id: int  # the version made current again
    withdrawn: int  # the version taken back
    atoms_erased: list[int] = field(default_factory=list)
    restored: list[int] = field(default_factory=list)  # atoms whose status was put back
    left: list[int] = field(default_factory=list)  # changed since: left as they are
    links_removed: int = 0


def _refuse(message: str) -> InvalidInput:
    return InvalidInput(f"not undone: {message}")


def revert_version(
    conn: Conn,
    version_id: int,
    *,
    previous_id: int,
    changes: VersionChanges,
    since: datetime,
    reason: str,
) -> RevertReport:
    """Make `previous_id` the current version again in place of `version_id`, which the
    re-ingest at `since` wrote with `changes` (see the module). Raises NotFound when the
    version is gone, InvalidInput when the document changed since."""
    uri = conn.execute(Q.version_uri, {"id": version_id}).fetchone()
    if uri is None:
        raise NotFound(f"document version {version_id} not found (erased?)")
    # The URI's lock, taken before any row lock as an ingest takes it before it reads the
    # current version: an ingest of the same URI waits for the revert and then finds the
    # version before current, never the withdrawn one.
    conn.execute(DB_SQL.lock_document_uri, (uri["uri"],))
    new = conn.execute(Q.lock_version, {"id": version_id}).fetchone()
    if new is None:
        raise NotFound(f"document version {version_id} not found (erased?)")
    old = conn.execute(Q.lock_version, {"id": previous_id}).fetchone()
    if old is None or old["identity_id"] != new["identity_id"]:
        raise _refuse(f"the version before it ({previous_id}) is gone")
    if not new["is_current"] or new["supersedes"] != previous_id:
        raise _refuse(f"version {new['version']} is no longer the current one")
    later = conn.execute(
        Q.newer_versions, {"identity": new["identity_id"], "version": new["version"]}
    ).fetchone()
    if later and int(later["n"]):
        raise _refuse(f"a version newer than {new['version']} was ingested since")
    if new["redistilled"] is not None:
        raise _refuse(f"version {new['version']} was distilled again since")
    only = [int(r["atom_id"]) for r in conn.execute(Q.atoms_only_here, {"doc": version_id})]
    touched = [int(r["id"]) for r in conn.execute(Q.touched_since, {"ids": only, "since": since})]
    if touched:
        named = ", ".join(str(i) for i in touched[:MAX_LISTED])
        raise _refuse(
            f"atoms only version {new['version']} cites changed since (atoms {named}): "
            "undoing would erase those changes"
        )
    report = RevertReport(version_id=previous_id, withdrawn=version_id)
    withdraw_reason(conn, f"re-ingest undone: version {new['version']} withdrawn ({reason})")
    report.atoms_erased = erase_atoms(conn, only).atoms
    conn.execute(CQ.detach_atoms_from_documents, ([version_id],))
    conn.execute(Q.delete_version, {"id": version_id})  # chunks, citations, merges cascade
    conn.execute(CQ.drop_unsplittable_merges)
    conn.execute(Q.make_current, {"id": previous_id})
    _restore_statuses(conn, changes, since, report, reason)
    if changes.links:  # those whose atoms were erased went with them
        report.links_removed = conn.execute(Q.delete_links, {"ids": list(changes.links)}).rowcount
    return report


def _restore_statuses(
    conn: Conn, changes: VersionChanges, since: datetime, report: RevertReport, reason: str
) -> None:
    """Each atom the re-ingest changed, back to its status before the first change it made,
    when it is still as the re-ingest left it (its last change is the re-ingest's)."""
    first: dict[int, str] = {}
    last: dict[int, str] = {}
    for atom_id, before, after in changes.status_changes:
        first.setdefault(atom_id, before)
        last[atom_id] = after
    created = list(changes.atoms_created)
    for atom_id in sorted(first):
        now = conn.execute(Q.atom_now, {"id": atom_id}).fetchone()
        if now is None:  # erased since
            continue
        if now["status"] != last[atom_id] or (now["changed_at"] and now["changed_at"] > since):
            report.left.append(atom_id)
            continue
        back = first[atom_id]
        if back not in ATOM_STATUSES:
            report.left.append(atom_id)
            continue
        set_status(
            conn,
            atom_id,
            AtomStatus(back),
            reason=f"re-ingest undone: {reason}",
            check_name="undo",
        )
        conn.execute(Q.unsupersede, {"id": atom_id, "created": created})
        report.restored.append(atom_id)
