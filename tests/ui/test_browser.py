"""A real headless Chromium (Debian's, driven by Playwright) through the pages and one change
with its undo, as a person does it: open the printed link, search, open a claim, retract it
with a reason, see it in the audit trail, undo it."""

from __future__ import annotations

import re
import threading
from typing import Any

from pegas_memory.jobs import JobRunner
from tests.ui.conftest import NEEDS_CHROMIUM, SCRIPT_CLAIM, WAIT, Seeded, Served

pytestmark = NEEDS_CHROMIUM


def test_a_person_browses_retracts_a_claim_and_undoes_it(seeded: Seeded, page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(seeded.server.login_url)
    assert page.url == f"{seeded.url}/"  # the token left the address bar
    expect(page.locator("nav .session")).to_have_text("changes allowed (session token)")
    expect(page.locator("h1")).to_have_text("What the memory holds")
    expect(page.get_by_role("link", name="Реки Европы")).to_be_visible()

    page.get_by_role("link", name="Search", exact=True).click()
    page.locator("input[name=q]").fill("Lick Observatory objective")
    page.get_by_role("button", name="Search").click()
    page.get_by_role("link", name=f"atom {seeded.en_atom}", exact=True).click()
    expect(page.locator("#claim")).to_have_text(
        "The Lick Observatory refractor has a 36-inch objective lens."
    )
    expect(page.locator("#atom-status")).to_have_text("candidate")

    retract = page.locator(f"form[action='/atom/{seeded.en_atom}/retract']")
    retract.locator("input[name=reason]").fill("quoted from a forum, not the observatory")
    retract.get_by_role("button", name="Retract").click()
    expect(page.locator("#atom-status")).to_have_text("stale")
    expect(page.locator("table.history")).to_contain_text(
        "retracted: quoted from a forum, not the observatory"
    )
    expect(page.locator("table.audit")).to_contain_text("retract")
    assert seeded.status(seeded.en_atom) == "stale"

    page.get_by_role("link", name="Audit trail").click()
    page.get_by_role("button", name=re.compile(r"^Undo #\d+$")).click()
    expect(page.locator("table.audit")).to_contain_text("undone by #")
    assert seeded.status(seeded.en_atom) == "candidate"
    page.get_by_role("link", name=f"atom {seeded.en_atom}").first.click()
    expect(page.locator("#atom-status")).to_have_text("candidate")


def test_the_browser_shows_a_script_claim_as_text_and_runs_nothing(
    seeded: Seeded, page: Any
) -> None:
    from playwright.sync_api import expect

    page.goto(f"{seeded.url}/atom/{seeded.script_atom}")
    expect(page.locator("#claim")).to_have_text(SCRIPT_CLAIM)
    assert page.evaluate("window.pwned") is None


def test_a_forged_cross_site_form_in_the_browser_is_refused(seeded: Seeded, page: Any) -> None:
    """A page of another origin (served here from a data: URL) auto-submits a retract form to
    the UI in a browser that holds the session cookie: refused, nothing changes."""
    page.goto(seeded.server.login_url)
    forged = (
        "<form id=f method=post action='"
        + f"{seeded.url}/atom/{seeded.en_atom}/retract"
        + "'><input name=reason value=forged></form><script>document.getElementById('f')"
        ".submit()</script>"
    )
    page.goto("data:text/html," + forged)
    page.wait_for_url(f"{seeded.url}/atom/{seeded.en_atom}/retract")
    assert "Not done" in page.content()
    assert seeded.status(seeded.en_atom) == "candidate"
    assert seeded.audit_count() == 0


def test_a_person_resolves_a_contested_pair_undoes_it_and_watches_a_job_live(
    served: Served, runner: tuple[JobRunner, threading.Event], page: Any
) -> None:
    """The review queue in a real browser: keep one side of a contested pair, see the pair
    leave the queue, undo from the audit trail, see it back; then a running job's progress
    moves on the overview without a reload (static/jobs.js) and its cancel stops it."""
    from playwright.sync_api import expect

    from tests.ui.test_review import contested_pair

    link, newer, older = contested_pair(served)
    page.goto(served.server.login_url)
    page.get_by_role("link", name="Review", exact=True).click()
    pair = page.locator(f"#pair-{link}")
    expect(pair.locator(f"#pair-{link}-atom-{older} mark")).to_be_visible()
    keep = pair.locator("form").filter(has=page.locator(f"input[name=keep][value='{newer}']"))
    keep.locator("input[name=reason]").fill("the 2021 survey recounted")
    keep.get_by_role("button").click()
    expect(page.locator(".none").first).to_have_text("No contested pair.")

    page.get_by_role("link", name="Audit trail", exact=True).click()
    expect(page.locator("table.audit")).to_contain_text("resolve: keep")
    page.get_by_role("button", name=re.compile(r"^Undo #\d+$")).click()
    expect(page.locator("table.audit")).to_contain_text("undone by #")
    page.get_by_role("link", name="Review", exact=True).click()
    expect(page.locator(f"#pair-{link}")).to_be_visible()

    _, step = runner
    served.service.jobs.submit_research()
    page.get_by_role("link", name="Overview").click()
    row = page.locator("#job-table tr[data-job]")
    expect(row.locator(".job-message")).to_have_text("step 1 of 5", timeout=WAIT * 1000)
    step.set()
    expect(row.locator(".job-message")).to_have_text("step 2 of 5", timeout=WAIT * 1000)
    row.get_by_role("button", name=re.compile(r"^Cancel job \d+$")).click()
    step.set()
    expect(page.locator("#job-table tr[data-job] .job-state")).to_have_text(
        "cancelled", timeout=WAIT * 1000
    )


def test_the_graph_draws_a_neighbourhood_and_expands_a_node_on_click(
    graph_seeded: Seeded, page: Any
) -> None:
    """Around claim x: x -imports-> y extracted, x -depends_on-> y and z derived. A click on y
    draws y's own links (y -imports-> z, and its derived twin); derived edges are dashed. The
    page runs under its Content-Security-Policy without a complaint."""
    from playwright.sync_api import expect

    complaints: list[str] = []
    page.on(
        "console",
        lambda m: (
            complaints.append(m.text)
            if m.type == "error" and not m.location.get("url", "").endswith("/favicon.ico")
            else None
        ),
    )
    page.on("pageerror", lambda e: complaints.append(str(e)))
    x, y = graph_seeded.extra["x"], graph_seeded.extra["y"]
    page.goto(f"{graph_seeded.url}/graph?node=atom:{x}")
    drawing = page.locator("#graph")
    expect(drawing).to_have_attribute("data-ready", "1")
    expect(drawing).to_have_attribute("data-nodes", "3")
    expect(drawing).to_have_attribute("data-edges", "3")
    expect(drawing).to_have_attribute("data-derived", "2")
    styles = page.evaluate(
        "() => pegasGraph.edges().map(e => [e.data('kind'), e.data('derived'), "
        "e.style('line-style')])"
    )
    assert sorted(map(tuple, styles)) == [
        ("depends_on", True, "dashed"),
        ("depends_on", True, "dashed"),
        ("imports", False, "solid"),
    ]

    at = page.evaluate(f"() => pegasGraph.getElementById('atom:{y}').renderedPosition()")
    box = drawing.bounding_box()
    page.mouse.click(box["x"] + at["x"], box["y"] + at["y"])
    expect(drawing).to_have_attribute("data-edges", "5")
    expect(drawing).to_have_attribute("data-derived", "3")
    expect(drawing).to_have_attribute("data-expanded", f"atom:{x} atom:{y}")
    expect(page.locator("#details h3")).to_have_text(f"Claim {y}")
    expect(page.locator("#details .text")).to_have_text("The lexer module imports the token table.")
    assert complaints == []
