"""Undo of a re-ingest from the audit trail: the version before becomes current again through
`MemoryService.revert_version` (its passages and atoms searchable again, the new version's
withdrawn, every slice consistent once the outbox drained), and only while the document is as
the re-ingest left it."""

from __future__ import annotations

import html
from typing import Any

from pegas_memory.app.requests import IngestRequest, SearchRequest
from tests.ui.conftest import FILE_V1, FILE_V2, FileDoc


def post(fd: FileDoc, path: str, **fields: str) -> Any:
    s = fd.seeded
    with s.client() as http:
        return http.post(path, data=s.form(**fields), headers=s.own_origin)


def reingest(fd: FileDoc, text: str) -> dict[str, Any]:
    """Re-ingest the changed file from the UI, wait for its job; its audit line."""
    fd.write(text)
    answer = post(fd, f"/document/{fd.doc}/reingest", reason="the page was rewritten")
    assert fd.job_of(answer.headers["location"]).state == "done"
    return fd.rows("SELECT * FROM pm_ui_audit WHERE action = 'reingest' ORDER BY id")[-1]


def statuses(fd: FileDoc, ids: set[int]) -> dict[int, str]:
    rows = fd.rows("SELECT id, status FROM pm_atom WHERE id = ANY(%s)", sorted(ids))
    return {int(r["id"]): str(r["status"]) for r in rows}


def cited(fd: FileDoc, version: int) -> set[int]:
    rows = fd.rows("SELECT DISTINCT atom_id FROM pm_citation WHERE doc_id = %s", version)
    return {int(r["atom_id"]) for r in rows}


def chunks(fd: FileDoc, version: int) -> set[int]:
    return {int(r["id"]) for r in fd.rows("SELECT id FROM pm_chunk WHERE doc_id = %s", version)}


def test_undoing_a_reingest_makes_the_version_before_current_and_searchable_again(
    file_doc: FileDoc,
) -> None:
    fd, svc = file_doc, file_doc.seeded.service
    v1_atoms = cited(fd, fd.doc)
    was = statuses(fd, v1_atoms)
    line = reingest(fd, FILE_V2)
    v2 = int(line["after"]["version_id"])
    v2_only = cited(fd, v2) - v1_atoms
    made_stale = {a for a, st in statuses(fd, v1_atoms).items() if st != was[a]}
    assert v2_only and made_stale  # the Radio section came, the Mirrors section went
    assert set(line["detail"]["undo"]["atoms_created"]) == v2_only
    svc.runtime.worker().drain(include_delayed=True)

    answer = post(fd, f"/audit/{line['id']}/undo", reason="the old page was right")
    assert answer.status_code == 303, answer.text
    versions = fd.rows("SELECT id, is_current FROM pm_document WHERE identity_id = %s", fd.doc)
    assert versions == [{"id": fd.doc, "is_current": True}]
    assert statuses(fd, v1_atoms) == was  # the stale ones put back
    assert statuses(fd, v2_only) == {}  # only the new version cited them: erased with it
    assert chunks(fd, v2) == set() and cited(fd, fd.doc) == v1_atoms
    undo = fd.rows("SELECT * FROM pm_ui_audit WHERE undoes = %s", line["id"])[0]
    assert (undo["action"], undo["target"], undo["target_id"]) == ("undo", "document", fd.doc)
    assert set(undo["detail"]["restored"]) == made_stale and undo["detail"]["left"] == []
    assert undo["detail"]["atoms_erased"] == len(v2_only)
    assert undo["before"] == line["after"] and undo["after"] == line["before"]

    svc.runtime.worker().drain(include_delayed=True)
    for slice_ in svc.slice_stats():
        assert (slice_.health, slice_.problems) == ("ok", []), slice_
    query = "Hale telescope Palomar primary mirror 200 inches"
    passages = svc.search(SearchRequest(query=query, store="passages")).hits
    atoms = svc.search(SearchRequest(query=query, store="atoms")).hits
    assert passages[0].id in chunks(fd, fd.doc)
    assert {h.id for h in atoms} & made_stale
    gone = svc.search(SearchRequest(query="Arecibo dish radio telescope Puerto Rico")).hits
    assert not {h.id for h in gone if h.store == "atom"} & v2_only

    s = fd.seeded
    with s.client() as http:
        trail = http.get("/audit").text
        page = http.get(f"/document/{fd.doc}").text
    assert f"undone by #{undo['id']}" in trail and "reingest" in trail
    assert '<tr id="version-1" class="this">' in page and "version-2" not in page


def test_a_reingest_is_not_undone_once_the_document_changed_since(file_doc: FileDoc) -> None:
    fd, svc = file_doc, file_doc.seeded.service
    line = reingest(fd, FILE_V2)
    v2 = int(line["after"]["version_id"])
    [judged, *_] = sorted(cited(fd, v2) - cited(fd, fd.doc))
    svc.set_atom_status(judged, "verified", reason="an agent checked it")
    refused = post(fd, f"/audit/{line['id']}/undo")
    assert refused.status_code == 400
    assert f"changed since (atoms {judged})" in html.unescape(refused.text)
    assert fd.rows("SELECT id FROM pm_document WHERE is_current AND identity_id = %s", fd.doc) == [
        {"id": v2}
    ]

    fd.write(FILE_V2 + "\nThe Green Bank Telescope is a steerable dish of 100 meters.\n")
    # a third version, ingested by an agent
    assert svc.ingest(IngestRequest(source=str(fd.path))).version == 3
    later = post(fd, f"/audit/{line['id']}/undo")
    assert later.status_code == 400 and "its current version is 3" in html.unescape(later.text)
    assert fd.rows("SELECT undone_by FROM pm_ui_audit WHERE id = %s", line["id"]) == [
        {"undone_by": None}
    ]


def test_undoing_a_reingest_puts_back_the_atom_its_new_wording_superseded(
    file_doc: FileDoc,
) -> None:
    fd, svc = file_doc, file_doc.seeded.service
    [old] = fd.rows("SELECT id, status FROM pm_atom WHERE claim LIKE %s", "%objective lens of 40%")
    svc.runtime.worker().drain(include_delayed=True)  # the dedup finds it in the vector slice
    line = reingest(fd, FILE_V1.replace("lens of 40 inches", "lens of 41 inches"))
    [after] = fd.rows("SELECT status, superseded_by FROM pm_atom WHERE id = %s", old["id"])
    assert after["status"] == "stale" and after["superseded_by"] is not None, after
    assert old["id"] in [c[0] for c in line["detail"]["undo"]["status_changes"]]
    assert post(fd, f"/audit/{line['id']}/undo").status_code == 303
    [back] = fd.rows("SELECT status, superseded_by FROM pm_atom WHERE id = %s", old["id"])
    assert back == {"status": old["status"], "superseded_by": None}
    links = fd.rows(
        "SELECT kind FROM pm_atom_link WHERE dst_atom_id = %s OR src_atom_id = %s",
        old["id"],
        old["id"],
    )
    assert links == []
    svc.runtime.worker().drain(include_delayed=True)
    assert [s.health for s in svc.slice_stats()] == ["ok"] * len(svc.slice_stats())
