"""Both sides of a predicate in one parametrize table: `both_sides(holds=[...], fails=[...])`
gives every case with the answer the predicate must give, True for `holds`, False for `fails`.
A case is one value or a tuple of values (as parametrize takes them)."""

from __future__ import annotations

from collections.abc import Iterable


def both_sides(*, holds: Iterable[object], fails: Iterable[object]) -> list[tuple[object, ...]]:
    def row(case: object, expected: bool) -> tuple[object, ...]:
        return (*case, expected) if isinstance(case, tuple) else (case, expected)

    return [row(case, True) for case in holds] + [row(case, False) for case in fails]
