"""Errors say what happened to a write (issue 30, finding 4): a store committed in PostgreSQL
never answers "nothing was written", whatever fails after the commit; a connection lost during
the COMMIT itself says the outcome is unknown and how to check; a refused write says it was
rolled back."""

from __future__ import annotations

import contextlib
import errno
from pathlib import Path

import pytest

from pegas_memory.app.requests import StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.embedded import describe_os_error
from pegas_memory.db.pool import Database
from pegas_memory.errors import BackendUnavailable, WriteOutcomeUnknown

# A constraint trigger deferred to COMMIT that ends its own backend: the client loses the
# connection in the middle of committing (a postmaster killed, a network cut), for real.
_DIE_AT_COMMIT = """
CREATE FUNCTION test_die_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END $$;
CREATE CONSTRAINT TRIGGER die_at_commit AFTER INSERT ON pm_atom
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_die_at_commit();
"""
_LIVE_AGAIN = "DROP TRIGGER die_at_commit ON pm_atom; DROP FUNCTION test_die_at_commit();"
_COUNT = "SELECT count(*) AS n FROM pm_atom WHERE claim = %s"


def _count(service: MemoryService, claim: str) -> int:
    with service.db.connection() as conn:
        row = conn.execute(_COUNT, (claim,)).fetchone()
    return int(row["n"]) if row else 0


def test_a_connection_lost_while_committing_says_the_outcome_is_unknown(
    service: MemoryService,
) -> None:
    with service.db.connection() as conn:
        conn.execute(_DIE_AT_COMMIT)
    claim = "Соединение оборвалось во время фиксации транзакции"
    with pytest.raises(WriteOutcomeUnknown) as caught:
        service.store(StoreRequest(claim=claim))
    text = str(caught.value)
    assert "unknown" in text and "memory_search" in text, text
    assert "nothing" not in text
    with service.db.connection() as conn:
        conn.execute(_LIVE_AGAIN)
    assert _count(service, claim) == 0  # this time it was not kept: storing again is right
    again = service.store(StoreRequest(claim=claim))
    assert again.created and _count(service, claim) == 1


def test_a_failure_after_the_commit_is_a_note_not_an_error(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills up right after the commit. Injected at the database boundary: every new
    connection taken after the store's transaction fails as the embedded cluster's full disk
    is reported (ENOSPC from its probe); the transaction itself is real and commits."""
    full = BackendUnavailable(
        "the embedded PostgreSQL cannot run: "
        + describe_os_error(OSError(errno.ENOSPC, "No space left on device"), Path("/data"))
    )
    service.start_background()  # its own projection is waited for (read your writes)
    real = Database.transaction

    def transaction_then_full(self: Database):  # type: ignore[no-untyped-def]
        with real(self) as conn:
            yield conn

        def refuse(*_args: object, **_kwargs: object) -> None:
            raise full

        monkeypatch.setattr(Database, "connection", refuse)

    monkeypatch.setattr(Database, "transaction", contextlib.contextmanager(transaction_then_full))
    claim = "The disk filled up right after this claim was committed"
    result = service.store(StoreRequest(claim=claim))
    monkeypatch.undo()
    assert result.created and result.id
    assert "committed" in result.message and "full" in result.message, result.message
    assert "nothing was written" not in result.message
    assert _count(service, claim) == 1


def test_a_full_disk_message_never_claims_nothing_was_written() -> None:
    text = describe_os_error(OSError(errno.ENOSPC, "No space left on device"), Path("/data"))
    assert "full" in text and "nothing was written" not in text
