"""`pegas-memory ingest` over the real CLI in a subprocess on the embedded default: a second
ingest of the same bytes is answered "unchanged" without reading them again, and `--redistill`
reads them again with the running distiller, keeping the document's id and its atoms."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.distill.types import OFFLINE_VERSION
from tests.app.test_cli_jobs import env
from tests.cli_run import run_cli as cli

pytestmark = pytest.mark.timeout(900)

__all__ = ["env"]  # the fixture this file borrows

TEXT = (
    "# Volga\n\nThe Volga is the longest river in Europe. It flows into the Caspian Sea.\n\n"
    "The river is 3,530 km long and drains a basin of 1.36 million square kilometres.\n"
)


def ingest(env: dict[str, str], *args: str) -> dict[str, Any]:
    done = cli(env, "ingest", "--quiet", *args)
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout))


def test_redistill_reads_an_unchanged_file_again(env: dict[str, str], tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    (files / "volga.md").write_text(TEXT, encoding="utf-8")
    env = {**env, "PEGAS_INGEST_ROOTS": str(files)}
    path = str(files / "volga.md")

    first = ingest(env, path)
    assert first["atoms_new"] >= 2 and not first["unchanged"]

    again = ingest(env, path)
    assert again["unchanged"] and again["redistilled"] is None
    assert again["document_id"] == first["document_id"]

    forced = ingest(env, "--redistill", path)
    assert forced["redistilled"] == f"{OFFLINE_VERSION} -> {OFFLINE_VERSION}"
    assert forced["document_id"] == first["document_id"]
    assert forced["atoms_kept"] == first["atoms_new"] and forced["atoms_new"] == 0
