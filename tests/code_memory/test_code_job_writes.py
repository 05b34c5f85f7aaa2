"""Code indexing writes in bounded statements and reports every step (issue 17's sqlalchemy walk).

Indexing sqlalchemy as a job failed: its 60k symbols went into the database in one COPY, which
ran past the 60 s statement timeout on a loaded machine, and its progress stood still for 75 s
meanwhile (and up to 26 s between the every-50-files extraction reports). Here, on a small
generated repository with a small batch: symbols and dependencies are written in several COPY
statements with a progress report (the job's check) between them, every file's extraction is
reported, the result is the same as in one batch, and a stop between two batches rolls the
whole index back.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.code_memory import store
from pegas_memory.code_memory.index import CodeMemory
from pegas_memory.jobs import JobCancelled
from tests.code_fixtures import code_memory

FILES = 12


def generated_repo(root: Path) -> Path:
    """FILES modules, each with four functions calling the previous module's functions."""
    repo = root / "src" / "gen"
    (repo / "gen").mkdir(parents=True)
    (repo / "gen" / "__init__.py").write_text("")
    for i in range(FILES):
        lines = [f"from gen.m{i - 1} import f{i - 1}_0\n" if i else ""]
        for k in range(4):
            call = f"    return f{i - 1}_0() + {k}\n" if i else f"    return {k}\n"
            lines.append(f"\n\ndef f{i}_{k}():\n    '''Function {k} of module {i}.'''\n{call}")
        (repo / "gen" / f"m{i}.py").write_text("".join(lines))
    return repo


@pytest.fixture
def code(database_url: str, tmp_path: Path) -> Iterator[tuple[CodeMemory, Path]]:
    repo = generated_repo(tmp_path)
    with code_memory(database_url, tmp_path) as memory:
        yield memory, repo


def counts(code: CodeMemory) -> dict[str, int]:
    with code.db.connection() as conn:
        row = conn.execute(
            b"SELECT (SELECT count(*) FROM pm_code_symbol) AS symbols,"
            b" (SELECT count(*) FROM pm_code_dependency) AS deps,"
            b" (SELECT count(*) FROM pm_code_file) AS files"
        ).fetchone()
    assert row is not None
    return {k: int(v) for k, v in dict(row).items()}


def test_symbols_and_dependencies_are_written_in_batches_with_progress_between(
    code: tuple[CodeMemory, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, repo = code
    monkeypatch.setattr(store, "COPY_BATCH", 7)
    seen: list[str] = []
    result = memory.store_code(str(repo), progress=lambda d, t, m: seen.append(m))
    symbol_batches = [m for m in seen if m.startswith("writing symbols: ")]
    dep_batches = [m for m in seen if m.startswith("writing dependencies: ")]
    total = result.symbols_added
    assert total > 14 and symbol_batches[0] == f"writing symbols: 7 of {total}"
    assert len(symbol_batches) == -(-total // 7)
    assert symbol_batches[-1] == f"writing symbols: {total} of {total}"
    assert len(dep_batches) >= 2, seen
    files = [m for m in seen if m.startswith("extracting symbols: file ")]
    assert len(files) == result.files_seen  # every file is a step, not every 50th
    assert counts(memory) == {
        "symbols": result.symbols_total,
        "deps": result.dependencies,
        "files": result.files_seen,
    }


def test_a_stop_between_two_batches_rolls_the_whole_index_back(
    code: tuple[CodeMemory, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, repo = code
    monkeypatch.setattr(store, "COPY_BATCH", 7)

    def stop_after_a_batch(done: Any, total: Any, message: str) -> None:
        if message.startswith("writing symbols: 14 of"):
            raise JobCancelled("cancelled on request")

    with pytest.raises(JobCancelled):
        memory.store_code(str(repo), progress=stop_after_a_batch)
    assert counts(memory) == {"symbols": 0, "deps": 0, "files": 0}
    again = memory.store_code(str(repo))  # and nothing stands in the way of a new run
    assert again.symbols_total == counts(memory)["symbols"] > 14
