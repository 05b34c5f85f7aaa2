"""The review queue: contested pairs side by side with their sources, resolved (keep one, keep
both in different scopes, retract both) through the service, audited in the change's own
transaction and undone; candidates with verify and retract; merges split again and joined back."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from pegas_memory.app.requests import IngestRequest, StoreRequest
from pegas_memory.errors import InvalidInput
from pegas_memory.ui.curation import Curator
from tests.ui.conftest import Served

SURVEY_A = "The survey of the northern reserve counted 1642 species of beetles in the old forest."
SURVEY_B = "The survey of the northern reserve counted 1643 species of beetles in the old forest."
CLAIM = "Treatment for two days increased the activity of brown adipose tissue in twelve women."
NEAR = CLAIM.replace("two days", "two days,")  # the same claim, re-punctuated


def contested_pair(served: Served) -> tuple[int, int, int]:
    """Two documents whose claims differ only in a number: ingest links them `contradicts`
    and contests both. Returns (link, newer atom, older atom)."""
    svc = served.service
    first = svc.ingest(IngestRequest(source=SURVEY_A, kind="text", title="Survey 2019"))
    svc.runtime.worker().drain()
    second = svc.ingest(IngestRequest(source=SURVEY_B, kind="text", title="Survey 2021"))
    assert second.contradictions == 1
    [link] = served.rows(
        "SELECT id, src_atom_id, dst_atom_id FROM pm_atom_link WHERE kind = 'contradicts'"
    )
    assert link["dst_atom_id"] == first.atom_ids[0]
    return int(link["id"]), int(link["src_atom_id"]), int(link["dst_atom_id"])


def atoms(served: Served, *ids: int) -> dict[int, dict[str, Any]]:
    rows = served.rows(
        "SELECT id, status, confidence, metadata FROM pm_atom WHERE id = ANY(%s)", list(ids)
    )
    return {int(r["id"]): r for r in rows}


def test_a_contested_pair_is_shown_side_by_side_with_its_quoted_sources(served: Served) -> None:
    link, newer, older = contested_pair(served)
    page = served.get("/review")
    pair = page[page.index(f'id="pair-{link}"') : page.index('id="candidates"')]
    assert "Contested pairs (1)" in page
    for atom_id, title in ((newer, "Survey 2021"), (older, "Survey 2019")):
        side = pair[pair.index(f'id="pair-{link}-atom-{atom_id}"') :]
        assert f'href="/atom/{atom_id}"' in side and title in side
        assert '<span class="status contested">contested</span>' in side
    # the quoted words marked inside their passage, each linking to the atom quoting them
    assert re.search(rf'<mark title="cited by atom {older}"><a href="/atom/{older}">', pair)
    assert html.escape(SURVEY_A, quote=False).split(" 1642")[0] in pair
    assert f'name="keep" value="{newer}"' in pair and f'name="scope_{older}"' in pair


def test_keeping_one_retracts_the_other_and_undo_contests_both_again(served: Served) -> None:
    link, newer, older = contested_pair(served)
    done = served.post(
        f"/review/pair/{link}/resolve", outcome="keep", keep=str(newer), reason="recounted"
    )
    assert done.status_code == 303 and done.headers["location"] == "/review"
    now = atoms(served, newer, older)
    assert now[newer]["status"] == "candidate"  # as before ingest contested it
    assert now[older]["status"] == "stale"
    [change] = served.rows(
        "SELECT check_name, reason FROM pm_status_change WHERE atom_id = %s ORDER BY id DESC "
        "LIMIT 1",
        older,
    )
    assert change["check_name"] == "forget" and "recounted" in change["reason"]  # memory_forget
    [line] = served.audit()
    assert (line["action"], line["target"], line["target_id"]) == ("resolve", "link", link)
    assert line["detail"]["outcome"] == "keep" and line["detail"]["kept"] == newer
    assert {a["status"] for a in line["before"]["atoms"].values()} == {"contested"}
    assert line["after"]["atoms"][str(older)]["status"] == "stale"
    assert "No contested pair." in served.get("/review")
    assert f"Undo #{line['id']}" in served.get("/audit")

    assert served.post(f"/audit/{line['id']}/undo", reason="asked the surveyors").status_code == 303
    back = atoms(served, newer, older)
    assert back[newer]["status"] == back[older]["status"] == "contested"
    [kind] = served.rows("SELECT kind, metadata FROM pm_atom_link WHERE id = %s", link)
    assert kind["kind"] == "contradicts" and "resolution" not in kind["metadata"]
    assert "Contested pairs (1)" in served.get("/review")


def test_keeping_both_in_different_scopes_stops_verification_contesting_them(
    served: Served,
) -> None:
    link, newer, older = contested_pair(served)
    done = served.post(
        f"/review/pair/{link}/resolve",
        outcome="both",
        reason="two surveys, two years",
        **{f"scope_{older}": "survey of 2019", f"scope_{newer}": "survey of 2021"},
    )
    assert done.status_code == 303
    now = atoms(served, newer, older)
    assert {now[newer]["status"], now[older]["status"]} == {"candidate"}
    assert now[older]["metadata"]["scope"] == "survey of 2019"
    assert '<td id="atom-scope">survey of 2019 ' in served.get(f"/atom/{older}")
    [row] = served.rows("SELECT kind, metadata FROM pm_atom_link WHERE id = %s", link)
    assert row["kind"] == "differs_in_scope"
    assert row["metadata"]["resolution"]["scopes"] == {
        str(older): "survey of 2019",
        str(newer): "survey of 2021",
    }
    # the model still says "contradicts": a person's judgement stands
    served.chat.append(lambda _r: {"verdict": "contradicts", "reason": "numbers", "ref_id": older})
    served.service.runtime.worker().drain()
    (verdict,) = served.service.verify(atom_ids=[newer]).verdicts
    assert "different scopes" in verdict.reason
    assert atoms(served, newer)[newer]["status"] == "candidate"

    [line] = served.audit()
    Curator(served.service).undo(int(line["id"]), "")
    [row] = served.rows("SELECT kind FROM pm_atom_link WHERE id = %s", link)
    assert row["kind"] == "contradicts"
    assert "scope" not in atoms(served, older)[older]["metadata"]


def test_retracting_both_and_refusals_leave_no_line(served: Served) -> None:
    link, newer, older = contested_pair(served)
    third = served.service.store(StoreRequest(claim="Beetles are insects.")).id
    wrong_keep = served.post(f"/review/pair/{link}/resolve", outcome="keep", keep=str(third))
    no_scope = served.post(f"/review/pair/{link}/resolve", outcome="both")
    bad = served.post(f"/review/pair/{link}/resolve", outcome="merge")
    assert wrong_keep.status_code == no_scope.status_code == bad.status_code == 400
    assert "keep must name atom" in html.unescape(wrong_keep.text)
    assert served.audit() == []
    assert {a["status"] for a in atoms(served, newer, older).values()} == {"contested"}

    assert served.post(f"/review/pair/{link}/resolve", outcome="retract").status_code == 303
    assert {a["status"] for a in atoms(served, newer, older).values()} == {"stale"}
    again = served.post(f"/review/pair/{link}/resolve", outcome="retract")
    assert again.status_code == 400 and "resolved already" in html.unescape(again.text)
    assert len(served.audit()) == 1


def test_a_change_whose_audit_line_fails_is_not_made(served: Served) -> None:
    """The change and its line are one transaction: a line that cannot be written takes the
    change back with it."""
    link, newer, older = contested_pair(served)

    class Failing(Curator):
        def _record(self, *args: Any, **kwargs: Any) -> int:
            raise InvalidInput("the audit trail refused the line")

    failing = Failing(served.service)
    with pytest.raises(InvalidInput, match="refused the line"):
        failing.resolve(link, "keep", "", keep=newer)
    with pytest.raises(InvalidInput, match="refused the line"):
        failing.retract(newer, "")
    assert {a["status"] for a in atoms(served, newer, older).values()} == {"contested"}
    [row] = served.rows("SELECT metadata FROM pm_atom_link WHERE id = %s", link)
    assert "resolution" not in row["metadata"]


def test_candidates_are_listed_with_verify_and_retract(served: Served) -> None:
    atom = served.service.store(StoreRequest(claim="Ravens can solve multi-step puzzles.")).id
    page = served.get("/review")
    row = page[page.index(f'id="candidate-{atom}"') :]
    assert "Ravens can solve multi-step puzzles." in row
    assert f'action="/atom/{atom}/verify"' in row and f'action="/atom/{atom}/retract"' in row
    done = served.post(f"/atom/{atom}/retract", reason="anecdote", next="/review#candidates")
    assert done.headers["location"] == "/review#candidates"
    assert f'id="candidate-{atom}"' not in served.get("/review")


def test_a_merge_is_split_again_from_the_queue_and_joined_back_by_undo(served: Served) -> None:
    svc = served.service
    svc.ingest(IngestRequest(source=f"# Brown fat trial\n\n{CLAIM}\n", kind="text", title="trial"))
    svc.runtime.worker().drain(include_delayed=True)
    second = svc.ingest(IngestRequest(source=f"# Notes\n\n{NEAR}\n", kind="text", title="notes"))
    assert second.merges == 1
    [merge] = svc.merges(action="list").merges
    page = served.get("/review")
    assert f'action="/review/merge/{merge.id}/split"' in page

    assert served.post(f"/review/merge/{merge.id}/split", reason="not the same").status_code == 303
    [line] = served.audit()
    split_atom = int(line["detail"]["atom"])
    assert line["detail"]["created"] and line["detail"]["moved"] == merge.citation_ids
    assert atoms(served, split_atom)[split_atom]["status"] == "candidate"
    assert f'split into <a href="/atom/{split_atom}">' in served.get("/review")

    assert served.post(f"/audit/{line['id']}/undo").status_code == 303
    assert atoms(served, split_atom) == {}  # the claim's own atom is gone again
    [now] = svc.merges(action="list").merges
    assert now.undone_at is None and now.split_atom_id is None
    cited = served.rows("SELECT atom_id FROM pm_citation WHERE id = ANY(%s)", merge.citation_ids)
    assert {r["atom_id"] for r in cited} == {merge.survivor_id}
    assert served.rows("SELECT * FROM pm_merge_block") == []
    # and it can be split again, as if never split
    assert svc.merges(action="split", merge_id=merge.id, reason="again").merges[0].undone_at


def test_the_new_changes_refuse_a_request_without_token_csrf_or_own_origin(served: Served) -> None:
    link, newer, older = contested_pair(served)
    served.service.add_gap("What did the 2021 survey change?")
    job = served.service.jobs.submit_research()
    routes = [
        (f"/review/pair/{link}/resolve", {"outcome": "retract"}),
        ("/review/merge/1/split", {}),
        ("/gaps/add", {"question": "Forged?"}),
        ("/gaps/research", {}),
        (f"/job/{job.id}/cancel", {}),
    ]
    csrf = {"csrf": served.server.guard.csrf}
    for path, fields in routes:
        with served.client(token=False) as http:  # no session cookie
            no_token = http.post(path, data={**csrf, **fields}, headers={"Origin": served.url})
        with served.client() as http:
            no_csrf = http.post(path, data=fields, headers={"Origin": served.url})
            elsewhere = http.post(
                path, data={**csrf, **fields}, headers={"Origin": "http://evil.example"}
            )
        assert no_token.status_code == no_csrf.status_code == elsewhere.status_code == 403, path
    assert {a["status"] for a in atoms(served, newer, older).values()} == {"contested"}
    assert served.service.list_gaps(status=None).total == 1
    assert served.service.jobs.get(job.id).state == "queued"
    assert served.audit() == []


def test_candidates_page_by_key_newest_first(served: Served) -> None:
    ids = [
        served.service.store(StoreRequest(claim=f"Sample {n} of the lake held {n} mg of salt.")).id
        for n in range(27)
    ]
    first = served.get("/review")
    shown = [int(i) for i in re.findall(r'id="candidate-(\d+)"', first)]
    assert shown == sorted(ids, reverse=True)[:25]
    assert "Candidates awaiting verification (27)" in first
    older = re.search(r'href="/review\?before=(\d+)#candidates">older', first)
    assert older is not None and int(older.group(1)) == shown[-1]
    second = served.get(f"/review?before={older.group(1)}")
    assert [int(i) for i in re.findall(r'id="candidate-(\d+)"', second)] == sorted(ids)[:2][::-1]
    assert "older →" not in second and 'href="/review#candidates">← newest' in second
