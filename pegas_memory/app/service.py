"""The service layer: what the MCP tools and the CLI call.

`MemoryService` owns the database pool and the clients of the projections and models, opened once
per process. Its methods validate input, run the work in one transaction and return the typed
results of pegas_memory.models. It is synchronous; the MCP layer runs it in worker threads.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

from threadpoolctl import threadpool_limits

import pegas_memory.app.store as service_store
from pegas_memory.app.inputs import (
    MAX_REASON_CHARS,
    as_of_filter,
    clean_text,
)
from pegas_memory.app.jobs import JobService
from pegas_memory.app.merges import consolidate, merge_out, split_merge
from pegas_memory.app.requests import (
    CodeGraphRequest,
    CodeSearchRequest,
    ContextRequest,
    FeedbackRequest,
    GraphQueryRequest,
    IngestRequest,
    SearchRequest,
    StoreRequest,
)
from pegas_memory.app.review import ReviewService
from pegas_memory.app.runtime import ProjectionRuntime
from pegas_memory.app.store import STORE_WAIT_SECONDS
from pegas_memory.app.views import slice_stats, to_hit
from pegas_memory.code_memory.doc_cites import RepoDocsOut, ingest_repo_docs
from pegas_memory.code_memory.index import CodeMemory, StoreCodeResult
from pegas_memory.code_memory.query import CodeGraphResult, CodeSearchResult
from pegas_memory.code_memory.query_ops import drop_repo
from pegas_memory.code_memory.requests import CodeReadRequest
from pegas_memory.code_memory.results import CodeReadResult
from pegas_memory.config import Settings
from pegas_memory.curation.feedback import record as record_feedback
from pegas_memory.curation.forget import check_ids, erase, retract
from pegas_memory.curation.gaps import add_gap, list_gaps, set_gap_status
from pegas_memory.curation.merges import (
    SplitOutcome,
    list_merges,
)
from pegas_memory.curation.revert import RevertReport, VersionChanges, revert_version
from pegas_memory.curation.verify import AtomVerdict, Verifier
from pegas_memory.db.pool import Conn, Database
from pegas_memory.db.repo import (
    TRIM_STEP,
    as_of_horizon,
    set_status,
    stats,
    trim_withdrawals,
)
from pegas_memory.distill.llm import OllamaChat
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.ollama import build_distiller
from pegas_memory.distill.types import Distiller
from pegas_memory.errors import BackendUnavailable, InvalidInput, PegasMemoryError, SettingsProblem
from pegas_memory.ingest.pipeline import IngestAudit, IngestPipeline, Progress
from pegas_memory.lazy import Lazy
from pegas_memory.models import (
    AtomStatus,
    ContextResult,
    DatabaseInfo,
    FeedbackCounts,
    FeedbackRecorded,
    FeedbackResult,
    ForgetResult,
    GapList,
    GapOut,
    GapResult,
    GapStatus,
    GraphQueryResult,
    InferResult,
    IngestResult,
    MergesResult,
    SearchResult,
    SliceStats,
    StatsResult,
    StoreResult,
    VerdictOut,
    VerifyResult,
)
from pegas_memory.outbox.worker import pending_events
from pegas_memory.reasoning.code import maintain_repo
from pegas_memory.reasoning.rules import needs_maintenance, query_graph, run_inference
from pegas_memory.search.context import (
    assemble,
    estimate_tokens,
    weak,
    weak_cosine_for,
    windows_for,
)
from pegas_memory.search.hybrid import Searcher
from pegas_memory.vocabulary import DistillerChoice

log = logging.getLogger(__name__)

INGEST_WAIT_SECONDS = 10.0  # and memory_ingest for its atoms' (their vectors are cached)
# memory_search's min_score bound. Scores of the default (score fusion) presets are at most
# 1.25 before multipliers (dense 0.5 + lexical 0.5 + graph 0.25), times status (up to 1.25) and
# feedback (up to 1 + PEGAS_FEEDBACK_WEIGHT); RRF presets score about 1/60 per arm.
MAX_MIN_SCORE = 100.0


@cache
def limit_blas_threads() -> None:
    """One BLAS thread per process. The matrices here are small (MMR over a few dozen vectors,
    cosines in dedup); OpenBLAS's thread pool made a 75 x 384 product cost 15 ms instead of
    0.2 ms beside the search threads (LoCoMo: hybrid 30 ms vs 11 ms without MMR; equal with one
    thread). The local embedder parallelises with its own OpenMP pool, unaffected. Once per
    process: the limit is process-wide and finding the BLAS libraries scans loaded modules."""
    threadpool_limits(limits=1, user_api="blas")


class MemoryService:
    """Everything a tool needs, opened once per process."""

    def __init__(self, settings: Settings):
        limit_blas_threads()
        self.settings = settings
        self._db = Database(settings)
        self._lock = threading.Lock()
        self.runtime = ProjectionRuntime(settings, self._db)
        self.searcher = Searcher(self._db, self.runtime)
        self.searcher.decay_half_lives = settings.decay_half_lives
        self.distiller: Lazy[Distiller] = Lazy("distiller", lambda: make_distiller(settings))
        self.pipeline = IngestPipeline(settings, self._db, self.runtime, self.distiller.get)
        self.llm: Lazy[OllamaChat] | None = (
            Lazy("chat model", lambda: OllamaChat.from_settings(settings))
            if settings.ollama_url
            else None
        )
        self.verifier = Verifier(settings, self._db, self.runtime, self.llm)
        self.code = CodeMemory(
            settings,
            self._db,
            self.runtime,
            max_files=settings.code_max_files,
            max_file_bytes=settings.code_max_file_bytes,
        )
        self.jobs = JobService(self)
        self.review = ReviewService(self)

    # Set by an entry point whose settings were invalid: nothing is opened, every call raises it.
    settings_problem: SettingsProblem | None = None

    def check_settings(self) -> None:
        """Raise the settings problem, if any (the MCP layer calls this before every tool)."""
        if self.settings_problem is not None:
            raise self.settings_problem

    def open(self, *, strict: bool = True) -> MemoryService:
        """Open the database now. With strict=False a database that is down is only logged:
        the server starts anyway, and each call retries the connection until it works."""
        if self.settings_problem is not None:
            if strict:
                raise self.settings_problem
            log.error("%s", self.settings_problem)
            return self
        self.runtime.prune_orphans()
        try:
            self.db  # noqa: B018 - opens on first access
        except BackendUnavailable as exc:
            if strict:
                raise
            log.warning("the database is not reachable yet; tools will retry: %s", exc)
        return self

    def ready(self) -> None:
        """Open (or reopen) the database before a call that reaches it through a component."""
        self.db  # noqa: B018 - the property opens on demand

    @property
    def db(self) -> Database:
        """The open database, connecting (or reconnecting after a failed start) on demand."""
        self.check_settings()
        with self._lock:
            if not self._db.is_open:
                self._db.open()
        return self._db

    def start_background(self) -> None:
        """Start what a long-running server does besides answering: the embedded outbox worker
        (when the settings say this process drains the outbox itself) and the job runner
        (`job_workers` threads; see service_jobs)."""
        if self.settings.runs_embedded_worker and self.settings_problem is None:
            self.runtime.start_worker_thread()
        if self.settings_problem is None:
            self.jobs.start()

    def close(self) -> None:
        self.jobs.close()
        self.searcher.close()
        self.runtime.close()
        self._db.close()

    def __enter__(self) -> MemoryService:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ memory_store
    def store(self, request: StoreRequest) -> StoreResult:
        """Store one typed atom (scope knowledge) or one episodic trace (scope episodic);
        `cite_code` names the code symbol the atom rests on (a re-index that removes it marks
        the atom stale)."""
        return service_store.store(self, request)

    def _await_projection(
        self, entity: str, ids: Sequence[int], timeout: float = STORE_WAIT_SECONDS
    ) -> None:
        service_store.await_projection(self, entity, ids, timeout)

    # ------------------------------------------------------------------ memory_ingest
    def ingest(
        self,
        request: IngestRequest,
        *,
        progress: Progress | None = None,
        audit: IngestAudit | None = None,
    ) -> IngestResult:
        """memory_ingest. `audit`, when given, runs in the transaction that writes the new
        version (or re-distills it), before it commits; not when the bytes are unchanged."""
        self.ready()
        clean_text(request.source, "source", self.settings.max_text_chars, required=True)
        report = self.pipeline.ingest(request, progress=progress, audit=audit)
        # Its vectors are cached by deduplication: 541 atoms reach the slice in about 0.3 s.
        self._await_projection("atom", report.atom_ids, timeout=INGEST_WAIT_SECONDS)
        return IngestResult(**report.__dict__)

    # ------------------------------------------------------------------ memory_verify
    def verify(
        self,
        *,
        atom_ids: Sequence[int] = (),
        document_id: int | None = None,
        limit: int = 50,
        progress: Progress | None = None,
        audit: Callable[[Conn, AtomVerdict], None] | None = None,
    ) -> VerifyResult:
        """memory_verify. `audit`, when given, runs in each atom's transaction with its verdict,
        before it commits (the UI writes its audit line there: a change and its line commit
        together or not at all)."""
        self.ready()
        ids = self.verifier.select(atom_ids=atom_ids, document_id=document_id, limit=limit)
        waiting = self._atoms_awaiting_projection() if ids else 0
        verdicts = self.verifier.verify(ids, progress=progress, within=audit)
        if any(v.new_status != v.old_status for v in verdicts):
            self.maintain()
        counts: dict[str, int] = {}
        skipped: list[str] = []
        for v in verdicts:
            counts[v.verdict] = counts.get(v.verdict, 0) + 1
            skipped += [s for s in v.checks_skipped if s not in skipped]
        if verdicts and waiting:
            skipped.append(
                f"{waiting} atom change(s) are not in the vector index yet (the outbox is "
                "projecting them): a same claim among them cannot confirm anything; run "
                "memory_verify again in a few seconds"
            )
        return VerifyResult(
            checked=len(verdicts),
            verdicts=[VerdictOut(**v.__dict__) for v in verdicts],
            counts=counts,
            warnings=skipped,
        )

    def _atoms_awaiting_projection(self) -> int:
        with self.db.connection() as conn:
            return pending_events(conn, ["atom"])

    # ------------------------------------------------------------------ memory_forget
    def forget(
        self,
        *,
        mode: str,
        atom_ids: Sequence[int] = (),
        trace_ids: Sequence[int] = (),
        document_ids: Sequence[int] = (),
        reason: str = "",
        code_repos: Sequence[str] = (),
        audit: Callable[[Conn], None] | None = None,
    ) -> ForgetResult:
        """memory_forget. `audit` runs in the transaction of the atoms, traces and documents,
        before it commits."""
        if code_repos and mode != "erase":
            raise InvalidInput("code_repos are dropped with mode=erase")
        if code_repos and not (atom_ids or trace_ids or document_ids):
            return self._drop_code(code_repos)
        check_ids(atom_ids, trace_ids, document_ids)
        reason = clean_text(reason or "", "reason", MAX_REASON_CHARS, required=False)
        dropped = self._drop_code(code_repos) if code_repos else None
        with self.db.transaction() as conn:
            if mode == "retract":
                if trace_ids or document_ids:
                    raise InvalidInput("retract applies to atoms; use mode=erase for the rest")
                report = retract(conn, atom_ids, reason or "no reason given")
            elif mode == "erase":
                report = erase(
                    conn, atom_ids=atom_ids, trace_ids=trace_ids, document_ids=document_ids
                )
            else:
                raise InvalidInput("mode must be retract (keep, mark stale) or erase (delete)")
            if audit is not None:
                audit(conn)
        self.searcher.invalidate_stats()
        if mode == "erase" or report.atoms:
            self.maintain()
        done = len(report.atoms) + len(report.traces) + len(report.documents)
        message = f"{mode}: {done} item(s)" + (
            f"; not found: {report.not_found[:10]}" if report.not_found else ""
        )
        result = ForgetResult(**report.__dict__, message=message)
        return result.merged(dropped) if dropped else result

    def revert_version(
        self,
        version_id: int,
        *,
        previous_id: int,
        changes: VersionChanges,
        since: datetime,
        reason: str = "",
        audit: Callable[[Conn, RevertReport], None] | None = None,
    ) -> RevertReport:
        """Take back the new version `version_id` of a document, which a re-ingest at `since`
        wrote with `changes`: `previous_id` is current again, its passages and atoms as they
        were (curation/revert.py). `audit` runs in the transaction, before it commits. Raises
        NotFound, or InvalidInput when the document changed since (nothing is changed then)."""
        reason = clean_text(reason or "", "reason", MAX_REASON_CHARS, required=False)
        with self.db.transaction() as conn:
            report = revert_version(
                conn,
                version_id,
                previous_id=previous_id,
                changes=changes,
                since=since,
                reason=reason or "no reason given",
            )
            if audit is not None:
                audit(conn, report)
        self.searcher.invalidate_stats()
        self.maintain()
        return report

    # ------------------------------------------------------------------ memory_merges
    def merges(
        self,
        *,
        action: str = "list",
        merge_id: int | None = None,
        atom_id: int | None = None,
        document_id: int | None = None,
        open_only: bool = False,
        limit: int = 20,
        reason: str = "",
        dry_run: bool = False,
        similarity: float | None = None,
        audit: Callable[[Conn, SplitOutcome], None] | None = None,
        after_id: int = 0,
        batch: int = 500,
        apply: bool = False,
    ) -> MergesResult:
        """List recent merges of near-duplicates, split one back, or run one batch of
        consolidation over the stored atoms (a dry run unless `apply`; app.merges)."""
        if action == "consolidate":
            result = consolidate(
                self, similarity=similarity, limit=limit, after=after_id, batch=batch, apply=apply
            )
            if result.merge_ids:
                self.searcher.invalidate_stats()
            return result
        if action == "list":
            with self.db.connection() as conn:
                rows = list_merges(
                    conn, atom_id=atom_id, document_id=document_id, open_only=open_only,
                    limit=limit,
                )  # fmt: skip
            return MergesResult(
                action="list",
                merges=[merge_out(r) for r in rows],
                message=f"{len(rows)} merge(s), newest first",
            )
        if action != "split":
            raise InvalidInput("action must be list, split or consolidate")
        result = split_merge(self, merge_id, reason, dry_run, audit=audit)
        if not dry_run:
            self.searcher.invalidate_stats()
        return result

    def _drop_code(self, repos: Sequence[str]) -> ForgetResult:
        """Erase whole repositories from code memory (through the outbox, from every slice)."""
        with self.db.transaction() as conn:
            dropped = [drop_repo(conn, repo) for repo in dict.fromkeys(repos)]
        stale = sorted({a for d in dropped for a in d.stale_atoms})
        if stale:
            self.maintain()
        return ForgetResult(
            mode="erase",
            atoms=[],
            code_repos=dropped,
            message=f"erase: dropped {len(dropped)} code repositories"
            + (f"; {len(stale)} citing atom(s) now stale" if stale else ""),
        )

    def maintain(self) -> InferResult | None:
        """Truth maintenance: withdraw conclusions whose support is gone (no-op without rules)."""
        if not needs_maintenance(self.db):
            return None
        return self.infer()

    # ------------------------------------------------------------------ code memory
    def store_code(
        self,
        path: str,
        *,
        repo: str | None = None,
        progress: Progress | None = None,
        check: Callable[[], None] | None = None,
        docs: bool = False,
    ) -> StoreCodeResult:
        """Index code; `check` runs at every step and whatever it raises rolls the index back.
        `docs`: then ingest the repository's README and docs with citations of the code they
        name (`code_memory.doc_cites`)."""
        self.ready()
        result = self.code.store_code(path, repo=repo, progress=progress, check=check)
        # Truth maintenance over the re-indexed code: conclusions whose support changed go.
        code = maintain_repo(self.db, result.repo)
        if code and (code.withdrawn or code.derived):
            result.warnings.append(
                f"rules over the code graph: {code.derived} derived edge(s) added, "
                f"{code.withdrawn} withdrawn after the code changed"
            )
        if docs:
            result.docs = self._ingest_repo_docs(result, progress, check)
        return result

    def _ingest_repo_docs(
        self,
        result: StoreCodeResult,
        progress: Progress | None,
        check: Callable[[], None] | None,
    ) -> RepoDocsOut:
        def one(path: Path) -> tuple[int | None, int | None, list[str]]:
            if check is not None:
                check()
            rel = path.relative_to(result.root).as_posix()
            try:
                done = self.ingest(IngestRequest(source=str(path), title=f"{result.repo}: {rel}"))
            except PegasMemoryError as exc:
                return None, None, [f"not ingested: {exc}"]
            return done.version_id or done.document_id, done.document_id, []

        say = progress or (lambda done, total, message: None)
        return ingest_repo_docs(self.db.transaction, result.repo, Path(result.root), one, say)

    def search_code(self, request: CodeSearchRequest) -> CodeSearchResult:
        self.ready()
        return self.code.search_code(request)

    def code_graph(self, request: CodeGraphRequest) -> CodeGraphResult:
        self.ready()
        return self.code.code_graph(request)

    def code_read(self, request: CodeReadRequest) -> CodeReadResult:
        self.ready()
        return self.code.query.read(request)

    # ------------------------------------------------------------------ memory_infer
    def infer(self, *, max_rounds: int = 100) -> InferResult:
        self.ready()
        if not 1 <= max_rounds <= 10_000:
            raise InvalidInput("max_rounds must be between 1 and 10000")
        report = run_inference(
            self.db,
            max_rounds=max_rounds,
            max_derived=self.settings.inference_max_derived,
            derivations_per_rule=self.settings.inference_derivations_per_rule,
        )
        return InferResult(**report.__dict__)

    def query_graph(self, request: GraphQueryRequest) -> GraphQueryResult:
        self.ready()
        r = request
        result = query_graph(
            self.db,
            self.runtime,
            r.op,
            node_id=r.node_id,
            label=r.label,
            target_id=r.target_id,
            kinds=r.kinds,
            direction=r.direction,
            depth=r.depth,
            limit=r.limit,
            offset=r.offset,
            src=r.src,
            dst=r.dst,
            kind=r.kind,
        )
        return GraphQueryResult(op=r.op, result=result)

    # ------------------------------------------------------------------ memory_search
    def search(self, request: SearchRequest) -> SearchResult:
        self.ready()
        limit = self._limit(request.limit)
        half_life_days = request.half_life_days
        if half_life_days is not None and half_life_days <= 0:
            raise InvalidInput("half_life_days must be positive")
        flt = as_of_filter(request.flt)
        if flt is not None and flt.as_of is not None:
            self._as_of_exact(flt.as_of)
        min_score = request.min_score
        if min_score is not None and not 0 <= min_score <= MAX_MIN_SCORE:
            raise InvalidInput(f"min_score must be between 0 and {MAX_MIN_SCORE}")
        hits, warnings, arms = self.searcher.search(
            request.query,
            scope=request.scope,
            preset=request.preset,
            limit=limit,
            flt=flt,
            half_life_days=half_life_days,
            stores=request.store,
        )
        if min_score is not None:
            kept = [h for h in hits if h.score >= min_score]
            if len(kept) < len(hits):
                warnings = [
                    *warnings,
                    f"{len(hits) - len(kept)} hit(s) scored below min_score {min_score:g} and "
                    "were left out",
                ]
            hits = kept
        return SearchResult(
            query=request.query,
            preset=request.preset,
            hits=[to_hit(h) for h in hits],
            warnings=warnings + self.runtime.monitor.warnings(),
            arms=arms,
            as_of=flt.as_of if flt else None,
        )

    def _as_of_exact(self, at: datetime) -> None:
        """Refuse an as-of instant before the trimmed horizon (migration 0022): links and
        citations withdrawn after it may have lost their audit lines, so an answer would show
        fewer of them than were believed then, without saying so."""
        with self.db.connection() as conn:
            horizon = as_of_horizon(conn)
        if horizon is not None and at < horizon:
            raise InvalidInput(
                f"as_of {at.isoformat()} is before {horizon.isoformat()}: the audit lines of "
                "re-distills and truth maintenance withdrawn before then were trimmed "
                f"(PEGAS_WITHDRAWAL_RETENTION_DAYS={self.settings.withdrawal_retention_days:g}), "
                "so the links and citations believed then cannot be told exactly; ask about an "
                "instant after it"
            )

    def trim_withdrawals(self) -> int:
        """Trim the as-of audit lines older than the retention (0: keep them for ever); return
        how many went. The worker calls this when idle; `pegas-memory` maintenance too."""
        days = self.settings.withdrawal_retention_days
        if days <= 0:
            return 0
        before = datetime.now(UTC) - timedelta(days=days)
        total = 0
        while True:
            with self.db.transaction() as conn:
                gone = trim_withdrawals(conn, before)
            total += gone
            if gone < TRIM_STEP:
                return total

    # ------------------------------------------------------------------ memory_feedback
    def feedback(self, request: FeedbackRequest) -> FeedbackResult:
        """Record which hits the agent used and what they did (curation/feedback.py): all the
        items or, if one names nothing, none. Status, confidence and citations stay as they
        are."""
        query = clean_text(request.query or "", "query", 4_000, required=False) or None
        note = clean_text(request.note or "", "note", 2_000, required=False) or None
        session = clean_text(request.session_id or "", "session_id", 200, required=False) or None
        with self.db.transaction() as conn:
            after = record_feedback(conn, request.items, session_id=session, query=query, note=note)
        prior = self.searcher.feedback_prior
        recorded = []
        for item in request.items:
            fb = after[item.store, item.id]
            counts = FeedbackCounts(
                helped=fb.helped, misled=fb.misled, used=fb.used, confidence=fb.confidence(prior)
            )
            recorded.append(FeedbackRecorded(id=item.id, store=item.store, feedback=counts))
        weight = self.searcher.feedback_weight
        ranking = (
            f"ranking weighs it at {weight:g} (PEGAS_FEEDBACK_WEIGHT)"
            if weight > 0
            else "ranking does not weigh it (PEGAS_FEEDBACK_WEIGHT=0)"
        )
        message = (
            f"recorded {len(recorded)} report(s); status, confidence and citations are "
            f"unchanged; {ranking}"
        )
        return FeedbackResult(recorded=len(recorded), items=recorded, message=message)

    # ------------------------------------------------------------------ memory_get_context
    def get_context(self, request: ContextRequest) -> ContextResult:
        question, limit, scope = request.question, request.limit, request.scope
        budget = request.budget_tokens or self.settings.context_default_tokens
        if not 100 <= budget <= self.settings.context_max_tokens:
            raise InvalidInput(
                f"budget_tokens must be between 100 and {self.settings.context_max_tokens}"
            )
        if not 1 <= limit <= 50:
            raise InvalidInput("limit must be between 1 and 50")
        found = self.search(
            SearchRequest(
                query=question,
                scope=scope,
                preset=request.preset,
                limit=limit,
                flt=request.flt,
                store=request.store,
            )
        )
        with self.db.connection() as conn:
            windows = windows_for(conn, found.hits)
        text, items, truncated = assemble(
            found.hits, windows, budget_tokens=budget, question=question
        )
        if found.as_of is not None:
            text = f"As of {found.as_of.isoformat()} (what the memory believed then):\n\n" + text
        threshold = self.settings.weak_context_cosine
        if self.runtime.embedder.ready:
            threshold = weak_cosine_for(self.runtime.embedder.get().model_id, threshold)
        is_weak = weak(found.hits, found.arms, threshold)
        gap_id = None
        register = request.register_gap
        auto = self.settings.auto_gap_on_weak_context if register is None else register
        if is_weak and auto and scope != "episodic":
            with self.db.transaction() as conn:
                gap, _created = add_gap(
                    conn,
                    question,
                    reason="memory_get_context found only weak evidence",
                    priority=2,
                )
            gap_id = gap.id
        return ContextResult(
            question=question,
            text=text,
            items=items,
            tokens_estimate=estimate_tokens(text),
            truncated=truncated,
            weak_evidence=is_weak,
            gap_id=gap_id,
            warnings=found.warnings,
            as_of=found.as_of,
        )

    # ------------------------------------------------------------------ research gaps
    def add_gap(
        self,
        question: str,
        *,
        reason: str | None = None,
        priority: int = 3,
        audit: Callable[[Conn, GapOut, bool], None] | None = None,
    ) -> GapResult:
        """memory_add_gap; `audit` runs in its transaction with the gap and whether it is new."""
        if reason is not None:
            reason = clean_text(reason, "reason", 4_000, required=False) or None
        with self.db.transaction() as conn:
            gap, created = add_gap(conn, question, reason=reason, priority=priority)
            if audit is not None:
                audit(conn, gap, created)
        message = (
            f"registered gap {gap.id}"
            if created
            else f"merged into the open gap {gap.id} that asks the same (priority {gap.priority})"
        )
        return GapResult(gap=gap, created=created, message=message)

    def list_gaps(
        self, *, status: str | None = "open", limit: int = 20, offset: int = 0
    ) -> GapList:
        wanted = None if status is None else GapStatus.parse(status, "gap status")
        with self.db.connection() as conn:
            gaps, total = list_gaps(conn, status=wanted, limit=limit, offset=offset)
        return GapList(gaps=gaps, total=total)

    def set_gap_status(
        self, gap_id: int, status: str, *, audit: Callable[[Conn], None] | None = None
    ) -> GapOut:
        """Move a gap to `status` (a person closing it as filled or abandoned, or reopening
        it); a gap reopened while another live gap asks the same question is refused. `audit`
        runs in the transaction, before it commits."""
        new = GapStatus.parse(status, "gap status")
        try:
            with self.db.transaction() as conn:
                gap = set_gap_status(conn, gap_id, new)
                if audit is not None:
                    audit(conn)
                return gap
        except InvalidInput as exc:  # the unique index of live questions (translated)
            raise InvalidInput(
                f"gap {gap_id} cannot be reopened: another open gap asks the same question"
            ) from exc

    # ------------------------------------------------------------------ a person's curation
    def set_atom_status(
        self,
        atom_id: int,
        status: str,
        *,
        reason: str,
        confidence: float | None = None,
        audit: Callable[[Conn], None] | None = None,
    ) -> str:
        """Put an atom in `status` (and `confidence`) by a person's decision: the UI's undo of a
        verification or a retraction. Logged in pm_status_change (check 'ui') like every status
        change, then truth maintenance runs as after memory_forget; returns the old status.
        `audit` runs in the transaction, before it commits."""
        reason = clean_text(reason, "reason", MAX_REASON_CHARS, required=True)
        new = AtomStatus.parse(status, "status")
        with self.db.transaction() as conn:
            old = set_status(
                conn, atom_id, new, reason=reason, check_name="ui", confidence=confidence
            )
            if audit is not None:
                audit(conn)
        self.searcher.invalidate_stats()
        self.maintain()
        return old or ""

    def _schema_version(self) -> int:
        version = self.db.schema_status()["version"]  # an int: max(applied versions) or 0
        return version if isinstance(version, int) else 0

    def _limit(self, limit: int | None) -> int:
        if limit is None:
            return self.settings.search_default_limit
        if not 1 <= limit <= self.settings.search_max_limit:
            raise InvalidInput(f"limit must be between 1 and {self.settings.search_max_limit}")
        return limit

    # ------------------------------------------------------------------ memory_stats
    def stats(self, *, slices: list[SliceStats] | None = None) -> StatsResult:
        """memory_stats. `slices`: the slices' statistics when the caller has them already
        (the UI keeps them a while: checking the slices takes seconds on a big memory, the
        counts in PostgreSQL tens of milliseconds); else they are checked now."""
        with self.db.transaction() as conn:
            counts = stats(conn)
        return StatsResult(
            **counts,
            slices=self.slice_stats() if slices is None else slices,
            database=DatabaseInfo(embedded=self.db.embedded, schema=self._schema_version()),
        )

    def slice_stats(self) -> list[SliceStats]:
        """Each slice's counts and its self-check against PostgreSQL (memory_stats' slices)."""
        return slice_stats(self.settings, self.runtime)


def make_distiller(settings: Settings) -> Distiller:
    """The distiller the settings choose (the offline one needs no model at all)."""
    if settings.distiller == DistillerChoice.OFFLINE or (
        settings.distiller == DistillerChoice.AUTO and not settings.ollama_url
    ):
        return OfflineDistiller()
    return build_distiller(settings)
