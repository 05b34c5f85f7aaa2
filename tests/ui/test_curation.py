"""Changes from the UI: through the service calls the MCP tools use, each an audit line
(who, when, why, before, after) shown on the pages, each undoable until its target is erased."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.ui.curation import Curator
from tests.ui.conftest import Seeded


def post(seeded: Seeded, path: str, **fields: str) -> Any:
    with seeded.client() as http:
        return http.post(path, data=seeded.form(**fields), headers=seeded.own_origin)


def history(seeded: Seeded, atom_id: int) -> list[tuple[str | None, str, str]]:
    rows = seeded.rows(
        "SELECT from_status, to_status, check_name FROM pm_status_change"
        " WHERE atom_id = %s ORDER BY id",
        atom_id,
    )
    return [(r["from_status"], r["to_status"], r["check_name"]) for r in rows]


def test_retract_is_audited_shown_and_undo_restores_the_previous_status(seeded: Seeded) -> None:
    atom = seeded.en_atom
    done = post(
        seeded, f"/atom/{atom}/retract", reason="the source misquotes", next=f"/atom/{atom}"
    )
    assert done.status_code == 303 and done.headers["location"] == f"/atom/{atom}"
    assert seeded.status(atom) == "stale"
    [line] = seeded.audit()
    assert (line["actor"], line["action"], line["target"], line["target_id"]) == (
        "ui",
        "retract",
        "atom",
        atom,
    )
    assert line["reason"] == "the source misquotes"
    assert (line["before"]["status"], line["after"]["status"]) == ("candidate", "stale")
    assert history(seeded, atom)[-1] == ("candidate", "stale", "forget")  # memory_forget's path

    with seeded.client() as http:
        page = http.get(f"/atom/{atom}").text
    assert re.search(rf'<tr id="audit-{line["id"]}"', page)
    assert "the source misquotes" in page and f"Undo #{line['id']}" in page

    undone = post(seeded, f"/audit/{line['id']}/undo", reason="it was right after all")
    assert undone.status_code == 303
    assert seeded.status(atom) == "candidate"
    first, undo = seeded.audit()
    assert first["undone_by"] == undo["id"] and undo["undoes"] == first["id"]
    assert (undo["action"], undo["after"]["status"]) == ("undo", "candidate")
    assert history(seeded, atom)[-1] == ("stale", "candidate", "ui")
    with seeded.client() as http:
        page = http.get("/audit").text
    assert f"undone by #{undo['id']}" in page
    assert f"Undo #{first['id']}" not in page


def test_an_undo_is_done_once(seeded: Seeded) -> None:
    post(seeded, f"/atom/{seeded.ru_atom}/retract", reason="x")
    [line] = seeded.audit()
    assert post(seeded, f"/audit/{line['id']}/undo").status_code == 303
    again = post(seeded, f"/audit/{line['id']}/undo")
    assert again.status_code == 400 and "already undone" in again.text
    assert post(seeded, f"/audit/{line['id'] + 1}/undo").status_code == 400  # an undo's line
    assert seeded.status(seeded.ru_atom) == "candidate"
    assert len(seeded.audit()) == 2


def test_undo_refuses_to_overwrite_a_later_change(seeded: Seeded) -> None:
    atom = seeded.en_atom
    post(seeded, f"/atom/{atom}/retract", reason="x")
    [line] = seeded.audit()
    seeded.service.set_atom_status(atom, "verified", reason="an agent verified it since")
    refused = post(seeded, f"/audit/{line['id']}/undo")
    assert refused.status_code == 400
    assert "changed since" in refused.text
    assert seeded.status(atom) == "verified"


def test_undo_is_refused_once_the_atom_is_erased(seeded: Seeded) -> None:
    atom = seeded.en_atom
    post(seeded, f"/atom/{atom}/retract", reason="x")
    [line] = seeded.audit()
    seeded.service.forget(mode="erase", atom_ids=[atom])
    with pytest.raises(NotFound):
        Curator(seeded.service).undo(int(line["id"]), "")
    with seeded.client() as http:
        page = http.get("/audit").text
    assert f"atom {atom} (erased)" in page and f"Undo #{line['id']}" not in page


def test_verify_runs_memory_verify_and_records_its_verdict(seeded: Seeded) -> None:
    atom = seeded.ru_doc_atoms[0]
    done = post(seeded, f"/atom/{atom}/verify", reason="checked by hand")
    assert done.status_code == 303
    [line] = seeded.audit()
    assert line["action"] == "verify" and line["reason"] == "checked by hand"
    assert line["detail"]["verdict"]  # memory_verify's verdict on this atom
    assert line["after"]["status"] == seeded.status(atom)


def test_a_verification_that_confirmed_the_atom_is_undone_to_candidate(seeded: Seeded) -> None:
    """The same claim from a second source: memory_verify confirms it (verified, confidence
    raised); undo puts back the status and the confidence it had."""
    from pegas_memory.app.requests import StoreRequest

    seeded.service.store(
        StoreRequest(
            claim="the Lick Observatory refractor has a 36-inch objective lens.",
            source="https://other.example/telescopes",
        )
    )
    atom = seeded.en_atom
    assert post(seeded, f"/atom/{atom}/verify").status_code == 303
    [line] = seeded.audit()
    assert line["detail"]["verdict"] == "confirmed"
    assert (line["before"]["status"], line["after"]["status"]) == ("candidate", "verified")
    assert seeded.status(atom) == "verified"
    assert post(seeded, f"/audit/{line['id']}/undo").status_code == 303
    row = seeded.row("SELECT status, confidence FROM pm_atom WHERE id = %s", atom)
    assert row["status"] == "candidate"
    assert row["confidence"] == pytest.approx(line["before"]["confidence"])


def test_a_verification_that_changed_nothing_has_nothing_to_undo(seeded: Seeded) -> None:
    curator = Curator(seeded.service)
    outcome = curator.verify(seeded.script_atom, "")  # a lone claim: nothing confirms it
    [line] = seeded.audit()
    assert line["before"] == line["after"]
    with pytest.raises(InvalidInput, match="changed nothing"):
        curator.undo(outcome.audit_id, "")


def test_close_a_gap_then_undo_reopens_it(seeded: Seeded) -> None:
    done = post(seeded, f"/gap/{seeded.gap}/close", status="filled", reason="found in Telescopes")
    assert done.status_code == 303 and done.headers["location"] == "/"
    assert seeded.service.list_gaps(status="filled").total == 1
    with seeded.client() as http:
        overview = http.get("/").text
    assert "No open gap." in overview and "found in Telescopes" in overview
    [line] = seeded.audit()
    assert post(seeded, f"/audit/{line['id']}/undo").status_code == 303
    assert [g.id for g in seeded.service.list_gaps(status="open").gaps] == [seeded.gap]


def test_a_change_with_a_bad_value_says_why_and_records_nothing(seeded: Seeded) -> None:
    bad_status = post(seeded, f"/gap/{seeded.gap}/close", status="open")
    missing = post(seeded, "/atom/999999/retract", reason="x")
    assert bad_status.status_code == 400 and "filled or abandoned" in bad_status.text
    assert missing.status_code == 404
    assert seeded.audit() == []


def test_a_next_page_elsewhere_is_not_followed(seeded: Seeded) -> None:
    done = post(seeded, f"/atom/{seeded.ru_atom}/retract", next="//evil.example/")
    assert done.headers["location"] == f"/atom/{seeded.ru_atom}"
