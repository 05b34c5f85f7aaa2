"""Settings that cannot take the server down (issue 18, finding 4): list settings as people type
them, and any invalid value reported by every tool call and by doctor, with the server up."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, get_origin

import anyio
import pytest

from pegas_memory.config import Settings, load_settings, load_settings_leniently
from pegas_memory.vocabulary import (
    CodeAnalyzerMode,
    DistillerChoice,
    GraphFlavour,
    StoreProvenance,
    Switch,
    Vocabulary,
    WebRender,
)
from tests.cli_run import run_cli
from tests.mcp_harness import error_text, mcp_client, structured
from tests.server.test_mcp_e2e import EXPECTED_TOOLS


def test_list_settings_take_plain_paths_path_lists_json_and_commas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PEGAS_INGEST_ROOTS", "/home/me/papers")
    assert load_settings().ingest_roots == [Path("/home/me/papers")]
    monkeypatch.setenv("PEGAS_INGEST_ROOTS", f"/home/me/papers{os.pathsep}/srv/docs")
    assert load_settings().ingest_roots == [Path("/home/me/papers"), Path("/srv/docs")]
    monkeypatch.setenv("PEGAS_INGEST_ROOTS", '["/srv/a", "/srv/b"]')
    assert load_settings().ingest_roots == [Path("/srv/a"), Path("/srv/b")]
    monkeypatch.setenv("PEGAS_URL_ALLOWLIST", "example.org, 10.0.0.0/8")
    assert load_settings().url_allowlist == ["example.org", "10.0.0.0/8"]
    monkeypatch.setenv("PEGAS_URL_ALLOWLIST", '["example.org"]')
    assert load_settings().url_allowlist == ["example.org"]
    assert load_settings(ingest_roots=[Path("/x")]).ingest_roots == [Path("/x")]  # in code


def test_invalid_values_are_issues_with_a_right_example_not_a_crash(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PEGAS_DB_POOL_MAX", "eight")
    monkeypatch.setenv("PEGAS_ENGINE_HOST", "sometimes")
    monkeypatch.setenv("PEGAS_DATABASE_URL", "pm:s3cret@localhost:5432")
    monkeypatch.setenv("PEGAS_QDRANT_URL", "ftp://user:hunter2@qdrant:6333")
    settings, issues = load_settings_leniently(data_dir=tmp_path)
    by_name = {i.name: i for i in issues}
    assert set(by_name) == {
        "PEGAS_DB_POOL_MAX",
        "PEGAS_ENGINE_HOST",
        "PEGAS_DATABASE_URL",
        "PEGAS_QDRANT_URL",
    }
    assert "eight" in by_name["PEGAS_DB_POOL_MAX"].problem
    assert by_name["PEGAS_DB_POOL_MAX"].example == "8"
    assert "on" in by_name["PEGAS_ENGINE_HOST"].example
    assert by_name["PEGAS_DATABASE_URL"].example.startswith("postgresql://")
    assert by_name["PEGAS_QDRANT_URL"].example.startswith("http://")
    assert "hunter2" not in by_name["PEGAS_QDRANT_URL"].sentence()  # passwords never echoed
    # every bad value was replaced by its default; the good ones were kept
    assert settings.db_pool_max == 8 and settings.engine_host == "auto"
    assert settings.database_url is None and settings.data_dir == tmp_path.resolve()


CHOICES: dict[str, type[Vocabulary]] = {
    "engine_host": Switch,
    "embedded_worker": Switch,
    "graph_flavour": GraphFlavour,
    "distiller": DistillerChoice,
    "web_render": WebRender,
    "code_analyzer": CodeAnalyzerMode,
    "store_provenance": StoreProvenance,
}


def test_every_closed_choice_of_the_settings_is_a_vocabulary() -> None:
    closed = {
        f for f, info in Settings.model_fields.items() if get_origin(info.annotation) is Literal
    }
    assert closed == set()  # a closed set of words is a Vocabulary, declared in vocabulary.py
    assert {f: Settings.model_fields[f].annotation for f in CHOICES} == CHOICES


@pytest.mark.parametrize("field", sorted(CHOICES))
def test_a_choice_is_read_as_its_member_and_a_wrong_word_names_every_choice(
    field: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    variable = f"PEGAS_{field.upper()}"
    for member in CHOICES[field]:
        monkeypatch.setenv(variable, member.value)
        assert getattr(load_settings(data_dir=tmp_path), field) is member
    monkeypatch.setenv(variable, "sometimes")
    settings, issues = load_settings_leniently(data_dir=tmp_path)
    (issue,) = [i for i in issues if i.name == variable]
    assert issue.example == " or ".join(CHOICES[field].values())
    assert getattr(settings, field) == Settings.model_fields[field].default  # the default kept


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"PEGAS_DATA_DIR": str(tmp_path / "data"), **extra}


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_serve_with_a_plain_path_ingest_root(tmp_path: Path) -> None:
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "note.md").write_text("# Entropy\n\nEntropy measures uncertainty of a source.\n")
    env = _env(tmp_path, PEGAS_INGEST_ROOTS=str(papers))  # today: exit 2, "Connection closed"
    with anyio.fail_after(240):
        async with mcp_client(env) as client:
            ingested = structured(
                await client.call_tool("memory_ingest", {"source": str(papers / "note.md")})
            )
            assert ingested["finished"], ingested
            [result] = ingested["results"]
            assert result["document_id"] is not None and result["chunks"] >= 1


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_serve_with_invalid_settings_lists_tools_and_every_call_says_why(
    tmp_path: Path,
) -> None:
    env = _env(tmp_path, PEGAS_TOOL_TIMEOUT="soon", PEGAS_DISTILLER="clever")
    with anyio.fail_after(120):
        async with mcp_client(env) as client:
            tools = (await client.list_tools()).tools
            assert {t.name for t in tools} == EXPECTED_TOOLS  # every tool, though none can run
            for name, args in (
                ("memory_stats", {}),
                ("memory_store", {"claim": "never stored"}),
                ("memory_search", {"query": "anything"}),
            ):
                text = error_text(await client.call_tool(name, args))
                assert "PEGAS_TOOL_TIMEOUT" in text and "'soon'" in text, text
                assert "PEGAS_TOOL_TIMEOUT=120.0" in text  # a right value
                assert "PEGAS_DISTILLER" in text and "offline" in text
    assert not (tmp_path / "data" / "postgres").exists()  # nothing was started on defaults


def test_doctor_names_the_invalid_setting_and_its_fix(tmp_path: Path) -> None:
    done = run_cli(_env(tmp_path, PEGAS_OUTBOX_BATCH_SIZE="lots"), "doctor", timeout=120)
    assert done.returncode == 1
    assert "[FAIL] setting PEGAS_OUTBOX_BATCH_SIZE" in done.stdout
    assert "fix: set PEGAS_OUTBOX_BATCH_SIZE=256" in done.stdout
    assert "Traceback" not in done.stderr
