"""The `pegas-memory` command: serve, migrate, stats, doctor (and more as the product grows).

Entry points build Settings once and pass them down; nothing below reads the environment.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import signal
import sys
from collections.abc import Callable, Iterator, Sequence

from pegas_memory.app.requests import IngestRequest, SearchRequest
from pegas_memory.app.research import DEFAULT_MAX_GAPS, DEFAULT_URLS_PER_GAP
from pegas_memory.app.service import MemoryService
from pegas_memory.config import SettingIssue, Settings, load_settings_leniently
from pegas_memory.db.pool import Database
from pegas_memory.errors import PegasMemoryError, SettingsProblem
from pegas_memory.jobs.model import JobInfo
from pegas_memory.models import JobState
from pegas_memory.qdrant_store.index import VECTOR_ENTITIES
from pegas_memory.server.tools import configure_logging, serve
from pegas_memory.vocabulary import Switch

log = logging.getLogger("pegas_memory.cli")


def _print(obj: object) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=2, default=str))


def settings_problem(issues: Sequence[SettingIssue]) -> SettingsProblem | None:
    """One error listing every invalid setting with a right example, or None."""
    if not issues:
        return None
    listed = "; ".join(issue.sentence() for issue in issues)
    return SettingsProblem(
        f"invalid settings: {listed}. Fix them in the environment or the env file and restart "
        "pegas-memory (`pegas-memory doctor` lists them too)."
    )


def cmd_serve(settings: Settings, args: argparse.Namespace) -> int:
    problem = settings_problem(args.setting_issues)
    if args.http:
        from pegas_memory.server.http import serve_http
        from pegas_memory.ui import BindRefused

        try:
            return serve_http(settings, problem, args.bind, args.port, args.path)
        except BindRefused as exc:
            print(f"pegas-memory serve --http: {exc}", file=sys.stderr)
            return 2
        except (OSError, ValueError) as exc:
            print(f"pegas-memory serve --http: cannot serve on {args.bind}:{args.port}{args.path}: "
                  f"{exc}", file=sys.stderr)  # fmt: skip
            return 2
    serve(settings, problem)
    return 0


def cmd_ui(settings: Settings, args: argparse.Namespace) -> int:
    """The person's view of the memory: pages served on loopback, changes behind a token."""
    from pegas_memory.ui import BindRefused, serve_ui

    try:
        return serve_ui(settings, args.bind, args.port)
    except BindRefused as exc:
        print(f"pegas-memory ui: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the port is taken, or the address is not this machine's
        print(f"pegas-memory ui: cannot listen on {args.bind}:{args.port}: {exc}", file=sys.stderr)
        return 2


def cmd_host(settings: Settings, args: argparse.Namespace) -> int:
    """Run, inspect or stop the engine host of the data dir (docs/decisions/0005)."""
    from pegas_memory.host.control import host_status, run_foreground, stop_host

    if args.status:
        status = host_status(settings)
        _print(status or {"running": False})
        return 0 if status else 1
    if args.stop:
        _print({"stopped": stop_host(settings)})
        return 0
    return run_foreground(settings, stay=args.stay)


def cmd_migrate(settings: Settings, args: argparse.Namespace) -> int:
    with Database(settings) as db:
        db.open(migrate=False)
        applied = db.migrate()
        _print({"applied": applied, **db.schema_status()})
    return 0


def cmd_stats(settings: Settings, args: argparse.Namespace) -> int:
    with MemoryService(settings) as service:
        _print(service.stats().model_dump())
    return 0


def cmd_worker(settings: Settings, args: argparse.Namespace) -> int:
    """Drain the outbox into the slices and run background jobs until SIGTERM/SIGINT (which
    finish the batch first; running jobs stop at their next step and go back to the queue)."""
    import threading

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    with MemoryService(settings) as service:
        worker = service.runtime.worker(args.name)
        if args.once:
            report = worker.drain(include_delayed=True)
            _print(report.__dict__)
            return 0
        log.info("outbox worker %s started", args.name)
        service.jobs.start()  # and background jobs (ingest, code indexing, rebuilds)
        worker.run(stop, idle=lambda: service.runtime.optimize_if_grown())
        log.info("outbox worker %s stopped", args.name)
    return 0


def cmd_rebuild(settings: Settings, args: argparse.Namespace) -> int:
    """The rebuild job of `memory_job op=rebuild`, followed here (see `run_job`)."""
    return run_job(settings, args, lambda service: service.jobs.submit_rebuild(args.target))


def cmd_reconcile(settings: Settings, args: argparse.Namespace) -> int:
    from pegas_memory.outbox.reconcile import reconcile

    with MemoryService(settings) as service:
        report = reconcile(service.runtime, fix=args.fix)
        _print(report.summary())
    return 0 if report.drift == 0 or args.fix else 1


def cmd_research(settings: Settings, args: argparse.Namespace) -> int:
    """The research job of `memory_job op=research`, followed here (see `run_job`)."""
    return run_job(
        settings,
        args,
        lambda service: service.jobs.submit_research(
            max_gaps=args.max_gaps, urls_per_gap=args.urls
        ),
    )


# How long one wait for a followed job lasts before it is asked again (progress arrives meanwhile
# by NOTIFY), and how long Ctrl-C waits for a cancelled job to roll back before leaving it.
FOLLOW_SECONDS = 30.0
CANCEL_WAIT_SECONDS = 120.0
JOBS_HELP = """\
research and rebuild run as background jobs, the same ones as memory_job op=research|rebuild:
with --wait (the default) the command runs the job in this process too (whichever process of the
data dir claims it first runs it: a serve, a worker or this one), shows its progress on stderr
and prints the finished job as JSON on stdout (exit 0 done, 1 failed or cancelled). Ctrl-C
cancels the job: it stops at its next step and rolls back (a cancelled research erases the
documents it added and reopens its gaps); press Ctrl-C again to leave without waiting for that
(exit 130). --no-wait queues the job, prints it and returns at once; a running serve or worker
runs it, and `pegas-memory jobs ID --wait` follows it (and runs it here if nothing else does;
Ctrl-C there stops following: a job another process runs goes on, one this process ran goes
back to the queue for the next serve or worker)."""


def _job_out(info: JobInfo) -> dict[str, object]:
    return info.model_dump(mode="json")


def _show_progress(info: JobInfo) -> None:
    p = info.progress
    _progress_bar(p.done, p.total or 0, f"job {info.id}: {p.message}")


def run_job(
    settings: Settings, args: argparse.Namespace, submit: Callable[[MemoryService], JobInfo]
) -> int:
    """Queue a job (`submit`), then follow it to its end (--wait) or print it (--no-wait)."""
    with MemoryService(settings) as service:
        info = submit(service)
        if not args.wait:
            _print(_job_out(info))
            print(
                f"queued as job {info.id} ({info.state}): a running `pegas-memory serve` or "
                f"`worker` runs it; follow it with `pegas-memory jobs {info.id} --wait`",
                file=sys.stderr,
            )
            return 0
        with _runner_for(service, info.kind):
            try:
                info = _follow(service, info, quiet=args.quiet)
            except KeyboardInterrupt:
                return _cancel_on_interrupt(service, info.id)
        return _finish(service, info)


@contextlib.contextmanager
def _runner_for(service: MemoryService, kind: str) -> Iterator[None]:
    """A one-thread job runner in this process for jobs of `kind` only, while the command
    follows one (a serve or worker of the data dir may claim it first: SKIP LOCKED picks one).
    Leaving releases a job it still runs back to the queue, as any runner's close does."""
    from pegas_memory.jobs.runner import JobRunner

    settings = service.settings
    if settings.job_workers < 1:  # this process runs no jobs: a serve or worker must
        print(
            "PEGAS_JOB_WORKERS is 0: waiting for a serve or worker of the data dir to run the job",
            file=sys.stderr,
        )
        yield
        return
    runner = JobRunner(
        service.db,
        {kind: service.jobs.handlers()[kind]},
        workers=1,
        lease_seconds=settings.job_lease_seconds,
        time_limit=settings.job_time_limit,
    ).start()
    try:
        yield
    finally:
        runner.close()


def _follow(service: MemoryService, info: JobInfo, *, quiet: bool) -> JobInfo:
    show = None if quiet else _show_progress
    if show is not None:
        show(info)
    while not info.finished:
        info = service.jobs.wait(info.id, FOLLOW_SECONDS, show)
    if show is not None:
        sys.stderr.write("\n")
    return info


def _finish(service: MemoryService, info: JobInfo) -> int:
    if service.settings.runs_embedded_worker:
        service.runtime.worker().drain()  # make what the job wrote searchable now
    _print(_job_out(info))
    if info.state != JobState.DONE:
        print(f"job {info.id} {info.state}: {info.error or 'no error recorded'}", file=sys.stderr)
    return 0 if info.state == JobState.DONE else 1


def _cancel_on_interrupt(service: MemoryService, job_id: int) -> int:
    """Ctrl-C while following the job this command started: cancel it and wait for its rollback
    (a second Ctrl-C leaves at once; the job still stops at its next step)."""
    sys.stderr.write(
        f"\ninterrupted: cancelling job {job_id}; it stops at its next step and rolls back "
        "(Ctrl-C again to leave without waiting)\n"
    )
    try:
        info = service.jobs.cancel(job_id)
        info = service.jobs.wait(job_id, CANCEL_WAIT_SECONDS)
    except KeyboardInterrupt:
        return 130
    _print(_job_out(info))
    if not info.finished:
        print(f"job {job_id} has not stopped yet; it will at its next step", file=sys.stderr)
    return 130


def cmd_jobs(settings: Settings, args: argparse.Namespace) -> int:
    """List recent jobs; with an id, show one, follow it (--wait) or cancel it (--cancel)."""
    with MemoryService(settings) as service:
        if args.job_id is None:
            found = service.jobs.list_recent(state=args.state, limit=args.limit)
            _print([_job_out(j) for j in found])
            return 0
        if args.cancel:
            _print(_job_out(service.jobs.cancel(args.job_id)))
            return 0
        info = service.jobs.get(args.job_id)
        if not args.wait:
            _print(_job_out(info))
            return 0
        with _runner_for(service, info.kind):
            try:
                info = _follow(service, info, quiet=args.quiet)
            except KeyboardInterrupt:
                print(
                    f"\nstopped following job {args.job_id}; it goes on where it runs "
                    "(if it ran here, it is back in the queue)",
                    file=sys.stderr,
                )
                return 130
        return _finish(service, info)


def cmd_forget(settings: Settings, args: argparse.Namespace) -> int:
    with MemoryService(settings) as service:
        result = service.forget(
            mode=args.mode,
            atom_ids=args.atom or [],
            trace_ids=args.trace or [],
            document_ids=args.document or [],
            reason=args.reason,
        )
        _print(result.model_dump())
    return 0


def cmd_merges(settings: Settings, args: argparse.Namespace) -> int:
    with MemoryService(settings) as service:
        if args.consolidate:
            result = service.merges(
                action="consolidate",
                similarity=args.similarity,
                limit=args.limit,
                after_id=args.after,
                batch=args.batch,
                apply=args.apply,
            )
        elif args.split is None:
            result = service.merges(
                action="list",
                atom_id=args.atom,
                document_id=args.document,
                open_only=args.open,
                limit=args.limit,
            )
        else:
            result = service.merges(
                action="split", merge_id=args.split, reason=args.reason, dry_run=args.dry_run
            )
        _print(result.model_dump(mode="json"))
    return 0


def _progress_bar(done: float, total: float, message: str) -> None:
    """A one-line progress bar on stderr (stdout carries the JSON result)."""
    width = 30
    frac = 0.0 if not total else max(0.0, min(1.0, done / total))
    bar = "#" * int(frac * width)
    sys.stderr.write(f"\r[{bar:<{width}}] {frac:4.0%} {message[:60]:<60}")
    if frac >= 1.0:
        sys.stderr.write("\n")
    sys.stderr.flush()


def cmd_ingest(settings: Settings, args: argparse.Namespace) -> int:
    with MemoryService(settings) as service:
        for source in args.sources:
            request = IngestRequest(
                source=source,
                kind=args.kind,
                title=args.title,
                topic=args.topic,
                tags=tuple(args.tag or ()),
                redistill=args.redistill,
            )
            result = service.ingest(request, progress=None if args.quiet else _progress_bar)
            _print(result.model_dump(exclude={"atom_ids"}))
        if settings.runs_embedded_worker:
            service.runtime.worker().drain()  # make what was ingested searchable now
    return 0


def cmd_search(settings: Settings, args: argparse.Namespace) -> int:
    with MemoryService(settings) as service:
        request = SearchRequest(
            query=args.query, scope=args.scope, preset=args.preset, limit=args.limit
        )
        result = service.search(request)
        if args.json:
            _print(result.model_dump())
            return 0
        for n, hit in enumerate(result.hits, start=1):
            where = hit.citations[0].document_title or hit.citations[0].uri if hit.citations else ""
            print(f"{n:2}. [{hit.id}] ({hit.type}, {hit.status}) {hit.claim[:160]}")
            if where:
                print(f"      {where} {hit.citations[0].locator}")
        for warning in result.warnings:
            print(f"warning: {warning}", file=sys.stderr)
    return 0


def cmd_optimize(settings: Settings, args: argparse.Namespace) -> int:
    """Build the HNSW index of the vector collections (the embedded engine searches by brute
    force until then). Holds the engine for minutes on large collections: run it when no
    server is busy."""
    with MemoryService(settings) as service:
        index = service.runtime.vectors.get()
        done = {}
        for entity in VECTOR_ENTITIES:
            name = service.runtime.projector.collection(entity)
            done[name] = index.optimize(name)
        _print({"optimized": done})
    return 0


def cmd_doctor(settings: Settings, args: argparse.Namespace) -> int:
    from pegas_memory.doctor import run_checks, settings_checks

    # Invalid settings are the first thing to fix; checking services with defaults put in
    # their place (an embedded cluster for a mistyped URL) would report the wrong thing.
    results = settings_checks(args.setting_issues) or run_checks(settings)
    ok = True
    for check in results:
        mark = "ok  " if check.ok else "FAIL"
        print(f"[{mark}] {check.name}: {check.detail}")
        if not check.ok:
            ok = False
            if check.fix:
                print(f"       fix: {check.fix}")
    return 0 if ok else 1


COMMANDS: dict[str, tuple[str, Callable[[Settings, argparse.Namespace], int]]] = {
    "serve": ("serve the MCP tools over stdio (the default), or --http", cmd_serve),
    "ui": ("see the memory in a browser: pages on 127.0.0.1, changes with a token", cmd_ui),
    "host": ("run, inspect (--status) or stop (--stop) the data dir's engine host", cmd_host),
    "migrate": ("apply pending database migrations", cmd_migrate),
    "stats": ("print what the memory holds", cmd_stats),
    "doctor": ("check every configured service and say what to fix", cmd_doctor),
    "ingest": ("ingest files or URLs (as memory_ingest), with a progress bar", cmd_ingest),
    "search": ("search the memory from a shell", cmd_search),
    "optimize": ("build the vector index (embedded engine) for faster search", cmd_optimize),
    "worker": ("drain the outbox into the slices and run background jobs", cmd_worker),
    "rebuild": ("recreate a slice from PostgreSQL alone, as a job", cmd_rebuild),
    "forget": ("retract or erase atoms, traces or documents", cmd_forget),
    "merges": ("list merges of near-duplicates, or split one (--split ID)", cmd_merges),
    "research": ("research open gaps (web search, ingest, verify) as a job", cmd_research),
    "jobs": ("list background jobs, or show, follow (--wait) or cancel one", cmd_jobs),
    "reconcile": (
        "report drift between PostgreSQL and the slices (--fix repairs it)",
        cmd_reconcile,
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pegas-memory",
        description="Long-term memory and knowledge base for a research agent (MCP server).",
    )
    parser.add_argument("--env-file", help="read settings from this env file (PEGAS_* keys)")
    parser.add_argument("--data-dir", help="data directory (overrides PEGAS_DATA_DIR)")
    parser.add_argument("--log-level", default="INFO")
    sub = parser.add_subparsers(dest="command")
    parsers = {name: sub.add_parser(name, help=text) for name, (text, _fn) in COMMANDS.items()}
    serve_p = parsers["serve"]
    serve_p.add_argument(
        "--http",
        action="store_true",
        help="serve MCP's streamable HTTP transport instead, with the pages of `ui` beside it",
    )
    serve_p.add_argument("--bind", default="127.0.0.1", help="address for --http")
    serve_p.add_argument("--port", type=int, default=8765, help="port for --http")
    serve_p.add_argument("--path", default="/mcp", help="endpoint path for --http")
    ui_p = parsers["ui"]
    ui_p.add_argument(
        "--bind", default="127.0.0.1", help="address (another than loopback needs PEGAS_UI_TOKEN)"
    )
    ui_p.add_argument("--port", type=int, default=8766, help="port (0: any free one)")
    host_p = parsers["host"]
    host_p.add_argument("--status", action="store_true", help="print the running host, if any")
    host_p.add_argument("--stop", action="store_true", help="stop the running host")
    host_p.add_argument("--stay", action="store_true", help="keep running when no process uses it")
    parsers["worker"].add_argument("--name", default="worker", help="name shown in logs")
    parsers["worker"].add_argument(
        "--once", action="store_true", help="drain what is pending, then exit"
    )
    parsers["rebuild"].add_argument("--target", choices=["qdrant", "graph", "all"], default="all")
    for name in ("research", "rebuild", "jobs"):
        p = parsers[name]
        p.formatter_class = argparse.RawDescriptionHelpFormatter
        p.epilog = JOBS_HELP
        p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    for name in ("research", "rebuild"):
        parsers[name].add_argument(
            "--wait",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="follow the job to its end (default; Ctrl-C cancels it), or only queue it",
        )
    jobs_p = parsers["jobs"]
    jobs_p.add_argument("job_id", nargs="?", type=int, help="a job id (omit: list recent jobs)")
    jobs_p.add_argument("--wait", action="store_true", help="follow the job to its end")
    jobs_p.add_argument("--cancel", action="store_true", help="cancel the job")
    jobs_p.add_argument("--state", choices=JobState.values(), help="list filter")
    jobs_p.add_argument("--limit", type=int, default=20, help="list at most this many")
    ingest = parsers["ingest"]
    ingest.add_argument("sources", nargs="+", help="file paths, URLs, or text with --kind text")
    ingest.add_argument("--kind", choices=["text", "markdown", "pdf", "epub", "web", "html"])
    ingest.add_argument("--title")
    ingest.add_argument("--topic")
    ingest.add_argument("--tag", action="append")
    ingest.add_argument("--quiet", action="store_true", help="no progress bar")
    ingest.add_argument(
        "--redistill",
        action="store_true",
        help="read an unchanged document again with the running distiller (as memory_ingest's"
        " redistill); a document distilled by another distiller version is re-read anyway",
    )
    search = parsers["search"]
    search.add_argument("query")
    search.add_argument("--scope", choices=["knowledge", "episodic", "all"], default="knowledge")
    search.add_argument("--preset", default="hybrid")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--json", action="store_true", help="print the full JSON result")
    forget = parsers["forget"]
    forget.add_argument("mode", choices=["retract", "erase"])
    forget.add_argument("--atom", type=int, action="append", help="atom id (repeatable)")
    forget.add_argument("--trace", type=int, action="append", help="trace id (repeatable)")
    forget.add_argument("--document", type=int, action="append", help="document id (repeatable)")
    forget.add_argument("--reason", default="", help="why (recorded for retractions)")
    merges = parsers["merges"]
    merges.add_argument("--atom", type=int, help="only merges into (or split from) this atom")
    merges.add_argument("--document", type=int, help="only merged claims from this document")
    merges.add_argument("--open", action="store_true", help="leave out merges already split")
    merges.add_argument("--limit", type=int, default=20)
    merges.add_argument("--split", type=int, metavar="ID", help="split this merge")
    merges.add_argument("--reason", default="", help="why (recorded on the split)")
    merges.add_argument("--dry-run", action="store_true", help="say what a split would do")
    merges.add_argument(
        "--consolidate", action="store_true", help="one batch: stored atoms that would merge now"
    )
    merges.add_argument("--apply", action="store_true", help="--consolidate: merge them")
    merges.add_argument("--after", type=int, default=0, help="--consolidate: after this atom id")
    merges.add_argument("--batch", type=int, default=500, help="--consolidate: atoms per call")
    merges.add_argument("--similarity", type=float, help="--consolidate: the cosine to merge at")
    parsers["research"].add_argument("--max-gaps", type=int, default=DEFAULT_MAX_GAPS)
    parsers["research"].add_argument(
        "--urls", type=int, default=DEFAULT_URLS_PER_GAP, help="URLs per gap"
    )
    parsers["reconcile"].add_argument("--fix", action="store_true", help="repair the drift found")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging(args.log_level)
    overrides = {"data_dir": args.data_dir} if args.data_dir else {}
    try:
        settings, issues = load_settings_leniently(args.env_file, **overrides)
    except Exception as exc:  # not a bad value (an unreadable env file): nothing to serve with
        print(f"pegas-memory: cannot read the settings: {exc}", file=sys.stderr)
        return 2
    args.setting_issues = issues
    problem = settings_problem(issues)
    if problem is not None:
        print(f"pegas-memory: {problem}", file=sys.stderr)
        if (args.command or "serve") not in ("serve", "doctor"):
            return 2  # serve answers every call with it, doctor lists it; the rest stop here
    if settings.engine_host == Switch.AUTO:
        # The command's processes share one data dir's engines through its engine host, so
        # every session and CLI command has every arm of search (docs/decisions/0005).
        settings = settings.model_copy(update={"engine_host": Switch.ON})
    # SIGTERM (systemd, MCP clients) exits like Ctrl-C, so cleanup handlers run and the embedded
    # PostgreSQL is released.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    command = args.command or "serve"
    if args.command is None:
        args.http = False
    _help, fn = COMMANDS[command]
    try:
        return fn(settings, args)
    except PegasMemoryError as exc:
        print(f"pegas-memory {command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
