"""A real headless Chromium (Debian's, driven by Playwright) through the search filters and a
document's curation, as a person does it: filter a search by language and by document; re-ingest
a changed file (a job, followed live on the overview to its end) and read what the new version
changed; undo that re-ingest from the audit trail; erase the document through its confirmation
page; and another site's forged forms for those changes, refused."""

from __future__ import annotations

import re
from typing import Any

from tests.ui.conftest import FILE_V2, NEEDS_CHROMIUM, FileDoc, Seeded

pytestmark = NEEDS_CHROMIUM


def hit_links(page: Any) -> list[str]:
    return page.locator("ol.hits li .meta a").evaluate_all(
        "els => els.map(e => e.getAttribute('href'))"
    )


def test_a_person_filters_a_search_by_language_then_searches_inside_a_document(
    seeded: Seeded, page: Any
) -> None:
    from playwright.sync_api import expect

    page.goto(seeded.server.login_url)
    page.get_by_role("link", name="Search", exact=True).click()
    page.locator("input[name=q]").fill("озеро река Байкал Волга lens")
    page.locator("input[name=lang][value=ru]").check()
    page.get_by_role("button", name="Search").click()
    expect(page.locator("ol.hits li").first).to_be_visible()
    assert "lang=ru" in page.url
    languages = page.locator("ol.hits li p.claim").evaluate_all(
        "els => els.map(e => e.getAttribute('lang'))"
    )
    assert languages and set(languages) == {"ru"}
    assert f"/atom/{seeded.ru_atom}" in hit_links(page)

    page.goto(f"{seeded.url}/document/{seeded.en_doc}")
    page.locator("form.search-in input[name=q]").fill("objective lens refractor")
    page.get_by_role("button", name="Search in it").click()
    expect(page.locator(f"input[name=doc][value='{seeded.en_doc}']")).to_be_checked()
    links = hit_links(page)
    allowed = {f"/atom/{a}" for a in seeded.en_doc_atoms}
    assert links and all(
        link in allowed or link.startswith(f"/document/{seeded.en_doc}?") for link in links
    )
    assert f"/atom/{seeded.en_atom}" not in links  # found without the filter: it has no document


def test_a_person_reingests_a_changed_file_follows_the_job_undoes_it_and_erases_it(
    file_doc: FileDoc, page: Any
) -> None:
    from playwright.sync_api import expect

    s = file_doc.seeded
    page.goto(s.server.login_url)
    page.goto(f"{s.url}/document/{file_doc.doc}")
    expect(page.locator("#this-version")).to_contain_text("1 (current)")
    file_doc.write(FILE_V2)
    reingest = page.locator(f"form[action='/document/{file_doc.doc}/reingest']")
    reingest.locator("input[name=reason]").fill("the page was rewritten")
    reingest.get_by_role("button", name="Re-ingest").click()
    page.wait_for_url(re.compile(r"/\?job=\d+#jobs$"))  # at once, the job on the overview
    job = int(re.findall(r"job=(\d+)", page.url)[0])
    row = page.locator(f"#job-table tr[data-job='{job}']")
    expect(row.locator(".job-state")).to_have_text("done", timeout=30_000)
    expect(row.locator(".job-message")).to_contain_text("done: version 2")
    expect(row.locator("form.job-cancel")).to_have_count(0)
    row.get_by_role("link", name="open the document").click()
    expect(page.locator("#this-version")).to_contain_text("2 (current)")
    expect(page.locator("#version-2 td.changes").first).to_contain_text(re.compile(r"\+\d+ / −\d+"))
    expect(page.locator("#atoms-withdrawn .status.stale").first).to_be_visible()
    expect(page.locator("#atoms-added li").first).to_be_visible()

    page.get_by_role("link", name="Audit trail", exact=True).click()
    [line] = file_doc.rows("SELECT id FROM pm_ui_audit WHERE action = 'reingest'")
    undo = page.locator(f"form[action='/audit/{line['id']}/undo']")
    undo.locator("input[name=reason]").fill("the old page was right")
    undo.get_by_role("button", name=f"Undo #{line['id']}").click()
    expect(page.locator(f"#audit-{line['id']}")).to_contain_text("undone by #")
    page.goto(f"{s.url}/document/{file_doc.doc}")
    expect(page.locator("#this-version")).to_contain_text("1 (current)")
    expect(page.locator("#version-2")).to_have_count(0)

    page.get_by_role("link", name="Erase this document…").click()
    expect(page.locator("#erase-final")).to_contain_text("final and cannot be undone")
    expect(page.locator("#erase-versions")).to_have_text("1")
    button = page.get_by_role("button", name="Erase this document")
    button.click()  # nothing typed: the browser itself keeps the form back
    assert re.search(r"/document/\d+/erase$", page.url)
    mine = "SELECT id FROM pm_document WHERE identity_id = %s"
    assert len(file_doc.rows(mine, file_doc.doc)) == 1
    page.locator("input[name=confirm]").fill("erase")
    page.locator("form.erase input[name=reason]").fill("a rewritten page is no source")
    button.click()
    expect(page.locator("h1")).to_have_text("Audit trail")
    expect(page.locator("table.audit")).to_contain_text(f"document {file_doc.doc} (erased)")
    expect(page.locator("table.audit")).to_contain_text("a rewritten page is no source")
    expect(page.locator("table.audit")).to_contain_text("final: an erase cannot be undone")
    assert file_doc.rows("SELECT id FROM pm_document WHERE identity_id = %s", file_doc.doc) == []


def test_forged_cross_site_document_changes_in_the_browser_are_refused(
    file_doc: FileDoc, page: Any
) -> None:
    """Pages of another origin (data: URLs) auto-submit an erase (confirmed) and a re-ingest to
    the UI in a browser that holds the session cookie: both refused, nothing changes."""
    s = file_doc.seeded
    page.goto(s.server.login_url)
    file_doc.write(FILE_V2)
    for action, fields in (("erase", "confirm=erase&reason=forged"), ("reingest", "reason=x")):
        inputs = "".join(
            f"<input name={k} value={v}>" for k, v in (f.split("=") for f in fields.split("&"))
        )
        target = f"{s.url}/document/{file_doc.doc}/{action}"
        page.goto(
            f"data:text/html,<form id=f method=post action='{target}'>{inputs}</form>"
            "<script>document.getElementById('f').submit()</script>"
        )
        page.wait_for_url(target)
        assert "Not done" in page.content()
    versions = file_doc.rows("SELECT version FROM pm_document WHERE identity_id = %s", file_doc.doc)
    assert [v["version"] for v in versions] == [1]
    assert s.audit_count() == 0
