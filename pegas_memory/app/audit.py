"""Audit lines of a person's changes (`pm_ui_audit`): the one writer of a line, used by the UI
(`ui/curation.py`) for the changes it makes in the request, and by the ingest job for a
re-ingest or re-distill the UI started as a job (`reread_audit`).

A change and its line are one transaction. A re-ingest runs as a job, in whichever process's
runner claims it, so the line cannot be written by a callback of the UI process: the job's
arguments carry who asked and why (`RereadOrder`), and the job's handler writes the line inside
the transaction that writes the new version (or re-distills it in place). For a new version
the line also keeps what undoing it needs (`detail.undo`): the atoms the version created, the
status changes and links its transaction wrote; the UI's undo hands them to
`MemoryService.revert_version`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, LiteralString

from psycopg.types.json import Jsonb

from pegas_memory.app.inputs import MAX_REASON_CHARS
from pegas_memory.db.pool import Conn
from pegas_memory.db.sql import load_queries
from pegas_memory.errors import InvalidInput
from pegas_memory.ingest.pipeline import IngestAudit
from pegas_memory.ingest.writes import IngestReport

REREAD_ACTIONS = ("reingest", "redistill")


@dataclass(frozen=True)
class AuditQueries:
    insert_audit: LiteralString
    version_before: LiteralString
    status_changes_here: LiteralString
    links_here: LiteralString


Q = load_queries(AuditQueries, "pegas_memory.app", "audit.sql")


def record(
    conn: Conn,
    *,
    actor: str,
    action: str,
    target: str,
    target_id: int,
    reason: str,
    before: dict[str, Any],
    after: dict[str, Any],
    detail: dict[str, Any] | None = None,
    undoes: int | None = None,
) -> int:
    """Write one audit line in the caller's transaction; returns its id."""
    row = conn.execute(
        Q.insert_audit,
        {
            "actor": actor,
            "action": action,
            "target": target,
            "target_id": target_id,
            "reason": reason,
            "before": Jsonb(before),
            "after": Jsonb(after),
            "detail": Jsonb(detail or {}),
            "undoes": undoes,
        },
    ).fetchone()
    assert row is not None
    return int(row["id"])


@dataclass(frozen=True)
class RereadOrder:
    """Who asked to read a document's source again, and why: kept in the ingest job's
    arguments (`args["audit"]`) and written as the line by the job."""

    actor: str
    asked: str  # "reingest" or "redistill"
    reason: str
    uri: str

    def as_args(self) -> dict[str, str]:
        return {"actor": self.actor, "asked": self.asked, "reason": self.reason, "uri": self.uri}

    @classmethod
    def from_args(cls, args: Any) -> RereadOrder:
        """Raises InvalidInput for arguments no UI wrote."""
        if not isinstance(args, dict):
            raise InvalidInput("an ingest job's audit order must be an object")
        values = {k: args.get(k) for k in ("actor", "asked", "reason", "uri")}
        if not all(isinstance(v, str) for v in values.values()):
            raise InvalidInput("an ingest job's audit order needs actor, asked, reason and uri")
        order = cls(**values)  # type: ignore[arg-type]
        if order.asked not in REREAD_ACTIONS or len(order.reason) > MAX_REASON_CHARS:
            raise InvalidInput("an ingest job's audit order asks for reingest or redistill")
        return order


def reread_audit(order: RereadOrder, job_id: int) -> IngestAudit:
    """The ingest's `audit` callback writing the line of a re-ingest (a new version: `before`
    is the version it superseded) or a re-distill (in place: before and after are the one
    version), in the ingest's transaction."""

    def write(conn: Conn, report: IngestReport) -> None:
        assert report.document_id is not None and report.version_id is not None
        after = {"version": report.version, "version_id": report.version_id}
        detail: dict[str, Any] = {
            "uri": order.uri,
            "asked": order.asked,
            "job": job_id,
            "redistilled": report.redistilled,
            "chunks": report.chunks,
            "chunks_reused": report.chunks_reused,
            "atoms_new": report.atoms_new,
            "atoms_kept": report.atoms_kept,
            "marked_stale": report.marked_stale,
            "superseded": report.superseded,
            "contradictions": report.contradictions,
        }
        if report.redistilled:
            action, before = "redistill", after
        else:
            action = "reingest"
            prev = conn.execute(Q.version_before, {"id": report.version_id}).fetchone()
            before = {"version": prev["version"], "version_id": prev["id"]} if prev else {}
            detail["undo"] = version_changes(conn, report.atom_ids)
        record(
            conn,
            actor=order.actor,
            action=action,
            target="document",
            target_id=report.document_id,
            reason=order.reason,
            before=before,
            after=after,
            detail=detail,
        )

    return write


def version_changes(conn: Conn, created: list[int]) -> dict[str, Any]:
    """What the running transaction (a new version's write) did besides its own rows: the atoms
    it created, the status changes it made to other atoms (from, to) and the links it added."""
    changes = conn.execute(Q.status_changes_here, {"created": created}).fetchall()
    links = conn.execute(Q.links_here).fetchall()
    return {
        "atoms_created": list(created),
        "status_changes": [
            [int(r["atom_id"]), str(r["from_status"]), str(r["to_status"])] for r in changes
        ],
        "links": [int(r["id"]) for r in links],
    }
