"""Merges of near-duplicates at ingest are recorded, listed, split again and forgotten with
what they rest on (curation/merges.py, migrations/0014_merges.sql; issue 32 scope 5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.cli import main
from pegas_memory.config import load_settings
from pegas_memory.db.embedded import EmbeddedPostgres
from pegas_memory.db.repo import AtomInput, insert_atom
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.host.control import stop_host
from pegas_memory.memgraph_store.falkor import stop_embedded_graph
from pegas_memory.models import MergeOut
from pegas_memory.outbox.reconcile import reconcile, vector_collection
from tests.mcp_harness import error_text, mcp_client, serve_env, structured
from tests.pgcluster import create_database

CLAIM = "Treatment for two days increased the activity of brown adipose tissue in twelve women."
NEAR = CLAIM.replace("two days", "two days,")  # the same claim, re-punctuated: another hash


def rows(svc: MemoryService, sql: str, *args: Any) -> list[dict[str, Any]]:
    with svc.db.connection() as conn:
        return [dict(r) for r in conn.execute(sql, args).fetchall()]  # type: ignore[arg-type]


def two_documents(svc: MemoryService, tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "files" / "trial.md", tmp_path / "files" / "notes.md"
    a.write_text(f"# Brown fat trial\n\n{CLAIM}\n")
    b.write_text(f"# Notes on cold\n\n{NEAR}\n")
    first = svc.ingest(IngestRequest(source=str(a)))
    svc.runtime.worker().drain(include_delayed=True)
    second = svc.ingest(IngestRequest(source=str(b)))
    assert first.atoms_new == 1
    assert second.atoms_new == 0 and second.duplicates_semantic == 1 and second.merges == 1
    return a, b


def the_merge(svc: MemoryService, tmp_path: Path) -> MergeOut:
    """The merge record of two_documents: the second document's claim merged into the first's."""
    two_documents(svc, tmp_path)
    return svc.merges(action="list").merges[0]


def test_a_semantic_merge_is_recorded_with_the_citation_it_brought(
    service: MemoryService, tmp_path: Path
) -> None:
    two_documents(service, tmp_path)
    atoms = rows(service, "SELECT id, claim FROM pm_atom")
    assert [a["claim"] for a in atoms] == [CLAIM]
    cites = rows(service, "SELECT id, doc_id FROM pm_citation ORDER BY id")
    assert len(cites) == 2
    listed = service.merges(action="list")
    assert len(listed.merges) == 1
    m = listed.merges[0]
    assert m.survivor_id == atoms[0]["id"] and m.claim == NEAR
    assert m.citation_ids == [cites[1]["id"]] and m.version_id == cites[1]["doc_id"]
    assert m.similarity >= 0.9 and "by meaning" in m.reason and m.undone_at is None
    assert service.merges(action="list", atom_id=atoms[0]["id"]).merges
    assert service.merges(action="list", document_id=m.document_id).merges
    assert not service.merges(action="list", atom_id=atoms[0]["id"] + 1000).merges


def test_an_exact_repeat_is_not_recorded_as_a_merge(service: MemoryService, tmp_path: Path) -> None:
    a, b = tmp_path / "files" / "one.md", tmp_path / "files" / "two.md"
    a.write_text(f"# One\n\n{CLAIM}\n")
    b.write_text(f"# Two\n\n{CLAIM}\n\nA second paragraph says nothing else.\n")
    service.ingest(IngestRequest(source=str(a)))
    service.runtime.worker().drain(include_delayed=True)
    second = service.ingest(IngestRequest(source=str(b)))
    assert second.duplicates_exact >= 1 and second.merges == 0
    assert rows(service, "SELECT id FROM pm_merge") == []


def test_a_split_gives_each_claim_its_own_atom_and_citation_and_every_slice_follows(
    service: MemoryService, tmp_path: Path
) -> None:
    _, b = two_documents(service, tmp_path)
    service.runtime.worker().drain(include_delayed=True)
    merge = service.merges(action="list").merges[0]
    before = rows(service, "SELECT count(*) AS n FROM pm_outbox")[0]["n"]
    preview = service.merges(action="split", merge_id=merge.id, dry_run=True)
    assert preview.dry_run and preview.atom_id is None and preview.citations_moved
    assert rows(service, "SELECT count(*) AS n FROM pm_outbox")[0]["n"] == before
    assert len(rows(service, "SELECT id FROM pm_atom")) == 1  # nothing written

    done = service.merges(action="split", merge_id=merge.id, reason="different trials")
    assert done.atom_id is not None and done.citations_moved == merge.citation_ids
    assert done.merges[0].undone_at is not None and done.merges[0].split_atom_id == done.atom_id
    assert done.merges[0].undone_reason == "different trials"
    atoms = {
        r["claim"]: r
        for r in rows(service, "SELECT id, claim, status, doc_id, source, type FROM pm_atom")
    }
    assert set(atoms) == {CLAIM, NEAR}
    assert atoms[NEAR]["status"] == "candidate" and atoms[NEAR]["doc_id"] == merge.version_id
    for claim, doc in ((CLAIM, "trial.md"), (NEAR, "notes.md")):
        cited = rows(
            service,
            """SELECT d.uri FROM pm_citation c JOIN pm_document d ON d.id = c.doc_id
                WHERE c.atom_id = %s""",
            atoms[claim]["id"],
        )
        assert [r["uri"].rsplit("/", 1)[-1] for r in cited] == [doc]
    # the outbox carries the new atom, the survivor and the moved citation's passage
    events = rows(
        service, "SELECT entity_type, entity_id FROM pm_outbox WHERE id > %s", int(before)
    )
    kinds = {(e["entity_type"], int(e["entity_id"])) for e in events}
    assert ("atom", done.atom_id) in kinds and ("atom", merge.survivor_id) in kinds
    assert any(k == "passage" for k, _ in kinds)
    service.runtime.worker().drain(include_delayed=True)
    assert not reconcile(service.runtime).drift
    name = vector_collection(service.runtime, "atom")
    points = service.runtime.vectors.get().retrieve(name, [done.atom_id, merge.survivor_id])
    assert {p.id for p in points} == {done.atom_id, merge.survivor_id}

    # a second split is refused, and writes nothing
    with pytest.raises(InvalidInput, match="already split"):
        service.merges(action="split", merge_id=merge.id)
    assert len(rows(service, "SELECT id FROM pm_atom")) == 2

    # the document read again (re-distilled) does not merge the two again
    again = service.ingest(IngestRequest(source=str(b), redistill=True))
    assert again.merges == 0 and again.duplicates_semantic == 0
    assert {r["claim"] for r in rows(service, "SELECT claim FROM pm_atom")} == {CLAIM, NEAR}
    assert len(rows(service, "SELECT id FROM pm_merge")) == 1


def test_a_split_pair_is_never_merged_again_even_when_the_claim_comes_back(
    service: MemoryService, tmp_path: Path
) -> None:
    """The split atom erased, the same claim ingested again from another document is its own
    atom: dedup honours the pair the split recorded (pm_merge_block)."""
    merge = the_merge(service, tmp_path)
    done = service.merges(action="split", merge_id=merge.id, reason="not the same")
    assert done.atom_id is not None
    service.forget(mode="erase", atom_ids=[done.atom_id])
    service.runtime.worker().drain(include_delayed=True)
    c = tmp_path / "files" / "again.md"
    c.write_text(f"# Cold again\n\n{NEAR}\n")
    third = service.ingest(IngestRequest(source=str(c)))
    assert third.atoms_new == 1 and third.merges == 0 and third.duplicates_semantic == 0
    assert {r["claim"] for r in rows(service, "SELECT claim FROM pm_atom")} == {CLAIM, NEAR}


def test_an_unknown_merge_is_a_clear_error_and_writes_nothing(service: MemoryService) -> None:
    with pytest.raises(NotFound, match="no merge 4242"):
        service.merges(action="split", merge_id=4242)
    with pytest.raises(InvalidInput, match="merge_id"):
        service.merges(action="split")
    assert rows(service, "SELECT count(*) AS n FROM pm_outbox")[0]["n"] == 0
    assert rows(service, "SELECT id FROM pm_atom") == []


def test_erasing_the_merged_claims_document_erases_its_merge_record(
    service: MemoryService, tmp_path: Path
) -> None:
    merge = the_merge(service, tmp_path)
    service.forget(mode="erase", document_ids=[merge.document_id or 0])
    assert rows(service, "SELECT id FROM pm_merge") == []
    assert [r["claim"] for r in rows(service, "SELECT claim FROM pm_atom")] == [CLAIM]


def test_erasing_the_survivors_own_document_erases_the_merge_record(
    service: MemoryService, tmp_path: Path
) -> None:
    """Only the merged claim's citation is left on the survivor: nothing to split it from."""
    merge = the_merge(service, tmp_path)
    own = rows(
        service,
        "SELECT d.identity_id FROM pm_citation c JOIN pm_document d ON d.id = c.doc_id "
        "WHERE c.atom_id = %s AND NOT c.id = ANY(%s)",
        merge.survivor_id,
        merge.citation_ids,
    )
    service.forget(mode="erase", document_ids=[own[0]["identity_id"]])
    assert rows(service, "SELECT id FROM pm_merge") == []


