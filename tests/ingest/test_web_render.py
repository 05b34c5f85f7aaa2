"""Web pages whose text their scripts write are read in a real headless Chromium (Debian's
`chromium`, driven by Playwright), every request the browser makes answered through netguard:
a loopback web server speaking real HTTP, the page's script fetching its text as JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from pegas_memory.app.requests import IngestRequest, SearchRequest
from pegas_memory.config import load_settings
from pegas_memory.ingest.render import browser_path, needs_render
from pegas_memory.ingest.sources import html_to_text, load_source
from tests.conftest import offline_memory
from tests.loopback import Replies, serve

ARTICLE = {
    "en": "The Lick Observatory opened in 1888 on Mount Hamilton. Its great refractor was the "
    "largest telescope in the world until 1897.",
    "ru": "Пулковская обсерватория открыта в 1839 году. Её главный рефрактор был крупнейшим в "
    "мире до 1847 года.",
}

SHELL = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Observatories</title>
<link rel="stylesheet" href="/style.css"></head>
<body><div id="root">Loading...</div><noscript>Enable JavaScript to read this page.</noscript>
<script>
fetch("/api/article.json").then(r => r.json()).then(data => {
  const root = document.getElementById("root");
  root.innerHTML = "";
  const main = document.createElement("main");
  for (const [lang, text] of Object.entries(data)) {
    const h = document.createElement("h2");
    h.textContent = lang === "ru" ? "Обсерватории" : "Observatories";
    const p = document.createElement("p"); p.textContent = text; p.lang = lang;
    main.appendChild(h); main.appendChild(p);
  }
  root.appendChild(main);
  fetch("http://10.255.255.1/secret").catch(() => {});
});
</script></body></html>"""

STATIC = (
    "<!doctype html><html><head><title>Static</title></head><body><main><p>"
    + " ".join([ARTICLE["en"]] * 3)
    + "</p></main><script>console.log('analytics')</script></body></html>"
)


class _Site(Replies):
    served: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.served.append(self.path)
        routes = {
            "/app": (SHELL.encode(), "text/html; charset=utf-8"),
            "/static": (STATIC.encode(), "text/html; charset=utf-8"),
            "/api/article.json": (json.dumps(ARTICLE).encode(), "application/json"),
            "/style.css": (b"body { color: black }", "text/css"),
        }
        if self.path not in routes:
            self.reply(404, b"")
            return
        self.reply(200, *routes[self.path])


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(_Site) as url:
        yield url


needs_browser = pytest.mark.skipif(
    browser_path(load_settings()) is None,
    reason="no Chromium on this machine: `make test` installs Debian's chromium "
    "(scripts/system-deps.sh); set PEGAS_BROWSER to another one",
)


def test_an_app_shell_is_told_from_a_page_with_its_text() -> None:
    assert needs_render(html_to_text(SHELL), SHELL)
    assert not needs_render(html_to_text(STATIC), STATIC)
    assert not needs_render("", "<html><body></body></html>")  # no script could write it


@needs_browser
def test_a_page_its_script_writes_is_read_in_the_browser(site: str, tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path / "d", url_allowlist=["127.0.0.1"])
    _Site.served.clear()
    parsed = load_source(f"{site}/app", settings)
    assert ARTICLE["en"] in parsed.text and ARTICLE["ru"] in parsed.text
    assert "Loading..." not in parsed.text
    assert parsed.metadata["rendered"] is True
    # the script's fetch went through netguard; the style sheet was never asked for
    assert "/api/article.json" in _Site.served and "/style.css" not in _Site.served
    # the script's request to a private address was refused by netguard, and said so
    assert parsed.metadata["render_refused"] == 1
    assert any("10.255.255.1" in w for w in parsed.warnings)


@needs_browser
def test_a_page_with_its_text_in_the_html_is_not_rendered(site: str, tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path / "d", url_allowlist=["127.0.0.1"])
    parsed = load_source(f"{site}/static", settings)
    assert ARTICLE["en"] in parsed.text
    assert "rendered" not in parsed.metadata


def test_without_a_browser_the_shell_is_read_with_a_warning(site: str, tmp_path: Path) -> None:
    settings = load_settings(
        data_dir=tmp_path / "d", url_allowlist=["127.0.0.1"], browser=str(tmp_path / "none")
    )
    parsed = load_source(f"{site}/app", settings)
    assert ARTICLE["en"] not in parsed.text
    assert any("no headless browser" in w for w in parsed.warnings)
    never = load_settings(data_dir=tmp_path / "d", url_allowlist=["127.0.0.1"], web_render="never")
    assert not load_source(f"{site}/app", never).warnings


@needs_browser
def test_memory_ingest_of_a_script_written_page_finds_both_languages(
    site: str, database_url: str, tmp_path: Path
) -> None:
    with offline_memory(
        database_url, tmp_path / "data", dim=128, url_allowlist=["127.0.0.1"]
    ) as memory:
        report = memory.ingest(IngestRequest(source=f"{site}/app"))
        assert report.document_id is not None
        memory.runtime.worker().drain()
        for query, word in (("largest refractor Mount Hamilton", "Lick"), ("Пулковская", "Пулков")):
            hits = memory.search(SearchRequest(query=query)).hits
            assert hits and word in hits[0].claim
