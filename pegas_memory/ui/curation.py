"""A person's changes from the UI, each through the service call the MCP tools use, each an audit
line (who, when, why, before and after) in `pm_ui_audit` (migration 0017), each undoable.

- verify: `MemoryService.verify` (memory_verify) on the one atom; its verdict is in the line.
- retract: `MemoryService.forget(mode="retract")` (memory_forget).
- close a gap: `MemoryService.set_gap_status` to filled or abandoned.
- undo: puts back the state the line recorded before the change (`set_atom_status`,
  `set_gap_status`), only while the target is still as that change left it (otherwise someone
  or something changed it since, and undoing would overwrite their change), at most once, and
  never once the target is erased. An undo is a line too.

The change and its line are two transactions (the service call commits its own): a crash
between them leaves a change without its line, never a line without its change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg.types.json import Jsonb

import pegas_memory.ui.queries as uq
from pegas_memory.app.service import MemoryService
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.models import GapStatus, VerifyVerdict

ACTOR = "ui"
CLOSED_GAP: tuple[str, ...] = (GapStatus.FILLED, GapStatus.ABANDONED)
MAX_REASON = 2_000


@dataclass(frozen=True)
class Outcome:
    """What a change did: its audit line and a sentence for the page."""

    audit_id: int
    message: str


def _reason(text: str) -> str:
    text = (text or "").strip()
    if "\x00" in text:
        raise InvalidInput("the reason contains a NUL character")
    if len(text) > MAX_REASON:
        raise InvalidInput(f"the reason is over {MAX_REASON} characters; shorten it")
    return text


def _atom_state(row: dict[str, Any] | None) -> dict[str, Any]:
    if row is None:
        return {}
    return {
        "status": row["status"],
        "confidence": float(row["confidence"]),
        "status_reason": row["status_reason"],
    }


class Curator:
    """The UI's changes to one memory, with their audit trail."""

    def __init__(self, service: MemoryService):
        self.service = service

    # ------------------------------------------------------------------ reads
    def _atom(self, atom_id: int) -> dict[str, Any]:
        with self.service.db.connection() as conn:
            state = _atom_state(uq.atom_state(conn, atom_id))
        if not state:
            raise NotFound(f"atom {atom_id} not found (erased?)")
        return state

    def _gap(self, gap_id: int) -> dict[str, Any]:
        with self.service.db.connection() as conn:
            row = uq.gap_state(conn, gap_id)
        if row is None:
            raise NotFound(f"gap {gap_id} not found")
        return {"status": row["status"]}

    def _record(
        self,
        action: str,
        target: str,
        target_id: int,
        reason: str,
        before: dict[str, Any],
        after: dict[str, Any],
        detail: dict[str, Any] | None = None,
        undoes: int | None = None,
    ) -> int:
        with self.service.db.transaction() as conn:
            row = conn.execute(
                uq.Q.insert_audit,
                {
                    "actor": ACTOR,
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

    # ------------------------------------------------------------------ changes
    def verify(self, atom_id: int, reason: str) -> Outcome:
        """Run memory_verify's checks on the atom; the verdict may leave its status as it was."""
        reason = _reason(reason)
        before = self._atom(atom_id)
        result = self.service.verify(atom_ids=[atom_id])
        after = self._atom(atom_id)
        detail: dict[str, Any] = {"warnings": result.warnings}
        if result.verdicts:
            v = result.verdicts[0]
            detail |= {"verdict": v.verdict, "verdict_reason": v.reason, "ref_id": v.ref_id}
        audit_id = self._record("verify", "atom", atom_id, reason, before, after, detail)
        verdict = detail.get("verdict", VerifyVerdict.UNCHECKED)
        return Outcome(
            audit_id,
            f"verified atom {atom_id}: {verdict}, {before['status']} → {after['status']}",
        )

    def retract(self, atom_id: int, reason: str) -> Outcome:
        reason = _reason(reason)
        before = self._atom(atom_id)
        self.service.forget(mode="retract", atom_ids=[atom_id], reason=reason or "retracted in UI")
        after = self._atom(atom_id)
        audit_id = self._record("retract", "atom", atom_id, reason, before, after)
        return Outcome(audit_id, f"retracted atom {atom_id}: {before['status']} → stale")

    def close_gap(self, gap_id: int, status: str, reason: str) -> Outcome:
        reason = _reason(reason)
        if status not in CLOSED_GAP:
            raise InvalidInput(f"a gap is closed as {' or '.join(CLOSED_GAP)}")
        before = self._gap(gap_id)
        if before["status"] in CLOSED_GAP:
            raise InvalidInput(f"gap {gap_id} is already closed ({before['status']})")
        self.service.set_gap_status(gap_id, status)
        after = self._gap(gap_id)
        audit_id = self._record("close_gap", "gap", gap_id, reason, before, after)
        return Outcome(audit_id, f"closed gap {gap_id} as {status}")

    def undo(self, audit_id: int, reason: str) -> Outcome:
        """Put back what line `audit_id` changed (see the module's rules)."""
        reason = _reason(reason)
        with self.service.db.transaction() as conn:
            line = conn.execute(uq.Q.lock_audit, {"id": audit_id}).fetchone()
            if line is None:
                raise NotFound(f"audit line {audit_id} not found")
            if line["action"] == "undo":
                raise InvalidInput("an undo is not undone: make the change again instead")
            if line["undone_by"] is not None:
                raise InvalidInput(f"line {audit_id} was already undone (line {line['undone_by']})")
            before, after = dict(line["before"]), dict(line["after"])
            if before == after:
                raise InvalidInput(f"line {audit_id} changed nothing; there is nothing to undo")
            target, target_id = line["target"], int(line["target_id"])
            now = self._atom(target_id) if target == "atom" else self._gap(target_id)
            if now.get("status") != after.get("status"):
                raise InvalidInput(
                    f"{target} {target_id} changed since line {audit_id} "
                    f"(it is {now.get('status')} now, not {after.get('status')}); "
                    "undoing would overwrite that change"
                )
            why = f"undo of UI change #{audit_id}" + (f": {reason}" if reason else "")
            if target == "atom":
                self.service.set_atom_status(
                    target_id,
                    str(before["status"]),
                    reason=why,
                    confidence=before.get("confidence"),
                )
                restored = self._atom(target_id)
            else:
                self.service.set_gap_status(target_id, str(before["status"]))
                restored = self._gap(target_id)
            row = conn.execute(
                uq.Q.insert_audit,
                {
                    "actor": ACTOR,
                    "action": "undo",
                    "target": target,
                    "target_id": target_id,
                    "reason": reason,
                    "before": Jsonb(now),
                    "after": Jsonb(restored),
                    "detail": Jsonb({"undid": line["action"]}),
                    "undoes": audit_id,
                },
            ).fetchone()
            assert row is not None
            undo_id = int(row["id"])
            conn.execute(uq.Q.mark_undone, {"undo": undo_id, "id": audit_id})
        return Outcome(
            undo_id,
            f"undid line {audit_id}: {target} {target_id} is {restored.get('status')} again",
        )
