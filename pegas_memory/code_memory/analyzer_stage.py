"""The analyzer stage of an index: run each analyzer found and lay its calls over the heuristic.

store_code runs each analyzer found (code_memory.analyzers: ``PEGAS_CODE_ANALYZER=auto``)
(`run_analyzers`), resolves every language with the heuristic (code_memory.graph), then
replaces the call edges of the analyzers' languages where they decide them
(`overlay_analyzers`, code_memory.analyzer_edges). An analyzer that fails, passes its time
limit or is not installed leaves the heuristic's edges as they are; the run says so
(``AnalyzerRunOut``, and a warning), and the index completes either way.

A re-index runs an analyzer only over the files the change can move (the changed files and
their dependents, code_memory.analyzer_slice) and takes the other documents from its previous
run (a ``SnapshotStore``: code_memory.analyzer_cache keeps it in PostgreSQL, so this holds in a
new process too), so the index laid over the heuristic is the one a whole run over the same
bytes writes, at a cost that follows the change. Which files'
analyzer answers may have moved is returned too (`AnalyzerPass.moved`): the index rewrites
their edges even where the heuristic's scope would not reach them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field

from pegas_memory.code_memory.analyzer_edges import overlay_calls
from pegas_memory.code_memory.analyzer_slice import (
    Snapshot,
    dependents,
    depends_on,
    plan_slice,
    splice,
)
from pegas_memory.code_memory.analyzers import (
    PYTHON,
    Analyzer,
    AnalyzerFailed,
    analyzer_version,
    run_analyzer,
)
from pegas_memory.code_memory.model import Dependency, FileIndex
from pegas_memory.code_memory.scip import Document, ScipIndex

Say = Callable[[str], None]


class AnalyzerRunOut(BaseModel):
    """One analyzer's part in an index."""

    analyzer: str = Field(description="name and version, e.g. 'scip-python 0.6.6'")
    status: str = Field(description="'ok', or 'failed' (the heuristic's edges were kept)")
    files: int = Field(description="files of its languages in the index")
    seconds: float
    indexed: int = Field(
        default=0,
        description="files the analyzer indexed this time: all of them, or a re-index's slice "
        "(the changed files and their dependents); 0 when nothing of its languages changed",
    )
    reused: int = Field(default=0, description="documents taken from its previous run")
    call_lines: int = Field(default=0, description="call lines (a caller and a line) it covered")
    decided: int = Field(default=0, description="call lines whose every call it decided")
    mixed: int = Field(default=0, description="call lines it decided in part (rest: heuristic)")
    heuristic: int = Field(default=0, description="call lines left to the heuristic")
    error: str | None = None


class SnapshotStore(Protocol):
    """Where an analyzer's last run over one repository is kept (code_memory.analyzer_cache)."""

    def get(self, analyzer: str, version: str) -> Snapshot | None: ...

    def put(
        self, analyzer: str, version: str, snapshot: Snapshot, paths: AbstractSet[str] | None
    ) -> None: ...

    def drop(self, analyzer: str) -> None: ...


@dataclass(slots=True)
class _Ran:
    analyzer: Analyzer
    files: list[FileIndex]
    index: ScipIndex | None  # None: it failed
    out: AnalyzerRunOut


@dataclass(slots=True)
class AnalyzerPass:
    """The analyzers' indexes for the overlay, and the paths whose analyzer answers may have
    moved since the stored edges (None: any file of a language an analyzer ran for)."""

    ran: list[_Ran] = field(default_factory=list)
    moved: set[str] | None = field(default_factory=set)


def run_analyzers(
    files: Sequence[FileIndex],
    root: Path,
    analyzers: Sequence[Analyzer],
    *,
    gate: Collection[str] | None,
    touched: Collection[str] = (),
    digests: Mapping[str, str] | None = None,
    cache: SnapshotStore | None = None,
    timeout: float,
    say: Say,
    warnings: list[str],
) -> AnalyzerPass:
    """Run each analyzer with files among ``gate`` (None: every analyzer with files):
    over the whole project, or, with a ``cache`` holding its previous run over the repository
    at ``root`` (by the same analyzer version) and the files' content hashes (``digests``),
    over the slice a change can move; the run is kept in ``cache`` for the next index.
    ``touched``: the paths changed or deleted since the stored index. Whatever ``say`` raises
    (a cancel, a deadline) stops the analyzer and propagates."""
    result = AnalyzerPass()
    for analyzer in analyzers:
        own = [f for f in files if f.language in analyzer.languages]
        if not own or (gate is not None and not any(f.path in gate for f in own)):
            continue
        python = analyzer.languages == PYTHON
        keep = cache if digests is not None else None
        version = analyzer_version(analyzer) if keep is not None else ""
        snapshot = keep.get(analyzer.name, version) if keep is not None else None
        plan = plan_slice(snapshot, own, digests or {}, python=python)
        current = {f.path for f in own}
        targets = None if plan.paths is None else sorted(plan.paths & current)
        started = time.monotonic()
        try:
            index = _index(analyzer, root, own, snapshot, plan.paths, targets, timeout, say)
        except AnalyzerFailed as exc:
            if keep is not None:
                keep.drop(analyzer.name)
            seconds = round(time.monotonic() - started, 3)
            out = AnalyzerRunOut(
                analyzer=analyzer.name,
                status="failed",
                files=len(own),
                seconds=seconds,
                error=str(exc)[:1000],
            )
            result.ran.append(_Ran(analyzer, own, None, out))
            warnings.append(
                f"{analyzer.name} failed ({str(exc)[:300]}); the calls of {len(own)} files "
                "come from the heuristic resolver alone"
            )
            continue
        documents = {d.path: d for d in index.documents}
        if keep is not None and digests is not None:
            modules = {f.path: f.module for f in own if f.language == "python"}
            own_digests = {f.path: digests.get(f.path, "") for f in own}
            kept = Snapshot(
                index.tool, index.version, index.project_root, own_digests, modules, documents
            )
            keep.put(analyzer.name, version, kept, plan.paths)
        tool = f"{index.tool or analyzer.name} {index.version}".strip()
        indexed = len(current) if targets is None else len(targets)
        out = AnalyzerRunOut(
            analyzer=tool,
            status="ok",
            files=len(own),
            seconds=round(time.monotonic() - started, 3),
            indexed=indexed,
            reused=0 if plan.paths is None else sum(p not in plan.paths for p in documents),
        )
        result.ran.append(_Ran(analyzer, own, index, out))
        moved = _moved(snapshot, documents, own, set(touched) | plan.changed, python, current)
        if moved is None or result.moved is None:
            result.moved = None
        else:
            result.moved |= moved
    return result


