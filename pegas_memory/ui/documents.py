"""A document's page and its curation (issue 31): versions, what each version changed, atoms by
type, the text with its cited spans marked; re-ingest, re-distill and erase.

- Versions: every version of the document (one identity), each with what it changed from the
  one before it: passages added and withdrawn (by content hash), cited atoms added and withdrawn;
  the version shown lists those atoms with their status now (a withdrawn one is stale when no
  other source holds it). A version distilled again in place says by which distiller.
- Drafts dropped: per version, how many drafts the distiller dropped and why, as its ingest
  recorded them in the version's metadata (`dropped`; versions ingested before that say
  nothing).
- Re-ingest and re-distill start memory_ingest's job on the document's source read again
  (`ui/curation.py`; the job writes the audit line in the ingest's own transaction) and send
  the person to the overview, which shows the job's live progress with a cancel button; a
  document ingested from inline text has no source to read again, and the page says so
  instead of offering them. A re-ingest that made a new version is undone from the audit
  trail (the version before becomes current again).
- Erase goes through a confirmation page that says what it takes with it (versions, passages,
  the atoms no other source cites), that it is final, and wants the word "erase" typed; then
  memory_forget mode=erase, its line in the same transaction.

Every change passes `ui/auth.py`'s checks (`PageHost.change`). The routes are registered by
`ui/app.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, LiteralString

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import pegas_memory.ui.queries as uq
from pegas_memory.db.pool import Conn
from pegas_memory.db.sql import load_queries
from pegas_memory.errors import InvalidInput, NotFound, PegasMemoryError
from pegas_memory.ui.curation import source_of
from pegas_memory.ui.highlight import passage_view
from pegas_memory.ui.host import PageHost

CHUNKS_PER_PAGE = 100
CHANGED_ATOMS_SHOWN = 50  # per list (added, withdrawn) on the version shown
CONFIRM_WORD = "erase"


@dataclass(frozen=True)
class DocumentQueries:
    versions: LiteralString
    atoms_added: LiteralString
    atoms_withdrawn: LiteralString
    erase_preview: LiteralString


Q = load_queries(DocumentQueries, "pegas_memory.ui", "documents.sql")


def _int(value: str | None, default: int = 0) -> int:
    try:
        return max(0, int(value)) if value not in (None, "") else default
    except ValueError:
        return default


def _document(conn: Conn, doc_id: int) -> dict[str, Any]:
    doc = uq.document(conn, doc_id)
    if doc is None:
        raise NotFound(f"document {doc_id} not found (never ingested, or erased)")
    return doc


def erase_preview(conn: Conn, identity: int) -> dict[str, Any]:
    row = conn.execute(Q.erase_preview, {"identity": identity}).fetchone()
    assert row is not None
    return {
        "versions": int(row["versions"]),
        "passages": int(row["passages"]),
        "atoms_erased": int(row["atoms_erased"]),
        "atoms_kept": int(row["atoms_kept"]),
        "some_erased": list(row["some_erased"] or []),
    }


class DocumentPages:
    """The document page, the erase confirmation and the document's changes."""

    def __init__(self, ui: PageHost):
        self.ui = ui

    def page(self, request: Request) -> Response:
        doc_id = int(request.path_params["doc_id"])
        q = request.query_params
        offset, at = _int(q.get("offset")), _int(q.get("at"))
        with self.ui.service.db.connection() as conn:
            doc = _document(conn, doc_id)
            if at:  # the page holding passage `at`
                offset = uq.chunk_position(conn, doc_id, at) // CHUNKS_PER_PAGE * CHUNKS_PER_PAGE
            versions = conn.execute(Q.versions, {"identity": doc["identity_id"]}).fetchall()
            this = next((v for v in versions if v["id"] == doc_id), None)
            prev = this["prev"] if this else None
            changed: dict[str, Any] = {"prev": prev, "added": [], "withdrawn": []}
            if prev is not None:
                args = {"id": doc_id, "prev": prev, "limit": CHANGED_ATOMS_SHOWN}
                changed["added"] = conn.execute(Q.atoms_added, args).fetchall()
                changed["withdrawn"] = conn.execute(Q.atoms_withdrawn, args).fetchall()
            by_type = uq.document_atoms_by_type(conn, doc_id)
            chunks = uq.document_chunks(conn, doc_id, CHUNKS_PER_PAGE, offset)
            spans = uq.document_spans(conn, [int(c["id"]) for c in chunks])
        total = int(chunks[0]["total"]) if chunks else 0
        types: dict[str, dict[str, int]] = {}
        for r in by_type:
            types.setdefault(r["type"], {})[r["status"]] = int(r["n"])
        try:
            source_of(str(doc["kind"]), str(doc["uri"]))
            cannot_reread = None
        except PegasMemoryError as exc:
            cannot_reread = str(exc)
        return self.ui.render(
            request,
            "document.html",
            doc=doc,
            versions=versions,
            this=this,
            changed=changed,
            changed_shown=CHANGED_ATOMS_SHOWN,
            types=types,
            passages=[passage_view(c, spans) for c in chunks],
            offset=offset,
            total=total,
            per_page=CHUNKS_PER_PAGE,
            cannot_reread=cannot_reread,
        )

    def confirm_erase(self, request: Request) -> Response:
        doc_id = int(request.path_params["doc_id"])
        with self.ui.service.db.connection() as conn:
            doc = _document(conn, doc_id)
            preview = erase_preview(conn, int(doc["identity_id"]))
        return self.ui.render(
            request, "document_erase.html", doc=doc, preview=preview, confirm_word=CONFIRM_WORD
        )

    # ------------------------------------------------------------------ changes
    def reingest(self, request: Request, form: dict[str, str]) -> str:
        return self._reread(request, form, redistill=False)

    def redistill(self, request: Request, form: dict[str, str]) -> str:
        return self._reread(request, form, redistill=True)

    def _reread(self, request: Request, form: dict[str, str], *, redistill: bool) -> str:
        doc_id = int(request.path_params["doc_id"])
        job = self.ui.curator.reread(doc_id, form.get("reason", ""), redistill=redistill)
        return f"/?job={job.id}#jobs"  # the overview: its live progress, and cancel

    def erase(self, request: Request, form: dict[str, str]) -> str:
        doc_id = int(request.path_params["doc_id"])
        if (form.get("confirm") or "").strip().lower() != CONFIRM_WORD:
            raise InvalidInput(
                f'not erased: type "{CONFIRM_WORD}" in the confirmation field of the erase page '
                f"(/document/{doc_id}/erase) to erase this document"
            )
        with self.ui.service.db.connection() as conn:
            preview = erase_preview(conn, int(_document(conn, doc_id)["identity_id"]))
        self.ui.curator.erase_document(doc_id, form.get("reason", ""), preview)
        return "/audit"

    def routes(self) -> list[Route]:
        ui = self.ui
        return [
            Route("/document/{doc_id:int}", ui.page(self.page)),
            Route("/document/{doc_id:int}/erase", ui.page(self.confirm_erase)),
            Route("/document/{doc_id:int}/erase", ui.change(self.erase), methods=["POST"]),
            Route("/document/{doc_id:int}/reingest", ui.change(self.reingest), methods=["POST"]),
            Route("/document/{doc_id:int}/redistill", ui.change(self.redistill), methods=["POST"]),
        ]
