"""Versions keep their identity (issue 15): a reworded claim supersedes the old atom, search and
get_context answer from the current version, an id of any version keeps working in filters and
memory_forget, and unchanged bytes are recognised before parsing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.requests import ContextRequest, IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.ingest import sources
from pegas_memory.search.filters import SearchFilter
from tests.conftest import fetch_all, fetch_one, ingest_text
from tests.ingest.test_parsers import make_pdf

HISTORY = """# Town history

In 1773 the small river town of Ostrovets received its charter and market rights from the crown.

The old stone bridge over the river was rebuilt twice after floods in the following century.
"""


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """Where the tests write HISTORY and its edits: a file in the service's ingest root."""
    return tmp_path / "files" / "history.md"


def _charter_atom(service: MemoryService) -> int:
    """The atom of HISTORY's first claim, "In 1773 ... received its charter"."""
    return int(fetch_one(service, "SELECT id FROM pm_atom WHERE claim LIKE 'In 1773%%'")["id"])


def _last_change(service: MemoryService, atom_id: int) -> dict[str, Any]:
    return fetch_one(
        service,
        "SELECT from_status, to_status, reason, evidence FROM pm_status_change"
        " WHERE atom_id = %s ORDER BY id DESC LIMIT 1",
        atom_id,
    )


def test_edited_year_supersedes_the_old_atom_and_context_answers_the_new_one(
    service: MemoryService, history: Path
) -> None:
    v1 = ingest_text(service, history, HISTORY)
    service.runtime.worker().drain()
    old = _charter_atom(service)
    v2 = ingest_text(service, history, HISTORY.replace("1773", "1775"))
    service.runtime.worker().drain()
    assert v2.version == 2 and v2.document_id == v1.document_id
    assert v2.atoms_new == 1 and v2.superseded == 1 and v2.duplicates_semantic == 0
    new = v2.atom_ids[0]
    row = fetch_one(
        service, "SELECT status, status_reason, superseded_by FROM pm_atom WHERE id = %s", old
    )
    change = _last_change(service, old)
    link = fetch_one(
        service,
        "SELECT kind FROM pm_atom_link WHERE src_atom_id = %s AND dst_atom_id = %s",
        new,
        old,
    )
    assert row["status"] == "stale" and row["superseded_by"] == new
    assert "1773 -> 1775" in row["status_reason"]
    assert change["to_status"] == "stale" and change["evidence"]["superseded_by"] == new
    assert link["kind"] == "supersedes"
    context = service.get_context(
        ContextRequest(question="When did Ostrovets receive its charter?", budget_tokens=2000)
    )
    text = " ".join(i.claim for i in context.items)
    assert "1775" in text and "1773" not in text
    hits = service.search(SearchRequest(query="Ostrovets charter market rights", limit=10))
    assert old not in [h.id for h in hits.hits] and new in [h.id for h in hits.hits]


def test_negation_removed_in_a_new_version_supersedes(
    service: MemoryService, tmp_path: Path
) -> None:
    path = tmp_path / "files" / "ru.md"
    text = (
        "Функция sin(1/x) не имеет предела в нуле, если аргумент стремится к нулю справа и слева.\n"
    )
    ingest_text(service, path, text)
    service.runtime.worker().drain()
    v2 = ingest_text(service, path, text.replace("не имеет", "имеет"))
    assert v2.atoms_new == 1 and v2.superseded == 1


def test_an_id_of_any_version_filters_and_forgets_the_document(
    service: MemoryService, history: Path
) -> None:
    v1 = ingest_text(service, history, HISTORY)
    v2 = ingest_text(
        service,
        history,
        HISTORY + "\nA new railway station opened in the town in the late autumn.\n",
    )
    service.runtime.worker().drain()
    assert v2.document_id == v1.document_id and v2.version_id != v1.version_id
    service.ingest(
        IngestRequest(source="Unrelated: the railway station of Kazan is large.", kind="text")
    )
    service.runtime.worker().drain()
    for doc in (v1.document_id, v1.version_id, v2.version_id):
        assert doc is not None
        found = service.search(
            SearchRequest(query="railway station", limit=10, flt=SearchFilter(doc_ids=(doc,)))
        )
        claims = [h.claim for h in found.hits]
        assert any("new railway station" in c for c in claims)
        assert not any("Kazan" in c for c in claims)
    assert v1.document_id is not None
    gone = service.forget(mode="erase", document_ids=[v1.document_id])
    left = fetch_one(service, "SELECT count(*) AS n FROM pm_document WHERE uri = %s", v1.uri)["n"]
    atoms = fetch_one(service, "SELECT count(*) AS n FROM pm_atom")["n"]
    assert left == 0 and gone is not None and atoms == 1  # only the unrelated atom is left


