"""The gap-filling loop: open gaps -> web search -> ingest -> verify -> filled or still open.

For each open gap by priority, a search provider returns URLs; each is ingested under the same
security rules as memory_ingest (SSRF checks on every hop, size limits), what came in is
verified, and the gap is marked filled when verified atoms answer it (found by hybrid search for
the question among the new atoms), else it goes back to open with what was tried. The provider is
a Protocol; the default is a SearxNG instance's JSON API over httpx, set by PEGAS_SEARXNG_URL.

Run as a job (service_jobs, `memory_job op=research`), every step goes through the job's report
(progress, and where a cancel or the deadline stops it) and a `ResearchJournal` records what the
run changed, so that a cancelled run can be taken back (`restore_gaps`, plus erasing the
documents it created).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx
from psycopg.types.json import Jsonb

from pegas_memory.app.requests import IngestRequest, SearchRequest
from pegas_memory.curation.queries import CURATION_SQL
from pegas_memory.errors import BackendUnavailable, PegasMemoryError
from pegas_memory.jobs.context import JobCancelled
from pegas_memory.models import AtomStatus, GapStatus

log = logging.getLogger(__name__)

# The defaults of a research run (the tool, the CLI, the UI and the job all start from them).
DEFAULT_MAX_GAPS = 5
DEFAULT_URLS_PER_GAP = 3
ANSWER_MIN_SCORE = 0.0  # any verified hit among the new atoms counts as an answer


@dataclass(frozen=True)
class SearchHitUrl:
    url: str
    title: str = ""
    snippet: str = ""


class SearchProvider(Protocol):
    name: str

    def search(self, query: str, *, limit: int) -> list[SearchHitUrl]:
        """URLs for a query. Raises BackendUnavailable when the provider cannot answer."""
        ...


class SearxngProvider:
    """SearxNG JSON API (`/search?q=...&format=json`); the instance must enable that format."""

    name = "searxng"

    def __init__(self, base_url: str, *, timeout: float = 20.0, proxy: str | None = None):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.proxy = proxy

    def search(self, query: str, *, limit: int) -> list[SearchHitUrl]:
        try:
            with httpx.Client(timeout=self.timeout, proxy=self.proxy, trust_env=False) as client:
                resp = client.get(f"{self.base_url}/search", params={"q": query, "format": "json"})
        except httpx.HTTPError as exc:
            raise BackendUnavailable(
                f"the search provider at {self.base_url} is unreachable ({type(exc).__name__}); "
                "check PEGAS_SEARXNG_URL"
            ) from exc
        if resp.status_code != 200:
            raise BackendUnavailable(
                f"the search provider answered HTTP {resp.status_code}; is the json format "
                "enabled in its settings.yml (search.formats)?"
            )
        try:
            data = resp.json()
        except ValueError as exc:
            raise BackendUnavailable(
                "the search provider answered something that is not JSON"
            ) from exc
        return parse_searxng(data, limit)


def parse_searxng(data: Any, limit: int) -> list[SearchHitUrl]:
    """The http(s) URLs of a SearxNG answer, deduplicated, in order; junk entries are skipped."""
    results = data.get("results") if isinstance(data, dict) else None
    out: list[SearchHitUrl] = []
    seen: set[str] = set()
    for item in results if isinstance(results, list) else []:
        if not isinstance(item, dict):
            continue
        url = item.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            continue
        if url in seen or len(url) > 2000:
            continue
        seen.add(url)
        out.append(
            SearchHitUrl(
                url=url,
                title=str(item.get("title") or "")[:300],
                snippet=str(item.get("content") or "")[:1000],
            )
        )
        if len(out) >= limit:
            break
    return out


@dataclass
class GapOutcome:
    gap_id: int
    question: str
    status: str
    urls_tried: list[str] = field(default_factory=list)
    atoms_new: int = 0
    answered_by: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GapBefore:
    """A gap as it stood before this run touched it: what a cancelled run restores."""

    status: str
    attempts: list[Any]
    atom_ids: list[int]


@dataclass
class ResearchJournal:
    """What one run changed, so that a cancelled run can take it back: the gaps it touched (as
    they were) and the documents it created (erased on cancel; a document that was already
    stored is left alone)."""

    gaps: dict[int, GapBefore] = field(default_factory=dict)
    documents: list[int] = field(default_factory=list)


Step = Callable[[int, int | None, str], None]


def _no_step(done: int, total: int | None, message: str) -> None:
    return None


def research_gaps(
    service: Any,
    provider: SearchProvider | None,
    *,
    max_gaps: int = DEFAULT_MAX_GAPS,
    urls_per_gap: int = DEFAULT_URLS_PER_GAP,
    include_researching: bool = False,
    step: Step | None = None,
    journal: ResearchJournal | None = None,
) -> tuple[list[GapOutcome], str | None]:
    """Run the loop over open gaps; return outcomes and a note when nothing could be done.

    `step(done, total, message)` is called at every step (search, each URL and each stage of
    its ingest, verification); a job passes its `report`, which raises there to stop the run.
    A gap stopped in the middle goes back to how it was. `include_researching` also takes gaps
    left `researching` by a run that died (a job taken over after its worker was killed).
    `journal` collects what the run changed, for the caller to undo on cancellation."""
    from pegas_memory.curation.gaps import list_gaps

    if provider is None:
        return [], "no search provider configured (set PEGAS_SEARXNG_URL): nothing was researched"
    step = step or _no_step
    journal = journal if journal is not None else ResearchJournal()
    with service.db.connection() as conn:
        gaps, _total = list_gaps(conn, status=GapStatus.OPEN, limit=max_gaps)
        if include_researching and len(gaps) < max_gaps:
            stuck, _ = list_gaps(conn, status=GapStatus.RESEARCHING, limit=max_gaps - len(gaps))
            gaps = sorted([*stuck, *gaps], key=lambda g: (-g.priority, g.created_at))
    outcomes = []
    for i, gap in enumerate(gaps):
        where = f"gap {i + 1} of {len(gaps)}"
        step(i, len(gaps), f"{where}: searching the web for {gap.question[:80]!r}")
        # A gap a dead run left `researching` was open before that run: it goes back to open.
        was = GapStatus.OPEN if gap.status == GapStatus.RESEARCHING else gap.status
        journal.gaps.setdefault(gap.id, GapBefore(was, list(gap.attempts), list(gap.filled_by)))
        try:
            outcomes.append(
                _research_one(service, provider, gap, urls_per_gap, where, step, journal)
            )
        except BaseException:
            restore_gaps(service, {gap.id: journal.gaps[gap.id]})
            raise
    step(len(gaps), len(gaps), f"researched {len(gaps)} gap(s)")
    return outcomes, None if gaps else "no open gaps"


def _research_one(
    service: Any,
    provider: SearchProvider,
    gap: Any,
    urls_per_gap: int,
    where: str,
    step: Step,
    journal: ResearchJournal,
) -> GapOutcome:
    from pegas_memory.curation.gaps import set_gap_status

    outcome = GapOutcome(gap_id=gap.id, question=gap.question, status=GapStatus.RESEARCHING)
    with service.db.transaction() as conn:
        set_gap_status(conn, gap.id, GapStatus.RESEARCHING)
    new_atoms: list[int] = []
    try:
        hits = provider.search(gap.question, limit=urls_per_gap)
    except PegasMemoryError as exc:
        hits = []
        outcome.errors.append(f"search: {exc}")
    for k, hit in enumerate(hits):
        here = f"{where}, URL {k + 1} of {len(hits)}"
        step_url = _url_step(step, here)
        step_url(0, None, f"ingesting {hit.url[:120]}")
        outcome.urls_tried.append(hit.url)
        try:
            report = service.ingest(IngestRequest(source=hit.url), progress=step_url)
        except JobCancelled:
            raise
        except PegasMemoryError as exc:
            step_url(0, None, "failed; going on")  # raises when the run must stop (deadline)
            outcome.errors.append(f"{hit.url}: {exc}"[:500])
            continue
        new = not report.unchanged and not report.redistilled  # a re-distill created nothing
        if new and report.version == 1 and report.document_id:
            journal.documents.append(report.document_id)
        new_atoms += report.atom_ids
        outcome.atoms_new += report.atoms_new
    answered: list[int] = []
    if new_atoms:
        step_verify = _url_step(step, where)
        step_verify(0, None, f"verifying {min(len(new_atoms), 200)} new atoms")
        try:
            service.runtime.worker().drain()
            service.verify(atom_ids=new_atoms[:200], progress=step_verify)
            answered = _answering(service, gap.question, set(new_atoms))
        except JobCancelled:
            raise
        except PegasMemoryError as exc:
            step_verify(0, None, "verification failed")  # raises when the run must stop
            outcome.errors.append(f"verify: {exc}"[:500])
    attempt = {
        "provider": provider.name,
        "urls": outcome.urls_tried,
        "atoms_new": outcome.atoms_new,
        "errors": outcome.errors[:10],
    }
    status = GapStatus.FILLED if answered else GapStatus.OPEN
    with service.db.transaction() as conn:
        set_gap_status(conn, gap.id, status, attempt=attempt, atom_ids=answered)
    outcome.status, outcome.answered_by = status, answered
    return outcome


def _url_step(step: Step, where: str) -> Callable[[float, float | None, str], None]:
    """A stage's own progress (an ingest's chunks, a verification's atoms) as a step of the run."""

    def report(done: float, total: float | None, message: str) -> None:
        step(int(done), int(total) if total else None, f"{where}: {message}")

    return report


def restore_gaps(service: Any, before: dict[int, GapBefore]) -> None:
    """Put gaps back as they were: status, attempts, and the atoms linked as their answer."""
    if not before:
        return
    with service.db.transaction() as conn:
        for gap_id, was in before.items():
            conn.execute(
                CURATION_SQL.restore_gap,
                {"id": gap_id, "status": was.status, "attempts": Jsonb(was.attempts)},
            )
            conn.execute(
                CURATION_SQL.unlink_gap_atoms_except,
                {"id": gap_id, "keep": was.atom_ids},
            )


def _answering(service: Any, question: str, new_atoms: set[int]) -> list[int]:
    """Verified atoms among the new ones that hybrid search returns for the question."""
    found = service.search(SearchRequest(query=question, limit=10))
    return [
        h.id
        for h in found.hits
        if h.id in new_atoms and h.status == AtomStatus.VERIFIED and h.score > ANSWER_MIN_SCORE
    ]


def build_provider(settings: Any) -> SearchProvider | None:
    if not settings.searxng_url:
        return None
    return SearxngProvider(settings.searxng_url, timeout=settings.fetch_timeout)
