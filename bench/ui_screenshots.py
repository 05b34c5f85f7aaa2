"""Screenshots of `pegas-memory ui` on a realistic memory, for the README (issue 31).

One run in a fresh temporary data dir on the embedded default stack (the local multilingual
model, the offline distiller): two real framework documentation pages, one in English and one in
Russian (the Vue guide's "Watchers" and "Вычисляемые свойства", CC BY 4.0), a contested pair of
claims stored by hand, and one small indexed repository. The UI is served on loopback and driven
by headless Chromium (Playwright, Debian's `chromium`): the overview, a search, a claim with its
citation marked in its passage, a document, the review queue (the contested pair side by side),
the gaps page, and the audit page after a retract.

Run: `python bench/ui_screenshots.py --docs DIR [--repo DIR] [--out bench/results/ui]`, where
DIR holds `en-vue-watchers-docs.md` and `ru-vue-computed-docs.md` (fetched outside the
repository: vuejs/docs and vuejs-translations/docs-ru, `src/guide/essentials/`).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, embedded_service, log

from pegas_memory.app.requests import IngestRequest, SearchRequest, StoreRequest
from pegas_memory.db.repo import add_link
from pegas_memory.ui.auth import Guard
from pegas_memory.ui.serve import UiServer

DOCS = ("en-vue-watchers-docs.md", "ru-vue-computed-docs.md")
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
    roots = [args.docs] + ([args.repo] if args.repo else [])
    with embedded_service(prefix="pegas-ui-shots-", ingest_roots=roots) as svc:
        for name in DOCS:
            report = svc.ingest(IngestRequest(source=str(args.docs / name)))
            log(f"ingested {name}: {len(report.atom_ids)} atoms")
        first = svc.store(StoreRequest(claim=CONTESTED[0], source="https://example.org/atlas"))
        second = svc.store(StoreRequest(claim=CONTESTED[1], source="https://example.org/encyc"))
        with svc.db.transaction() as conn:
            add_link(conn, first.id, second.id, "contradicts", source="agent")
        for atom in (first.id, second.id):
            svc.set_atom_status(atom, "contested", reason="two sources disagree on the length")
        if args.repo is not None:
            svc.store_code(str(args.repo))
        svc.runtime.worker("shots").drain(timeout=600)
        hit = svc.search(SearchRequest(query="watch a reactive property", store="atoms")).hits[0]
        server = UiServer(svc, Guard("shots-" + "t" * 24), "127.0.0.1", 0).start()
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=browser_path, headless=True)
                page = browser.new_page(viewport={"width": 1280, "height": 900})

                def shot(path: str, name: str) -> None:
                    page.goto(server.url + path)
                    page.screenshot(path=str(args.out / f"{name}.png"), full_page=False)
                    log(f"  {name}.png <- {path}")

                page.goto(server.login_url)
                shot("/", "overview")
                shot("/search?q=" + quote("вычисляемые свойства watchers"), "search")
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
                shot("/audit", "audit")
                browser.close()
        finally:
            server.stop()
    log(f"screenshots in {args.out}")


if __name__ == "__main__":
    main()
