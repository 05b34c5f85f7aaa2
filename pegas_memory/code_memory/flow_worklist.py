"""The worklist of the Python call analysis (`code_memory.flow`), in an order that never follows
the iteration order of a set.

A fact is queued when a slot it read grows, and slots list their readers in sets of strings and
ints, whose order changes with PYTHONHASHSEED. The value-set caps (`code_memory.flow_bounds`)
keep the first values that reach a slot, so a first-in first-out queue fed in set order gave
other edges per run (two whole sqlalchemy runs: 294,399 and 295,185 dependencies). Here the
work runs in rounds: a round replays the queued fact indexes in ascending order, and a fact
queued during a round waits for the next one. The order is then a function of *which* facts are
queued, never of the order they were queued in. Pure logic: no I/O.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator


class Worklist:
    """Fact indexes to replay, each at most once per round, a round in ascending order."""

    def __init__(self) -> None:
        self._round: deque[int] = deque()
        self._next: list[int] = []
        self._queued: set[int] = set()
        self.rounds = 0  # rounds begun, for progress reports

    def __len__(self) -> int:
        return len(self._queued)

    def push(self, index: int) -> None:
        if index not in self._queued:
            self._queued.add(index)
            self._next.append(index)

    def pop(self) -> int | None:
        """The next fact to replay, None when nothing is queued."""
        if not self._round:
            if not self._next:
                return None
            self._round, self._next = deque(sorted(self._next)), []
            self.rounds += 1
        index = self._round.popleft()
        self._queued.discard(index)
        return index

    def drain(self, budget: int) -> Iterator[int]:
        """`pop` until nothing is queued or `budget` facts were popped (facts pushed while this
        runs are popped too)."""
        for _ in range(budget):
            index = self.pop()
            if index is None:
                return
            yield index

    def reporter(
        self, step: Callable[[int, int, str], None], budget: int, facts: int
    ) -> Callable[[int], None]:
        """`report(evaluated)` for `progress.on_a_clock` over `drain`: `step(evaluated, budget,
        message)`, the message naming the round, the evaluations and the facts still queued."""

        def report(evaluated: int) -> None:
            step(
                evaluated,
                budget,
                f"resolving dependencies: following Python values, round {self.rounds:,}, "
                f"{evaluated:,} evaluations ({len(self):,} of {facts:,} facts queued)",
            )

        return report
