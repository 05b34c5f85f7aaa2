"""The review queue of the UI (issue 31): what a person should look at, with the actions on it.

- Contested pairs (curation.contradictions), side by side, each atom with its citations (the
  document, printed page or section, the quoted words marked inside their passage): keep one,
  keep both as holding in different scopes, or retract both.
- Candidates awaiting verification: verify (memory_verify) or retract (memory_forget), the
  atom page's own actions.
- Recent merges of near-duplicates (memory_merges), each with "split again".

Every action goes through `ui/curation.py` (the service call the MCP tools use, an audit line in
the same transaction, undo from the trail). The routes are registered by `ui/app.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, LiteralString

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import pegas_memory.ui.queries as uq
from pegas_memory.curation.contradictions import OUTCOMES
from pegas_memory.db.sql import load_queries
from pegas_memory.errors import InvalidInput
from pegas_memory.ui.highlight import citation_view
from pegas_memory.ui.host import PageHost

PAIRS_PER_PAGE = 10
CANDIDATES_PER_PAGE = 25
MERGES_SHOWN = 25
CITATIONS_SHOWN = 3  # per side of a pair; the atom's page has them all


@dataclass(frozen=True)
class ReviewQueries:
    candidates: LiteralString
    candidate_count: LiteralString


Q = load_queries(ReviewQueries, "pegas_memory.ui", "review.sql")


def _offset(value: str | None) -> int:
    try:
        return max(0, int(value or 0))
    except ValueError:
        return 0


def _form_int(form: dict[str, str], name: str) -> int | None:
    value = (form.get(name) or "").strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError as exc:
        raise InvalidInput(f"{name} must be a whole number") from exc


class ReviewPages:
    """The review page and its changes, on the UI application `ui`."""

    def __init__(self, ui: PageHost):
        self.ui = ui

    def page(self, request: Request) -> Response:
        q = request.query_params
        pairs_at = _offset(q.get("pairs"))
        before = _offset(q.get("before")) or None  # candidates: the page after this atom
        svc = self.ui.service
        rows = svc.review.pairs(limit=PAIRS_PER_PAGE, offset=pairs_at)
        merges = svc.merges(action="list", limit=MERGES_SHOWN).merges
        with svc.db.connection() as conn:
            pairs = [self._pair(conn, r) for r in rows]
            cands = conn.execute(
                Q.candidates, {"limit": CANDIDATES_PER_PAGE + 1, "before": before}
            ).fetchall()
            count = conn.execute(Q.candidate_count).fetchone()
        return self.ui.render(
            request,
            "review.html",
            pairs=pairs,
            pairs_total=int(rows[0]["total"]) if rows else 0,
            pairs_at=pairs_at,
            pairs_per_page=PAIRS_PER_PAGE,
            candidates=cands[:CANDIDATES_PER_PAGE],
            candidates_total=int(count["n"]) if count else 0,
            candidates_before=before,
            candidates_next=int(cands[-2]["id"]) if len(cands) > CANDIDATES_PER_PAGE else None,
            merges=merges,
        )

    @staticmethod
    def _pair(conn: Any, row: dict[str, Any]) -> dict[str, Any]:
        sides = []
        for side in ("a", "b"):
            atom_id = int(row[f"{side}_id"])
            cites = uq.citations(conn, atom_id)
            sides.append(
                {
                    "id": atom_id,
                    "claim": row[f"{side}_claim"],
                    "status": row[f"{side}_status"],
                    "confidence": row[f"{side}_confidence"],
                    "reason": row[f"{side}_reason"],
                    "language": row[f"{side}_language"],
                    "type": row[f"{side}_type"],
                    "citations": [citation_view(c, atom_id) for c in cites[:CITATIONS_SHOWN]],
                    "more_citations": max(0, len(cites) - CITATIONS_SHOWN),
                }
            )
        return {
            "link_id": int(row["link_id"]),
            "source": row["link_source"],
            "linked_at": row["linked_at"],
            "sides": sides,
        }

    # ------------------------------------------------------------------ changes
    def resolve(self, request: Request, form: dict[str, str]) -> str:
        link_id = int(request.path_params["link_id"])
        outcome = form.get("outcome", "")
        if outcome not in OUTCOMES:
            raise InvalidInput(f"outcome must be one of {', '.join(OUTCOMES)}")
        scopes = {
            int(k.removeprefix("scope_")): v
            for k, v in form.items()
            if k.startswith("scope_") and k.removeprefix("scope_").isdigit()
        }
        self.ui.curator.resolve(
            link_id,
            outcome,
            form.get("reason", ""),
            keep=_form_int(form, "keep"),
            scopes=scopes or None,
        )
        return "/review"

    def split(self, request: Request, form: dict[str, str]) -> str:
        self.ui.curator.split(int(request.path_params["merge_id"]), form.get("reason", ""))
        return "/review"

    def routes(self) -> list[Route]:
        ui = self.ui
        return [
            Route("/review", ui.page(self.page)),
            Route("/review/pair/{link_id:int}/resolve", ui.change(self.resolve), methods=["POST"]),
            Route("/review/merge/{merge_id:int}/split", ui.change(self.split), methods=["POST"]),
        ]
