"""Screenshots of `pegas-memory ui` on a realistic memory, for the README (issue 31).

One run in a fresh temporary data dir on the embedded default stack (the local multilingual
model, the offline distiller): two real framework documentation pages, one in English and one in
Russian (the Vue guide's "Watchers" and "Вычисляемые свойства", CC BY 4.0), a contested pair of
claims stored by hand, and one small indexed repository. The UI is served on loopback and driven
by headless Chromium (Playwright, Debian's `chromium`): the overview, a search and a search with
filters (language, status), a claim with its citation marked in its passage, a document, the
review queue (the contested pair side by side), the gaps page, and, after the English page's
file is changed (its last section gone, a new one added) and re-ingested from its page as a job:
the overview following that job, the document's versions (what version 2 changed, the drafts
each version dropped by reason), the erase confirmation, and the audit page (a retract and the
re-ingest, each with its undo). With a repository,
four claims about it citing its symbols are stored and linked by hand, two rules (`imports` gives
`depends_on`, which is transitive) run over them and over the repository's modules, and the graph
and code pages are shot too: a claim's neighbourhood with the symbol it cites expanded by a click,
a module's neighbourhood with its derived dependencies, the code search, and the most called
short function with its source, callers and callees (the whole page). The repository is meant
to be click 8.1.7's `src/` (the claims name its symbols; another repository gets no claims'
citations).

Run: `python bench/ui_screenshots.py --docs DIR [--repo DIR] [--out bench/results/ui]`, where
DIR holds `en-vue-watchers-docs.md` and `ru-vue-computed-docs.md` (fetched outside the
repository: vuejs/docs and vuejs-translations/docs-ru, `src/guide/essentials/`); the committed
shots index click 8.1.7's `src/` as the repository.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, embedded_service, log

from pegas_memory.app.requests import IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.repo import add_link
from pegas_memory.models import CodeCitationIn
from pegas_memory.ui.auth import Guard
from pegas_memory.ui.serve import UiServer

DOCS = ("en-vue-watchers-docs.md", "ru-vue-computed-docs.md")
RULES = (
    {"if": "imports", "then": "depends_on"},
    {"if": ["depends_on", "depends_on"], "then": "depends_on"},
)
# The English page's new last section, for its second version (true of Vue 3).
NEW_SECTION = """
## Watchers and Component Lifetime {#watchers-lifetime}

