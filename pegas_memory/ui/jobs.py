"""Background jobs in the UI (issue 31): their live progress as a small JSON answer the
overview polls (`static/jobs.js`, a few lines of plain JavaScript served from the package), and
cancelling one (memory_job op=cancel, audited by `ui/curation.py`).

A finished ingest of one source (a re-ingest started from a document's page) links to the
version it left current.

`/jobs.json` answers the running and queued jobs, and those the page asks about by `id` (so a
job the page shows is seen to finish). It is a read like the pages: on a non-loopback server it
wants the session cookie too, which the browser's same-origin fetch sends.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from pegas_memory.errors import NotFound
from pegas_memory.jobs import JobInfo
from pegas_memory.ui.host import PageHost

ACTIVE_SHOWN = 20
ASKED_AT_MOST = 50


def job_link(info: JobInfo) -> str | None:
    """The page of what a finished job made: the document version a one-source ingest left
    current (a local path built from ids only)."""
    if info.kind != "ingest" or not info.finished or not info.result:
        return None
    results = info.result.get("results") or []
    if len(results) != 1 or not isinstance(results[0], dict):
        return None
    version = results[0].get("version_id")
    return f"/document/{int(version)}" if isinstance(version, int) else None


def job_json(info: JobInfo) -> dict[str, Any]:
    """What the page shows of a job (the words are data: the script sets them as text)."""
    p = info.progress
    return {
        "id": info.id,
        "kind": info.kind,
        "state": info.state,
        "finished": info.finished,
        "cancel_requested": info.cancel_requested,
        "done": p.done,
        "total": p.total,
        "message": p.message,
        "error": info.error,
        "link": job_link(info),
        "created_at": info.created_at.isoformat() if info.created_at else None,
    }


class JobPages:
    """The jobs' JSON and the cancel action, on the UI application `ui`."""

    def __init__(self, ui: PageHost):
        self.ui = ui

    def active(self) -> list[JobInfo]:
        jobs = self.ui.service.jobs
        running = jobs.list_recent(state="running", limit=ACTIVE_SHOWN)
        return running + jobs.list_recent(state="queued", limit=ACTIVE_SHOWN)

    def json(self, request: Request) -> Response:
        found = {j.id: j for j in self.active()}
        for raw in request.query_params.getlist("id")[:ASKED_AT_MOST]:
            if raw.isdigit() and int(raw) not in found:
                try:
                    found[int(raw)] = self.ui.service.jobs.get(int(raw))
                except NotFound:
                    continue
        body = {"jobs": [job_json(j) for j in sorted(found.values(), key=lambda j: j.id)]}
        return JSONResponse(body, headers={"cache-control": "no-store"})

    def cancel(self, request: Request, form: dict[str, str]) -> str:
        job_id = int(request.path_params["job_id"])
        self.ui.curator.cancel_job(job_id, form.get("reason", ""))
        return f"/?job={job_id}#jobs"  # the overview keeps the job shown once it has stopped

    def routes(self) -> list[Route]:
        ui = self.ui
        return [
            Route("/jobs.json", ui.page(self.json)),
            Route("/job/{job_id:int}/cancel", ui.change(self.cancel), methods=["POST"]),
        ]