def test_unchanged_file_is_recognised_before_it_is_parsed(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "files" / "paper.pdf"
    path.write_bytes(
        make_pdf(
            [
                "The first page says the northern sea is salty and deep in winter.",
                "The second page says the lake freezes in December and thaws in April.",
            ]
        )
    )
    first = service.ingest(IngestRequest(source=str(path)))
    assert first.atoms_new >= 1

    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("an unchanged PDF must not be parsed again")

    monkeypatch.setattr(sources, "parse_pdf", no_parsing)
    again = service.ingest(IngestRequest(source=str(path)))
    assert again.unchanged and again.document_id == first.document_id
    assert again.version == 1 and again.kind == "pdf"


def test_bytes_of_an_earlier_version_are_a_new_current_version(
    service: MemoryService, history: Path
) -> None:
    # A file edited and then restored (a branch checked out again): what it says now is the
    # first text, so the memory answers it again and the edit's claim is withdrawn.
    v1 = ingest_text(service, history, HISTORY)
    old = _charter_atom(service)
    v2 = ingest_text(service, history, HISTORY.replace("1773", "1775"))
    edited = v2.atom_ids[0]
    v3 = ingest_text(service, history, HISTORY)
    service.runtime.worker().drain()
    assert not v3.unchanged and v3.version == 3 and v3.document_id == v1.document_id
    assert v3.revived == 1 and v3.marked_stale == 1 and v3.atoms_new == 0
    rows = fetch_all(
        service, "SELECT id, status, superseded_by FROM pm_atom WHERE id = ANY(%s)", [old, edited]
    )
    current = fetch_all(
        service, "SELECT version FROM pm_document WHERE uri = %s AND is_current", v1.uri
    )
    change = _last_change(service, old)
    status = {r["id"]: (r["status"], r["superseded_by"]) for r in rows}
    assert status == {old: ("candidate", None), edited: ("stale", None)}
    assert [r["version"] for r in current] == [3]
    assert (change["from_status"], change["to_status"]) == ("stale", "candidate")
    assert "evidence is back in version 3" in change["reason"]
    hits = service.search(SearchRequest(query="Ostrovets charter market rights", limit=10))
    ids = [h.id for h in hits.hits]  # a stale atom is still found, below what holds
    assert old in ids and (edited not in ids or ids.index(old) < ids.index(edited))
    # the same bytes again are the current version's: nothing to do
    again = ingest_text(service, history, HISTORY)
    assert again.unchanged and again.version == 3


def test_an_atom_retracted_by_hand_stays_stale_when_its_sentence_comes_back(
    service: MemoryService, history: Path
) -> None:
    ingest_text(service, history, HISTORY)
    old = _charter_atom(service)
    ingest_text(service, history, HISTORY.replace("1773", "1775"))
    service.forget(mode="retract", atom_ids=[old], reason="the charter year is disputed")
    v3 = ingest_text(service, history, HISTORY)
    status = fetch_one(service, "SELECT status FROM pm_atom WHERE id = %s", old)
    assert v3.revived == 0 and status["status"] == "stale"


def test_a_note_citing_an_ingested_document_cites_its_current_version(
    service: MemoryService, history: Path
) -> None:
    # memory_store with the document's address as its source made a version of its own, which
    # retired the ingested text: its passages left search.
    v1 = ingest_text(service, history, HISTORY)
    note = service.store(
        StoreRequest(claim="Ostrovets received its town charter in 1773.", source=v1.uri)
    )
    versions = fetch_all(
        service, "SELECT id, is_current FROM pm_document WHERE uri = %s ORDER BY id", v1.uri
    )
    passages = fetch_one(
        service, "SELECT count(*) AS n FROM pm_passage WHERE doc_id = %s", v1.version_id
    )["n"]
    assert [(r["id"], r["is_current"]) for r in versions] == [(v1.version_id, True)]
    assert note.document_id == v1.version_id and passages > 0  # still searchable passages


def test_ingesting_the_source_a_note_named_keeps_the_note(
    service: MemoryService, history: Path
) -> None:
    # The agent stored a note naming a page it had not ingested yet (a document with no text is
    # made for the source); ingesting that page later is a new version of it, and the note,
    # which never rested on any of its text, must not become stale as "evidence gone".
    history.write_text(HISTORY, encoding="utf-8")
    note = service.store(
        StoreRequest(
            claim="Ostrovets is a river town with a medieval charter.", source=history.as_uri()
        )
    )
    v = service.ingest(IngestRequest(source=str(history)))
    assert v.uri == history.as_uri() and v.version == 2 and v.marked_stale == 0
    atom = fetch_one(service, "SELECT status FROM pm_atom WHERE id = %s", note.id)
    cited = fetch_all(
        service,
        "SELECT d.id, d.is_current FROM pm_citation c JOIN pm_document d ON d.id = c.doc_id "
        "WHERE c.atom_id = %s",
        note.id,
    )
    assert atom["status"] == "candidate"
    assert [(r["id"], r["is_current"]) for r in cited] == [(v.version_id, True)]
