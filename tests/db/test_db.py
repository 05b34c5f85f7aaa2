"""The source of truth: migrations and repository invariants, on both PostgreSQL kinds."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from pegas_memory.db.pool import Database, load_migrations
from pegas_memory.db.repo import (
    AtomInput,
    ChunkInput,
    DocumentInput,
    add_citation,
    add_link,
    copy_chunk_citations,
    insert_atom,
    insert_chunks,
    set_status,
    upsert_document,
)
from pegas_memory.errors import BackendUnavailable, InvalidInput
from tests.conftest import make_settings

EXPECTED_TABLES = {
    "pm_document",
    "pm_chunk",
    "pm_atom",
    "pm_atom_link",
    "pm_citation",
    "pm_code_symbol",
    "pm_code_dependency",
    "pm_episodic_trace",
    "pm_research_gap",
    "pm_outbox",
    "pm_embedding_cache",
    "pm_status_change",
    "pm_schema_migration",
}


def outbox(conn: psycopg.Connection) -> list[tuple[str, int, str]]:  # type: ignore[type-arg]
    rows = conn.execute("SELECT entity_type, entity_id, op FROM pm_outbox ORDER BY id").fetchall()
    return [(r["entity_type"], r["entity_id"], r["op"]) for r in rows]


@pytest.fixture
def db(any_database_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    database = Database(make_settings(tmp_path, database_url=any_database_url)).open()
    yield database
    database.close()


def test_migrations_from_empty_then_idempotent(db: Database) -> None:
    with db.connection() as conn:
        tables = {
            r["tablename"]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        }
    assert tables >= EXPECTED_TABLES
    status = db.schema_status()
    assert status["pending"] == [] and status["edited"] == []
    assert status["applied"] == [m.name for m in load_migrations()]
    assert db.migrate() == []  # second run applies nothing


def test_every_change_writes_exactly_one_outbox_row(db: Database) -> None:
    with db.transaction() as conn:
        a, created = insert_atom(conn, AtomInput(type="fact", claim="Water boils at 100 C"))
        assert created
        b, _ = insert_atom(conn, AtomInput(type="definition", claim="Entropy is a measure"))
        link, _ = add_link(conn, a, b, "reference")
    with db.transaction() as conn:
        assert outbox(conn) == [
            ("atom", a, "upsert"),
            ("atom", b, "upsert"),
            ("link", link, "upsert"),
        ]
        set_status(conn, a, "verified", reason="test", check_name="unit")
        conn.execute("DELETE FROM pm_atom WHERE id = %s", (b,))
    with db.transaction() as conn:
        events = outbox(conn)[3:]
        # the status update, then the cascaded link delete and the atom delete
        assert ("atom", a, "upsert") == events[0]
        assert sorted(events[1:]) == sorted([("link", link, "delete"), ("atom", b, "delete")])
        payload = conn.execute(
            "SELECT payload FROM pm_outbox WHERE entity_type = 'link' AND op = 'delete'"
        ).fetchone()
        assert payload["payload"]["src_atom_id"] == a and payload["payload"]["kind"] == "reference"


def test_dedup_by_content_hash(db: Database) -> None:
    with db.transaction() as conn:
        first, created1 = insert_atom(conn, AtomInput(type="fact", claim="The sky is blue."))
        second, created2 = insert_atom(conn, AtomInput(type="fact", claim="  the SKY is   blue. "))
        assert created1 and not created2 and first == second
        assert len(outbox(conn)) == 1


def test_rollback_leaves_no_outbox_row(db: Database) -> None:
    with pytest.raises(RuntimeError), db.transaction() as conn:
        insert_atom(conn, AtomInput(type="fact", claim="never committed"))
        raise RuntimeError("boom")
    with db.transaction() as conn:
        assert conn.execute("SELECT count(*) AS n FROM pm_atom").fetchone()["n"] == 0
        assert outbox(conn) == []


def test_confidences_too_small_for_real_are_stored_as_zero(db: Database) -> None:
    # PostgreSQL refuses 1e-265 for a `real` column ("underflow") instead of rounding it.
    with db.transaction() as conn:
        a, _ = insert_atom(conn, AtomInput(type="fact", claim="tiny", confidence=1e-265))
        b, _ = insert_atom(conn, AtomInput(type="fact", claim="other", confidence=0.5))
        add_link(conn, a, b, "reference", confidence=5e-324)
        row = conn.execute("SELECT confidence FROM pm_atom WHERE id = %s", (a,)).fetchone()
        link = conn.execute("SELECT confidence FROM pm_atom_link WHERE src_atom_id = %s", (a,))
        assert row is not None and row["confidence"] == 0.0
        assert link.fetchone()["confidence"] == 0.0  # type: ignore[index]


def test_database_enforces_enumerations(db: Database) -> None:
    with pytest.raises(InvalidInput), db.transaction() as conn:
        insert_atom(conn, AtomInput(type="opinion", claim="not a type"))
    with pytest.raises(InvalidInput), db.transaction() as conn:
        insert_atom(conn, AtomInput(type="fact", claim="   "))
    with pytest.raises(InvalidInput), db.transaction() as conn:
        conn.execute(
            "INSERT INTO pm_atom_link (src_atom_id, dst_atom_id, kind) VALUES (1, 1, 'two words')"
        )


def test_status_changes_are_recorded(db: Database) -> None:
    with db.transaction() as conn:
        atom, _ = insert_atom(conn, AtomInput(type="fact", claim="Pluto is a planet"))
        set_status(conn, atom, "contested", reason="IAU 2006", check_name="self_critique")
        rows = conn.execute(
            "SELECT from_status, to_status, reason, check_name FROM pm_status_change "
            "WHERE atom_id = %s ORDER BY id",
            (atom,),
        ).fetchall()
    assert [(r["from_status"], r["to_status"]) for r in rows] == [
        (None, "candidate"),
        ("candidate", "contested"),
    ]
    assert rows[1]["reason"] == "IAU 2006" and rows[1]["check_name"] == "self_critique"


def test_document_versions_and_citations(db: Database) -> None:
    with db.transaction() as conn:
        v1, c1 = upsert(conn, "https://example.org/a", "h1")
        again, c2 = upsert(conn, "https://example.org/a", "h1")
        v2, c3 = upsert(conn, "https://example.org/a", "h2")
        assert c1 and not c2 and c3 and again == v1
        current = conn.execute(
            "SELECT id, version, supersedes FROM pm_document WHERE is_current"
        ).fetchall()
        assert [(r["id"], r["version"], r["supersedes"]) for r in current] == [(v2, 2, v1)]
        atom, _ = insert_atom(conn, AtomInput(type="fact", claim="cited", doc_id=v2))
        first = add_citation(conn, atom, doc_id=v2, locator="p. 1", quote="cited")
        dup = add_citation(conn, atom, doc_id=v2, locator="p. 1", quote="cited")
        assert first is not None and dup is None


def test_chunks_and_their_citations_carry_over_to_a_new_version(db: Database) -> None:
    with db.transaction() as conn:
        v1, _ = upsert(conn, "https://example.org/b", "h1")
        old = insert_chunks(
            conn,
            v1,
            [
                ChunkInput(0, "first text", "c0", "p. 1", ("Intro",), 0, 10, "en"),
                ChunkInput(1, "second text", "c1", "p. 2", (), 11, 22, None),
            ],
        )
        assert sorted(old) == [0, 1] and old[0] != old[1]
        row = conn.execute(
            "SELECT doc_id, content, heading_path, language FROM pm_chunk WHERE id = %s", (old[0],)
        ).fetchone()
        assert row == {"doc_id": v1, "content": "first text", "heading_path": ["Intro"],
                       "language": "en"}  # fmt: skip
        atom, _ = insert_atom(conn, AtomInput(type="fact", claim="first", doc_id=v1))
        add_citation(conn, atom, doc_id=v1, chunk_id=old[0], quote="first", char_start=0,
                     char_end=5)  # fmt: skip
        v2, _ = upsert(conn, "https://example.org/b", "h2")
        new = insert_chunks(conn, v2, [ChunkInput(0, "first text", "c0", "p. 3")])
        for _ in range(2):  # a second copy adds nothing
            copy_chunk_citations(
                conn, old[0], doc_id=v2, chunk_id=new[0], chunk_start=0, locate=lambda at: "p. 3"
            )
        cites = conn.execute(
            "SELECT doc_id, chunk_id, locator, quoted_text, char_start, char_end FROM pm_citation "
            "WHERE atom_id = %s ORDER BY id",
            (atom,),
        ).fetchall()
        assert [tuple(c.values()) for c in cites] == [
            (v1, old[0], "", "first", 0, 5),
            (v2, new[0], "p. 3", "first", 0, 5),
        ]


def upsert(conn, uri: str, h: str):  # type: ignore[no-untyped-def]
    from pegas_memory.db.repo import upsert_document

    return upsert_document(conn, DocumentInput(kind="web", uri=uri, content_hash=h))


def test_unreachable_database_is_a_clear_error(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, database_url="postgresql://nobody@127.0.0.1:1/none", db_connect_timeout=2
    )
    with pytest.raises(BackendUnavailable, match="PEGAS_DATABASE_URL"):
        Database(settings).open()


def test_statement_timeout_is_a_limit_not_an_outage(database_url: str, tmp_path: Path) -> None:
    from pegas_memory.errors import LimitExceeded

    db = Database(make_settings(tmp_path, database_url=database_url, statement_timeout_ms=200))
    db.open()
    try:
        with pytest.raises(LimitExceeded, match="STATEMENT_TIMEOUT"), db.transaction() as conn:
            insert_atom(conn, AtomInput(type="fact", claim="written, then rolled back"))
            conn.execute("SELECT pg_sleep(2)")
        with db.transaction() as conn:
            assert conn.execute("SELECT count(*) AS n FROM pm_atom").fetchone()["n"] == 0
    finally:
        db.close()


def test_two_first_versions_of_one_source_at_once_both_succeed(db: Database) -> None:
    """Two transactions storing the same new source at the same time: the second waits for the
    first and finds its row instead of failing on the unique key (finding 7 of issue 18: stores
    with one `source` failed with 'duplicate key ... pm_document_uri_content_hash_key')."""
    import threading

    doc = DocumentInput(kind="text", uri="urn:race", content_hash="h-race")
    first_inserted = threading.Event()
    release_first = threading.Event()
    results: dict[str, tuple[int, bool]] = {}
    errors: list[BaseException] = []

    def first() -> None:
        try:
            with db.transaction() as conn:
                results["first"] = upsert_document(conn, doc)
                first_inserted.set()
                release_first.wait(10)
        except BaseException as exc:
            errors.append(exc)
            first_inserted.set()

    def second() -> None:
        try:
            with db.transaction() as conn:
                results["second"] = upsert_document(conn, doc)
        except BaseException as exc:
            errors.append(exc)

    a = threading.Thread(target=first)
    a.start()
    assert first_inserted.wait(10)
    b = threading.Thread(target=second)
    b.start()
    b.join(0.5)
    assert b.is_alive(), "the second transaction must wait for the first"
    release_first.set()
    a.join(10)
    b.join(10)
    assert errors == []
    assert results["first"][1] is True and results["second"] == (results["first"][0], False)
