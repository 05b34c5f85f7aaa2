"""Merges that keep both atoms (verification's duplicate verdict, an applied consolidation) are
recorded and split like ingest's; consolidation walks every atom in bounded batches; a split's
moved citations keep their as-of history (curation/merges.py, migrations/0022)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.requests import IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.repo import citations_as_of
from pegas_memory.errors import InvalidInput
from pegas_memory.models import MergeOut
from pegas_memory.outbox.reconcile import reconcile
from pegas_memory.search.filters import SearchFilter
from tests.conftest import files_memory, offline_memory

CLAIM = "Treatment for two days increased the activity of brown adipose tissue in twelve women."
NEAR = CLAIM.replace("two days", "two days,")  # the same claim, re-punctuated: another hash
OTHER = CLAIM.replace("two days", "three days")  # another number: the claim guard keeps it apart


def rows(svc: MemoryService, sql: str, *args: Any) -> list[dict[str, Any]]:
    with svc.db.connection() as conn:
        return [dict(r) for r in conn.execute(sql, args).fetchall()]  # type: ignore[arg-type]


def status(svc: MemoryService, atom: int) -> str:
    return str(rows(svc, "SELECT status FROM pm_atom WHERE id = %s", atom)[0]["status"])


def duplicate_links(svc: MemoryService) -> list[tuple[int, int]]:
    found = rows(
        svc, "SELECT src_atom_id, dst_atom_id FROM pm_atom_link WHERE kind = 'duplicate_of'"
    )
    return [(r["src_atom_id"], r["dst_atom_id"]) for r in found]


def instant(svc: MemoryService) -> Any:
    return rows(svc, "SELECT clock_timestamp() AS t")[0]["t"]


def merged_by_verify(svc: MemoryService) -> tuple[int, int, MergeOut]:
    """CLAIM stored, then NEAR, and NEAR verified: (CLAIM's atom, NEAR's atom, the merge that
    made NEAR a stale duplicate of CLAIM)."""
    old = svc.store(StoreRequest(claim=CLAIM, session_id="s1")).id
    new = svc.store(StoreRequest(claim=NEAR, session_id="s1")).id
    assert old is not None and new is not None
    svc.runtime.worker().drain()
    svc.verify(atom_ids=[new])
    (merge,) = svc.merges(action="list").merges
    return old, new, merge


@pytest.fixture
def memory(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with offline_memory(database_url, tmp_path / "data", llm=False) as svc:
        yield svc


def test_a_duplicate_verdict_is_recorded_and_split_gives_the_status_back(
    memory: MemoryService,
) -> None:
    old = memory.store(StoreRequest(claim=CLAIM, session_id="s1")).id
    new = memory.store(StoreRequest(claim=NEAR, session_id="s1")).id
    assert old is not None and new is not None
    memory.runtime.worker().drain()
    (verdict,) = memory.verify(atom_ids=[new]).verdicts
    assert verdict.verdict == "duplicate" and status(memory, new) == "stale"
    (m,) = memory.merges(action="list").merges
    assert (m.merged_by, m.survivor_id, m.merged_atom_id) == ("verify", old, new)
    assert m.merged_status == "candidate" and m.claim == NEAR and m.similarity >= 0.9
    assert memory.merges(action="list", atom_id=new).merges  # found by the merged atom too
    assert duplicate_links(memory) == [(new, old)]

    dry = memory.merges(action="split", merge_id=m.id, dry_run=True)
    assert "would be candidate again" in dry.message and status(memory, new) == "stale"
    done = memory.merges(action="split", merge_id=m.id, reason="two trials")
    assert done.atom_id == new and status(memory, new) == "candidate"
    assert duplicate_links(memory) == []
    memory.runtime.worker().drain(include_delayed=True)
    assert not reconcile(memory.runtime).drift  # every slice follows the split
    assert done.merges[0].undone_reason == "two trials"
    history = rows(
        memory, "SELECT reason FROM pm_withdrawal WHERE entity = 'link' AND atom_id = %s", new
    )
    assert [h["reason"] for h in history] == [f"split of merge {m.id}: two trials"]
    with pytest.raises(InvalidInput, match="already split"):
        memory.merges(action="split", merge_id=m.id)
    memory.runtime.worker().drain()
    (again,) = memory.verify(atom_ids=[new]).verdicts  # split once: not merged again
    assert again.verdict != "duplicate" and status(memory, new) == "candidate"
    assert len(memory.merges(action="list").merges) == 1


def test_a_split_is_refused_when_the_stale_atom_changed_since(memory: MemoryService) -> None:
    _, new, m = merged_by_verify(memory)
    memory.set_atom_status(new, "verified", reason="a person checked it")
    with pytest.raises(InvalidInput, match="not stale as the merge left it"):
        memory.merges(action="split", merge_id=m.id)
    assert status(memory, new) == "verified"


def test_an_undone_split_makes_the_atom_a_stale_duplicate_again(memory: MemoryService) -> None:
    """The UI's undo of "split again" on a merge that kept both atoms (review.rejoin): the atom
    is stale with its duplicate_of link again, the merge open and splittable once more; refused
    when the atom changed since the split."""
    old, new, m = merged_by_verify(memory)
    memory.merges(action="split", merge_id=m.id, reason="two trials")
    assert status(memory, new) == "candidate" and duplicate_links(memory) == []

    memory.review.rejoin(m.id, [], created=False)
    assert status(memory, new) == "stale" and duplicate_links(memory) == [(new, old)]
    (back,) = memory.merges(action="list").merges
    assert back.undone_at is None
    assert not rows(memory, "SELECT 1 FROM pm_merge_block WHERE merge_id = %s", m.id)
    memory.runtime.worker().drain(include_delayed=True)
    assert not reconcile(memory.runtime).drift

    memory.merges(action="split", merge_id=m.id, reason="still two trials")
    memory.set_atom_status(new, "verified", reason="a person checked it")
    with pytest.raises(InvalidInput, match="not candidate as the split"):
        memory.review.rejoin(m.id, [], created=False)
    assert status(memory, new) == "verified" and duplicate_links(memory) == []


def test_consolidation_walks_every_atom_in_batches_and_applies_undoably(
    memory: MemoryService,
) -> None:
    ids = [memory.store(StoreRequest(claim=c, source="s")).id for c in (CLAIM, OTHER, NEAR)]
    memory.runtime.worker().drain()
    seen: list[tuple[int, int]] = []
    after, calls = 0, 0
    while True:  # one atom per call: the pair's survivor lies in an earlier batch
        got = memory.merges(action="consolidate", batch=1, after_id=after)
        assert got.dry_run and got.merge_ids == []
        seen += [(p.survivor_id, p.merged_id) for p in got.pairs]
        calls += 1
        if got.next_after is None:
            break
        after = got.next_after
    assert seen == [(ids[0], ids[2])] and calls == 4  # the fourth call finds no atom left
    assert rows(memory, "SELECT id FROM pm_merge") == []

    applied = memory.merges(action="consolidate", apply=True)
    assert not applied.dry_run and len(applied.merge_ids) == 1
    assert status(memory, ids[2]) == "stale" and status(memory, ids[1]) == "candidate"
    (m,) = memory.merges(action="list").merges
    assert (m.merged_by, m.survivor_id, m.merged_atom_id) == ("consolidate", ids[0], ids[2])
    memory.runtime.worker().drain()
    assert memory.merges(action="consolidate").pairs == []  # merged: stale atoms stay out
    memory.merges(action="split", merge_id=m.id, reason="apart")
    memory.runtime.worker().drain()
    assert status(memory, ids[2]) == "candidate"
    assert memory.merges(action="consolidate").pairs == []  # split pairs stay apart


def test_a_split_citation_shows_where_it_was_at_each_instant(
    database_url: str, tmp_path: Path
) -> None:
    with files_memory(database_url, tmp_path) as svc:
        a, b = tmp_path / "files" / "trial.md", tmp_path / "files" / "notes.md"
        a.write_text(f"# Brown fat trial\n\n{CLAIM}\n")
        b.write_text(f"# Notes on cold\n\n{NEAR}\n")
        svc.ingest(IngestRequest(source=str(a)))
        svc.runtime.worker().drain(include_delayed=True)
        assert svc.ingest(IngestRequest(source=str(b))).merges == 1
        (m,) = svc.merges(action="list").merges
        before = instant(svc)
        done = svc.merges(action="split", merge_id=m.id, reason="apart")
        assert done.atom_id is not None
        svc.runtime.worker().drain(include_delayed=True)
        after = instant(svc)
        with svc.db.connection() as conn:
            then = citations_as_of(conn, [m.survivor_id, done.atom_id], before)
            now = citations_as_of(conn, [m.survivor_id, done.atom_id], after)
        names = {k: sorted(str(c.uri).rsplit("/", 1)[-1] for c in v) for k, v in then.items()}
        assert names == {m.survivor_id: ["notes.md", "trial.md"], done.atom_id: []}
        names = {k: sorted(str(c.uri).rsplit("/", 1)[-1] for c in v) for k, v in now.items()}
        assert names == {m.survivor_id: ["trial.md"], done.atom_id: ["notes.md"]}
        # the search as of then shows the survivor with both citations, no split atom
        hits = svc.search(
            SearchRequest(query="brown adipose tissue", flt=SearchFilter(as_of=before))
        ).hits
        atoms = {h.id: h for h in hits if h.store == "atom"}
        assert done.atom_id not in atoms
        assert len(atoms[m.survivor_id].citations) == 2
