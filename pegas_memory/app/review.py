"""The review queue behind the UI's review page and the tool memory_contradictions: contested
pairs listed and resolved, a resolution undone, a split merge joined again
(`curation.contradictions`, `curation.merges`). Each change is one transaction; `audit`, when
given, runs inside it before it commits (the UI's audit line), then truth maintenance runs as
after memory_forget. `MemoryService.review` holds one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from pegas_memory.app.inputs import MAX_REASON_CHARS, clean_text
from pegas_memory.curation.contradictions import Resolution, open_pairs, restore
from pegas_memory.curation.contradictions import resolve as resolve_pair
from pegas_memory.curation.merges import rejoin as rejoin_split
from pegas_memory.db.pool import Conn, Database
from pegas_memory.errors import InvalidInput
from pegas_memory.models import ContestedAtomOut, ContestedPairOut, ContradictionsResult
from pegas_memory.search.hybrid import Searcher


class ReviewHost(Protocol):
    """What the review queue uses of MemoryService."""

    searcher: Searcher

    @property
    def db(self) -> Database: ...

    def maintain(self) -> Any: ...


class ReviewService:
    """Contested pairs and split merges, decided by an agent or a person."""

    def __init__(self, host: ReviewHost):
        self.host = host

    def pairs(self, *, limit: int = 20, offset: int = 0) -> list[dict[str, Any]]:
        """Pairs linked `contradicts` while one of them is contested (curation.contradictions)."""
        with self.host.db.connection() as conn:
            return open_pairs(conn, limit=limit, offset=offset)

    def resolve(
        self,
        link_id: int,
        outcome: str,
        *,
        reason: str,
        keep: int | None = None,
        scopes: Mapping[int, str] | None = None,
        by: str = "agent",
        audit: Callable[[Conn, Resolution], None] | None = None,
    ) -> Resolution:
        """A person's verdict on a contested pair: keep one (the other retracted as
        memory_forget retracts), keep both in different scopes, or retract both; then truth
        maintenance runs as after memory_forget. `by` names who decided (the status changes'
        check: agent, ui). `audit` runs in the transaction."""
        why = clean_text(reason or "", "reason", MAX_REASON_CHARS, required=False)
        with self.host.db.transaction() as conn:
            done = resolve_pair(conn, link_id, outcome, reason=why, keep=keep, scopes=scopes, by=by)
            if audit is not None:
                audit(conn, done)
        self.host.searcher.invalidate_stats()
        self.host.maintain()
        return done

    def contradictions(
        self,
        *,
        action: str = "list",
        link_id: int | None = None,
        outcome: str | None = None,
        keep: int | None = None,
        scopes: Mapping[int, str] | None = None,
        reason: str = "",
        limit: int = 20,
        offset: int = 0,
    ) -> ContradictionsResult:
        """memory_contradictions: list the contested pairs, or resolve one."""
        if action == "list":
            rows = self.pairs(limit=limit, offset=offset)
            return ContradictionsResult(
                action="list",
                pairs=[_pair_out(r) for r in rows],
                total=int(rows[0]["total"]) if rows else 0,
                message=f"{len(rows)} contested pair(s), newest first",
            )
        if action != "resolve":
            raise InvalidInput("action must be list or resolve")
        if link_id is None or outcome is None:
            raise InvalidInput("resolve needs link_id and outcome (action=list shows the pairs)")
        done = self.resolve(link_id, outcome, reason=reason, keep=keep, scopes=scopes)
        return ContradictionsResult(
            action="resolve",
            statuses={str(k): v for k, v in done.statuses.items()},
            message=f"resolved the pair of link {link_id} ({outcome}): "
            + ", ".join(f"atom {k} {v}" for k, v in sorted(done.statuses.items())),
        )

    def reopen(
        self,
        link_id: int,
        before: Mapping[str, Any],
        *,
        reason: str,
        audit: Callable[[Conn], None] | None = None,
    ) -> None:
        """Put a resolved pair back as `before` (curation.contradictions.snapshot) found it."""
        why = clean_text(reason, "reason", MAX_REASON_CHARS, required=True)
        with self.host.db.transaction() as conn:
            restore(conn, link_id, before, reason=why)
            if audit is not None:
                audit(conn)
        self.host.searcher.invalidate_stats()
        self.host.maintain()

    def rejoin(
        self,
        merge_id: int,
        moved: Sequence[int],
        *,
        created: bool,
        audit: Callable[[Conn], None] | None = None,
    ) -> None:
        """Undo a split of memory_merges (curation.merges.rejoin)."""
        with self.host.db.transaction() as conn:
            rejoin_split(conn, merge_id, moved, created=created)
            if audit is not None:
                audit(conn)
        self.host.searcher.invalidate_stats()


def _pair_out(row: dict[str, Any]) -> ContestedPairOut:
    return ContestedPairOut(
        link_id=int(row["link_id"]),
        source=str(row["link_source"]),
        linked_at=row["linked_at"],
        atoms=[
            ContestedAtomOut(
                id=int(row[f"{s}_id"]),
                claim=str(row[f"{s}_claim"]),
                type=str(row[f"{s}_type"]),
                status=str(row[f"{s}_status"]),
                confidence=float(row[f"{s}_confidence"]),
                language=row[f"{s}_language"],
            )
            for s in ("a", "b")
        ],
    )
