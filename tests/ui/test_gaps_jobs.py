"""The gaps page (add, close, research as a job) and the jobs' live progress with cancel: the
same service paths as memory_add_gap, memory_list_gaps and memory_job, each change audited."""

from __future__ import annotations

import html
import threading
import time
from typing import Any

from pegas_memory.jobs import JobRunner
from tests.ui.conftest import WAIT, Served


def jobs_json(served: Served, *ids: int) -> dict[int, dict[str, Any]]:
    with served.client() as http:
        answer = http.get("/jobs.json", params=[("id", str(i)) for i in ids])
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
    return {j["id"]: j for j in answer.json()["jobs"]}


def test_a_gap_is_added_listed_closed_and_its_addition_undone(served: Served) -> None:
    question = "Какова глубина озера Байкал в самой глубокой точке?"
    done = served.post("/gaps/add", question=question, reason="asked twice", priority="4")
    assert done.status_code == 303 and done.headers["location"] == "/gaps"
    [gap] = served.service.list_gaps(status="open").gaps
    assert (gap.question, gap.priority, gap.reason) == (question, 4, "asked twice")
    page = served.get("/gaps")
    assert html.escape(question) in page and f'action="/gap/{gap.id}/close"' in page
    [line] = served.audit()
    assert (line["action"], line["target"], line["target_id"]) == ("add_gap", "gap", gap.id)

    # the same question again is memory_add_gap's merge: a line, nothing to undo
    served.post("/gaps/add", question=question + "?", priority="5")
    assert served.service.list_gaps(status="open").gaps[0].priority == 5
    merged = served.audit()[-1]
    assert merged["before"] == merged["after"] and not merged["detail"]["created"]

    assert served.post(f"/audit/{line['id']}/undo", reason="a typo").status_code == 303
    assert served.service.list_gaps(status="open").total == 0
    assert [g.id for g in served.service.list_gaps(status="abandoned").gaps] == [gap.id]
    assert html.escape(question) in served.get("/gaps?status=abandoned")


def test_bad_gap_forms_say_why_and_change_nothing(served: Served) -> None:
    empty = served.post("/gaps/add", question="   ")
    priority = served.post("/gaps/add", question="What is X?", priority="9")
    research = served.post("/gaps/research", max_gaps="0")
    assert empty.status_code == priority.status_code == research.status_code == 400
    assert "question is empty" in html.unescape(empty.text)
    assert "priority must be from 1 to 5" in html.unescape(priority.text)
    assert served.service.list_gaps(status=None).total == 0
    assert served.service.jobs.list_recent() == [] and served.audit() == []


def test_research_starts_a_job_shown_on_the_overview_and_cancelled_there(served: Served) -> None:
    """No runner in this process: the job stays queued, and a queued job cancels at once."""
    served.service.add_gap("Who built the Yerkes refractor's lens?")
    started = served.post("/gaps/research", max_gaps="2", urls_per_gap="1", reason="before lunch")
    assert started.status_code == 303 and started.headers["location"] == "/#jobs"
    [job] = served.service.jobs.list_recent()
    assert (job.kind, job.state) == ("research", "queued")
    overview = served.get("/")
    assert f'<tr data-job="{job.id}">' in overview and f"Cancel job {job.id}" in overview
    assert '<script src="/static/jobs.js" defer></script>' in overview
    assert jobs_json(served)[job.id]["state"] == "queued"

    assert served.post(f"/job/{job.id}/cancel", reason="wrong gaps").status_code == 303
    assert served.service.jobs.get(job.id).state == "cancelled"
    assert job.id not in jobs_json(served)  # no longer active
    assert jobs_json(served, job.id)[job.id]["finished"] is True  # asked for by id
    start, cancel = served.audit()
    assert (start["action"], start["target"], start["target_id"]) == ("research", "job", job.id)
    assert (cancel["action"], cancel["after"]["status"]) == ("cancel_job", "cancelled")
    refused = served.post(f"/audit/{cancel['id']}/undo")
    assert refused.status_code == 400 and "not undone here" in html.unescape(refused.text)


def until(check: Any, what: str) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not within {WAIT} s: {what}")


def test_a_running_jobs_progress_is_live_and_a_cancel_stops_it(
    served: Served, runner: tuple[JobRunner, threading.Event]
) -> None:
    _, step = runner
    served.post("/gaps/research")
    [job] = served.service.jobs.list_recent()
    seen = until(
        lambda: (j := jobs_json(served).get(job.id)) and j["message"] == "step 1 of 5" and j,
        "the job running its first step",
    )
    assert (seen["state"], seen["done"], seen["total"]) == ("running", 0, 5)
    step.set()
    until(lambda: jobs_json(served)[job.id]["message"] == "step 2 of 5", "the progress moving on")
    cancelled = served.post(f"/job/{job.id}/cancel")  # the cancel alone stops it
    assert cancelled.status_code == 303
    final = until(
        lambda: (j := jobs_json(served, job.id)[job.id])["finished"] and j, "the job stopping"
    )
    assert final["state"] == "cancelled"
    # The page the cancel returns to still shows the job, stopped, with nothing left to cancel.
    assert cancelled.headers["location"] == f"/?job={job.id}#jobs"
    overview = served.get(cancelled.headers["location"].partition("#")[0])
    row = overview.partition(f'<tr data-job="{job.id}" class="finished">')[2].partition("</tr>")[0]
    assert ">cancelled<" in row and "Cancel job" not in row
