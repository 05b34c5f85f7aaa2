"""The distiller's labelled cases, kept as data: one TOML file per stage under
`tests/distill/cases/` (`segment`, `context`, `type`, `promote`), read by that stage's test module.

A file is a set of tables, one per behaviour, named as a test would be named::

    # why the rule exists, what it must not do
    [a_subjectless_sentence_goes_on_about_the_relative_before]
    check = "continues_relative"      # the key of the stage's CHECKS: the function under test
    columns = ["sentence", "before"]  # its arguments, in the order of a row
    holds = [["Работал приказчиком в Москве.", "Его отец родом из Рязани."]]   # it answers True
    fails = [["Её сестра жила в Москве.", "Мать — Анастасия Даниловна Черняк."]]  # ... False
    # or, when the answer is not a yes/no: the last column of each row is the answer
    cases = [["Упомянутая регистрация ведётся в повете.", "ru", "fact"]]

Each row is one test, with the behaviour and the row's number as its id
(`test_segment_rule[a_subjectless_sentence_goes_on_about_the_relative_before:holds:1]`), so a
failure says which rule and which sentence. A row may be a single value when there is one column.
A label is data: whoever writes a rule does not edit the rows that grade it in the same change.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CASES_DIR = Path(__file__).with_name("cases")


@dataclass(frozen=True)
class Case:
    """One labelled row: the check to run, its arguments by name, and the answer it must give."""

    behaviour: str
    check: str
    arguments: Mapping[str, Any]
    expected: Any

    def assert_answered(self, checks: Mapping[str, Callable[..., Any]]) -> None:
        """Run the check on the row's arguments: it must give the expected answer (a yes/no
        row a real bool, not something truthy)."""
        answer = checks[self.check](**self.arguments)
        if isinstance(self.expected, bool):
            assert answer is self.expected, (self.arguments, answer)
        else:
            assert answer == self.expected, (self.arguments, answer)


def _rows(table: Mapping[str, Any]) -> list[tuple[str, list[Any], Any]]:
    """(label, argument values, expected answer) of every row of one behaviour's table."""

    def values(row: Any) -> list[Any]:
        return list(row) if isinstance(row, list) else [row]

    rows = [("holds", values(row), True) for row in table.get("holds", [])]
    rows += [("fails", values(row), False) for row in table.get("fails", [])]
    rows += [("case", values(row)[:-1], values(row)[-1]) for row in table.get("cases", [])]
    return rows


def load_cases(stage: str) -> list[Any]:
    """Every row of `cases/<stage>.toml` as a pytest param holding a `Case`."""
    tables = tomllib.loads((CASES_DIR / f"{stage}.toml").read_text(encoding="utf-8"))
    params = []
    for behaviour, table in tables.items():
        columns = table["columns"]
        counts: dict[str, int] = {}
        for label, values, expected in _rows(table):
            if len(values) != len(columns):
                raise ValueError(f"{stage}.toml [{behaviour}]: {values!r} does not match {columns}")
            counts[label] = counts.get(label, 0) + 1
            case = Case(
                behaviour, table["check"], dict(zip(columns, values, strict=True)), expected
            )
            params.append(pytest.param(case, id=f"{behaviour}:{label}:{counts[label]}"))
    if not params:
        raise ValueError(f"{stage}.toml holds no cases")
    return params


def case_files() -> list[Path]:
    return sorted(CASES_DIR.glob("*.toml"))
