"""memory_feedback (issue 32, scope 3): the agent reports which returned atoms or passages helped,
misled or were only used. Counts are kept per item and shown on hits, in memory_get_context and
memory_stats; they move ranking only with PEGAS_FEEDBACK_WEIGHT > 0; they never change status,
confidence or citations; a report naming an unknown id writes nothing; erasing an atom or a
document takes its feedback with it. On the real PostgreSQL, and over MCP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.requests import (
    ContextRequest,
    FeedbackRequest,
    IngestRequest,
    SearchRequest,
    StoreRequest,
)
from pegas_memory.app.service import MemoryService
from pegas_memory.db.pool import migrations_dir
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.models import FeedbackItem
from tests.conftest import offline_memory
from tests.mcp_harness import error_text, mcp_client, structured


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# Two claims equally relevant to QUERY: only the feedback about them differs.
ALPHA = "The Alpha station recorded the eclipse of 1888."
BRAVO = "The Bravo station recorded the eclipse of 1888."
QUERY = "station recorded the eclipse 1888"
SOURCE = "https://example.org/eclipse"


@pytest.fixture
def memory(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with offline_memory(database_url, tmp_path / "d") as svc:
        yield svc


def report(memory: MemoryService, *items: tuple[int, str, str], **kw: Any) -> Any:
    return memory.feedback(
        FeedbackRequest(
            items=tuple(FeedbackItem(id=i, store=s, outcome=o) for i, s, o in items),  # type: ignore[arg-type]
            **kw,
        )
    )


def rows(memory: MemoryService, sql: str, *args: object) -> list[dict[str, Any]]:
    with memory.db.connection() as conn:
        return [dict(r) for r in conn.execute(sql, args).fetchall()]  # type: ignore[arg-type]


def feedback_rows(memory: MemoryService) -> tuple[int, int, int]:
    [row] = rows(
        memory,
        "SELECT (SELECT count(*) FROM pm_feedback_event) AS e,"
        " (SELECT count(*) FROM pm_atom_feedback) AS a,"
        " (SELECT count(*) FROM pm_passage_feedback) AS p",
    )
    return int(row["e"]), int(row["a"]), int(row["p"])


def ranked(memory: MemoryService) -> list[tuple[int, float]]:
    hits = memory.search(SearchRequest(query=QUERY, store="atoms")).hits
    return [(h.id, h.score) for h in hits]


def test_counts_are_kept_per_atom_and_shown_on_hits_in_context_and_in_stats(
    memory: MemoryService,
) -> None:
    a = memory.store(StoreRequest(claim=ALPHA, source=SOURCE)).id
    b = memory.store(StoreRequest(claim=BRAVO, source=SOURCE)).id
    for _ in range(3):
        report(memory, (a, "atom", "helped"), query=QUERY, session_id="s1")
    done = report(memory, (a, "atom", "misled"), (b, "atom", "used"), note="one was off")
    assert done.recorded == 2
    assert done.items[0].feedback.model_dump() == {
        "helped": 3,
        "misled": 1,
        "used": 0,
        "confidence": pytest.approx(4 / 6),
    }
    hits = {h.id: h for h in memory.search(SearchRequest(query=QUERY)).hits}
    assert hits[a].feedback is not None and hits[a].feedback.helped == 3
    assert hits[a].feedback.confidence == pytest.approx(4 / 6, abs=1e-4)
    assert hits[b].feedback is not None and hits[b].feedback.used == 1
    assert hits[b].feedback.confidence == 0.5  # used: no verdict
    context = memory.get_context(ContextRequest(question="Which station recorded the eclipse?"))
    assert "feedback: 3 helped, 1 misled" in context.text
    assert "feedback: 1 used" in context.text
    assert {i.atom_id: i.feedback.helped for i in context.items if i.feedback} == {a: 3, b: 0}
    totals = memory.stats().feedback
    assert totals.model_dump() == {"helped": 3, "misled": 1, "used": 1, "atoms": 2, "passages": 0}
    events = rows(
        memory, "SELECT outcome, session_id, query, note FROM pm_feedback_event ORDER BY id"
    )
    assert [e["outcome"] for e in events] == ["helped"] * 3 + ["misled", "used"]
    assert events[0]["session_id"] == "s1" and events[0]["query"] == QUERY
    assert events[-1]["note"] == "one was off"


def test_feedback_changes_neither_status_nor_confidence_nor_citations(
    memory: MemoryService,
) -> None:
    a = memory.store(StoreRequest(claim=ALPHA, source=SOURCE, quote="Alpha", confidence=0.4)).id
    snapshot = (
        "SELECT a.status, a.confidence, a.updated_at, a.metadata,"
        " (SELECT count(*) FROM pm_status_change s WHERE s.atom_id = a.id) AS changes,"
        " (SELECT count(*) FROM pm_outbox) AS events,"
        " (SELECT array_agg(row(c.*)::text ORDER BY c.id) FROM pm_citation c"
        "   WHERE c.atom_id = a.id) AS cites"
        " FROM pm_atom a WHERE a.id = %s"
    )
    before = rows(memory, snapshot, a)
    for _ in range(5):
        report(memory, (a, "atom", "helped"))
    report(memory, (a, "atom", "misled"))
    assert rows(memory, snapshot, a) == before  # no status, confidence, citation or slice change
    hit = next(h for h in memory.search(SearchRequest(query=QUERY)).hits if h.id == a)
    assert hit.status == "candidate" and hit.confidence == pytest.approx(0.4)
    assert hit.feedback is not None and hit.feedback.confidence == pytest.approx(6 / 8)


def test_a_report_naming_unknown_ids_is_refused_whole_and_writes_nothing(
    memory: MemoryService,
) -> None:
    a = memory.store(StoreRequest(claim=ALPHA, source=SOURCE)).id
    with pytest.raises(NotFound) as refused:
        report(
            memory,
            (a, "atom", "helped"),
            (a + 1000, "atom", "misled"),
            (777_777, "passage", "used"),
        )
    assert f"atom {a + 1000}" in str(refused.value) and "passage 777777" in str(refused.value)
    assert f"atom {a}," not in str(refused.value)  # the known one is not named
    assert feedback_rows(memory) == (0, 0, 0)
    with pytest.raises(NotFound, match=f"passage {a}"):  # an atom's id is no passage's
        report(memory, (a, "passage", "helped"))
    with pytest.raises(InvalidInput, match="more than once"):
        report(memory, (a, "atom", "helped"), (a, "atom", "misled"))
    with pytest.raises(InvalidInput, match="at least one"):
        report(memory)
    assert feedback_rows(memory) == (0, 0, 0)


def test_at_weight_zero_feedback_leaves_ranking_exactly_as_it_was(memory: MemoryService) -> None:
    assert memory.settings.feedback_weight == 0.0  # the default
    a = memory.store(StoreRequest(claim=ALPHA, source=SOURCE)).id
    memory.store(StoreRequest(claim=BRAVO, source=SOURCE))
    before = ranked(memory)
    assert before[0][0] == a
    for _ in range(5):
        report(memory, (a, "atom", "misled"))
    assert ranked(memory) == before  # same ids, same scores


@pytest.mark.parametrize("helped_first", [True, False])
def test_with_a_weight_a_helped_atom_passes_an_equally_relevant_one(
    database_url: str, tmp_path: Path, helped_first: bool
) -> None:
    with offline_memory(database_url, tmp_path / "d", feedback_weight=0.3) as memory:
        first = memory.store(StoreRequest(claim=ALPHA, source=SOURCE)).id
        second = memory.store(StoreRequest(claim=BRAVO, source=SOURCE)).id
        before = ranked(memory)
        assert [i for i, _ in before] == [first, second]  # a tie, kept in id order
        if helped_first:  # the second one helped: it moves up
            report(memory, (second, "atom", "helped"))
        else:  # the first one misled three times: it moves down
            for _ in range(3):
                report(memory, (first, "atom", "misled"))
        after = ranked(memory)
        assert [i for i, _ in after] == [second, first]
        # the atom nobody reported on keeps its score
        unrated = first if helped_first else second
        assert dict(after)[unrated] == dict(before)[unrated]


def test_min_score_leaves_out_weaker_hits(memory: MemoryService) -> None:
    memory.store(StoreRequest(claim=ALPHA, source=SOURCE))
    memory.store(StoreRequest(claim=BRAVO, source=SOURCE))  # matches fewer of the words
    hits = memory.search(SearchRequest(query="Alpha station eclipse", store="atoms")).hits
    assert len(hits) == 2 and hits[0].score > hits[1].score
    cut = (hits[0].score + hits[1].score) / 2
    kept = memory.search(SearchRequest(query="Alpha station eclipse", min_score=cut))
    assert [h.id for h in kept.hits] == [hits[0].id]
    assert any("below min_score" in w for w in kept.warnings)
    with pytest.raises(InvalidInput, match="min_score"):
        memory.search(SearchRequest(query="Alpha", min_score=-1.0))


def test_erasing_an_atom_takes_its_feedback_and_retracting_keeps_it(
    memory: MemoryService,
) -> None:
    a = memory.store(StoreRequest(claim=ALPHA, source=SOURCE)).id
    b = memory.store(StoreRequest(claim=BRAVO, source=SOURCE)).id
    report(memory, (a, "atom", "helped"), (b, "atom", "misled"), query="private question")
    report(memory, (a, "atom", "used"))
    retracted = memory.forget(mode="retract", atom_ids=[b], reason="wrong")
    assert retracted.feedback_removed == 0
    assert feedback_rows(memory) == (3, 2, 0)
    erased = memory.forget(mode="erase", atom_ids=[a])
    assert erased.feedback_removed == 2
    assert feedback_rows(memory) == (1, 1, 0)
    assert rows(memory, "SELECT count(*) AS n FROM pm_feedback_event WHERE atom_id = %s", a) == [
        {"n": 0}
    ]
    assert memory.stats().feedback.atoms == 1


def test_passages_get_feedback_and_erasing_their_document_takes_it(
    memory: MemoryService,
) -> None:
    text = (
        "# Harbour\n\nThe harbour master rings the bell twice when the ferry leaves.\n\n"
        "## Tides\n\nAt low tide the pier stands on dry sand for two hours.\n"
    )
    doc = memory.ingest(IngestRequest(source=text, kind="markdown", title="Harbour")).document_id
    assert doc is not None
    memory.runtime.worker().drain()
    found = memory.search(SearchRequest(query="harbour master bell ferry", store="passages"))
    passage = found.hits[0]
    assert passage.store == "passage" and passage.feedback is None
    done = report(memory, (passage.id, "passage", "helped"))
    assert done.items[0].feedback.helped == 1
    again = memory.search(SearchRequest(query="harbour master bell ferry", store="passages"))
    shown = next(h for h in again.hits if h.id == passage.id)
    assert shown.feedback is not None and shown.feedback.helped == 1
    assert memory.stats().feedback.passages == 1
    erased = memory.forget(mode="erase", document_ids=[doc])
    assert erased.feedback_removed == 1
    assert feedback_rows(memory) == (0, 0, 0)


def test_feedback_events_are_append_only(memory: MemoryService) -> None:
    a = memory.store(StoreRequest(claim=ALPHA, source=SOURCE)).id
    report(memory, (a, "atom", "misled"))
    with pytest.raises(Exception, match="append-only"), memory.db.transaction() as conn:
        conn.execute("UPDATE pm_feedback_event SET outcome = 'helped'")
    assert rows(memory, "SELECT outcome FROM pm_feedback_event") == [{"outcome": "misled"}]


def test_the_migration_applied_again_changes_nothing(memory: MemoryService) -> None:
    a = memory.store(StoreRequest(claim=ALPHA, source=SOURCE)).id
    report(memory, (a, "atom", "helped"))
    sql = (migrations_dir() / "0013_feedback.sql").read_text("utf-8")
    with memory.db.transaction() as conn:
        conn.execute(sql.encode())
    report(memory, (a, "atom", "helped"))  # one trigger still counts each event once
    assert rows(memory, "SELECT helped FROM pm_atom_feedback") == [{"helped": 2}]


@pytest.mark.anyio
async def test_feedback_over_mcp(tmp_path: Path) -> None:
    env = {"PEGAS_DATA_DIR": str(tmp_path / "data"), "PEGAS_FEEDBACK_WEIGHT": "0.3"}
    async with mcp_client(env) as client:
        for claim in (ALPHA, BRAVO):
            await client.call_tool("memory_store", {"claim": claim, "source": SOURCE})
        found = structured(await client.call_tool("memory_search", {"query": QUERY}))
        first, second = (h["id"] for h in found["hits"][:2])
        refused = await client.call_tool(
            "memory_feedback",
            {"items": [{"id": first, "outcome": "helped"}, {"id": 999_999, "outcome": "misled"}]},
        )
        assert "atom 999999" in error_text(refused) and "Nothing was recorded" in error_text(
            refused
        )
        bad = await client.call_tool(
            "memory_feedback", {"items": [{"id": first, "outcome": "loved"}]}
        )
        assert "outcome" in error_text(bad)
        stats = structured(await client.call_tool("memory_stats", {}))
        assert stats["feedback"] == {"helped": 0, "misled": 0, "used": 0, "atoms": 0, "passages": 0}
        done = structured(
            await client.call_tool(
                "memory_feedback",
                {"items": [{"id": second, "store": "atom", "outcome": "helped"}], "query": QUERY},
            )
        )
        assert done["recorded"] == 1 and "unchanged" in done["message"]
        again = structured(await client.call_tool("memory_search", {"query": QUERY}))
        before = {h["id"]: h for h in found["hits"]}
        after = {h["id"]: h for h in again["hits"]}
        # helped once: posterior 2/3, score x (0.7 + 0.6 * 2/3) = x 1.1 at weight 0.3
        assert after[second]["score"] == pytest.approx(before[second]["score"] * 1.1, rel=1e-4)
        assert after[first]["score"] == before[first]["score"]
        assert after[second]["feedback"]["helped"] == 1 and after[first]["feedback"] is None
        stats = structured(await client.call_tool("memory_stats", {}))
        assert stats["feedback"]["helped"] == 1 and stats["feedback"]["atoms"] == 1
