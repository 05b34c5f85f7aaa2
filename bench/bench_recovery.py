"""Recovery times of the embedded engines: kill -9 the engine, time the first successful call.

Each row is a function returning (engine, times in seconds); `main` prints a markdown table of
the median and worst of N kills. This file holds the PostgreSQL row (`bench_postgres`); the
other engines' rows are added beside it.

    PYTHONPATH=. python bench/bench_recovery.py [--runs 10]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import embedded_service, log, md_table
from pegas_memory.db.embedded import process_state


def _kill_postmaster(data_dir: Path) -> None:
    """SIGKILL the postmaster, return once it is dead (maybe still an unreaped zombie) and its
    backends had a moment to exit: the case the next call has to survive."""
    pid = int((data_dir / "postgres" / "postmaster.pid").read_text().splitlines()[0])
    os.kill(pid, signal.SIGKILL)
    while process_state(pid) == "alive":
        time.sleep(0.005)
    time.sleep(0.3)


def bench_postgres(runs: int = 10) -> tuple[str, list[float]]:
    """Kill the embedded postmaster under a MemoryService; time kill -> first successful call."""
    times: list[float] = []
    with embedded_service("pegas-bench-recovery-", engine_host="off") as service:
        service.store("recovery bench: this atom must survive every kill")
        service.stats()  # warm: the slices open on first use, not part of the recovery
        for n in range(runs):
            _kill_postmaster(service.settings.data_dir)
            started = time.monotonic()
            assert service.stats().atoms_total >= 1
            times.append(time.monotonic() - started)
            log(f"postgres kill {n + 1}/{runs}: {times[-1]:.2f} s")
    return "PostgreSQL (embedded)", times


ROWS = [bench_postgres]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    table = []
    for row in ROWS:
        engine, times = row(args.runs)
        table.append(
            [engine, len(times), f"{statistics.median(times):.2f} s", f"{max(times):.2f} s"]
        )
    print(md_table(["engine", "kills", "median kill -> first call", "worst"], table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
