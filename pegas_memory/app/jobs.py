"""Long work behind the tools: the job handlers of the service, its job runner, and submitting.

`memory_ingest`, `memory_store_code` and `memory_job op=research|rebuild` never run their work
in the tool call's thread. They
submit a job (`pm_job`, docs/decisions/0004-jobs.md) and wait for it a bounded time
(`tool_wait_seconds`): quick work finishes inline, slow work answers with the job id and keeps
running in a `JobRunner`, which every `serve` and `worker` process runs (SKIP LOCKED and the
advisory-lock leases keep several runners apart; a killed process's job is taken over by the
next runner that finds its lease gone). The calling thread therefore only waits, holding no
transaction; a client that gives up leaves nothing running in its name except the recorded job.

Every handler is cooperative: it checks at every step (a pipeline stage, every fifth chunk,
every file and resolution batch of code indexing) and a cancel request, the job's time limit
or the runner closing stop it there; the step's transaction rolls back. A cancelled ingest or
research run also erases the documents it created in this run (and research puts its gaps back),
so a cancelled job leaves nothing behind. A stopped rebuild leaves its slice partly rebuilt: the
slice self-check reports it, and the next rebuild (or a job taken over) recreates it whole.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import json
import logging
import secrets
import threading
from collections.abc import Callable, Collection, Sequence
from typing import Any, Protocol

from pegas_memory import jobs
from pegas_memory.app.audit import RereadOrder, reread_audit
from pegas_memory.app.job_views import (
    GapResearched,
    IngestBatchResult,
    RebuildResult,
    ResearchResult,
    SourceFailure,
)
from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.research import (
    DEFAULT_MAX_GAPS,
    DEFAULT_URLS_PER_GAP,
    ResearchJournal,
    build_provider,
    research_gaps,
    restore_gaps,
)
from pegas_memory.app.runtime import ProjectionRuntime
from pegas_memory.code_memory.index import StoreCodeResult
from pegas_memory.config import Settings
from pegas_memory.db.pool import Database
from pegas_memory.errors import IngestError, InvalidInput, PegasMemoryError
from pegas_memory.ingest.pipeline import IngestAudit
from pegas_memory.jobs import Handler, JobCancelled, JobContext, JobInfo, JobReleased, JobRunner
from pegas_memory.models import ForgetResult, GapStatus, IngestResult, JobKind
from pegas_memory.outbox.reconcile import rebuild

log = logging.getLogger(__name__)

Progress = Callable[[float, float, str], None]
MAX_BATCH_SOURCES = 100
START_RETRY_SECONDS = 5.0


class JobHost(Protocol):
    """What the handlers use of MemoryService (kept structural: no import of the service)."""

    settings: Settings
    runtime: ProjectionRuntime

    @property
    def db(self) -> Database: ...

    def ingest(
        self,
        request: IngestRequest,
        *,
        progress: Progress | None = None,
        audit: IngestAudit | None = None,
    ) -> IngestResult: ...

    def store_code(
        self,
        path: str,
        *,
        repo: str | None = None,
        progress: Progress | None = None,
        check: Callable[[], None] | None = None,
        docs: bool = False,
    ) -> StoreCodeResult: ...

    def forget(self, *, mode: str, document_ids: Sequence[int] = ()) -> ForgetResult: ...


def job_key(kind: str, args: dict[str, Any]) -> str:
    """The idempotency key of a request: the same call retried is the same (active) job."""
    body = json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)
    return f"{kind}:{hashlib.sha256(body.encode()).hexdigest()}"


def _done_message(batch: IngestBatchResult, n: int) -> str:
    """The job's last progress message: what its one source gave, or the batch's total."""
    if n == 1 and len(batch.results) == 1:
        r = batch.results[0]
        if r.unchanged:
            return "done: unchanged, nothing was written"
        if r.redistilled:
            return f"done: version {r.version} distilled again ({r.redistilled})"
        return f"done: version {r.version}, {r.atoms_new} new atoms, {r.marked_stale} made stale"
    return f"done: {batch.atoms_new} new atoms from {len(batch.results)} sources"


def _freeing(handler: Handler) -> Handler:
    """Collect garbage after a job that stopped: its parsed source, chunks and vectors go now,
    not at some later cycle (a stopped job says it freed its memory, and does)."""

    def run(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        try:
            return handler(args, ctx)
        except BaseException:
            gc.collect()
            raise

    return run


class JobService:
    """The service's jobs: submit, follow, cancel, and the runner that executes them here."""

    def __init__(self, host: JobHost):
        self.host = host
        self.settings = host.settings
        self._runner: JobRunner | None = None
        self._stop = threading.Event()
        self._starter: threading.Thread | None = None
        # Passwords of encrypted PDFs never reach pm_job.args (a table any operator can read):
        # they stay in this process, keyed by a random reference stored in their place.
        self._secrets: dict[str, str] = {}

    # ------------------------------------------------------------------ handlers
    def handlers(self) -> dict[str, Handler]:
        return {
            JobKind.INGEST: _freeing(self._ingest),
            JobKind.INDEX_CODE: _freeing(self._index_code),
            JobKind.REBUILD: _freeing(self._rebuild),
            JobKind.RESEARCH: _freeing(self._research),
        }

    def _ingest(self, args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        requests = [self._with_password(s) for s in args.get("sources") or []]
        if not requests:
            raise InvalidInput("an ingest job needs at least one source")
        audit = None
        if args.get("audit") is not None:  # a person's re-ingest (the UI): its audit line
            if len(requests) != 1:
                raise InvalidInput("an audited ingest job reads one source")
            audit = reread_audit(RereadOrder.from_args(args["audit"]), ctx.job_id)
        batch = IngestBatchResult()
        created: list[int] = []
        with self._cache_journal() as cached:
            return self._ingest_all(requests, ctx, batch, created, cached, audit)

    def _cache_journal(self) -> contextlib.AbstractContextManager[set[str]]:
        """What the ingest caches anew (embeddings), for a cancelled job to erase."""
        try:
            return self.host.runtime.embedder.get().journal()
        except PegasMemoryError:  # no embedder yet: the ingest reports that itself
            return contextlib.nullcontext(set())

    def _ingest_all(
        self,
        requests: list[IngestRequest],
        ctx: JobContext,
        batch: IngestBatchResult,
        created: list[int],
        cached: set[str],
        audit: IngestAudit | None = None,
    ) -> dict[str, Any]:
        n = len(requests)
        # Only an audited job passes `audit` (a host of an older shape takes no such argument).
        extra: dict[str, Any] = {"audit": audit} if audit is not None else {}
        try:
            for i, request in enumerate(requests):
                ctx.report(i, n, f"source {i + 1} of {n}: {request.source[:80]}")

                def progress(done: float, total: float, message: str, i: int = i) -> None:
                    if n == 1:
                        ctx.report(int(done), int(total) if total else None, message)
                    else:
                        ctx.report(i, n, f"source {i + 1} of {n}: {message}")

                try:
                    result = self.host.ingest(request, progress=progress, **extra)
                except JobCancelled:
                    raise
                except PegasMemoryError as exc:
                    ctx.check()  # past the deadline: that LimitExceeded stops the whole job
                    if n == 1:
                        raise
                    batch.failures.append(SourceFailure(source=request.source, error=str(exc)))
                    continue
                new = not result.unchanged and not result.redistilled  # a re-distill is no new one
                if new and result.version == 1 and result.document_id:
                    created.append(result.document_id)
                batch.results.append(result)
                batch.atoms_new += result.atoms_new
        except JobReleased:
            raise  # the job runs again from the start; what committed is deduplicated then
        except JobCancelled:
            self._undo(ctx, created, cached)
            raise
        if batch.failures and not batch.results:
            raise InvalidInput(
                "no source could be ingested: "
                + "; ".join(f"{f.source[:80]}: {f.error}" for f in batch.failures[:5])
            )
        ctx.report(n, n, _done_message(batch, n))
        return batch.model_dump(mode="json")

    def _undo(self, ctx: JobContext, documents: list[int], cached: Collection[str] = ()) -> None:
        """Erase what a cancelled ingest committed: the documents it created (with the atoms
        only they support), and the embeddings it cached (the source being read when it was
        cancelled rolled back, its vectors did not); a new version of a document ingested
        before is left as it is."""
        try:
            if documents:
                self.host.forget(mode="erase", document_ids=documents)
                log.info("job %s cancelled: erased documents %s it created", ctx.job_id, documents)
            if cached:
                erased = self.host.runtime.embedder.get().forget_keys(sorted(cached))
                log.info("job %s cancelled: erased %s embeddings it cached", ctx.job_id, erased)
        except PegasMemoryError:
            log.warning("job %s: could not erase its documents %s", ctx.job_id, documents)

    def _index_code(self, args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        def progress(done: float, total: float, message: str) -> None:
            ctx.report(int(done), int(total) if total else None, message)

        result = self.host.store_code(
            str(args.get("path") or ""),
            repo=args.get("repo"),
            progress=progress,
            check=ctx.check,
            docs=bool(args.get("docs")),
        )
        return result.model_dump(mode="json")

    def _rebuild(self, args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        target = args.get("target", "all")
        if target not in ("qdrant", "graph", "all"):
            raise InvalidInput("target must be qdrant, graph or all")
        ctx.report(0, None, f"rebuilding {target} from PostgreSQL")
        done = rebuild(self.host.runtime, target, progress=ctx.report)
        return RebuildResult.model_validate(done).model_dump(mode="json")

    def _research(self, args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        """The gap-filling loop as a job. Cancelled, it takes back what it did: the documents
        it created are erased (with the atoms only they support) and every gap it touched is
        put back as it was. Released (its runner closes) or taken over after its worker died,
        it runs again from the start and also takes the gaps left `researching`."""
        journal = ResearchJournal()
        try:
            outcomes, note = research_gaps(
                self.host,
                build_provider(self.settings),
                max_gaps=int(args.get("max_gaps") or DEFAULT_MAX_GAPS),
                urls_per_gap=int(args.get("urls_per_gap") or DEFAULT_URLS_PER_GAP),
                include_researching=True,
                step=ctx.report,
                journal=journal,
            )
        except JobReleased:
            raise  # the gap in progress went back to how it was; what committed is reused
        except JobCancelled:
            self._undo(ctx, journal.documents)
            restore_gaps(self.host, journal.gaps)
            raise
        gaps = [GapResearched.model_validate(dataclasses.asdict(o)) for o in outcomes]
        return ResearchResult(
            gaps=gaps, filled=sum(g.status == GapStatus.FILLED for g in gaps), note=note
        ).model_dump(mode="json")

    # ------------------------------------------------------------------ runner
    def start(self) -> None:
        """Run jobs in this process (`job_workers` threads), once the database is reachable."""
        if self.settings.job_workers < 1 or self._starter is not None:
            return
        self._stop.clear()
        self._starter = threading.Thread(target=self._start, name="pm-job-start", daemon=True)
        self._starter.start()

    def _start(self) -> None:
        while not self._stop.is_set():
            try:
                db = self.host.db  # opens (or reopens) the database
            except PegasMemoryError as exc:
                log.info("job runner waits for the database: %s", exc)
                self._stop.wait(START_RETRY_SECONDS)
                continue
            runner = JobRunner(
                db,
                self.handlers(),
                workers=self.settings.job_workers,
                lease_seconds=self.settings.job_lease_seconds,
                time_limit=self.settings.job_time_limit,
            )
            self._runner = runner.start()
            return

    def close(self, timeout: float = 10.0) -> None:
        """Stop claiming; running jobs stop at their next check and go back to the queue."""
        self._stop.set()
        if self._starter is not None:
            self._starter.join(timeout)
            self._starter = None
        if self._runner is not None:
            self._runner.close(timeout)
            self._runner = None

    # ------------------------------------------------------------------ tools
    def submit(
        self,
        kind: JobKind,
        args: dict[str, Any],
        key: str | None = None,
    ) -> JobInfo:
        return jobs.submit(
            self.host.db,
            kind,
            args,
            key=key or job_key(kind, args),
            time_limit=self.settings.job_time_limit,
        )

    def submit_research(self, *, max_gaps: int = 5, urls_per_gap: int = 3) -> JobInfo:
        """One research run at a time (one key for every research request): a second request
        while one is queued or running is that run, not a second one racing it for the gaps."""
        if not 1 <= max_gaps <= 50 or not 1 <= urls_per_gap <= 10:
            raise InvalidInput("max_gaps must be 1..50 and urls_per_gap 1..10")
        return self.submit(
            JobKind.RESEARCH,
            {"max_gaps": max_gaps, "urls_per_gap": urls_per_gap},
            key=JobKind.RESEARCH,
        )

    def submit_rebuild(self, target: str = "all") -> JobInfo:
        if target not in ("qdrant", "graph", "all"):
            raise InvalidInput("target must be qdrant, graph or all")
        return self.submit(JobKind.REBUILD, {"target": target}, key=f"rebuild:{target}")

    def submit_ingest(
        self, requests: Sequence[IngestRequest], *, audit: RereadOrder | None = None
    ) -> JobInfo:
        """An ingest job; `audit` (one source only): a person's re-ingest from the UI, whose
        audit line the job writes in the transaction of the version (app/audit.py)."""
        if audit is not None and len(requests) != 1:
            raise InvalidInput("an audited ingest reads one source")
        if not requests:
            raise InvalidInput("give a source, or a list of sources")
        if len(requests) > MAX_BATCH_SOURCES:
            raise InvalidInput(
                f"at most {MAX_BATCH_SOURCES} sources per call; split the list into batches"
            )
        sources = []
        for r in requests:
            # redistill only when asked: the key of a plain ingest stays what it was
            hidden = {"password"} if r.redistill else {"password", "redistill"}
            item = r.model_dump(mode="json", exclude=hidden)
            if r.password is not None:
                ref = secrets.token_hex(16)
                self._secrets[ref] = r.password
                item["password_ref"] = ref
            sources.append(item)
        args: dict[str, Any] = {"sources": sources}
        if audit is not None:  # only then: the key of a plain ingest stays what it was
            args["audit"] = audit.as_args()
        return self.submit(JobKind.INGEST, args)

    def _with_password(self, item: dict[str, Any]) -> IngestRequest:
        """The request of one queued source, its password taken back from this process."""
        item = dict(item)
        ref = item.pop("password_ref", None)
        if ref is None:
            return IngestRequest.model_validate(item)
        password = self._secrets.get(str(ref))
        if password is None:
            raise IngestError(
                f"{item.get('source', 'the source')}: the PDF's password was kept only by the "
                "process that queued this job, which has gone; ingest it again with the password"
            )
        return IngestRequest.model_validate({**item, "password": password})

    def submit_store_code(
        self, path: str, repo: str | None = None, *, docs: bool = False
    ) -> JobInfo:
        if not path or "\x00" in path:
            raise InvalidInput("path must be a file or directory path without NUL characters")
        args: dict[str, Any] = {"path": path, "repo": repo}
        if docs:  # only when asked: the key of a plain index stays what it was
            args["docs"] = True
        return self.submit(JobKind.INDEX_CODE, args)

    def wait(
        self, job_id: int, seconds: float, on_progress: Callable[[JobInfo], object] | None = None
    ) -> JobInfo:
        """The job once done, or as it stands after `seconds` (at most 10 minutes)."""
        if not 0 <= seconds <= 600:
            raise InvalidInput("wait 0 to 600 seconds per call; call again to wait longer")
        return jobs.wait(self.host.db, job_id, seconds, on_progress=on_progress)

    def get(self, job_id: int) -> JobInfo:
        return jobs.get(self.host.db, job_id)

    def list_recent(self, *, state: str | None = None, limit: int = 20) -> list[JobInfo]:
        return jobs.list_recent(self.host.db, limit=limit, state=state)

    def cancel(self, job_id: int) -> JobInfo:
        return jobs.cancel(self.host.db, job_id)
