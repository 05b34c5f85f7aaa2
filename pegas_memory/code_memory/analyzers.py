"""Running the type-checker analyzers: scip-python and scip-typescript, from npm.

Both write a SCIP index (code_memory.scip) of a whole project; code_memory.analyzer_edges lays
its calls over the heuristic ones. Neither needs the network while indexing (pyright and the
TypeScript compiler ship the standard library's stubs); both need Node.js.

- **scip-python** (pyright) indexes the repository root as a Python project. It is given an
  empty environment file, so it does not run ``pip list`` / ``pip show`` over whatever Python is
  on PATH (seconds, and nothing the call edges need: calls into installed packages stay
  external either way).
- **scip-typescript** is given a tsconfig of its own, written in a temporary directory and
  listing exactly the JavaScript and TypeScript files code memory indexed (``allowJs``, module
  resolution ``bundler``), so a repository whose tsconfig extends a package that is not
  installed (``@sindresorhus/tsconfig``), or that has none, is still indexed; the repository is
  never written to.

Either can index part of a project (``targets``, for a re-index: code_memory.analyzer_slice):
scip-python is given ``--target-only`` (one path, a prefix: the file, or the targets' deepest
common directory; it still reads every module they import, and writes documents for the project
files among them too); scip-typescript's tsconfig lists only the targets and the project's
declaration files (the compiler still loads every module they import, but documents only the
listed files).

An analyzer's version (`analyzer_version`: what ``--version`` prints, asked once per installed
file) keys the documents kept between runs: another version's are never reused.

Each runs in its own process group with a time limit (``PEGAS_CODE_ANALYZER_TIMEOUT``) and,
when ``PEGAS_CODE_ANALYZER_HEAP_MB`` is set, a bound on Node's heap (``--max-old-space-size``):
scip-python over twisted (392k lines) peaks at about 2.9 GB resident unbounded and dies at a
1,536 MB heap, so a bound too low for a repository costs its analyzer edges, never the index
(the heuristic's edges stay, with a warning). The caller's ``check`` is called about once a
second (a cancelled index stops it at once). A failure raises AnalyzerFailed with the tail of
the analyzer's output, or saying the heap bound was reached.
"""

from __future__ import annotations

import json
import os
import posixpath
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from pegas_memory.code_memory.analyzer_slice import python_target
from pegas_memory.code_memory.model import JS_LANGUAGES
from pegas_memory.code_memory.scip import ScipError, ScipIndex, read_index
from pegas_memory.errors import PegasMemoryError

PYTHON = frozenset({"python"})
_TS_LIKE = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")


class AnalyzerFailed(PegasMemoryError):
    """An analyzer did not produce an index."""


@dataclass(frozen=True, slots=True)
class Analyzer:
    """An analyzer found on this machine: its name, binary and the languages it answers."""

    name: str  # "scip-python" | "scip-typescript"
    binary: str
    languages: frozenset[str]
    heap_mb: int | None = None  # Node's --max-old-space-size for its run; None: Node's own


_KNOWN: tuple[tuple[str, frozenset[str]], ...] = (
    ("scip-python", PYTHON),
    ("scip-typescript", JS_LANGUAGES),
)


def find_analyzers(
    mode: str, extra_path: str | None = None, heap_mb: int | None = None
) -> list[Analyzer]:
    """The analyzers to run: none when ``mode`` is "off"; with "auto" each whose binary is in
    ``extra_path`` (":"-separated directories, searched first) or on PATH, each to run with
    Node's heap bounded to ``heap_mb`` (None: unbounded)."""
    if mode == "off":
        return []
    search = os.pathsep.join(p for p in ((extra_path or ""), os.environ.get("PATH", "")) if p)
    out = []
    for name, languages in _KNOWN:
        found = shutil.which(name, path=search)
        if found is not None:
            out.append(Analyzer(name, found, languages, heap_mb))
    return out


def analyzer_version(analyzer: Analyzer) -> str:
    """What ``<binary> --version`` prints (``0.6.6``), asked once per installed file (its real
    path, size and modification time: an upgrade is noticed); when it prints nothing usable,
    that installed file's identity instead, so another install never passes for it."""
    real = os.path.realpath(analyzer.binary)
    try:
        st = os.stat(real)
    except OSError:
        return f"unknown:{real}"
    return _version(analyzer.binary, real, st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=16)
