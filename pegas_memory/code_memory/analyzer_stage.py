"""The analyzer stage of an index: run each analyzer found and lay its calls over the heuristic.

store_code resolves every language with the heuristic first (code_memory.graph), then, for
each analyzer found (code_memory.analyzers: ``PEGAS_CODE_ANALYZER=auto``), runs it over the
repository and replaces the call edges of its languages' files where it decides them
(code_memory.analyzer_edges). An analyzer that fails, passes its time limit or is not
installed leaves the heuristic's edges as they are; the run says so (``AnalyzerRunOut``, and a
warning), and the index completes either way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from pegas_memory.code_memory.analyzer_edges import overlay_calls
from pegas_memory.code_memory.analyzers import Analyzer, AnalyzerFailed, run_analyzer
from pegas_memory.code_memory.model import Dependency, FileIndex

Say = Callable[[str], None]


class AnalyzerRunOut(BaseModel):
    """One analyzer's part in an index."""

    analyzer: str = Field(description="name and version, e.g. 'scip-python 0.6.6'")
    status: str = Field(description="'ok', or 'failed' (the heuristic's edges were kept)")
    files: int = Field(description="files of its languages in the index")
    seconds: float
    call_lines: int = Field(default=0, description="call lines (a caller and a line) it covered")
    decided: int = Field(default=0, description="call lines whose every call it decided")
    mixed: int = Field(default=0, description="call lines it decided in part (rest: heuristic)")
    heuristic: int = Field(default=0, description="call lines left to the heuristic")
    error: str | None = None


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
    """``deps`` with the calls of each analyzer's languages taken from it where it decides
    them. ``resolved``: the paths whose edges were re-resolved (None: all); an analyzer none of
    whose files is among them is not run. Whatever ``say`` raises (a cancel, a deadline) stops
    the analyzer and propagates."""
    runs: list[AnalyzerRunOut] = []
    for analyzer in analyzers:
        own = [f for f in files if f.language in analyzer.languages]
        if not own or (resolved is not None and not any(f.path in resolved for f in own)):
            continue
        started = time.monotonic()
        say(f"running {analyzer.name} over {len(own)} files")

        def waiting(spent: float, name: str = analyzer.name) -> None:
            say(f"running {name} ({spent:.0f} s)")

        try:
            index = run_analyzer(
                analyzer, root, [f.path for f in own], timeout=timeout, check=waiting
            )
        except AnalyzerFailed as exc:
            seconds = round(time.monotonic() - started, 3)
            runs.append(
                AnalyzerRunOut(
                    analyzer=analyzer.name,
                    status="failed",
                    files=len(own),
                    seconds=seconds,
                    error=str(exc)[:1000],
                )
            )
            warnings.append(
                f"{analyzer.name} failed ({str(exc)[:300]}); the calls of {len(own)} files "
                "come from the heuristic resolver alone"
            )
            continue
        tool = f"{index.tool or analyzer.name} {index.version}".strip()
        say(f"laying {tool}'s calls over the heuristic ones")
        deps, count = overlay_calls(index, own, deps, tool)
        runs.append(
            AnalyzerRunOut(
                analyzer=tool,
                status="ok",
                files=len(own),
                seconds=round(time.monotonic() - started, 3),
                call_lines=count.lines,
                decided=count.decided,
                mixed=count.mixed,
                heuristic=count.heuristic,
            )
        )
    return deps, runs
