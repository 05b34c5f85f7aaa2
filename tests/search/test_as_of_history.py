"""A scripted history (store, ingest, a semantic merge, edit and re-ingest, retract, split the
merge, erase) answered `as_of` at five instants gives exactly the claims believed at each, with
the statuses they had (issue 32's done-when), on real PostgreSQL and the embedded slices."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pegas_memory.app.requests import IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.search.filters import SearchFilter
from tests.search.conftest import instant

TRIAL = "Treatment for two days increased the activity of brown adipose tissue in twelve women."
NEAR = TRIAL.replace("two days", "two days,")  # the same claim re-punctuated: merged at ingest
NOTE = "Brown adipose tissue burns fat to make heat."
GUIDE_1 = "Cold exposure raises energy expenditure in healthy adults."
GUIDE_2 = "Cold exposure lowers blood glucose in adults with type 2 diabetes."
SHIVER = "Shivering produces heat in skeletal muscle."
QUERY = "brown adipose tissue treatment cold exposure heat energy glucose shivering"


def settle(svc: MemoryService) -> None:
    svc.runtime.worker().drain(include_delayed=True)


def believed(svc: MemoryService, at: datetime | None) -> dict[str, str]:
    """Every atom the memory held at `at` (stale ones included), claim -> status then."""
    statuses = ("candidate", "verified", "contested", "stale")
    found = svc.search(
        SearchRequest(
            query=QUERY,
            limit=50,
            store="atoms",
            flt=SearchFilter(statuses=statuses, as_of=at),
        )
    )
    assert at is None or found.as_of == at
    return {h.claim: h.status or "" for h in found.hits}


def ingest(svc: MemoryService, path: Path, text: str) -> None:
    path.write_text(text)
    report = svc.ingest(IngestRequest(source=str(path)))
    assert not report.errors, report.errors
    settle(svc)


def test_five_instants_of_a_scripted_history(memory: MemoryService, tmp_path: Path) -> None:
    files = tmp_path / "files"
    # 1. a document and a note the agent stored
    ingest(memory, files / "trial.md", f"# Brown fat trial\n\n{TRIAL}\n")
    note = memory.store(StoreRequest(claim=NOTE, source="lab notebook"))
    settle(memory)
    t1 = instant(memory)
    # 2. the same claim from a second document (merged into the first), a guide, a document
    #    that will be erased
    ingest(memory, files / "notes.md", f"# Notes on cold\n\n{NEAR}\n")
    ingest(memory, files / "guide.md", f"# Cold\n\n{GUIDE_1}\n")
    ingest(memory, files / "shiver.md", f"# Shivering\n\n{SHIVER}\n")
    t2 = instant(memory)
    # 3. the guide edited: its old claim is withdrawn, the new one believed
    ingest(memory, files / "guide.md", f"# Cold\n\n{GUIDE_2}\n")
    t3 = instant(memory)
    # 4. the note retracted, the merge split back into its own atom
    memory.forget(mode="retract", atom_ids=[note.id], reason="not what the notebook said")
    merge = memory.merges(action="list").merges[0]
    memory.merges(action="split", merge_id=merge.id, reason="two trials")
    settle(memory)
    t4 = instant(memory)
    # 5. a document erased: its words are gone from every instant, not only from now
    shiver = memory.search(SearchRequest(query=SHIVER, store="atoms")).hits[0]
    assert shiver.claim == SHIVER and shiver.document_id is not None
    memory.forget(mode="erase", document_ids=[shiver.document_id])
    settle(memory)
    t5 = instant(memory)

    then = {t: believed(memory, t) for t in (t1, t2, t3, t4, t5)}
    assert then[t1] == {TRIAL: "candidate", NOTE: "candidate"}
    assert then[t2] == {TRIAL: "candidate", NOTE: "candidate", GUIDE_1: "candidate"}
    # the edit: the new claim believed; the old one withdrawn (stale, or superseded and gone)
    assert {c: s for c, s in then[t3].items() if s != "stale"} == {
        TRIAL: "candidate",
        NOTE: "candidate",
        GUIDE_2: "candidate",
    }
    assert then[t3].get(GUIDE_1, "stale") == "stale"
    assert then[t4] == {**then[t3], NOTE: "stale", NEAR: "candidate"}
    assert then[t5] == then[t4]
    assert believed(memory, None) == then[t5]
    assert all(SHIVER not in claims for claims in then.values())
