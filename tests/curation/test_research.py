"""The gap-filling loop with a fake SearxNG and real web pages on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.research import SearxngProvider, parse_searxng, research_gaps
from pegas_memory.app.service import MemoryService
from tests.conftest import offline_memory
from tests.loopback import Replies, serve

PAGE = (
    "<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
    "<p>The speed of sound in dry air at 20 degrees Celsius is 343 metres per second.</p>"
    "<p>{extra}</p></article></body></html>"
)


class Web:
    """Pages plus a SearxNG-like /search endpoint on one loopback server."""

    def __init__(self, search_answer: Any) -> None:
        self.search_answer = search_answer
        web = self

        class Handler(Replies):
            def do_GET(self) -> None:
                if self.path.startswith("/search"):
                    body = json.dumps(web.search_answer(web.base)).encode()
                    ctype = "application/json"
                elif self.path in ("/a", "/b"):
                    body = PAGE.format(
                        title=f"Acoustics {self.path}", extra=f"Page {self.path}."
                    ).encode()
                    ctype = "text/html"
                else:
                    self.reply(404, b"")
                    return
                self.reply(200, body, ctype)

        self._running = ExitStack()
        self.base = self._running.enter_context(serve(Handler))

    def close(self) -> None:
        self._running.close()


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with offline_memory(
        database_url, tmp_path / "data", dim=128, llm=False, url_allowlist=["127.0.0.1"]
    ) as svc:
        yield svc


def test_gap_researched_and_filled(service: MemoryService) -> None:
    web = Web(
        lambda base: {
            "results": [
                {"url": f"{base}/a", "title": "A"},
                {"url": f"{base}/b", "title": "B"},
                {"url": "javascript:alert(1)"},
                {"nope": 1},
            ]
        }
    )
    try:
        gap = service.add_gap("What is the speed of sound in dry air?").gap
        outcomes, note = research_gaps(service, SearxngProvider(web.base), max_gaps=3)
    finally:
        web.close()
    assert note is None
    (outcome,) = outcomes
    assert outcome.gap_id == gap.id and outcome.status == "filled", outcome
    assert len(outcome.urls_tried) == 2 and outcome.answered_by
    listed = service.list_gaps(status="filled").gaps[0]
    assert listed.filled_by == outcome.answered_by and listed.attempts[0]["provider"] == "searxng"


def test_provider_junk_or_down_leaves_gap_open(service: MemoryService) -> None:
    web = Web(lambda base: ["not", "an", "object"])
    try:
        service.add_gap("Who invented the barometer?")
        outcomes, _ = research_gaps(service, SearxngProvider(web.base))
    finally:
        web.close()
    assert outcomes[0].status == "open" and not outcomes[0].urls_tried
    down = SearxngProvider("http://127.0.0.1:9", timeout=2)
    outcomes, _ = research_gaps(service, down)
    assert outcomes[0].status == "open" and "unreachable" in outcomes[0].errors[0]
    gap = service.list_gaps().gaps[0]
    assert len(gap.attempts) == 2


def test_no_provider_does_nothing(service: MemoryService) -> None:
    service.add_gap("anything")
    outcomes, note = research_gaps(service, None)
    assert outcomes == [] and note and "PEGAS_SEARXNG_URL" in note


def test_parse_searxng_filters_junk() -> None:
    data = {
        "results": [
            {"url": "https://x.org/1"},
            {"url": "https://x.org/1"},
            {"url": "ftp://y"},
            {"url": 5},
            "junk",
            {"url": "http://z.org", "title": None},
        ]
    }
    assert [h.url for h in parse_searxng(data, 10)] == ["https://x.org/1", "http://z.org"]
    assert parse_searxng(None, 5) == [] and parse_searxng({"results": "x"}, 5) == []
