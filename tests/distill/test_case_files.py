"""Every case file of the distiller is read by a test module of its stage, and each of its tables
names a check that module knows (a file or a table nobody runs would test nothing)."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest

from tests.distill.cases import case_files


@pytest.mark.parametrize("path", case_files(), ids=lambda path: path.stem)
def test_every_table_of_a_case_file_is_run_by_its_stage(path: Path) -> None:
    module = importlib.import_module(f"tests.distill.test_{path.stem}_rules")
    tables = tomllib.loads(path.read_text(encoding="utf-8"))
    unknown = {name: t["check"] for name, t in tables.items() if t["check"] not in module.CHECKS}
    assert not unknown, unknown
