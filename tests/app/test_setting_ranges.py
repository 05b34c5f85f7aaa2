"""Every numeric setting has a range checked at start (issue 30, finding 5): a value out of it
is a setting issue like any other (named, with a right example), the server stays up without
starting the engine host or loading the model, and `doctor` lists it."""

from __future__ import annotations

from pathlib import Path

import annotated_types
import anyio
import pytest

from pegas_memory.config import Settings, load_settings_leniently
from tests.cli_run import run_cli
from tests.mcp_harness import error_text, mcp_client

OUT_OF_RANGE = {
    "PEGAS_OUTBOX_POLL_SECONDS": "0",  # an idle serve spun at 94% of a core
    "PEGAS_SLICE_CHECK_SECONDS": "-5",
    "PEGAS_JOB_WORKERS": "-3",  # jobs stayed queued while the message said a serve runs them
}


def _bounds(field: str) -> list[object]:
    kinds = (annotated_types.Ge, annotated_types.Gt, annotated_types.Le, annotated_types.Lt)
    return [m for m in Settings.model_fields[field].metadata if isinstance(m, kinds)]


def test_every_numeric_setting_has_a_lower_and_an_upper_bound() -> None:
    unbounded = []
    for name, info in Settings.model_fields.items():
        if info.annotation not in (int, float):
            continue
        found = _bounds(name)
        lower = any(isinstance(b, annotated_types.Ge | annotated_types.Gt) for b in found)
        upper = any(isinstance(b, annotated_types.Le | annotated_types.Lt) for b in found)
        if not (lower and upper):
            unbounded.append(name)
    assert not unbounded


@pytest.mark.parametrize(("variable", "value"), sorted(OUT_OF_RANGE.items()))
def test_a_value_out_of_range_is_an_issue_naming_the_variable_and_a_right_value(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    settings, issues = load_settings_leniently(data_dir=tmp_path)
    [issue] = issues
    assert issue.name == variable
    assert repr(value) in issue.problem and "greater than" in issue.problem
    field = variable.removeprefix("PEGAS_").lower()
    default = Settings.model_fields[field].default
    assert issue.example == str(default)
    assert getattr(settings, field) == default  # replaced by its default meanwhile


@pytest.mark.parametrize("value", ["nan", "inf", "1e12"])
def test_non_finite_and_huge_periods_are_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str
) -> None:
    monkeypatch.setenv("PEGAS_SLICE_CHECK_SECONDS", value)
    _settings, issues = load_settings_leniently(data_dir=tmp_path)
    assert [i.name for i in issues] == ["PEGAS_SLICE_CHECK_SECONDS"]


def test_values_at_the_bounds_are_accepted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PEGAS_JOB_WORKERS", "0")  # a serve that runs no jobs: allowed
    monkeypatch.setenv("PEGAS_SLICE_CHECK_SECONDS", "0.1")
    monkeypatch.setenv("PEGAS_DEDUP_THRESHOLD", "1")
    settings, issues = load_settings_leniently(data_dir=tmp_path)
    assert issues == ()
    assert settings.job_workers == 0 and settings.slice_check_seconds == 0.1


def _env(tmp_path: Path) -> dict[str, str]:
    return {"PEGAS_DATA_DIR": str(tmp_path / "data"), **OUT_OF_RANGE}


def test_doctor_lists_every_setting_out_of_range(tmp_path: Path) -> None:
    done = run_cli(_env(tmp_path), "doctor", timeout=120)
    assert done.returncode == 1
    for variable in OUT_OF_RANGE:
        assert f"[FAIL] setting {variable}" in done.stdout, done.stdout
    assert "fix: set PEGAS_JOB_WORKERS=2" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_serve_with_settings_out_of_range_answers_and_starts_no_engine(
    tmp_path: Path,
) -> None:
    with anyio.fail_after(120):
        async with mcp_client(_env(tmp_path)) as client:
            text = error_text(await client.call_tool("memory_stats", {}))
            for variable in OUT_OF_RANGE:
                assert variable in text, text
            assert "PEGAS_OUTBOX_POLL_SECONDS=2.0" in text
            text = error_text(await client.call_tool("memory_search", {"query": "что-нибудь"}))
            assert "PEGAS_JOB_WORKERS" in text
    data = tmp_path / "data"
    assert not (data / "host").exists()  # no engine host (and so no model) was started
    assert not (data / "postgres").exists() and not (data / "qdrant").exists()
