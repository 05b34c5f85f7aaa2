"""The Python points-to resolution reports progress on a clock (issue 17): sqlalchemy's index
went 38 s without a report inside 'following Python values' (one report per 200 evaluations,
however long they took) and 18 s between two 'Python file' reports (one per 10 files).

The clock is the test's own (`PythonFlow(clock=...)`): one that jumps at every look makes every
look a report, so the reports' spacing follows from the count of evaluations and files; one that
never moves leaves only the report that opens each drain and walk. No timed assertions. Pure:
no engines needed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pegas_memory.code_memory.flow import _CHECK_EVALS, PythonFlow
from pegas_memory.code_memory.flow_edges import python_dependencies
from pegas_memory.code_memory.flow_worklist import Worklist
from pegas_memory.code_memory.symbols import FileIndex, extract_file

_VALUES = re.compile(
    r"^resolving dependencies: following Python values, round ([\d,]+), ([\d,]+) evaluations "
    r"\(([\d,]+) of ([\d,]+) facts queued\)$"
)
_FILE = re.compile(r"^resolving dependencies: Python file (\d+) of (\d+)$")


def _files(n: int = 12) -> list[FileIndex]:
    """Modules whose functions call along a chain across files and pass callbacks on: values
    flow over many rounds of the worklist."""
    out = []
    for i in range(n):
        nxt = (i + 1) % n
        code = (
            f"from m{nxt} import f{nxt}, K{nxt}\n\n\n"
            f"class K{i}:\n"
            f"    def run(self, cb):\n"
            f"        return cb()\n\n\n"
            f"def f{i}(cb=None):\n"
            f"    k = K{nxt}()\n"
            f"    h = cb or f{nxt}\n"
            f"    return k.run(h)\n\n\n"
            f"def g{i}():\n"
            f"    return f{i}(f{nxt})\n"
        )
        out.append(extract_file(f"m{i}.py", code.encode()))
    return out


def _jumping() -> Callable[[], float]:
    now = [0.0]

    def clock() -> float:
        now[0] += 100.0  # every look at the clock finds a report due
        return now[0]

    return clock


def _run(files: list[FileIndex], clock: Callable[[], float]) -> tuple[list[str], set[tuple]]:
    seen: list[str] = []
    flow = PythonFlow(files, step=lambda done, total, message: seen.append(message), clock=clock)
    deps = python_dependencies(flow)
    return seen, {(d.src, d.kind, d.dst_name, d.line) for d in deps}


def _drains(seen: list[str]) -> list[list[tuple[int, int, int, int]]]:
    """The 'following Python values' reports, split at each drain's opening report (0
    evaluations): (round, evaluations, queued, facts) each."""
    drains: list[list[tuple[int, int, int, int]]] = []
    for m in seen:
        found = _VALUES.match(m)
        if found is None:
            continue
        row = tuple(int(g.replace(",", "")) for g in found.groups())
        if row[1] == 0:
            drains.append([])
        drains[-1].append(row)  # type: ignore[arg-type]
    return drains


def test_the_worklist_reports_every_so_many_evaluations_with_its_round() -> None:
    files = _files()
    seen, edges = _run(files, _jumping())
    drains = _drains(seen)
    assert len(drains) == 2, seen  # run() drains twice (after giving lone methods a self)
    first = drains[0]
    facts = first[0][3]
    assert facts == sum(len(f.facts) for f in files)
    assert first[0][:3] == (0, 0, facts)  # all facts queued, no round begun yet
    evaluations = [e for _, e, _, _ in first]
    assert evaluations == list(range(0, _CHECK_EVALS * len(first), _CHECK_EVALS))
    assert len(first) > 3  # this fixture takes several looks: the spacing is exercised
    rounds = [r for r, _, _, _ in first]
    assert rounds == sorted(rounds) and rounds[-1] > 1  # more than one round, each reported
    # Reporting never changes what is found.
    quiet, _ = _run(files, lambda: 0.0)
    plain = PythonFlow(files)
    assert edges == {(d.src, d.kind, d.dst_name, d.line) for d in python_dependencies(plain)}
    assert quiet and len(quiet) < len(seen)


def test_a_clock_that_never_moves_leaves_only_the_opening_reports() -> None:
    files = _files()
    seen, _ = _run(files, lambda: 0.0)
    drains = _drains(seen)
    assert [[e for _, e, _, _ in d] for d in drains] == [[0], [0]]
    assert [m for m in seen if _FILE.match(m)] == [
        f"resolving dependencies: Python file 1 of {len(files)}"
    ]


def test_the_walk_over_files_reports_each_file_when_due() -> None:
    files = _files(7)
    seen, _ = _run(files, _jumping())
    walked = [m for m in seen if _FILE.match(m)]
    assert walked == [f"resolving dependencies: Python file {n} of 7" for n in range(1, 8)]
    assert seen.index(walked[0]) > max(i for i, m in enumerate(seen) if _VALUES.match(m))


def test_worklist_drain_counts_rounds_and_keeps_to_its_budget() -> None:
    work = Worklist()
    for i in (5, 1, 3):
        work.push(i)
    order = []
    for index in work.drain(10):
        order.append(index)
        if index == 5 and work.rounds == 1:
            work.push(2)  # pushed during round 1: waits for round 2
    assert order == [1, 3, 5, 2] and work.rounds == 2 and len(work) == 0
    for i in range(6):
        work.push(i)
    assert list(work.drain(4)) == [0, 1, 2, 3] and len(work) == 2  # budget spent, rest queued
    reports: list[tuple[int, int, str]] = []
    work.reporter(lambda d, t, m: reports.append((d, t, m)), 99, 6)(4)
    assert reports == [
        (
            4,
            99,
            "resolving dependencies: following Python values, round 3, 4 evaluations "
            "(2 of 6 facts queued)",
        )
    ]