def test_erasing_the_survivor_erases_its_merge_records(
    service: MemoryService, tmp_path: Path
) -> None:
    merge = the_merge(service, tmp_path)
    service.forget(mode="erase", atom_ids=[merge.survivor_id])
    assert rows(service, "SELECT id FROM pm_merge") == []
    assert rows(service, "SELECT atom_id FROM pm_merge_block") == []


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.timeout(600)
async def test_memory_merges_lists_and_splits_over_mcp(
    embedded_pg: EmbeddedPostgres, tmp_path: Path, anyio_backend: str
) -> None:
    """The tool through the real stdio server, on the embedded default (the local model):
    a merge listed, split, refused the second time; an unknown merge a clear error."""
    files = tmp_path / "files"
    files.mkdir()
    (files / "trial.md").write_text(f"# Brown fat trial\n\n{CLAIM}\n")
    (files / "notes.md").write_text(f"# Notes on cold\n\n{NEAR}\n")
    with serve_env(
        tmp_path / "data", create_database(embedded_pg.uri), PEGAS_INGEST_ROOTS=f'["{files}"]'
    ) as env:
        async with mcp_client(env) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "split" in tools["memory_merges"].input_schema["properties"]["action"]["enum"]
            await client.call_tool("memory_ingest", {"source": str(files / "trial.md")})
            second = structured(
                await client.call_tool("memory_ingest", {"source": str(files / "notes.md")})
            )
            listed = structured(await client.call_tool("memory_merges", {"action": "list"}))
            merge_id = listed["merges"][0]["id"] if listed["merges"] else None
            split = structured(
                await client.call_tool(
                    "memory_merges",
                    {"action": "split", "merge_id": merge_id, "reason": "two statements"},
                )
            )
            again = error_text(
                await client.call_tool("memory_merges", {"action": "split", "merge_id": merge_id})
            )
            unknown = error_text(
                await client.call_tool("memory_merges", {"action": "split", "merge_id": 999999})
            )
    assert second["results"][0]["merges"] == 1, second
    assert listed["merges"][0]["claim"] == NEAR
    assert split["atom_id"] and split["citations_moved"] == listed["merges"][0]["citation_ids"]
    assert split["merges"][0]["undone_reason"] == "two statements"
    assert "already split" in again and "no merge 999999" in unknown


