"""`serve --http`: the MCP streamable HTTP endpoint and the pages of `pegas-memory ui` on one
port over one service, guarded by one token (server/http.py), on real HTTP over loopback."""

from __future__ import annotations

import html
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client

from pegas_memory.config import Settings
from pegas_memory.server.http import http_app, serve_http
from pegas_memory.ui.auth import COOKIE, CSRF_FIELD, BindRefused, Guard, token_path
from pegas_memory.ui.serve import UiServer
from tests.conftest import make_settings
from tests.fake_ollama import FakeOllama
from tests.mcp_harness import error_text, structured

pytestmark = pytest.mark.anyio
TOKEN = "h" * 8 + "session-token-for-tests"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Iterator[Settings]:
    with FakeOllama(dim=64) as fake:
        yield make_settings(
            tmp_path / "data",
            database_url=database_url,
            ollama_url=fake.url,
            embedding_dim=64,
            distiller="offline",
        )


@dataclass
class Running:
    server: UiServer

    @property
    def url(self) -> str:
        return self.server.url

    def client(self, *, cookie: bool = True) -> httpx.Client:
        cookies = {COOKIE: TOKEN} if cookie else {}
        return httpx.Client(base_url=self.url, cookies=cookies, follow_redirects=False)


@contextmanager
def serving(settings: Settings, *, public: bool) -> Iterator[Running]:
    """What serve_http builds, started and stopped afterwards: `public` is the guard of a
    non-loopback bind (served here on loopback, which a test can reach)."""
    guard = Guard(TOKEN, reads_need_token=public)
    app, service = http_app(settings, None, host="127.0.0.1", path="/mcp", guard=guard)
    server = UiServer(service, guard, "127.0.0.1", 0, app=app).start()
    try:
        yield Running(server)
    finally:
        server.stop()


@pytest.fixture
def loopback(settings: Settings) -> Iterator[Running]:
    with serving(settings, public=False) as running:
        yield running


@pytest.fixture
def public(settings: Settings) -> Iterator[Running]:
    with serving(settings, public=True) as running:
        yield running


async def test_the_pages_show_what_an_agent_stored_over_mcp_and_a_change_reaches_it(
    loopback: Running,
) -> None:
    async with Client(f"{loopback.url}/mcp") as agent:
        stored = structured(
            await agent.call_tool("memory_store", {"claim": "Owls can turn their heads 270°."})
        )
        with loopback.client() as http:
            overview = http.get("/")
            page = http.get(f"/atom/{stored['id']}")
            done = http.post(
                f"/atom/{stored['id']}/retract",
                data={CSRF_FIELD: loopback.server.guard.csrf, "reason": "checked: 270 is right"},
                headers={"Origin": loopback.url},
            )
        assert overview.status_code == 200 and "What the memory holds" in overview.text
        assert "Owls can turn their heads 270°." in html.unescape(page.text)
        assert done.status_code == 303
        found = structured(
            await agent.call_tool("memory_search", {"query": "owls turn heads", "limit": 3})
        )
    hit = next(h for h in found["hits"] if h["id"] == stored["id"])
    assert hit["status"] == "stale"  # the agent sees the person's change at once


def test_off_loopback_the_mcp_endpoint_and_the_pages_want_the_token(public: Running) -> None:
    with public.client(cookie=False) as http:
        bare = http.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS)
        wrong = http.post(
            "/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": "Bearer nope"}
        )
        right = http.post(
            "/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
        )
        page = http.get("/")
    assert bare.status_code == wrong.status_code == 401
    assert bare.headers["www-authenticate"].startswith("Bearer")
    assert right.status_code == 200 and "pegas-memory" in right.text
    assert page.status_code == 403 and "wants its token for reading" in page.text
    with public.client() as http:
        assert http.get("/").status_code == 200


def test_on_loopback_the_mcp_endpoint_needs_no_token(loopback: Running) -> None:
    with loopback.client(cookie=False) as http:
        answer = http.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS)
    assert answer.status_code == 200


def test_a_public_bind_without_a_configured_token_is_refused_before_anything_opens(
    settings: Settings,
) -> None:
    said: list[Any] = []
    with pytest.raises(BindRefused, match="PEGAS_UI_TOKEN"):
        serve_http(settings, None, "0.0.0.0", 0, "/mcp", say=said.append)
    assert said == [] and not token_path(settings.data_dir).exists()


def test_the_mcp_path_may_not_hide_the_pages(settings: Settings) -> None:
    with pytest.raises(ValueError, match="must not be /"):
        http_app(settings, None, host="127.0.0.1", path="/", guard=Guard(TOKEN))


async def test_an_agent_resolves_a_contested_pair_with_memory_contradictions(
    loopback: Running,
) -> None:
    """The review queue's decision through MCP: the pair an agent resolves leaves the page."""
    survey = "The survey of the northern reserve counted {} species of beetles in the old forest."
    async with Client(f"{loopback.url}/mcp") as agent:
        for n, title in ((1642, "Survey 2019"), (1643, "Survey 2021")):
            done = structured(
                await agent.call_tool(
                    "memory_ingest", {"source": survey.format(n), "kind": "text", "title": title}
                )
            )
            assert done["finished"], done
        listed = structured(await agent.call_tool("memory_contradictions", {}))
        [pair] = listed["pairs"]
        assert listed["total"] == 1 and {a["status"] for a in pair["atoms"]} == {"contested"}
        with loopback.client() as http:
            assert f'id="pair-{pair["link_id"]}"' in http.get("/review").text
        newer, older = (a["id"] for a in pair["atoms"])
        resolved = structured(
            await agent.call_tool(
                "memory_contradictions",
                {
                    "action": "resolve",
                    "link_id": pair["link_id"],
                    "outcome": "keep",
                    "keep": older,
                    "reason": "the 2019 count is the published one",
                },
            )
        )
        assert resolved["statuses"] == {str(older): "candidate", str(newer): "stale"}
        again = await agent.call_tool(
            "memory_contradictions",
            {"action": "resolve", "link_id": pair["link_id"], "outcome": "retract"},
        )
        assert again.is_error and "resolved already" in error_text(again)
    with loopback.client() as http:
        assert "No contested pair." in http.get("/review").text
