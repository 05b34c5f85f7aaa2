"""A person's changes from the UI, each through the service call the MCP tools use, each an audit
line (who, when, why, before and after) in `pm_ui_audit` (migrations 0017, 0019, 0023), each
undoable but for job control and erasure.

- verify: `MemoryService.verify` (memory_verify) on the one atom; its verdict is in the line.
- retract: `MemoryService.forget(mode="retract")` (memory_forget).
- resolve a contested pair: `MemoryService.review.resolve` (keep one, keep both in
  different scopes, retract both; curation.contradictions).
- split a merge again: `MemoryService.merges(action="split")` (memory_merges).
- add a gap: `MemoryService.add_gap` (memory_add_gap); close it: `set_gap_status`.
- start research: `jobs.submit_research` (memory_job op=research); cancel a job:
  `jobs.cancel` (memory_job op=cancel). Lines without undo: a job's own cancel takes back what
  it did.
- a document: re-ingest and re-distill run as an ingest job (`jobs.submit_ingest`, the job
  memory_ingest submits) on its source read again: a new version when its bytes changed,
  nothing when they did not, its current version distilled again in place for a re-distill.
  The job writes the line in the transaction of the version (`app/audit.py`), so the line
  exists exactly when something was written. A document ingested from inline text cannot be
  read again (its bytes are not kept). Erase (`MemoryService.forget(mode="erase")`: every
  version, its passages, the atoms no other source cites) is final: nothing is left to undo
  it from. A re-distill is not undone either (its old atoms' citations are rewritten in place).
- undo: puts back the state the line recorded before the change (`set_atom_status`,
  `set_gap_status`, `review.reopen`, `review.rejoin`, `revert_version` for a re-ingest that
  made a new version: the version before is current again), only while the target is still as
  that change left it (otherwise someone or something changed it since, and undoing would
  overwrite their change), at most once, and never once the target is erased. An undo is a
  line too.

A change to the memory and its line are one transaction: the service runs the `audit` callback
this module gives it inside its own transaction, before it commits, so there is never a change
without its line nor a line without its change. Job control is the exception: the job's row is
written by the job queue, and the line right after it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

import pegas_memory.ui.queries as uq
from pegas_memory.app.audit import RereadOrder
from pegas_memory.app.audit import record as record_line
from pegas_memory.app.inputs import MAX_REASON_CHARS
from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.curation.contradictions import Resolution, snapshot
from pegas_memory.curation.merges import SplitOutcome
from pegas_memory.curation.revert import RevertReport, VersionChanges
from pegas_memory.curation.verify import AtomVerdict
from pegas_memory.db.pool import Conn
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.jobs import JobInfo
from pegas_memory.models import GapOut, GapStatus

ACTOR = "ui"
CLOSED_GAP: tuple[str, ...] = (GapStatus.FILLED, GapStatus.ABANDONED)
UNDOABLE = frozenset({"verify", "retract", "close_gap", "add_gap", "resolve", "split", "reingest"})


@dataclass(frozen=True)
class Outcome:
    """What a change did: its audit line and a sentence for the page."""

    audit_id: int
    message: str


def source_of(kind: str, uri: str) -> str:
    """What memory_ingest reads again for a stored document: its URL, or the path of its file.
    Raises InvalidInput for a document whose bytes cannot be read again (inline text, a code
    repository's own document)."""
    parts = urlsplit(uri)
    if parts.scheme in ("http", "https"):
        return uri
    if parts.scheme == "file":
        return url2pathname(parts.path)
    if kind == "code_repo":
        raise InvalidInput("a code repository is indexed again with memory_store_code")
    raise InvalidInput(
        "this document was ingested from text given inline: its bytes are kept nowhere but in "
        "its passages, so it cannot be read again; ingest the text again with memory_ingest"
    )


def _reason(text: str) -> str:
    text = (text or "").strip()
    if "\x00" in text:
        raise InvalidInput("the reason contains a NUL character")
    if len(text) > MAX_REASON_CHARS:
        raise InvalidInput(f"the reason is over {MAX_REASON_CHARS} characters; shorten it")
    return text


def _check_undoable(line: Mapping[str, Any], audit_id: int) -> None:
    """Raises InvalidInput when line `audit_id` is not one an undo puts back: an undo, an
    action not undone here, a line already undone, or one that changed nothing."""
    action = str(line["action"])
    if action == "undo":
        raise InvalidInput("an undo is not undone: make the change again instead")
    if action not in UNDOABLE:
        raise InvalidInput(f"a {action} line is not undone here (cancel the job instead)")
    if line["undone_by"] is not None:
        raise InvalidInput(f"line {audit_id} was already undone (line {line['undone_by']})")
    if dict(line["before"]) == dict(line["after"]):
        raise InvalidInput(f"line {audit_id} changed nothing; there is nothing to undo")


def _revert_counts(report: RevertReport) -> dict[str, Any]:
    """What an undone re-ingest changed, for the undo's line."""
    return {
        "atoms_erased": len(report.atoms_erased),
        "restored": report.restored,
        "left": report.left,
        "links_removed": report.links_removed,
    }


def _atom_state(row: dict[str, Any] | None) -> dict[str, Any]:
    if row is None:
        return {}
    return {
        "status": row["status"],
        "confidence": float(row["confidence"]),
        "status_reason": row["status_reason"],
    }


def _pair_state(snapshot: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """What an undo of a resolution compares: the link's kind and each atom's status."""
    atoms = {k: str(v["status"]) for k, v in dict(snapshot["atoms"]).items()}
    return str(snapshot["link"]["kind"]), atoms


class _Line:
    """The id of the line an `audit` callback wrote (set inside the service's transaction)."""

    id: int | None = None

    def get(self) -> int:
        if self.id is None:  # the service ran no transaction for it: nothing changed
            raise InvalidInput("nothing was changed (the target went away meanwhile?)")
        return self.id


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

    def _gap(self, gap_id: int, conn: Conn | None = None) -> dict[str, Any]:
        if conn is None:
            with self.service.db.connection() as own:
                return self._gap(gap_id, own)
        row = uq.gap_state(conn, gap_id)
        if row is None:
            raise NotFound(f"gap {gap_id} not found")
        return {"status": row["status"]}

    def _record(
        self,
        conn: Conn,
        action: str,
        target: str,
        target_id: int,
        reason: str,
        before: dict[str, Any],
        after: dict[str, Any],
        detail: dict[str, Any] | None = None,
        undoes: int | None = None,
    ) -> int:
        return record_line(
            conn,
            actor=ACTOR,
            action=action,
            target=target,
            target_id=target_id,
            reason=reason,
            before=before,
            after=after,
            detail=detail,
            undoes=undoes,
        )

    def _recorder(
        self,
        line: _Line,
        action: str,
        target: str,
        target_id: int,
        reason: str,
        before: dict[str, Any],
        after: Callable[[Conn], dict[str, Any]],
        detail: dict[str, Any] | None = None,
    ) -> Callable[[Conn], None]:
        """An `audit` callback writing one line, its `after` read in the change's transaction."""

        def write(conn: Conn) -> None:
            line.id = self._record(
                conn, action, target, target_id, reason, before, after(conn), detail
            )

        return write

    def _atom_after(self, atom_id: int) -> Callable[[Conn], dict[str, Any]]:
        return lambda conn: _atom_state(uq.atom_state(conn, atom_id))

    # ------------------------------------------------------------------ changes
    def verify(self, atom_id: int, reason: str) -> Outcome:
        """Run memory_verify's checks on the atom; the verdict may leave its status as it was."""
        reason = _reason(reason)
        before = self._atom(atom_id)
        line = _Line()
        seen: dict[str, Any] = {}

        def audit(conn: Conn, v: AtomVerdict) -> None:
            detail = {
                "verdict": v.verdict,
                "verdict_reason": v.reason,
                "ref_id": v.ref_id,
                "warnings": v.checks_skipped,
            }
            seen.update(detail)
            after = _atom_state(uq.atom_state(conn, atom_id))
            seen["after"] = after
            line.id = self._record(conn, "verify", "atom", atom_id, reason, before, after, detail)

        self.service.verify(atom_ids=[atom_id], audit=audit)
        return Outcome(
            line.get(),
            f"verified atom {atom_id}: {seen.get('verdict')}, {before['status']} → "
            f"{seen['after'].get('status')}",
        )

    def retract(self, atom_id: int, reason: str) -> Outcome:
        reason = _reason(reason)
        before = self._atom(atom_id)
        line = _Line()
        self.service.forget(
            mode="retract",
            atom_ids=[atom_id],
            reason=reason or "retracted in UI",
            audit=self._recorder(
                line, "retract", "atom", atom_id, reason, before, self._atom_after(atom_id)
            ),
        )
        return Outcome(line.get(), f"retracted atom {atom_id}: {before['status']} → stale")

    def resolve(
        self,
        link_id: int,
        outcome: str,
        reason: str,
        *,
        keep: int | None = None,
        scopes: dict[int, str] | None = None,
    ) -> Outcome:
        """A contested pair resolved (curation.contradictions): keep one, both, or neither."""
        reason = _reason(reason)
        line = _Line()

        def audit(conn: Conn, done: Resolution) -> None:
            detail: dict[str, Any] = {"outcome": done.outcome, "atoms": list(done.atoms)}
            if keep is not None:
                detail["kept"] = keep
            line.id = self._record(
                conn,
                "resolve",
                "link",
                link_id,
                reason,
                dict(done.before),
                dict(done.after),
                detail,
            )

        done = self.service.review.resolve(
            link_id, outcome, reason=reason, keep=keep, scopes=scopes, by=ACTOR, audit=audit
        )
        a, b = done.atoms
        return Outcome(
            line.get(),
            f"resolved atoms {a} and {b} ({outcome}): "
            + ", ".join(f"{i} {s}" for i, s in sorted(done.statuses.items())),
        )

    def split(self, merge_id: int, reason: str) -> Outcome:
        """memory_merges action=split: the merged claim becomes its own atom again."""
        reason = _reason(reason)
        line = _Line()

        def audit(conn: Conn, done: SplitOutcome) -> None:
            detail = {
                "survivor": done.survivor_id,
                "atom": done.atom_id,
                "created": done.created,
                "moved": done.citations_moved,
            }
            line.id = self._record(
                conn,
                "split",
                "merge",
                merge_id,
                reason,
                {"status": "merged", "atom": done.survivor_id},
                {"status": "split", "atom": done.atom_id},
                detail,
            )

        result = self.service.merges(
            action="split", merge_id=merge_id, reason=reason or "split in UI", audit=audit
        )
        return Outcome(line.get(), result.message)

    def add_gap(self, question: str, reason: str, priority: int) -> Outcome:
        reason = _reason(reason)
        line = _Line()

        def audit(conn: Conn, gap: GapOut, created: bool) -> None:
            before = {} if created else {"status": gap.status}
            line.id = self._record(
                conn,
                "add_gap",
                "gap",
                gap.id,
                reason,
                before,
                {"status": gap.status},
                {"question": gap.question, "created": created, "priority": gap.priority},
            )

        done = self.service.add_gap(question, reason=reason or None, priority=priority, audit=audit)
        return Outcome(line.get(), done.message)

    def close_gap(self, gap_id: int, status: str, reason: str) -> Outcome:
        reason = _reason(reason)
        if status not in CLOSED_GAP:
            raise InvalidInput(f"a gap is closed as {' or '.join(CLOSED_GAP)}")
        before = self._gap(gap_id)
        if before["status"] in CLOSED_GAP:
            raise InvalidInput(f"gap {gap_id} is already closed ({before['status']})")
        line = _Line()
        self.service.set_gap_status(
            gap_id,
            status,
            audit=self._recorder(
                line,
                "close_gap",
                "gap",
                gap_id,
                reason,
                before,
                lambda conn: self._gap(gap_id, conn),
            ),
        )
        return Outcome(line.get(), f"closed gap {gap_id} as {status}")

    def research(self, max_gaps: int, urls_per_gap: int, reason: str) -> Outcome:
        """memory_job op=research: one research run at a time (a second start is that run)."""
        reason = _reason(reason)
        info = self.service.jobs.submit_research(max_gaps=max_gaps, urls_per_gap=urls_per_gap)
        with self.service.db.transaction() as conn:
            audit_id = self._record(
                conn,
                "research",
                "job",
                info.id,
                reason,
                {},
                {"status": info.state},
                {"max_gaps": max_gaps, "urls_per_gap": urls_per_gap},
            )
        return Outcome(audit_id, f"research job {info.id} is {info.state}")

    def cancel_job(self, job_id: int, reason: str) -> Outcome:
        """memory_job op=cancel: the job stops at its next step and takes back what it did."""
        reason = _reason(reason)
        before = self.service.jobs.get(job_id)
        info = self.service.jobs.cancel(job_id)
        with self.service.db.transaction() as conn:
            audit_id = self._record(
                conn,
                "cancel_job",
                "job",
                job_id,
                reason,
                {"status": before.state},
                {"status": info.state, "cancel_requested": info.cancel_requested},
                {"kind": info.kind},
            )
        return Outcome(audit_id, f"job {job_id}: cancel requested ({info.state})")

    # ------------------------------------------------------------------ documents
    def _document(self, doc_id: int) -> dict[str, Any]:
        with self.service.db.connection() as conn:
            row = conn.execute(uq.Q.document_identity, {"id": doc_id}).fetchone()
        if row is None:
            raise NotFound(f"document {doc_id} not found (never ingested, or erased)")
        return dict(row)

    def reread(self, doc_id: int, reason: str, *, redistill: bool) -> JobInfo:
        """Start memory_ingest's job on the document's source read again (`redistill`:
        distilled again even when its bytes are unchanged); returns the job at once. The job
        writes the line (action reingest for a new version, redistill for the current version
        distilled again in place) in the transaction that writes it; unchanged bytes not
        re-distilled write nothing and no line. The same request while its job is queued or
        running is that job."""
        reason = _reason(reason)
        doc = self._document(doc_id)
        source = source_of(str(doc["kind"]), str(doc["uri"]))
        order = RereadOrder(
            actor=ACTOR,
            asked="redistill" if redistill else "reingest",
            reason=reason,
            uri=str(doc["uri"]),
        )
        request = IngestRequest(source=source, title=doc["title"], redistill=redistill)
        return self.service.jobs.submit_ingest([request], audit=order)

    def erase_document(self, doc_id: int, reason: str, preview: dict[str, Any]) -> Outcome:
        """memory_forget mode=erase of the document: every version, its passages, the atoms no
        other source cites. `preview` (what the confirmation page showed) is the line's
        `before`; the line stays after the document is gone."""
        reason = _reason(reason)
        doc = self._document(doc_id)
        identity = int(doc["identity_id"])
        line = _Line()
        before = {"title": doc["title"], "uri": doc["uri"], **preview}
        result = self.service.forget(
            mode="erase",
            document_ids=[identity],
            reason=reason or "erased in UI",
            audit=self._recorder(line, "erase", "document", identity, reason, before, lambda c: {}),
        )
        return Outcome(line.get(), result.message)

    # ------------------------------------------------------------------ undo
    def undo(self, audit_id: int, reason: str) -> Outcome:
        """Put back what line `audit_id` changed (see the module's rules)."""
        reason = _reason(reason)
        with self.service.db.connection() as conn:
            line = conn.execute(uq.Q.lock_audit, {"id": audit_id}).fetchone()
        if line is None:
            raise NotFound(f"audit line {audit_id} not found")
        _check_undoable(line, audit_id)
        action = str(line["action"])
        before, after = dict(line["before"]), dict(line["after"])
        target, target_id = str(line["target"]), int(line["target_id"])
        why = f"undo of UI change #{audit_id}" + (f": {reason}" if reason else "")
        written = _Line()

        def write(now: dict[str, Any], restored: Callable[[Conn], dict[str, Any]]) -> Any:
            """The undo's line, written in the undo's own transaction; a `RevertReport` the
            service passes along goes into its detail."""

            def audit(conn: Conn, *done: Any) -> None:
                detail: dict[str, Any] = {"undid": action}
                if done and isinstance(done[0], RevertReport):
                    detail |= _revert_counts(done[0])
                locked = conn.execute(uq.Q.lock_audit, {"id": audit_id}).fetchone()
                if locked is None or locked["undone_by"] is not None:
                    raise InvalidInput(f"line {audit_id} was undone meanwhile")
                written.id = self._record(
                    conn,
                    "undo",
                    target,
                    target_id,
                    reason,
                    now,
                    restored(conn),
                    detail,
                    undoes=audit_id,
                )
                conn.execute(uq.Q.mark_undone, {"undo": written.id, "id": audit_id})

            return audit

        def changed_since(now: Any, then: Any) -> InvalidInput:
            return InvalidInput(
                f"{target} {target_id} changed since line {audit_id} (it is {now} now, not "
                f"{then}); undoing would overwrite that change"
            )

        if target == "atom":
            now = self._atom(target_id)
            if now.get("status") != after.get("status"):
                raise changed_since(now.get("status"), after.get("status"))
            self.service.set_atom_status(
                target_id,
                str(before["status"]),
                reason=why,
                confidence=before.get("confidence"),
                audit=write(now, self._atom_after(target_id)),
            )
        elif target == "gap":
            now = self._gap(target_id)
            if now.get("status") != after.get("status"):
                raise changed_since(now.get("status"), after.get("status"))
            back = str(before.get("status") or "abandoned")  # an added gap is abandoned
            self.service.set_gap_status(
                target_id, back, audit=write(now, lambda conn: self._gap(target_id, conn))
            )
        elif target == "link":
            with self.service.db.connection() as conn:
                snap = snapshot(conn, target_id)
            if _pair_state(snap) != _pair_state(after):
                raise changed_since(_pair_state(snap), _pair_state(after))
            self.service.review.reopen(
                target_id, before, reason=why, audit=write(snap, lambda c: snapshot(c, target_id))
            )
        elif target == "document":
            self._undo_reingest(line, why, write)
        else:  # a split merge
            detail = dict(line["detail"])
            self.service.review.rejoin(
                target_id,
                [int(c) for c in detail.get("moved", [])],
                created=bool(detail.get("created")),
                audit=write(after, lambda conn: before),
            )
        return Outcome(written.get(), f"undid line {audit_id} ({action} of {target} {target_id})")

    def _undo_reingest(
        self,
        line: dict[str, Any],
        why: str,
        write: Callable[[dict[str, Any], Callable[[Conn], dict[str, Any]]], Any],
    ) -> RevertReport:
        """A re-ingest's new version taken back: the version before it current again
        (`MemoryService.revert_version`, which refuses when the document changed since)."""
        before, after, detail = dict(line["before"]), dict(line["after"]), dict(line["detail"])
        if "undo" not in detail or not before.get("version_id"):
            raise InvalidInput(
                f"line {line['id']} kept no record of what its re-ingest changed (it was made "
                "before re-ingests could be undone); ingest the old bytes again instead"
            )
        document = f"document {line['target_id']}"
        doc = self._document(int(after["version_id"]))
        if doc["current_id"] != after["version_id"]:
            raise InvalidInput(
                f"{document} changed since line {line['id']} (its current version is "
                f"{doc['current_version']}, not {after.get('version')}); undoing would "
                "overwrite that change"
            )
        return self.service.revert_version(
            int(after["version_id"]),
            previous_id=int(before["version_id"]),
            changes=VersionChanges.from_json(detail["undo"]),
            since=line["created_at"],
            reason=why,
            audit=write(after, lambda conn: before),
        )