def test_the_command_line_lists_and_splits_merges(
    service: MemoryService,
    tmp_path: Path,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    two_documents(service, tmp_path)
    monkeypatch.setenv("PEGAS_DATABASE_URL", database_url)
    monkeypatch.setenv("PEGAS_OLLAMA_URL", str(service.settings.ollama_url))  # the same fake
    monkeypatch.setenv("PEGAS_EMBEDDING_DIM", str(service.settings.embedding_dim))
    base = ["--data-dir", str(tmp_path / "cli")]
    try:
        assert main([*base, "merges", "--open"]) == 0
        listed = json.loads(capsys.readouterr().out)
        merge_id = listed["merges"][0]["id"]
        assert main([*base, "merges", "--split", str(merge_id), "--dry-run"]) == 0
        assert json.loads(capsys.readouterr().out)["dry_run"] is True
        assert main([*base, "merges", "--split", str(merge_id), "--reason", "apart"]) == 0
        assert json.loads(capsys.readouterr().out)["atom_id"]
        assert main([*base, "merges", "--open"]) == 0
        assert json.loads(capsys.readouterr().out)["merges"] == []
        assert main([*base, "merges", "--consolidate", "--similarity", "0.9"]) == 0
        assert json.loads(capsys.readouterr().out)["pairs"] == []
    finally:
        stop_embedded_graph(tmp_path / "cli")
        stop_host(load_settings(data_dir=tmp_path / "cli"))


def test_a_split_takes_the_claims_citations_from_later_versions_of_its_document(
    service: MemoryService, tmp_path: Path
) -> None:
    """A new version of the merged claim's document reuses its chunk and cites the survivor
    again: the split moves that citation too, and a re-distill records its merge afresh."""
    _, b = two_documents(service, tmp_path)
    b.write_text(f"# Notes on cold\n\n{NEAR}\n\nLake Baikal is the deepest lake in the world.\n")
    v2 = service.ingest(IngestRequest(source=str(b)))
    assert v2.version == 2 and v2.chunks_reused + v2.atoms_new >= 1
    merge = service.merges(action="list").merges[-1]
    cited = rows(
        service,
        """SELECT c.id FROM pm_citation c JOIN pm_document d ON d.id = c.doc_id
            WHERE c.atom_id = %s AND d.identity_id = %s ORDER BY c.id""",
        merge.survivor_id,
        merge.document_id,
    )
    assert len(cited) == 2  # one per version
    done = service.merges(action="split", merge_id=merge.id, reason="apart")
    assert sorted(done.citations_moved) == [r["id"] for r in cited]
    left = rows(
        service,
        """SELECT d.uri FROM pm_citation c JOIN pm_document d ON d.id = c.doc_id
            WHERE c.atom_id = %s""",
        merge.survivor_id,
    )
    assert [r["uri"].rsplit("/", 1)[-1] for r in left] == ["trial.md"]


def test_a_redistill_records_its_merges_again_not_twice(
    service: MemoryService, tmp_path: Path
) -> None:
    _, b = two_documents(service, tmp_path)
    again = service.ingest(IngestRequest(source=str(b), redistill=True))
    assert again.redistilled and again.merges == 1
    assert len(service.merges(action="list").merges) == 1


def test_a_consolidation_dry_run_names_the_pairs_that_would_merge_and_writes_nothing(
    service: MemoryService, tmp_path: Path
) -> None:
    other = CLAIM.replace("two days", "three days")  # another number: the guard keeps it apart
    with service.db.transaction() as conn:
        ids = [insert_atom(conn, AtomInput(type="fact", claim=c))[0] for c in (CLAIM, NEAR, other)]
    service.runtime.worker().drain()  # consolidation finds neighbours in the vector slice
    before = rows(service, "SELECT count(*) AS n FROM pm_outbox")[0]["n"]
    dry = service.merges(action="consolidate")
    assert dry.dry_run and "nothing was merged" in dry.message and dry.merge_ids == []
    assert [(p.survivor_id, p.merged_id) for p in dry.pairs] == [(ids[0], ids[1])]
    assert dry.pairs[0].merged_claim == NEAR and dry.pairs[0].similarity >= 0.9
    assert rows(service, "SELECT count(*) AS n FROM pm_outbox")[0]["n"] == before
    assert rows(service, "SELECT id FROM pm_merge") == []


def test_a_consolidation_leaves_out_a_split_pair(service: MemoryService, tmp_path: Path) -> None:
    two_documents(service, tmp_path)
    assert service.merges(action="consolidate").pairs == []  # merged already: one atom
    merge = service.merges(action="list").merges[0]
    service.merges(action="split", merge_id=merge.id, reason="apart")
    assert service.merges(action="consolidate").pairs == []
    assert service.merges(action="consolidate", similarity=0.5).pairs == []