A watcher declared synchronously inside `setup()` is bound to the owner component instance. It
is stopped automatically when the owner component is unmounted. A watcher created in an
asynchronous callback is not bound to the owner and must be stopped manually to avoid leaks.
"""
CONTESTED = (
    "The Volga River is 3,530 kilometres long.",
    "The Volga River is 3,692 kilometres long.",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, required=True)
    parser.add_argument("--repo", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "bench" / "results" / "ui")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    browser_path = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser_path is None:
        raise SystemExit("no Chromium on PATH: apt-get install chromium")
    args.out.mkdir(parents=True, exist_ok=True)
    edited = Path(tempfile.mkdtemp(prefix="pegas-ui-shots-docs-", dir="/tmp"))
    for name in DOCS:  # copies: the English one is edited and re-ingested below
        shutil.copy(args.docs / name, edited / name)
    roots = [edited] + ([args.repo] if args.repo else [])
    with embedded_service(prefix="pegas-ui-shots-", ingest_roots=roots) as svc:
        svc.jobs.start()  # the re-ingest started from the UI runs as a job here
        for name in DOCS:
            report = svc.ingest(IngestRequest(source=str(edited / name)))
            log(f"ingested {name}: {len(report.atom_ids)} atoms")
        first = svc.store(StoreRequest(claim=CONTESTED[0], source="https://example.org/atlas"))
        second = svc.store(StoreRequest(claim=CONTESTED[1], source="https://example.org/encyc"))
        with svc.db.transaction() as conn:
            add_link(conn, first.id, second.id, "contradicts", source="agent")
        for atom in (first.id, second.id):
            svc.set_atom_status(atom, "contested", reason="two sources disagree on the length")
        if args.repo is not None:
            name = args.repo.name if args.repo.name != "src" else args.repo.parent.name
            svc.store_code(str(args.repo), repo=name)
        hit = svc.search(SearchRequest(query="watch a reactive property", store="atoms")).hits[0]
        claims = claims_about_the_code(svc) if args.repo is not None else []
        svc.runtime.worker("shots").drain(timeout=600)
        server = UiServer(svc, Guard("shots-" + "t" * 24), "127.0.0.1", 0).start()
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=browser_path, headless=True)
                page = browser.new_page(viewport={"width": 1280, "height": 900})

                def shot(path: str, name: str, full: bool = False) -> None:
                    page.goto(server.url + path)
                    page.screenshot(path=str(args.out / f"{name}.png"), full_page=full)
                    log(f"  {name}.png <- {path}")

                page.goto(server.login_url)
                shot("/", "overview")
                shot("/search?q=" + quote("вычисляемые свойства watchers"), "search")
                shot(
                    "/search?q="
                    + quote("кэширование вычисляемых свойств")
                    + "&lang=ru&status=candidate&store=both",
                    "search-filters",
                )
                shot(f"/atom/{hit.id}", "claim")
                shot(f"/atom/{first.id}", "contested-claim")
                shot("/review", "review")
                shot("/gaps", "gaps")
                if hit.document_id is not None:
                    shot(f"/document/{hit.document_id}", "document")
                page.goto(server.url + f"/atom/{second.id}")
                page.fill(
                    "form[action$='/retract'] [name=reason]", "the atlas is the better source"
                )
                page.click("form[action$='/retract'] button")
                reingest_shots(page, shot, server.url, edited / DOCS[0], svc, args.out)
                shot("/audit", "audit")
                if args.repo is not None:
                    code_shots(svc, page, shot, server.url, args.out, claims)
                browser.close()
        finally:
            server.stop()
    log(f"screenshots in {args.out}")


def reingest_shots(
    page: Any, shot: Callable[..., None], url: str, path: Path, svc: MemoryService, out: Path
) -> None:
    """The English page changed (its last section gone, a new one added) and re-ingested from
    its document page: the overview following the job to its end, version 2's page with its
    versions and changes, the erase confirmation."""
    text = path.read_text(encoding="utf-8")
    last = [m.start() for m in re.finditer(r"^## ", text, re.M)][-1]
    path.write_text(text[:last] + NEW_SECTION.lstrip(), encoding="utf-8")
    with svc.db.connection() as conn:
        row = conn.execute(
            "SELECT id FROM pm_document WHERE uri = %s AND is_current", (path.resolve().as_uri(),)
        ).fetchone()
    assert row is not None, f"{path} was not ingested"
    page.goto(f"{url}/document/{row['id']}")
    form = page.locator(f"form[action='/document/{row['id']}/reingest']")
    form.locator("input[name=reason]").fill("the guide gained a section on watcher lifetime")
    form.locator("button").click()
    page.wait_for_url(re.compile(r"/\?job=\d+#jobs$"))
    job = int(re.findall(r"job=(\d+)", page.url)[0])
    state = page.locator(f"#job-table tr[data-job='{job}'] .job-state")
    state.wait_for()
    page.wait_for_function(
        f"() => ['done', 'failed', 'cancelled'].some(s => document.querySelector("
        f"\"#job-table tr[data-job='{job}'] .job-state\").textContent.startsWith(s))",
        timeout=600_000,
    )
    page.reload()  # the whole overview as it stands now: the job's row kept, finished
    page.locator(f"#job-table tr[data-job='{job}'] .job-state").wait_for()
    page.screenshot(path=str(out / "overview-job.png"))
    log(f"  overview-job.png <- job {job}: {state.text_content()}")
    svc.runtime.worker("shots").drain(timeout=600)
    with svc.db.connection() as conn:
        current = conn.execute(
            "SELECT id FROM pm_document WHERE uri = %s AND is_current", (path.resolve().as_uri(),)
        ).fetchone()
    assert current is not None
    shot(f"/document/{current['id']}", "document-versions")
    shot(f"/document/{current['id']}/erase", "erase-confirm")


CLICK_CLAIMS = (  # (claim, the symbol it cites); true of click 8.1.7
    ("click.secho styles a text with click.style and prints it with click.echo.", "secho"),
    ("click.echo prints a message and a newline to standard output by default.", "echo"),
    ("click.style wraps a text in ANSI escape codes for colours and text styles.", "style"),
    ("click.echo removes ANSI styles when the output is not a terminal.", "echo"),
)


def claims_about_the_code(svc: MemoryService) -> list[int]:
    """Claims about the indexed click, each citing its symbol, linked by hand (secho depends on
    echo and style, echo on the ANSI stripping), then the rules over them and over the
    repository's modules: derived edges of both kinds. Returns the claims' ids."""
    with svc.db.connection() as conn:
        symbols = {
            r["name"]: (r["repo"], r["qualified_name"])
            for r in conn.execute(
                "SELECT repo, name, qualified_name FROM pm_code_symbol "
                "WHERE qualified_name IN ('click.termui.secho', 'click.utils.echo', "
                "'click.termui.style')"
            ).fetchall()
        }
    ids = []
    for claim, name in CLICK_CLAIMS:
        cite = None
        if name in symbols and claim != CLICK_CLAIMS[3][0]:
            repo, qname = symbols[name]
            cite = CodeCitationIn(repo=repo, qualified_name=qname)
        ids.append(svc.store(StoreRequest(claim=claim, cite_code=cite)).id)
    secho, echo, style, strip = ids
    with svc.db.transaction() as conn:
        for src, dst in ((secho, echo), (secho, style), (echo, strip)):
            add_link(conn, src, dst, "depends_on", source="agent")
    for rule in RULES:
        text = json.dumps(rule)
        svc.store(StoreRequest(claim=f"rule {text}", type="logical_rule", content=text))
    report = svc.infer()
    log(f"rules derived {report.derived} links and {report.code_derived} code edges")
    return ids


def code_shots(
    svc: MemoryService,
    page: Any,
    shot: Callable[..., None],
    url: str,
    out: Path,
    claims: list[int],
) -> None:
    """The graph of the secho claim with the code symbol it cites expanded by a click, and of a
    module with a handful of derived dependencies; the code search; the most called function's
    page."""
    with svc.db.connection() as conn:
        module = conn.execute(
            "SELECT src_symbol_id AS id FROM pm_code_inferred GROUP BY 1 "
            "HAVING count(*) BETWEEN 3 AND 30 ORDER BY abs(count(*) - 8), 1 LIMIT 1"
        ).fetchone()
        cited = conn.execute(
            "SELECT code_symbol_id AS id FROM pm_citation "
            "WHERE atom_id = %s AND code_symbol_id IS NOT NULL",
            (claims[0],),
        ).fetchone()
        called = conn.execute(
            "SELECT d.dst_symbol_id AS id, s.name FROM pm_code_dependency d "
            "JOIN pm_code_symbol s ON s.id = d.dst_symbol_id "
            "WHERE d.kind = 'calls' AND s.kind IN ('function', 'method') "
            "AND s.end_line - s.start_line < 25 "
            "GROUP BY 1, 2 ORDER BY count(*) DESC, 1 LIMIT 1"
        ).fetchone()
    p = page
    p.goto(f"{url}/graph?node=atom:{claims[0]}")
    p.wait_for_selector("#graph[data-ready='1']")
    if cited is not None:  # a click on the cited symbol draws its callers and callees
        node = f"symbol:{cited['id']}"
        at = p.evaluate(f"() => pegasGraph.getElementById('{node}').renderedPosition()")
        box = p.locator("#graph").bounding_box()
        p.mouse.click(box["x"] + at["x"], box["y"] + at["y"])
        p.wait_for_selector(f"#graph[data-expanded~='{node}']")
        p.wait_for_timeout(400)  # the zoom onto the expanded node is animated (250 ms)
        p.evaluate("() => pegasGraph.fit(undefined, 30)")
    p.screenshot(path=str(out / "graph-claim.png"))
    log("  graph-claim.png")
    if module is not None:
        p.goto(f"{url}/graph?node=symbol:{module['id']}")
        p.wait_for_selector("#graph[data-ready='1']")
        p.screenshot(path=str(out / "graph-code.png"))
        log("  graph-code.png")
    if called is not None:
        shot("/code?q=" + quote(called["name"]), "code")
        shot(f"/code/symbol/{called['id']}", "code-symbol", full=True)


if __name__ == "__main__":
    main()
