"""A document's page: its versions and what each changed; re-ingest and re-distill from the UI
as memory_ingest's job (its audit line written by the job in the version's transaction), erase
through memory_forget with its line in the same transaction, each behind the token, CSRF and
Origin checks, erase behind a confirmation that says it is final."""

from __future__ import annotations

import html
import re
from typing import Any

import httpx
import pytest

from pegas_memory.errors import PegasMemoryError
from tests.ui.conftest import FILE_V2, FileDoc, Seeded


def post(seeded: Seeded, path: str, **fields: str) -> httpx.Response:
    with seeded.client() as http:
        return http.post(path, data=seeded.form(**fields), headers=seeded.own_origin)


def http_get(seeded: Seeded, path: str) -> str:
    with seeded.client() as http:
        answer = http.get(path)
    assert answer.status_code == 200, answer.text
    return answer.text


def versions(fd: FileDoc) -> list[dict[str, Any]]:
    return fd.rows(
        "SELECT id, version, is_current FROM pm_document WHERE identity_id = %s ORDER BY version",
        fd.doc,
    )


def cited(fd: FileDoc, version_id: int) -> set[int]:
    rows = fd.rows("SELECT DISTINCT atom_id FROM pm_citation WHERE doc_id = %s", version_id)
    return {int(r["atom_id"]) for r in rows}


def test_reingest_of_changed_bytes_runs_as_a_job_and_the_page_shows_what_changed(
    file_doc: FileDoc,
) -> None:
    s = file_doc.seeded
    v1_atoms = cited(file_doc, file_doc.doc)
    file_doc.write(FILE_V2)
    done = post(s, f"/document/{file_doc.doc}/reingest", reason="the page was rewritten")
    assert done.status_code == 303 and done.headers["location"].startswith("/?job=")
    job = file_doc.job_of(done.headers["location"])
    assert (job.kind, job.state) == ("ingest", "done"), job
    assert job.progress.message.startswith("done: version 2,")
    old, new = versions(file_doc)
    assert (old["is_current"], new["is_current"], new["version"]) == (False, True, 2)
    overview = http_get(s, done.headers["location"].partition("#")[0])
    job_row = overview.partition(f'<tr data-job="{job.id}" class="finished">')[2]
    job_row = job_row.partition("</tr>")[0]
    assert ">done<" in job_row and f'href="/document/{new["id"]}"' in job_row
    assert "Cancel job" not in job_row

    [line] = s.audit()
    assert (line["action"], line["target"], line["target_id"]) == (
        "reingest",
        "document",
        file_doc.doc,
    )
    assert line["reason"] == "the page was rewritten" and line["detail"]["job"] == job.id
    assert line["before"] == {"version": 1, "version_id": file_doc.doc}
    assert line["after"] == {"version": 2, "version_id": new["id"]}

    v2_atoms = cited(file_doc, new["id"])
    added, withdrawn = v2_atoms - v1_atoms, v1_atoms - v2_atoms
    assert added and withdrawn  # the Mirrors section went, the Radio section came
    page = http_get(s, f"/document/{new['id']}")
    row = re.search(r'<tr id="version-2" class="this">(.*?)</tr>', page, re.S)
    assert row is not None
    hashes = {
        v: {
            r["content_hash"]
            for r in file_doc.rows("SELECT content_hash FROM pm_chunk WHERE doc_id = %s", v)
        }
        for v in (file_doc.doc, new["id"])
    }
    came, went = hashes[new["id"]] - hashes[file_doc.doc], hashes[file_doc.doc] - hashes[new["id"]]
    assert came and went
    assert re.findall(r'<td class="num changes">(.*?)</td>', row[1]) == [
        f"+{len(came)} / −{len(went)}",
        f"+{len(added)} / −{len(withdrawn)}",
    ]
    shown_added = re.search(r'<div class="changed" id="atoms-added">(.*?)</div>', page, re.S)
    shown_gone = re.search(r'<div class="changed" id="atoms-withdrawn">(.*?)</div>', page, re.S)
    assert shown_added and shown_gone
    assert {int(i) for i in re.findall(r'href="/atom/(\d+)"', shown_added[1])} == added
    assert {int(i) for i in re.findall(r'href="/atom/(\d+)"', shown_gone[1])} == withdrawn
    assert shown_gone[1].count('<span class="status stale">') == len(withdrawn)

    first = http_get(s, f"/document/{file_doc.doc}")
    assert '<tr id="version-1" class="this">' in first and "first version" in first


