"""The planning between dependency resolution and the first dependency write reports progress
(issue 17): sqlalchemy's 295k edges went 37 s without a report (mapped to symbol ids, compared
with the stored ones). Loops over many cheap items report on a clock (`progress.on_a_clock`);
here the clock is the test's, or read at every item with no minimum interval, so the number of
reports follows from the number of items (no timed assertions).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import pegas_memory.progress as progress
from pegas_memory.code_memory.index import CodeMemory
from pegas_memory.progress import on_a_clock
from tests.code_fixtures import code_memory
from tests.code_memory.test_code_job_writes import generated_repo


def test_reports_come_on_the_clock_every_so_many_items() -> None:
    now = [0.0]

    def clock() -> float:
        return now[0]

    seen: list[int] = []
    out = []
    for item in on_a_clock(range(95), seen.append, every=5.0, check_every=10, clock=clock):
        out.append(item)
        now[0] += 1.0  # one second per item: a report is due every 5 s, looked at every 10
    assert out == list(range(95))
    assert seen == [10, 20, 30, 40, 50, 60, 70, 80, 90]
    fast: list[int] = []
    list(on_a_clock(range(5000), fast.append, every=5.0, check_every=10, clock=lambda: 0.0))
    assert fast == []  # the clock never moved: nothing to report


@pytest.fixture
def code(database_url: str, tmp_path: Path) -> Iterator[tuple[CodeMemory, Path]]:
    repo = generated_repo(tmp_path)
    with code_memory(database_url, tmp_path) as memory:
        yield memory, repo


def test_dependency_planning_reports_its_edges(
    code: tuple[CodeMemory, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, repo = code
    monkeypatch.setattr(progress, "REPORT_SECONDS", 0.0)  # due at every look ...
    monkeypatch.setattr(progress, "CHECK_EVERY", 1)  # ... and a look at every item
    seen: list[str] = []
    memory.store_code(str(repo), progress=lambda d, t, m: seen.append(m))
    (mapping,) = [m for m in seen if m.startswith("planning dependencies: mapping ")]
    edges = int(re.findall(r"\d+", mapping)[0])
    mapped = [m for m in seen if m.startswith("planning: edges mapped ")]
    assert edges > 10 and mapped == [
        f"planning: edges mapped {n} of {edges}" for n in range(1, edges)
    ]
    built = [m for m in seen if m.startswith("planning: rows built ")]
    rows = int(built[-1].split(" of ")[1])  # edges merged by (source, kind, target)
    assert built == [f"planning: rows built {n} of {rows}" for n in range(1, rows)]
    at = seen.index(mapping)
    assert seen.index("writing dependencies") > at  # the comparison is announced before it
    assert any(m.startswith("planning dependencies: comparing ") for m in seen[at:])

    again: list[str] = []
    memory.store_code(str(repo), progress=lambda d, t, m: again.append(m), force=True)
    stored = [m for m in again if m.startswith("planning: stored edges read ")]
    assert stored and stored[-1].endswith(f" of {len(stored) + 1}"), again
