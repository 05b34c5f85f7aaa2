"""What the database holds, to prove a call wrote nothing (`fingerprint`, `row_counts`), and a wait
for the jobs a call left running (`settle_jobs`)."""

from __future__ import annotations

import time

import psycopg

# The domain tables a tool call may write. pm_outbox is counted, not hashed: the worker updates
# its rows (processed_at, attempts) on its own, but only a tool call inserts one.
DOMAIN_TABLES = (
    "pm_document",
    "pm_chunk",
    "pm_atom",
    "pm_status_change",
    "pm_atom_link",
    "pm_citation",
    "pm_code_symbol",
    "pm_code_dependency",
    "pm_code_repo",
    "pm_code_file",
    "pm_episodic_trace",
    "pm_research_gap",
    "pm_gap_atom",
    "pm_feedback_event",
    "pm_atom_feedback",
    "pm_passage_feedback",
)
# Columns that reads may legitimately touch (access statistics) or that are derived.
_VOLATILE = ("access_count", "last_access_at", "tsv")


def fingerprint(database_url: str) -> dict[str, str]:
    """Row count and a content hash per domain table, plus the number of outbox events."""
    out: dict[str, str] = {}
    drop = " ".join(f"- '{c}'" for c in _VOLATILE)
    with psycopg.connect(database_url, autocommit=True, connect_timeout=10) as conn:
        for table in DOMAIN_TABLES:
            row = conn.execute(
                f"SELECT count(*), md5(coalesce(string_agg((to_jsonb(t) {drop})::text, '|' "
                f"ORDER BY (to_jsonb(t) {drop})::text), '')) FROM {table} t"
            ).fetchone()
            assert row is not None
            out[table] = f"{row[0]}:{row[1]}"
        events = conn.execute("SELECT count(*) FROM pm_outbox").fetchone()
        assert events is not None
        out["pm_outbox"] = str(events[0])
    return out


def row_counts(database_url: str) -> dict[str, int]:
    return {t: int(v.split(":")[0]) for t, v in fingerprint(database_url).items()}


def settle_jobs(database_url: str, timeout: float = 180.0) -> None:
    """Wait until no job is queued or running: a call that answered with a job id leaves its
    work running in the background, and its writes must not be blamed on the next call."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(database_url, autocommit=True, connect_timeout=10) as conn:
        while True:
            row = conn.execute(
                "SELECT count(*) FROM pm_job WHERE state IN ('queued', 'running')"
            ).fetchone()
            if row is None or row[0] == 0:
                return
            assert time.monotonic() < deadline, f"{row[0]} jobs still running after {timeout} s"
            time.sleep(0.1)