def _index(
    analyzer: Analyzer,
    root: Path,
    own: Sequence[FileIndex],
    snapshot: Snapshot | None,
    paths: frozenset[str] | None,
    targets: list[str] | None,
    timeout: float,
    say: Say,
) -> ScipIndex:
    """The analyzer's index of the project as it is now: a whole run, a slice's run spliced
    into the snapshot, or the snapshot itself when nothing of its languages changed."""
    if snapshot is not None and paths is not None and not targets:
        documents = splice(snapshot, {}, paths)
        return ScipIndex(
            snapshot.tool,
            snapshot.version,
            snapshot.project_root,
            tuple(documents[p] for p in sorted(documents)),
        )
    if targets is None:
        say(f"running {analyzer.name} over {len(own)} files")
    else:
        say(f"running {analyzer.name} over {len(targets)} of {len(own)} files (a re-index)")

    def waiting(spent: float, name: str = analyzer.name) -> None:
        say(f"running {name} ({spent:.0f} s)")

    index = run_analyzer(
        analyzer, root, [f.path for f in own], timeout=timeout, check=waiting, targets=targets
    )
    if snapshot is None or paths is None:
        return index
    documents = splice(snapshot, {d.path: d for d in index.documents}, paths)
    return ScipIndex(
        index.tool,
        index.version,
        index.project_root,
        tuple(documents[p] for p in sorted(documents)),
    )


def _moved(
    snapshot: Snapshot | None,
    documents: Mapping[str, Document],
    own: Sequence[FileIndex],
    touched: set[str],
    python: bool,
    current: set[str],
) -> set[str] | None:
    """The analyzer's files whose documents may differ from those the stored edges were laid
    from: the touched ones and their dependents, before and after the change. None (all) for
    JavaScript/TypeScript with a file added or removed (an import of it is not traced) or no
    previous documents to compare with."""
    if not touched & current and not (touched - current):
        return set()
    if not python and (
        snapshot is None or (touched - current) or (current - set(snapshot.digests))
    ):
        return None
    graph = depends_on(documents, own, {})
    if snapshot is not None:
        for path, needs in depends_on(snapshot.documents, own, {}).items():
            graph.setdefault(path, set()).update(needs)
    return dependents(graph, touched) & current


def overlay_analyzers(
    deps: list[Dependency], analyzer_pass: AnalyzerPass, *, say: Say
) -> tuple[list[Dependency], list[AnalyzerRunOut]]:
    """``deps`` with the calls of each analyzer's languages taken from its index where it
    decides them; the runs, with the counts of the overlay."""
    runs: list[AnalyzerRunOut] = []
    for ran in analyzer_pass.ran:
        if ran.index is None:
            runs.append(ran.out)
            continue
        say(f"laying {ran.out.analyzer}'s calls over the heuristic ones")
        deps, count = overlay_calls(ran.index, ran.files, deps, ran.out.analyzer)
        runs.append(
            ran.out.model_copy(
                update={
                    "call_lines": count.lines,
                    "decided": count.decided,
                    "mixed": count.mixed,
                    "heuristic": count.heuristic,
                }
            )
        )
    return deps, runs


def apply_analyzers(
    deps: list[Dependency],
    files: Sequence[FileIndex],
    root: Path,
    analyzers: Sequence[Analyzer],
    resolved: Collection[str] | None,
    *,
    timeout: float,
    say: Say,
    warnings: list[str],
) -> tuple[list[Dependency], list[AnalyzerRunOut]]:
    """``deps`` with the calls of each analyzer's languages taken from a whole run of it where
    it decides them (the benches' path; store_code runs the two steps itself). ``resolved``:
    the paths whose edges were re-resolved (None: all); an analyzer none of whose files is
    among them is not run."""
    analyzer_pass = run_analyzers(
        files, root, analyzers, gate=resolved, timeout=timeout, say=say, warnings=warnings
    )
    return overlay_analyzers(deps, analyzer_pass, say=say)
