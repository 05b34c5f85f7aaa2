"""The gaps page of the UI (issue 31): research gaps by status, add one, close one, and start
the research of the open gaps as a job.

The same service paths as the agents' tools: memory_add_gap and memory_list_gaps
(`MemoryService.add_gap`, `list_gaps`), closing through `set_gap_status`, research through
`jobs.submit_research` (memory_job op=research), each change audited by `ui/curation.py`. A
started research run shows on the overview with its live progress and a cancel button.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pegas_memory.app.research import DEFAULT_MAX_GAPS, DEFAULT_URLS_PER_GAP
from pegas_memory.curation.gaps import GAP_STATUSES
from pegas_memory.errors import InvalidInput
from pegas_memory.ui.curation import CLOSED_GAP
from pegas_memory.ui.host import PageHost

GAPS_PER_PAGE = 50
RESEARCH_JOBS_SHOWN = 10


def _bounded(form: dict[str, str], name: str, default: int, lo: int, hi: int) -> int:
    raw = (form.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise InvalidInput(f"{name} must be a whole number from {lo} to {hi}") from exc
    if not lo <= value <= hi:
        raise InvalidInput(f"{name} must be from {lo} to {hi}")
    return value


class GapPages:
    """The gaps page and its changes, on the UI application `ui`."""

    def __init__(self, ui: PageHost):
        self.ui = ui

    def page(self, request: Request) -> Response:
        q = request.query_params
        status = q.get("status") if q.get("status") in GAP_STATUSES else "open"
        try:
            offset = max(0, int(q.get("offset") or 0))
        except ValueError:
            offset = 0
        svc = self.ui.service
        gaps = svc.list_gaps(status=status, limit=GAPS_PER_PAGE, offset=offset)
        jobs = [j for j in svc.jobs.list_recent(limit=50) if j.kind == "research"]
        return self.ui.render(
            request,
            "gaps.html",
            gaps=gaps,
            status=status,
            statuses=GAP_STATUSES,
            closed_gap=CLOSED_GAP,
            offset=offset,
            per_page=GAPS_PER_PAGE,
            research_jobs=jobs[:RESEARCH_JOBS_SHOWN],
            provider=bool(svc.settings.searxng_url),
        )

    # ------------------------------------------------------------------ changes
    def add(self, request: Request, form: dict[str, str]) -> str:
        priority = _bounded(form, "priority", 3, 1, 5)
        self.ui.curator.add_gap(form.get("question", ""), form.get("reason", ""), priority)
        return "/gaps"

    def research(self, request: Request, form: dict[str, str]) -> str:
        self.ui.curator.research(
            _bounded(form, "max_gaps", DEFAULT_MAX_GAPS, 1, 50),
            _bounded(form, "urls_per_gap", DEFAULT_URLS_PER_GAP, 1, 10),
            form.get("reason", ""),
        )
        return "/#jobs"

    def routes(self) -> list[Route]:
        ui = self.ui
        return [
            Route("/gaps", ui.page(self.page)),
            Route("/gaps/add", ui.change(self.add), methods=["POST"]),
            Route("/gaps/research", ui.change(self.research), methods=["POST"]),
        ]