def test_reingest_of_unchanged_bytes_writes_nothing_and_says_so(file_doc: FileDoc) -> None:
    s = file_doc.seeded
    done = post(s, f"/document/{file_doc.doc}/reingest")
    job = file_doc.job_of(done.headers["location"])
    assert job.state == "done" and job.progress.message == "done: unchanged, nothing was written"
    assert len(versions(file_doc)) == 1 and s.audit() == []


def test_redistill_distils_the_current_version_again_in_place(file_doc: FileDoc) -> None:
    s = file_doc.seeded
    done = post(s, f"/document/{file_doc.doc}/redistill", reason="new rules")
    assert file_doc.job_of(done.headers["location"]).state == "done"
    assert len(versions(file_doc)) == 1
    [line] = s.audit()
    assert (line["action"], line["detail"]["asked"]) == ("redistill", "redistill")
    assert line["detail"]["redistilled"]
    assert line["before"]["version_id"] == line["after"]["version_id"] == file_doc.doc
    page = http_get(s, f"/document/{file_doc.doc}")
    assert "distilled again:" in page
    trail = http_get(s, "/audit")
    assert "redistill" in trail and "a re-distill is not undone" in trail
    assert f'action="/audit/{line["id"]}/undo"' not in trail


def test_a_failing_audit_line_leaves_the_new_version_unwritten(
    file_doc: FileDoc, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job writes the line in the ingest's own transaction: when writing it fails, the
    version is not written either, and the job says why."""
    import pegas_memory.app.audit as app_audit

    def broken(*args: Any, **kwargs: Any) -> int:
        raise PegasMemoryError("the audit table is unwritable")

    file_doc.write(FILE_V2)
    monkeypatch.setattr(app_audit, "record", broken)
    answer = post(file_doc.seeded, f"/document/{file_doc.doc}/reingest")
    job = file_doc.job_of(answer.headers["location"])
    assert job.state == "failed" and "the audit table is unwritable" in (job.error or "")
    assert [v["version"] for v in versions(file_doc)] == [1]


def test_a_document_of_inline_text_cannot_be_read_again(seeded: Seeded) -> None:
    page = http_get(seeded, f"/document/{seeded.en_doc}")
    assert 'id="cannot-reread"' in page and "ingested from text given inline" in page
    assert f'action="/document/{seeded.en_doc}/reingest"' not in page
    answer = post(seeded, f"/document/{seeded.en_doc}/reingest")
    assert answer.status_code == 400 and "cannot be read again" in answer.text
    assert seeded.audit_count() == 0 and seeded.service.jobs.list_recent() == []


def test_erase_asks_first_then_forgets_every_version_with_its_atoms(file_doc: FileDoc) -> None:
    s = file_doc.seeded
    file_doc.write(FILE_V2)
    file_doc.job_of(post(s, f"/document/{file_doc.doc}/reingest").headers["location"])
    mine = [v["id"] for v in versions(file_doc)]
    every = {a for v in mine for a in cited(file_doc, v)}
    elsewhere = file_doc.rows(
        "SELECT DISTINCT atom_id FROM pm_citation WHERE atom_id = ANY(%s)"
        " AND (doc_id IS NULL OR NOT doc_id = ANY(%s))",
        sorted(every),
        mine,
    )
    shared = {int(r["atom_id"]) for r in elsewhere}  # the inline "Telescopes" text cites them
    only = every - shared
    assert only and shared
    confirm = http_get(s, f"/document/{file_doc.doc}/erase")
    final = re.search(r'<p class="problem" id="erase-final">(.*?)</p>', confirm, re.S)
    assert final and "final and cannot be undone</strong>, not even from the audit trail" in (
        " ".join(final[1].split())
    )
    assert re.search(r'id="erase-versions">2<', confirm)
    assert re.search(rf'id="erase-atoms">{len(only)}<', confirm)
    assert re.search(rf'id="erase-kept">{len(shared)}<', confirm)

    unconfirmed = post(s, f"/document/{file_doc.doc}/erase", reason="x")
    wrong_word = post(s, f"/document/{file_doc.doc}/erase", confirm="yes")
    assert (unconfirmed.status_code, wrong_word.status_code) == (400, 400)
    assert "in the confirmation field of the erase page" in unconfirmed.text
    assert len(versions(file_doc)) == 2

    done = post(s, f"/document/{file_doc.doc}/erase", confirm="erase", reason="a bad source")
    assert done.status_code == 303 and done.headers["location"] == "/audit"
    assert versions(file_doc) == []
    left = file_doc.rows("SELECT id FROM pm_atom WHERE id = ANY(%s)", sorted(every))
    assert {int(r["id"]) for r in left} == shared
    assert file_doc.rows("SELECT id FROM pm_citation WHERE doc_id = ANY(%s)", mine) == []
    erase = s.audit()[-1]
    assert (erase["action"], erase["target"], erase["target_id"]) == (
        "erase",
        "document",
        file_doc.doc,
    )
    assert erase["before"]["atoms_erased"] == len(only) and erase["after"] == {}
    trail = http_get(s, "/audit")
    assert f"document {file_doc.doc} (erased)" in trail
    assert "final: an erase cannot be undone" in trail
    assert f'action="/audit/{erase["id"]}/undo"' not in trail
    with s.client() as http:
        assert http.get(f"/document/{file_doc.doc}").status_code == 404


def test_a_document_change_without_token_csrf_or_own_origin_is_refused(file_doc: FileDoc) -> None:
    s = file_doc.seeded
    file_doc.write(FILE_V2)
    fields = {"confirm": "erase", "reason": "forged"}
    for action in ("reingest", "redistill", "erase"):
        path = f"/document/{file_doc.doc}/{action}"
        with s.client(token=False) as http:
            no_token = http.post(path, data=s.form(**fields), headers=s.own_origin)
        with s.client() as http:
            no_csrf = http.post(path, data=fields, headers=s.own_origin)
            cross_site = http.post(
                path, data=s.form(**fields), headers={"Origin": "http://evil.example"}
            )
        codes = [no_token.status_code, no_csrf.status_code, cross_site.status_code]
        assert codes == [403] * 3, action
    assert [v["version"] for v in versions(file_doc)] == [1]
    assert s.audit_count() == 0 and s.service.jobs.list_recent() == []


DROPPING = FILE_V2 + (
    "\n## Questions\n\n"
    "What is the largest refractor ever built? See the table below.\n\n"
    "Figure 2: The Yerkes refractor in 1897.\n"
)


def dropped_cell(page: str, version: int) -> str:
    row = re.search(rf'<tr id="version-{version}"[^>]*>(.*?)</tr>', page, re.S)
    assert row is not None
    cell = re.search(r'<td class="dropped">(.*?)</td>', row[1], re.S)
    assert cell is not None
    return cell[1]


def test_the_versions_list_shows_the_drafts_each_version_dropped_by_reason(
    file_doc: FileDoc,
) -> None:
    """What the ingest's distiller dropped, by reason, is kept in the version's metadata and
    shown per version; a version ingested before that was recorded says so."""
    s = file_doc.seeded
    file_doc.write(DROPPING)
    job = file_doc.job_of(post(s, f"/document/{file_doc.doc}/reingest").headers["location"])
    [result] = (job.result or {})["results"]
    assert result["dropped"], "the offline distiller dropped nothing here"
    [meta] = file_doc.rows("SELECT metadata FROM pm_document WHERE id = %s", result["version_id"])
    assert meta["metadata"]["dropped"] == result["dropped"]

    page = http_get(s, f"/document/{result['version_id']}")
    cell = dropped_cell(page, 2)
    shown = {
        html.unescape(why): int(n)
        for why, n in re.findall(r'<li><span class="why">(.*?)</span>: (\d+)</li>', cell)
    }
    assert shown == result["dropped"]
    assert re.search(rf'<span class="num">{sum(shown.values())}</span>', cell)

    with s.service.db.transaction() as conn:  # as a version stored before drops were kept
        conn.execute(
            "UPDATE pm_document SET metadata = metadata - 'dropped' WHERE id = %s", (file_doc.doc,)
        )
    assert "not recorded" in dropped_cell(http_get(s, f"/document/{file_doc.doc}"), 1)
