"""Web pages that build their text with JavaScript, read in a headless browser.

Many documentation sites and web apps send an empty shell (`<div id="root"></div>` and scripts)
and write the text in the browser. `needs_render` tells such a shell from a page whose text is
in its HTML; `render_page` opens it in a headless Chromium (Playwright driving the browser the
machine has: Debian's `chromium`, or `PEGAS_BROWSER`) and returns the HTML the scripts built.

The browser never touches the network itself. Every request it makes (the page, its scripts,
their XHR/fetch calls) is intercepted and answered by `netguard.fetch_url`: the same SSRF checks
on every hop, DNS pinning, proxy (`PEGAS_PROXY_URL`), size limit and timeout as any ingest; what
netguard refuses is aborted and counted. Requests that cannot carry text (images, media, fonts,
style sheets) and anything but GET are not made; service workers are blocked; and the browser's
own proxy points at a closed port, so a request that escaped interception would fail rather than
reach the network.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pegas_memory.config import Settings
from pegas_memory.errors import IngestError, LimitExceeded, PegasMemoryError, SecurityRefused
from pegas_memory.ingest.netguard import FetchedResource, fetch_url

log = logging.getLogger(__name__)

# Where Debian and other distributions put Chromium, tried in order after PEGAS_BROWSER.
BROWSER_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# A page whose visible text is shorter than this while it carries scripts is an app shell.
SHELL_TEXT_CHARS = 200
# Resource types that carry no text: never fetched.
SKIPPED_TYPES = frozenset({"image", "media", "font", "stylesheet", "texttrack", "manifest"})
# The browser's own proxy: a closed port, so nothing reaches the network around the interceptor.
_NOWHERE = "http://127.0.0.1:9"
# How long the scripts may keep the network busy after the page loaded (milliseconds).
SETTLE_MS = 3_000

Fetch = Callable[[str, Settings], FetchedResource]


@dataclass
class RenderedPage:
    html: str
    url_final: str
    requests: int = 0  # answered through netguard
    refused: list[str] = field(default_factory=list)  # "<url>: <why>", what netguard refused
    skipped: int = 0  # images, fonts, style sheets, non-GET


def browser_path(settings: Settings) -> str | None:
    """The Chromium executable to drive: PEGAS_BROWSER, else the first one on PATH."""
    configured = settings.browser
    if configured:
        return configured if os.access(configured, os.X_OK) else shutil.which(configured)
    for name in BROWSER_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def has_script(html: bytes | str) -> bool:
    """Whether a page carries a script that could write its text (a cheap look at the bytes,
    before any parse)."""
    if isinstance(html, str):
        return "<script" in html[:2_000_000].lower()
    return b"<script" in html[:2_000_000].lower()


def needs_render(visible_text: str, html: bytes | str) -> bool:
    """Whether a fetched HTML page is a shell its scripts fill in: scripts that could write its
    text, and little visible text."""
    return has_script(html) and len(" ".join(visible_text.split())) < SHELL_TEXT_CHARS


def render_page(
    url: str, settings: Settings, *, executable: str, fetch: Fetch = fetch_url
) -> RenderedPage:
    """The HTML of `url` after its scripts ran, every request answered through `fetch`.

    Raises IngestError when the browser cannot start or the page cannot be loaded, and the
    errors of `fetch` for the page itself (refused address, too large, HTTP error)."""
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise IngestError(f"the headless browser driver is missing: {exc}") from None

    page_state = RenderedPage(html="", url_final=url)
    main_error: list[PegasMemoryError] = []

    def answer(route: Any, request: Any) -> None:
        if request.method != "GET" or request.resource_type in SKIPPED_TYPES:
            page_state.skipped += 1
            route.abort()
            return
        try:
            got = fetch(request.url, settings)
        except (SecurityRefused, LimitExceeded, IngestError) as exc:
            if request.is_navigation_request() and request.frame.parent_frame is None:
                main_error.append(exc)
            page_state.refused.append(f"{request.url}: {exc}")
            route.abort("blockedbyclient")
            return
        page_state.requests += 1
        if request.is_navigation_request() and request.frame.parent_frame is None:
            page_state.url_final = got.url_final
        headers = {"content-type": got.headers.get("content-type", got.content_type)}
        route.fulfill(status=got.status, headers=headers, body=got.body)

    timeout_ms = settings.fetch_timeout * 1000
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=executable,
                headless=True,
                proxy={"server": _NOWHERE},
                args=["--dns-prefetch-disable", "--no-pings", "--disable-background-networking"],
            )
            try:
                context = browser.new_context(
                    service_workers="block", accept_downloads=False, java_script_enabled=True
                )
                context.route("**/*", answer)
                page = context.new_page()
                page.set_default_timeout(timeout_ms)
                try:
                    page.goto(url, wait_until="load", timeout=timeout_ms)
                except PlaywrightError:
                    if main_error:
                        raise main_error[0] from None
                    raise
                try:  # the scripts' own requests: wait until the network is quiet, briefly
                    page.wait_for_load_state("networkidle", timeout=SETTLE_MS)
                except PlaywrightError:
                    pass
                page_state.html = page.content()
            finally:
                browser.close()
    except PegasMemoryError:
        raise
    except PlaywrightError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise IngestError(f"the headless browser could not load {url}: {first}") from None
    if len(page_state.html.encode("utf-8")) > settings.max_fetch_bytes:
        raise LimitExceeded(
            f"{url} rendered to more than max_fetch_bytes={settings.max_fetch_bytes}; raise "
            "PEGAS_MAX_FETCH_BYTES to ingest it"
        )
    return page_state
