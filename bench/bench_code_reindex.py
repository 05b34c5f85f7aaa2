"""One-file re-index through store_code with the database (the embedded default stack).

A copy of the repository under /tmp is indexed once, then one file is edited (a function
appended to the file with the most symbols) and indexed again: the second store_code is the
"one-file re-index" of issue 16 (target for gson: < 2 s). The phases' times come from the
progress messages. The cache of repositories is never written to.

Usage: PYTHONPATH=. .venv/bin/python bench/bench_code_reindex.py /work/cache/repos/gson
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

_EDIT = {
    ".py": "\n\ndef _bench_added():\n    return 1\n",
    ".java": "\n// bench edit\n",
    ".go": "\n// bench edit\nfunc benchAdded() int { return 1 }\n",
    ".rs": "\n// bench edit\nfn bench_added() -> i32 { 1 }\n",
    ".js": "\n// bench edit\nfunction benchAdded() { return 1 }\n",
    ".ts": "\n// bench edit\nfunction benchAdded() { return 1 }\n",
}


def one_file_reindex(repo: Path) -> dict[str, object]:
    from _common import embedded_service

    from pegas_memory.code_memory.index import CodeMemory
    from pegas_memory.code_memory.symbols import extract_file, iter_source_files

    work = Path(tempfile.mkdtemp(prefix="pegas-reindex-", dir="/tmp"))
    try:
        copy = work / repo.name
        shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".git"), symlinks=True)
        files = list(iter_source_files(copy))
        target = max(
            (p for p in files if p.suffix in _EDIT),
            key=lambda p: len(extract_file(p.relative_to(copy).as_posix(), p.read_bytes()).symbols),
        )
        with embedded_service("pegas-bench-reindex-", ingest_roots=[str(work)]) as service:
            code = CodeMemory(service.settings, service.db, service.runtime)
            first = code.store_code(str(copy))
            with target.open("a") as fh:
                fh.write(_EDIT[target.suffix])
            marks: list[tuple[float, str]] = []
            started = time.perf_counter()
            again = code.store_code(
                str(copy),
                progress=lambda d, t, m: marks.append((time.perf_counter() - started, m)),
            )
            seconds = time.perf_counter() - started
        phases: dict[str, float] = {}
        last_t, last_m = 0.0, "start"
        for t, m in marks:
            key = m.split(":")[0]
            phases[last_m] = phases.get(last_m, 0.0) + t - last_t
            last_t, last_m = t, key
        return {
            "file": target.relative_to(copy).as_posix(),
            "first_s": first.seconds,
            "reindex_s": seconds,
            "files_changed": again.files_changed,
            "phases": {k: round(v, 3) for k, v in phases.items() if v >= 0.05},
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    print(json.dumps(one_file_reindex(Path(sys.argv[1]))))
