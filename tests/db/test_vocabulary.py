"""The schema's closed sets of strings (`models.Vocabulary` StrEnums) against a real PostgreSQL:
each enum is exactly the CHECK constraint of its column, psycopg writes a member as its string,
and pydantic gives the same inline JSON schema and the same JSON strings a `Literal` gave."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Literal

import pytest
from pydantic import BaseModel, TypeAdapter

from pegas_memory.config import Settings
from pegas_memory.db.pool import Database
from pegas_memory.errors import InvalidInput
from pegas_memory.models import (
    AtomStatus,
    AtomType,
    DecayProfile,
    DocumentKind,
    FeedbackOutcome,
    GapStatus,
    JobKind,
    JobState,
    LinkKind,
    TraceKind,
    Vocabulary,
)
from pegas_memory.reasoning.inference import KIND_PATTERN

# table, column -> the enum that mirrors its CHECK constraint
COLUMNS: dict[tuple[str, str], type[Vocabulary]] = {
    ("pm_atom", "type"): AtomType,
    ("pm_atom", "status"): AtomStatus,
    ("pm_atom", "decay"): DecayProfile,
    ("pm_document", "kind"): DocumentKind,
    ("pm_document", "decay"): DecayProfile,
    ("pm_episodic_trace", "kind"): TraceKind,
    ("pm_research_gap", "status"): GapStatus,
    ("pm_feedback_event", "outcome"): FeedbackOutcome,
    ("pm_job", "kind"): JobKind,
    ("pm_job", "state"): JobState,
}


@pytest.fixture
def db(settings: Settings) -> Iterator[Database]:
    database = Database(settings).open()
    yield database
    database.close()


def check_values(db: Database, table: str, column: str) -> set[str]:
    """The strings a one-column CHECK of `table` allows for `column` (from the catalog)."""
    with db.connection() as conn:
        rows = conn.execute(
            "SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint AS c "
            "JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey) "
            "WHERE c.contype = 'c' AND c.conrelid = %s::regclass AND a.attname = %s "
            "AND cardinality(c.conkey) = 1",
            (table, column),
        ).fetchall()
    assert len(rows) == 1, rows
    return set(re.findall(r"'([a-z_]+)'::text", rows[0]["def"]))


def test_each_enum_is_the_check_constraint_of_its_column(db: Database) -> None:
    for (table, column), enum in COLUMNS.items():
        assert check_values(db, table, column) == set(enum.values()), (table, column)
    # Link kinds are an open set of single tokens; the well-known ones are valid tokens.
    assert all(KIND_PATTERN.fullmatch(kind) for kind in LinkKind)


def test_psycopg_writes_a_member_as_its_string(db: Database) -> None:
    with db.transaction() as conn:
        row = conn.execute(
            "SELECT %s::text AS one, %s::text[] AS many, %s = 'stale' AS equal",
            (JobState.RUNNING, [AtomType.FACT, AtomType.CODE], AtomStatus.STALE),
        ).fetchone()
        gap = conn.execute(
            "INSERT INTO pm_research_gap (question, question_key, status) "
            "VALUES ('q?', 'q', %s) RETURNING status",
            (GapStatus.RESEARCHING,),
        ).fetchone()
    assert row == {"one": "running", "many": ["fact", "code"], "equal": True}
    assert gap is not None and gap["status"] == "researching" == GapStatus.RESEARCHING


class WithEnum(BaseModel):
    state: JobState
    states: list[JobState] | None = None
    status: AtomStatus = AtomStatus.CANDIDATE


class WithLiteral(BaseModel):
    state: Literal["queued", "running", "done", "failed", "cancelled"]
    states: list[Literal["queued", "running", "done", "failed", "cancelled"]] | None = None
    status: Literal["candidate", "verified", "stale", "contested"] = "candidate"


def test_pydantic_schema_and_json_are_a_literals() -> None:
    enum_schema = WithEnum.model_json_schema()
    literal_schema = WithLiteral.model_json_schema()
    assert enum_schema["properties"] == literal_schema["properties"]
    assert "$defs" not in enum_schema  # inline: tool input schemas are unchanged
    model = WithEnum.model_validate({"state": "running", "states": ["done"]})
    assert model.state is JobState.RUNNING and model.states == [JobState.DONE]
    dumped = model.model_dump(mode="json")
    assert dumped == {"state": "running", "states": ["done"], "status": "candidate"}
    assert json.loads(model.model_dump_json()) == dumped
    assert json.loads(json.dumps(model.model_dump())) == dumped  # members are strings
    with pytest.raises(ValueError, match="'queued', 'running', 'done', 'failed' or 'cancelled'"):
        WithEnum.model_validate({"state": "paused"})
    assert TypeAdapter(GapStatus).json_schema() == {
        "enum": ["open", "researching", "filled", "abandoned"],
        "type": "string",
    }


def test_parse_names_the_set_in_its_error() -> None:
    assert GapStatus.parse("filled", "gap status") is GapStatus.FILLED
    with pytest.raises(InvalidInput, match="unknown gap status 'done'; use one of open, "):
        GapStatus.parse("done", "gap status")