def _version(binary: str, real: str, size: int, mtime_ns: int) -> str:
    try:
        done = subprocess.run(
            [binary, "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        done = None
    words = done.stdout.split() if done is not None and done.returncode == 0 else []
    if len(words) == 1 and len(words[0]) <= 100:
        return words[0]
    return f"unknown:{real}:{size}:{mtime_ns}"


Check = Callable[[float], None]
"""Called with the seconds spent, about once a second while an analyzer runs; may raise."""


def run_analyzer(
    analyzer: Analyzer,
    root: Path,
    paths: Sequence[str],
    *,
    timeout: float,
    check: Check | None = None,
    targets: Collection[str] | None = None,
) -> ScipIndex:
    """Index ``root`` (``paths``: its files of the analyzer's languages, repository-relative)
    and read the index, every document's path repository-relative. ``targets``: only these
    files need documents (None: all); the index may hold others (see the module doc). Raises
    AnalyzerFailed (exit status, time limit, unreadable index) and whatever ``check`` raises
    (the process group is killed first)."""
    with tempfile.TemporaryDirectory(prefix="pegas-analyzer-") as tmp:
        work = Path(tmp)
        out = work / "index.scip"
        if analyzer.name == "scip-python":
            env_file = work / "environment.json"
            env_file.write_text("[]")
            argv = [
                analyzer.binary,
                "index",
                "--quiet",
                "--cwd",
                str(root),
                "--output",
                str(out),
                "--project-name",
                root.name or "repo",
                "--project-version",
                "0",
                "--environment",
                str(env_file),
            ]
            target = python_target(set(targets)) if targets is not None else None
            if target is not None:
                argv += ["--target-only", str(root / target)]
        else:
            project = work / "project"
            project.mkdir()
            if targets is not None:  # declarations stay: their globals are in every program
                wanted = set(targets)
                paths = [p for p in paths if p in wanted or p.endswith(_DECLARATIONS)]
            _write_tsconfig(project, root, paths)
            target = None
            argv = [
                analyzer.binary,
                "index",
                "--cwd",
                str(root),
                "--output",
                str(out),
                "--no-progress-bar",
                str(project),
            ]
        log = work / "output.log"
        _run(argv, root, log, timeout, check, analyzer)
        try:
            data = out.read_bytes()
        except OSError as exc:
            raise AnalyzerFailed(
                f"{analyzer.name} wrote no index ({exc.strerror}): {_tail(log)}"
            ) from exc
    try:
        index = read_index(data)
    except ScipError as exc:
        raise AnalyzerFailed(f"{analyzer.name} wrote an unreadable index: {exc}") from exc
    if target is None:
        return index
    # scip-python writes paths relative to its --target-only path (``""`` for a file target,
    # ``../x.py`` for a file it imports).
    documents = tuple(
        replace(d, path=posixpath.normpath(posixpath.join(target, d.path))) for d in index.documents
    )
    return replace(index, documents=documents)


def _write_tsconfig(project: Path, root: Path, paths: Sequence[str]) -> None:
    files = [str(root / p) for p in paths if p.endswith(_TS_LIKE)]
    options: dict[str, object] = {
        "allowJs": True,
        "checkJs": False,
        "noEmit": True,
        "target": "esnext",
        "module": "esnext",
        "moduleResolution": "bundler",
        "jsx": "preserve",
        "skipLibCheck": True,
        "strict": True,
        "allowImportingTsExtensions": True,
        "resolveJsonModule": True,
        "experimentalDecorators": True,
        "baseUrl": str(root),
    }
    types = root / "node_modules" / "@types"
    options["typeRoots"] = [str(types)] if types.is_dir() else []
    config = {"compilerOptions": options, "files": files}
    (project / "tsconfig.json").write_text(json.dumps(config, indent=1))


_OUT_OF_HEAP = b"JavaScript heap out of memory"  # what V8 prints before it aborts


def node_environment(heap_mb: int | None) -> dict[str, str]:
    """This process's environment, with Node's heap bounded to ``heap_mb`` when it is set (added
    to whatever NODE_OPTIONS already holds)."""
    env = dict(os.environ)
    if heap_mb is not None:
        env["NODE_OPTIONS"] = (
            f"{env.get('NODE_OPTIONS', '')} --max-old-space-size={heap_mb}".strip()
        )
    return env


def _run(
    argv: list[str], cwd: Path, log: Path, timeout: float, check: Check | None, analyzer: Analyzer
) -> None:
    name = analyzer.name
    started = time.monotonic()
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=node_environment(analyzer.heap_mb),
            start_new_session=True,
        )
        try:
            while True:
                left = timeout - (time.monotonic() - started)
                try:
                    code = proc.wait(timeout=max(0.0, min(1.0, left)))
                    break
                except subprocess.TimeoutExpired:
                    spent = time.monotonic() - started
                    if spent >= timeout:
                        raise AnalyzerFailed(
                            f"{name} passed its time limit of {timeout:.0f} s "
                            "(PEGAS_CODE_ANALYZER_TIMEOUT)"
                        ) from None
                    if check is not None:
                        check(spent)
        except BaseException:
            _kill(proc)
            raise
    if code != 0:
        if analyzer.heap_mb is not None and _OUT_OF_HEAP in log.read_bytes():
            raise AnalyzerFailed(
                f"{name} ran out of its heap of {analyzer.heap_mb} MB (PEGAS_CODE_ANALYZER_HEAP_MB)"
            )
        raise AnalyzerFailed(f"{name} exited with status {code}: {_tail(log)}")


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _tail(log: Path, chars: int = 600) -> str:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return "(no output)"
    return " ".join(text[-chars:].split()) or "(no output)"
