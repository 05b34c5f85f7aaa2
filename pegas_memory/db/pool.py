"""PostgreSQL access: the connection pool, transactions, error translation and migrations.

PostgreSQL is the single source of truth. Every write goes through `Database.transaction()`, so a
domain row and the outbox rows its triggers add commit or roll back together. Driver errors are
translated once, here: an unreachable server becomes BackendUnavailable, bad data InvalidInput, a
full disk a sentence naming it. On the embedded cluster a connection that cannot be had at once
triggers the liveness check (and a restart of a killed server) instead of a full connect timeout.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import psycopg
import psycopg_pool
from psycopg.rows import dict_row

from pegas_memory.config import Settings
from pegas_memory.db.embedded import (
    EmbeddedPostgres,
    data_dir_problem,
    describe_os_error,
    start_embedded_postgres,
)
from pegas_memory.db.queries import DB_SQL as Q
from pegas_memory.errors import (
    BackendUnavailable,
    InvalidInput,
    LimitExceeded,
    PegasMemoryError,
    WriteOutcomeUnknown,
)

log = logging.getLogger(__name__)

Conn = psycopg.Connection[dict[str, Any]]

# Any constant works; it only has to be the same for every pegas-memory process.
_MIGRATION_LOCK = 7_355_608_001

# The embedded cluster is a unix socket of this machine: a connection it cannot give within this
# long means it is busy or dead, so the liveness check runs then, not after the connect timeout.
EMBEDDED_FIRST_WAIT = 0.25
EMBEDDED_CONNECT_TIMEOUT = 2
# How often a call checks, unasked, that the embedded server still runs (one /proc read).
LIVENESS_CHECK_SECONDS = 0.2


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def migrations_dir() -> Path:
    """The SQL migrations: inside the installed package, or `migrations/` of a source checkout."""
    packaged = Path(str(resources.files("pegas_memory"))) / "migrations"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "migrations"


def load_migrations(directory: Path | None = None) -> list[Migration]:
    directory = directory or migrations_dir()
    found = []
    for path in sorted(directory.glob("*.sql")):
        match = re.match(r"^(\d+)_", path.name)
        if match:
            found.append(Migration(int(match.group(1)), path.stem, path.read_text("utf-8")))
    versions = [m.version for m in found]
    if len(versions) != len(set(versions)):
        raise PegasMemoryError(f"two migrations share a version number in {directory}")
    return found


def translate_error(exc: Exception, *, embedded_at: Path | None = None) -> PegasMemoryError:
    """One place that turns driver errors into the pegas-memory error tree.

    `embedded_at` is the embedded cluster's directory when that is what we talk to: its advice
    is then about that directory, never about PEGAS_DATABASE_URL, which is not set.
    """
    if isinstance(exc, psycopg.errors.QueryCanceled):
        return LimitExceeded(
            "a database statement ran past PEGAS_STATEMENT_TIMEOUT_MS and was cancelled; "
            "nothing it started was kept. Retry with less input, or raise that setting."
        )
    text = str(exc).strip()
    if isinstance(exc, psycopg.errors.DiskFull) or "No space left on device" in text:
        where = embedded_at if embedded_at is not None else "the PostgreSQL server's data"
        return BackendUnavailable(
            f"PostgreSQL could not write: the disk holding {where} is full. The write that "
            "hit it was rolled back (what this call committed before stays): free some space "
            "there, then retry."
        )
    if isinstance(exc, OSError):
        return BackendUnavailable(describe_os_error(exc, embedded_at or Path(".")))
    if isinstance(exc, psycopg_pool.PoolTimeout | psycopg.OperationalError):
        if embedded_at is not None:
            problem = data_dir_problem(embedded_at)
            if problem is not None:
                return BackendUnavailable(f"the embedded PostgreSQL cannot run: {problem}.")
            return BackendUnavailable(
                f"the embedded PostgreSQL under {embedded_at} did not answer ({text[:300]}); it "
                "is started again on the next call. Retry; if it persists run `pegas-memory "
                "doctor`."
            )
        return BackendUnavailable(
            f"PostgreSQL is unreachable ({text[:300]}). Retry shortly; if it persists "
            "check PEGAS_DATABASE_URL or run `pegas-memory doctor`."
        )
    if isinstance(exc, psycopg.DataError | psycopg.errors.IntegrityError):
        return InvalidInput(f"the database refused the data: {text[:300]}")
    return PegasMemoryError(f"database error: {text[:300]}")


class Database:
    """A pool of connections to the configured PostgreSQL, or to the embedded cluster."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._embedded: EmbeddedPostgres | None = None
        self._pool: psycopg_pool.ConnectionPool | None = None
        self.url: str = ""
        self._revive_lock = threading.Lock()
        self._checked_at = 0.0  # when the embedded server was last seen alive (monotonic)

    # ------------------------------------------------------------------ lifecycle
    def open(self, *, migrate: bool = True) -> Database:
        """Connect (starting the embedded cluster if no URL is set) and apply pending migrations."""
        if self.settings.database_url:
            self.url = self.settings.database_url
        else:
            self._embedded = start_embedded_postgres(self.settings.data_dir)
            self.url = self._embedded.uri
        self._pool = self._open_pool()
        if migrate:
            try:
                applied = self.migrate()
                if self._embedded is not None:
                    self._settle_embedded(checkpoint=bool(applied))
            except BaseException:
                self.close()
                raise
        return self

    def _settle_embedded(self, *, checkpoint: bool) -> None:
        """Make the embedded cluster's recovery after a kill short from the first kill on: the
        server takes the settings `db.embedded` wrote (checkpoints every 30 s), and a schema
        just created is checkpointed now. Without that, the first crash recovery of a new
        cluster wrote and fsynced the ~200 files of the migrations in its end-of-recovery
        checkpoint: 0.7 s idle, over 2 s under load (measured), the slowest of every run."""
        with self.connection() as conn:
            conn.execute(Q.reload_config)
            if checkpoint:
                conn.execute(Q.checkpoint)

    @property
    def embedded_at(self) -> Path | None:
        """The embedded cluster's directory, or None on an external server."""
        return self._embedded.pgdata if self._embedded is not None else None

    def _connect_timeout(self) -> int:
        timeout = max(1, int(self.settings.db_connect_timeout))
        return min(timeout, EMBEDDED_CONNECT_TIMEOUT) if self._embedded is not None else timeout

    def _open_pool(self) -> psycopg_pool.ConnectionPool:
        pool = psycopg_pool.ConnectionPool(
            self.url,
            min_size=self.settings.db_pool_min,
            max_size=self.settings.db_pool_max,
            kwargs={
                "connect_timeout": self._connect_timeout(),
                "options": f"-c statement_timeout={self.settings.statement_timeout_ms}",
                "application_name": "pegas-memory",
            },
            check=psycopg_pool.ConnectionPool.check_connection,
            open=False,
            name="pegas-memory",
        )
        try:
            pool.open(wait=True, timeout=self.settings.db_connect_timeout)
        except psycopg_pool.PoolTimeout as exc:
            pool.close()
            if self._pool is None:
                embedded_at = self.embedded_at
                self.close()
                if embedded_at is not None:
                    raise translate_error(exc, embedded_at=embedded_at) from exc
            elif self.embedded_at is not None:
                raise translate_error(exc, embedded_at=self.embedded_at) from exc
            raise BackendUnavailable(
                f"cannot connect to PostgreSQL at {redact_url(self.url)}: check that it runs and "
                "that PEGAS_DATABASE_URL is right (unset it to use the embedded cluster)."
            ) from exc
        return pool

    def _ensure_embedded_alive(self, *, force: bool = False) -> bool:
        """Start the embedded server again if it died under this process; True if it did.

        Checked at most every LIVENESS_CHECK_SECONDS (or now, with `force`, after a failed
        connection), so the common path costs nothing. A new pool replaces the one whose
        connections died.
        """
        embedded = self._embedded
        if embedded is None:
            return False
        now = time.monotonic()
        if not force and now - self._checked_at < LIVENESS_CHECK_SECONDS:
            return False
        with self._revive_lock:
            if embedded.running():
                self._checked_at = time.monotonic()
                return False
            log.warning(
                "the embedded PostgreSQL under %s is not running; starting it again",
                embedded.pgdata,
            )
            embedded.restart()
            self.url = embedded.uri
            old, self._pool = self._pool, self._open_pool()
            self._checked_at = time.monotonic()
        if old is not None:
            old.close(timeout=0)
        return True

    def ensure_alive(self) -> bool:
        """Check the embedded server now and start it again if it died; True if it did.

        For callers with their own connections (the outbox worker's LISTEN), whose failure says
        the server may be gone. Nothing to do on an external server.
        """
        return self._ensure_embedded_alive(force=True)

    def notify(self, channel: str) -> None:
        """Wake every LISTENer of `channel` now (a stopping worker's wait ends at once)."""
        with self.connection() as conn:
            conn.execute(Q.notify, {"channel": channel})

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._embedded is not None:
            self._embedded.close()
            self._embedded = None

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def is_open(self) -> bool:
        return self._pool is not None

    @property
    def embedded(self) -> bool:
        return self._embedded is not None

    # ------------------------------------------------------------------ connections
    def _getconn(self) -> tuple[psycopg_pool.ConnectionPool, psycopg.Connection[Any]]:
        """A connection and the pool it came from; driver errors leave as pegas-memory errors.

        On the embedded cluster the wait is cut into slices of EMBEDDED_FIRST_WAIT, each failed
        one followed by the liveness check (a few microseconds: one /proc read), and every
        slice asks the *current* pool. So a killed server is started again within a slice, and
        a call waiting on a pool that another thread (the worker's reconnect) has just replaced
        moves to the new one at once, instead of waiting out the connect timeout in the old
        pool's reconnect backoff or failing with its PoolClosed."""
        timeout = self.settings.db_connect_timeout
        if self._embedded is None:
            pool = self._current_pool()
            try:
                return pool, pool.getconn(timeout=timeout)
            except psycopg_pool.PoolTimeout as exc:
                raise translate_error(exc) from exc
        self._ensure_embedded_alive()
        deadline = time.monotonic() + timeout
        while True:
            pool = self._current_pool()
            left = deadline - time.monotonic()
            try:
                return pool, pool.getconn(timeout=max(0.05, min(EMBEDDED_FIRST_WAIT, left)))
            except psycopg_pool.PoolClosed as exc:
                if self._pool is pool:  # closed for good, not replaced
                    raise BackendUnavailable(
                        "PostgreSQL is not connected: this process is closing its database"
                    ) from exc
            except psycopg_pool.PoolTimeout as exc:
                if left <= EMBEDDED_FIRST_WAIT:
                    raise translate_error(exc, embedded_at=self.embedded_at) from exc
                # Busy, or dead: check now (a killed server is started again), then go on.
                self._ensure_embedded_alive(force=True)

    def _current_pool(self) -> psycopg_pool.ConnectionPool:
        pool = self._pool
        if pool is None:
            raise BackendUnavailable(
                "PostgreSQL is not connected (it was unreachable when this process started); "
                "retry shortly, or run `pegas-memory doctor`"
            )
        return pool

    @contextmanager
    def _pooled(self) -> Iterator[psycopg.Connection[dict]]:  # type: ignore[type-arg]
        """A pooled connection with dict rows; driver errors leave as pegas-memory errors."""
        pool, conn = self._getconn()
        try:
            with conn:  # as pool.connection() does: commit or roll back on the way out
                conn.row_factory = dict_row  # type: ignore[assignment]
                yield conn  # type: ignore[misc]
        except PegasMemoryError:
            raise
        except psycopg.Error as exc:
            if isinstance(exc, psycopg.OperationalError) and self._embedded is not None:
                self._checked_at = 0.0  # the server may have died: the next call checks at once
            raise translate_error(exc, embedded_at=self.embedded_at) from exc
        finally:
            pool.putconn(conn)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[dict]]:  # type: ignore[type-arg]
        """A pooled connection in autocommit mode (for LISTEN and read-only work)."""
        with self._pooled() as conn:
            conn.autocommit = True
            try:
                yield conn
            finally:
                conn.autocommit = False

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection[dict]]:  # type: ignore[type-arg]
        """One transaction: everything inside commits together or not at all.

        A connection lost during the COMMIT itself leaves its outcome unknown (the server may
        have committed before the answer was lost): that raises `WriteOutcomeUnknown`, never
        an error saying nothing was written."""
        committing = False
        try:
            with self._pooled() as conn, conn.transaction():
                yield conn
                committing = True
        except BackendUnavailable as exc:
            if not committing or not isinstance(exc.__cause__, psycopg.OperationalError):
                raise
            if isinstance(exc.__cause__, psycopg.errors.DiskFull):
                raise  # refused by the server: rolled back, nothing kept
            raise WriteOutcomeUnknown(
                f"the connection to PostgreSQL was lost while this write was being committed "
                f"({str(exc.__cause__).strip()[:200]}): whether it was kept is unknown. Look "
                "before writing it again (memory_search for its words, or memory_stats); a "
                "repeated memory_store of the same claim is recognised as a duplicate."
            ) from exc

    # ------------------------------------------------------------------ migrations
    def migrate(self) -> list[str]:
        """Apply pending migrations in order, each in its own transaction; return their names.

        An advisory lock serialises concurrent starts of several pegas-memory processes.
        """
        applied: list[str] = []
        with self.connection() as conn:
            conn.execute(Q.migration_lock, (_MIGRATION_LOCK,))
            try:
                conn.execute(Q.create_migration_ledger)
                rows = conn.execute(Q.applied_migrations).fetchall()
                done = {r["version"]: r["checksum"] for r in rows}
                for migration in load_migrations():
                    if migration.version in done:
                        if done[migration.version] != migration.checksum:
                            log.warning(
                                "migration %s changed after it was applied; "
                                "applied files must never be edited",
                                migration.name,
                            )
                        continue
                    with conn.transaction():
                        conn.execute(migration.sql.encode())
                        conn.execute(
                            Q.record_migration,
                            (migration.version, migration.name, migration.checksum),
                        )
                    log.info("applied migration %s", migration.name)
                    applied.append(migration.name)
            finally:
                conn.execute(Q.migration_unlock, (_MIGRATION_LOCK,))
        return applied

    def schema_status(self) -> dict[str, object]:
        """Applied and pending migrations, and files edited after they were applied."""
        with self.connection() as conn:
            rows = conn.execute(Q.migration_ledger).fetchall()
        done = {r["version"]: r for r in rows}
        known = load_migrations()
        return {
            "applied": [r["name"] for r in rows],
            "pending": [m.name for m in known if m.version not in done],
            "edited": [
                m.name
                for m in known
                if m.version in done and done[m.version]["checksum"] != m.checksum
            ],
            "version": max(done) if done else 0,
        }


def redact_url(url: str) -> str:
    """The URL with any password replaced, safe to log or return."""
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)
