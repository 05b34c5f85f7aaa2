"""Progress on a clock for loops over many cheap items (pure apart from the clock).

A loop over 300,000 dependency edges reports nothing per item (that would be 300,000 progress
writes), and nothing at all went 37 s on a loaded machine (sqlalchemy's index, issue 17). Items
passed through `on_a_clock` are counted, the clock is read every `check_every` of them, and
`report(count)` is called once `every` seconds have passed since the last report: reports come at
that pace whatever the machine's speed, and cost nothing measurable per item.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

REPORT_SECONDS = 2.0
CHECK_EVERY = 1_000


def on_a_clock(
    items: Iterable[T],
    report: Callable[[int], None],
    *,
    every: float | None = None,
    check_every: int | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[T]:
    """Yield `items` unchanged; call `report(n)`, n the items yielded so far, whenever the clock
    (read every `check_every` items, `CHECK_EVERY` unless given) shows `every` seconds
    (`REPORT_SECONDS` unless given) since the previous report or the start."""
    every = REPORT_SECONDS if every is None else every
    check_every = max(1, CHECK_EVERY if check_every is None else check_every)
    last = clock()
    for n, item in enumerate(items):
        if n and n % check_every == 0 and clock() - last >= every:
            report(n)
            last = clock()
        yield item
