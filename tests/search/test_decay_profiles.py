"""Decay profiles against real PostgreSQL and the real slices: each kind of memory ages by its
own profile from its own reference time (issue 32, scope 2).

Every test compares the same search with the profiles off and on (`Searcher.decay_half_lives`,
which the service sets from PEGAS_DECAY_RANKING): fusion is identical, so a hit's score changes
by its decay factor alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pegas_memory.app.requests import ContextRequest, IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.errors import InvalidInput
from pegas_memory.models import SearchHit
from pegas_memory.search.fusion import decay_factor
from tests.conftest import fetch_all, fetch_one, files_memory

DAYS_CONVERSATIONAL = 30.0
DAYS_PERISHABLE = 365.0
PUBLISHED = "2015-03-01T08:00:00Z"

ARTICLE = """<html><head><title>{title}</title>{meta}</head><body><article>
<h1>{title}</h1>
<p>{text}</p>
<p>Engineers monitor the reservoirs every spring when the snow melts upstream.</p>
</article></body></html>"""
OLD_TEXT = (
    "The Volga cascade of reservoirs stores meltwater for irrigation and hydropower across "
    "the whole basin."
)
NEW_TEXT = "The Danube delta wetlands shelter pelicans and sturgeon where the river meets the sea."


@pytest.fixture
def memory(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with files_memory(
        database_url,
        tmp_path,
        decay_ranking=True,
        decay_conversational_days=DAYS_CONVERSATIONAL,
        decay_perishable_days=DAYS_PERISHABLE,
    ) as svc:
        yield svc


def search(svc: MemoryService, query: str, *, decay: bool, **more: object) -> list[SearchHit]:
    svc.searcher.decay_half_lives = svc.settings.decay_half_lives if decay else {}
    try:
        return svc.search(SearchRequest(query=query, limit=10, **more)).hits  # type: ignore[arg-type]
    finally:
        svc.searcher.decay_half_lives = svc.settings.decay_half_lives


def by_id(hits: list[SearchHit]) -> dict[tuple[str, int], SearchHit]:
    return {(h.store, h.id): h for h in hits}


def age_days(since: datetime) -> float:
    return (datetime.now(UTC) - since).total_seconds() / 86400.0


def write_article(tmp_path: Path, name: str, title: str, text: str, published: str | None) -> str:
    meta = f'<meta property="article:published_time" content="{published}">' if published else ""
    path = tmp_path / "files" / name
    path.write_text(ARTICLE.format(title=title, meta=meta, text=text), encoding="utf-8")
    return str(path)


def test_old_note_ranks_below_fresh_one_and_old_definition_does_not_decay(
    memory: MemoryService,
) -> None:
    long_ago = datetime.now(UTC) - timedelta(days=400)
    old = memory.store(
        StoreRequest(
            claim="The staging cluster deploy key rotates every Monday morning.",
            session_id="ops",
            about=long_ago,
        )
    )
    fresh = memory.store(
        StoreRequest(claim="Deploy keys on staging change weekly.", session_id="ops")
    )
    definition = memory.store(
        StoreRequest(
            claim="A deploy key is an SSH key that grants one repository access to a server.",
            type="definition",
            session_id="ops",
            about=long_ago,
        )
    )
    assert (old.decay, fresh.decay, definition.decay) == (
        "conversational",
        "conversational",
        "timeless",
    )
    query = "staging cluster deploy key rotates every Monday"
    off = [h.id for h in search(memory, query, decay=False)]
    assert off.index(old.id) < off.index(fresh.id)  # the old note matches the query better
    on_hits = search(memory, query, decay=True)
    on = [h.id for h in on_hits]
    assert on.index(fresh.id) < on.index(old.id)
    off_score = {h.id: h.score for h in search(memory, query, decay=False)}
    on_score = {h.id: h.score for h in on_hits}
    expected = decay_factor(age_days(long_ago), DAYS_CONVERSATIONAL)
    assert on_score[old.id] == pytest.approx(off_score[old.id] * expected, rel=1e-3, abs=2e-6)
    assert on_score[definition.id] == pytest.approx(off_score[definition.id], rel=1e-6)
    shown = {h.id: (h.decay, h.about) for h in on_hits}
    assert shown[definition.id][0] == "timeless"
    assert shown[old.id][0] == "conversational"
    assert (shown[old.id][1] or "").startswith(long_ago.date().isoformat())


def test_old_article_crawled_today_decays_from_its_publication_date(
    memory: MemoryService, tmp_path: Path
) -> None:
    old = memory.ingest(
        IngestRequest(source=write_article(tmp_path, "volga.html", "Volga", OLD_TEXT, PUBLISHED))
    )
    new = memory.ingest(
        IngestRequest(source=write_article(tmp_path, "danube.html", "Danube", NEW_TEXT, None))
    )
    memory.runtime.worker().drain()
    with memory.db.connection() as conn:
        docs = {
            r["id"]: r
            for r in conn.execute(
                "SELECT id, decay, published_at, created_at FROM pm_document"
            ).fetchall()
        }
        atoms = conn.execute(
            "SELECT doc_id, decay, about_at FROM pm_atom WHERE doc_id = ANY(%s)",
            ([old.version_id, new.version_id],),
        ).fetchall()
    published = datetime.fromisoformat(PUBLISHED.replace("Z", "+00:00"))
    crawled = docs[old.version_id]
    assert crawled["decay"] == "perishable" and crawled["published_at"] == published
    assert age_days(crawled["created_at"]) < 1  # read today, published years ago
    assert atoms and all(a["decay"] == "perishable" for a in atoms)
    assert {a["about_at"] for a in atoms if a["doc_id"] == old.version_id} == {published}
    assert {a["about_at"] for a in atoms if a["doc_id"] == new.version_id} == {None}

    query = "Volga reservoirs meltwater irrigation hydropower"
    off = by_id(search(memory, query, decay=False))
    on = by_id(search(memory, query, decay=True))
    factor = decay_factor(age_days(published), DAYS_PERISHABLE)
    assert factor < 0.01
    volga = [k for k, h in on.items() if h.document_id == old.version_id]
    danube = [k for k, h in on.items() if h.document_id == new.version_id]
    assert volga and danube
    for key in volga:
        assert on[key].decay == "perishable" and (on[key].about or "").startswith("2015-03-01")
        assert on[key].score == pytest.approx(off[key].score * factor, rel=1e-3, abs=2e-6)
    for key in danube:  # no publication date: it ages from today, not at all yet
        assert on[key].decay == "perishable" and on[key].about is None
        assert on[key].score == pytest.approx(off[key].score, rel=1e-3, abs=2e-6)


def test_overrides_per_document_and_per_store_call(memory: MemoryService, tmp_path: Path) -> None:
    kept = memory.ingest(
        IngestRequest(
            source=write_article(tmp_path, "volga.html", "Volga", OLD_TEXT, PUBLISHED),
            decay="timeless",
        )
    )
    long_ago = datetime.now(UTC) - timedelta(days=400)
    aged = memory.store(
        StoreRequest(
            claim="A reservoir cascade is a chain of dams along one river.",
            type="definition",
            session_id="notes",
            decay="conversational",
            about=long_ago,
        )
    )
    assert aged.decay == "conversational"
    memory.runtime.worker().drain()
    with memory.db.connection() as conn:
        doc = conn.execute(
            "SELECT decay FROM pm_document WHERE id = %s", (kept.version_id,)
        ).fetchone()
        profiles = {
            r["decay"]
            for r in conn.execute(
                "SELECT decay FROM pm_atom WHERE doc_id = %s", (kept.version_id,)
            ).fetchall()
        }
    assert doc is not None and doc["decay"] == "timeless" and profiles == {"timeless"}

    query = "Volga reservoir cascade of dams"
    off = by_id(search(memory, query, decay=False))
    on = by_id(search(memory, query, decay=True))
    article = [k for k, h in on.items() if h.document_id == kept.version_id]
    assert article
    for key in article:  # published in 2015, declared timeless: not decayed
        assert on[key].decay == "timeless"
        assert on[key].score == pytest.approx(off[key].score, rel=1e-6)
    note = ("atom", aged.id)
    assert on[note].decay == "conversational"
    assert on[note].score == pytest.approx(
        off[note].score * decay_factor(age_days(long_ago), DAYS_CONVERSATIONAL), rel=1e-3, abs=2e-6
    )

    web = memory.store(
        StoreRequest(
            claim="The Volga froze early this winter.", source="https://news.example/volga"
        )
    )
    assert web.decay == "perishable"
    pinned = memory.store(
        StoreRequest(
            claim="The Volga is 3,530 km long.",
            source="https://news.example/length",
            decay="timeless",
        )
    )
    assert pinned.decay == "timeless"
    with pytest.raises(InvalidInput, match="conversational"):
        memory.store(StoreRequest(claim="planned a survey", scope="episodic", decay="timeless"))
    with pytest.raises(InvalidInput, match="time zone"):
        memory.store(StoreRequest(claim="a naive time", about=datetime(2020, 1, 1)))


def test_the_calls_half_life_replaces_the_profiles(memory: MemoryService) -> None:
    long_ago = datetime.now(UTC) - timedelta(days=400)
    note = memory.store(
        StoreRequest(
            claim="The archive server moved to rack seven.", session_id="ops", about=long_ago
        )
    )
    query = "archive server rack"
    off = {h.id: h.score for h in search(memory, query, decay=False)}
    # decay on, but the call asks for a half-life of 100,000 days: the note barely ages
    slow = {h.id: h.score for h in search(memory, query, decay=True, half_life_days=100_000)}
    assert slow[note.id] == pytest.approx(
        off[note.id] * decay_factor(age_days(long_ago), 100_000), rel=1e-3, abs=2e-6
    )
    assert slow[note.id] > 0.99 * off[note.id]


def test_context_shows_each_items_profile(memory: MemoryService) -> None:
    long_ago = datetime.now(UTC) - timedelta(days=90)
    memory.store(
        StoreRequest(
            claim="The backup window opens at two in the night.", session_id="ops", about=long_ago
        )
    )
    memory.store(
        StoreRequest(
            claim="A backup window is the period reserved for copying data.",
            type="definition",
            session_id="ops",
        )
    )
    context = memory.get_context(ContextRequest(question="When does the backup window open?"))
    assert f"conversational from {long_ago.date().isoformat()}" in context.text
    profiles = {item.claim: item.decay for item in context.items}
    assert profiles["A backup window is the period reserved for copying data."] == "timeless"
    # the timeless one says nothing of decay in the text
    line = next(x for x in context.text.splitlines() if "period reserved" in x)
    assert "timeless" not in line and "conversational" not in line


def test_reingesting_unchanged_bytes_with_a_profile_sets_it(
    memory: MemoryService, tmp_path: Path
) -> None:
    source = write_article(tmp_path, "volga.html", "Volga", OLD_TEXT, PUBLISHED)
    first = memory.ingest(IngestRequest(source=source))
    again = memory.ingest(IngestRequest(source=source, decay="timeless"))
    assert again.unchanged and again.version_id == first.version_id
    doc = fetch_one(memory, "SELECT decay FROM pm_document WHERE id = %s", first.version_id)
    atoms = fetch_all(
        memory, "SELECT DISTINCT decay FROM pm_atom WHERE doc_id = %s", first.version_id
    )
    assert doc["decay"] == "timeless"
    assert [a["decay"] for a in atoms] == ["timeless"]
    memory.runtime.worker().drain()
    hits = search(memory, "Volga reservoirs meltwater irrigation", decay=True)
    article = [h for h in hits if h.document_id == first.version_id]
    assert article and {h.decay for h in article} == {"timeless"}


def test_the_migration_gives_existing_memories_their_default_profiles(
    memory: MemoryService,
) -> None:
    """Rows as they were before migration 0015 (every profile the column default, no about_at)
    get the defaults of fusion.default_decay when its backfill runs, and keep their updated_at."""
    from pegas_memory.db.pool import load_migrations

    (migration,) = [m for m in load_migrations() if m.version == 15]
    published = datetime(2014, 5, 6, tzinfo=UTC)
    with memory.db.transaction() as conn:

        def new_id(sql: str, params: tuple[object, ...]) -> int:
            row = conn.execute(sql, params).fetchone()  # type: ignore[arg-type]
            assert row is not None
            return int(row["id"])

        def doc(kind: str, uri: str, published_at: datetime | None = None) -> int:
            return new_id(
                """INSERT INTO pm_document (kind, uri, content_hash, published_at)
                   VALUES (%s, %s, %s, %s) RETURNING id""",
                (kind, uri, uri, published_at),
            )

        def atom(type_: str, claim: str, doc_id: int | None) -> int:
            return new_id(
                """INSERT INTO pm_atom (type, claim, content_hash, doc_id)
                   VALUES (%s, %s, %s, %s) RETURNING id""",
                (type_, claim, claim, doc_id),
            )

        web = doc("web", "https://news.example/a", published)
        pdf = doc("pdf", "/papers/b.pdf")
        named = doc("agent", "a colleague")
        ids = {
            "web fact": atom("fact", "The river froze early.", web),
            "web definition": atom("definition", "A floe is a sheet of ice.", web),
            "pdf fact": atom("fact", "Ice cover lasts five months.", pdf),
            "note": atom("fact", "Check the ice before crossing.", None),
            "cited note": atom("fact", "The ferry stops in December.", None),
        }
        conn.execute(
            "INSERT INTO pm_citation (atom_id, doc_id) VALUES (%s, %s)", (ids["cited note"], named)
        )
        before = {
            r["id"]: r["updated_at"]
            for r in conn.execute("SELECT id, updated_at FROM pm_atom").fetchall()
        }
        conn.execute(migration.sql.encode())
        rows = {
            r["id"]: r
            for r in conn.execute("SELECT id, decay, about_at, updated_at FROM pm_atom").fetchall()
        }
        docs = {
            r["id"]: r["decay"]
            for r in conn.execute("SELECT id, decay FROM pm_document").fetchall()
        }
    assert {name: rows[i]["decay"] for name, i in ids.items()} == {
        "web fact": "perishable",
        "web definition": "timeless",
        "pdf fact": "timeless",
        "note": "conversational",
        "cited note": "timeless",
    }
    assert rows[ids["web fact"]]["about_at"] == published
    assert rows[ids["note"]]["about_at"] is None
    assert docs[web] == "perishable" and docs[pdf] == "timeless"
    assert {i: r["updated_at"] for i, r in rows.items()} == before
