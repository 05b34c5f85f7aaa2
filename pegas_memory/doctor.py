"""`pegas-memory doctor`: check every configured service and say what to fix."""

from __future__ import annotations

from dataclasses import dataclass

from .config import Settings
from .db import Database, redact_url
from .errors import PegasMemoryError


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str | None = None


def check_database(settings: Settings) -> list[Check]:
    where = (
        "embedded cluster"
        if settings.database_embedded
        else redact_url(settings.database_url or "")
    )
    try:
        with Database(settings) as db:
            db.open(migrate=False)
            with db.connection() as conn:
                row = conn.execute("SHOW server_version").fetchone()
                version = row["server_version"] if row else "?"
            status = db.schema_status()
    except PegasMemoryError as exc:
        return [
            Check(
                "postgresql", False, f"{where}: {exc}", "start PostgreSQL or fix PEGAS_DATABASE_URL"
            )
        ]
    checks = [Check("postgresql", True, f"{where}, server {version}")]
    if status["pending"]:
        checks.append(
            Check(
                "schema",
                False,
                f"pending migrations: {status['pending']}",
                "run `pegas-memory migrate`",
            )
        )
    elif status["edited"]:
        checks.append(
            Check(
                "schema",
                False,
                f"migrations edited after apply: {status['edited']}",
                "restore the applied files; add a new migration instead",
            )
        )
    else:
        checks.append(Check("schema", True, f"version {status['version']}"))
    return checks


def run_checks(settings: Settings) -> list[Check]:
    return check_database(settings)
