"""The graph page's data over HTTP on loopback, read from PostgreSQL: a claim's links both ways
with the inferred ones marked derived (with the rule that gave them), a code symbol's calls,
its module's derived dependencies and the claims citing it; errors as JSON; the page drawing it
with the vendored Cytoscape.js (pinned, its licence beside it) and, without a script, a table."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from pegas_memory.errors import InvalidInput
from pegas_memory.ui.auth import COOKIE, Guard
from pegas_memory.ui.graph_data import NodeRef, node_ref
from pegas_memory.ui.serve import UiServer
from tests.ui.conftest import SCRIPT_CLAIM, Seeded

VENDOR = Path(__file__).resolve().parents[2] / "pegas_memory" / "ui" / "static" / "vendor"


def graph(seeded: Seeded, node: str, **params: Any) -> dict[str, Any]:
    with seeded.client(token=False) as http:
        answer = http.get("/graph.json", params={"node": node, **params})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/json"
    return dict(answer.json())


def edges(body: dict[str, Any]) -> set[tuple[str, str, str, bool]]:
    return {(e["source"], e["target"], e["kind"], e["derived"]) for e in body["edges"]}


def test_a_claims_neighbourhood_marks_inferred_links_derived_with_their_rule(
    graph_seeded: Seeded,
) -> None:
    x, y, z = (graph_seeded.extra[k] for k in ("x", "y", "z"))
    body = graph(graph_seeded, f"atom:{x}")
    assert body["center"] == f"atom:{x}" and body["nodes"][0]["id"] == f"atom:{x}"
    assert {n["id"] for n in body["nodes"]} == {f"atom:{x}", f"atom:{y}", f"atom:{z}"}
    assert edges(body) == {
        (f"atom:{x}", f"atom:{y}", "imports", False),
        (f"atom:{x}", f"atom:{y}", "depends_on", True),
        (f"atom:{x}", f"atom:{z}", "depends_on", True),
    }
    transitive = next(e for e in body["edges"] if e["target"] == f"atom:{z}")
    assert transitive["origin"] == "inferred"
    assert {d["rule"] for d in transitive["derivations"]} == {graph_seeded.extra["rules"][1]}
    extracted = next(e for e in body["edges"] if e["kind"] == "imports")
    assert extracted["origin"] == "agent" and extracted["derivations"] == []
    # From the middle claim the links come in and go out.
    middle = edges(graph(graph_seeded, f"atom:{y}"))
    assert (f"atom:{x}", f"atom:{y}", "imports", False) in middle
    assert (f"atom:{y}", f"atom:{z}", "depends_on", True) in middle


def test_a_symbols_neighbourhood_holds_its_calls_and_the_claims_citing_it(
    graph_seeded: Seeded,
) -> None:
    f, g, h = graph_seeded.symbols("pkg.a.f", "pkg.b.g", "pkg.c.h")
    body = graph(graph_seeded, f"symbol:{g}")
    found = edges(body)
    assert (f"symbol:{f}", f"symbol:{g}", "calls", False) in found
    assert (f"symbol:{g}", f"symbol:{h}", "calls", False) in found
    assert (f"atom:{graph_seeded.extra['citing']}", f"symbol:{g}", "cites", False) in found
    node = next(n for n in body["nodes"] if n["id"] == f"symbol:{g}")
    assert node["text"] == "pkg.b.g" and node["href"] == f"/code/symbol/{g}"
    assert node["where"] == "pkg/b.py:4"
    # The module's dependencies derived by the rules, apart from the imports written.
    a, b, c = graph_seeded.symbols("pkg.a", "pkg.b", "pkg.c")
    module = edges(graph(graph_seeded, f"symbol:{a}"))
    assert (f"symbol:{a}", f"symbol:{b}", "depends_on", True) in module
    assert (f"symbol:{a}", f"symbol:{c}", "depends_on", True) in module
    assert not any(d for (_, _, kind, d) in module if kind == "imports")


def test_a_capped_neighbourhood_says_it_was_cut(graph_seeded: Seeded) -> None:
    x = graph_seeded.extra["x"]
    body = graph(graph_seeded, f"atom:{x}", limit=1)
    assert body["truncated"] is True and len(body["edges"]) == 1
    assert graph(graph_seeded, f"atom:{x}")["truncated"] is False


def test_bad_and_unknown_nodes_answer_json_errors(seeded: Seeded) -> None:
    with seeded.client(token=False) as http:
        bad = http.get("/graph.json", params={"node": "document:3"})
        gone = http.get("/graph.json", params={"node": "atom:99999999"})
        page = http.get("/graph", params={"node": "symbol:99999999"})
    assert bad.status_code == 400 and "atom:<id> or symbol:<id>" in bad.json()["error"]
    assert gone.status_code == 404 and "atom 99999999 not found" in gone.json()["error"]
    assert page.status_code == 404 and "symbol 99999999 not found" in page.text


@pytest.mark.parametrize(
    ("text", "ref"),
    [
        ("atom:42", NodeRef("atom", 42)),
        ("symbol:7", NodeRef("symbol", 7)),
        (" 9 ", NodeRef("atom", 9)),
    ],
)
def test_node_names_parse(text: str, ref: NodeRef) -> None:
    assert node_ref(text) == ref


@pytest.mark.parametrize("text", ["", "atom:", "atom:0", "atom:-1", "doc:3", "atom:1e3", None])
def test_other_node_names_are_refused(text: str | None) -> None:
    with pytest.raises(InvalidInput):
        node_ref(text)


def test_the_page_draws_with_the_vendored_script_and_lists_the_edges_without_one(
    graph_seeded: Seeded,
) -> None:
    x = graph_seeded.extra["x"]
    with graph_seeded.client(token=False) as http:
        page = http.get("/graph", params={"node": f"atom:{x}"})
        script = http.get("/static/vendor/cytoscape/cytoscape.min.js")
        ours = http.get("/static/graph.js")
        empty = http.get("/graph")
    assert page.status_code == 200
    html = page.text
    assert '<script src="/static/vendor/cytoscape/cytoscape.min.js"></script>' in html
    assert f'data-center="atom:{x}"' in html
    assert html.count('<tr class="derived">') == 2 and html.count('<tr class="extracted">') == 1
    assert "<script>" not in html  # no inline script: the policy would refuse one anyway
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert ours.status_code == 200 and "textContent" in ours.text
    assert empty.status_code == 200 and "data-center" not in empty.text


def test_the_vendored_library_is_pinned_and_licensed() -> None:
    folder = VENDOR / "cytoscape"
    record = json.loads((folder / "VENDORED.json").read_text())
    data = (folder / "cytoscape.min.js").read_bytes()
    assert hashlib.sha256(data).hexdigest() == record["files"]["cytoscape.min.js"]["sha256"]
    assert f'"{record["version"]}"'.encode() in data  # the build carries its own version
    assert record["license"] == "MIT"
    assert "Permission is hereby granted" in (folder / "LICENSE").read_text()


def test_a_script_claim_travels_as_json_text(graph_seeded: Seeded) -> None:
    with graph_seeded.client(token=False) as http:
        answer = http.get("/graph.json", params={"node": f"atom:{graph_seeded.script_atom}"})
        page = http.get("/graph", params={"node": f"atom:{graph_seeded.script_atom}"})
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.json()["nodes"][0]["text"] == SCRIPT_CLAIM
    assert "<script>window" not in page.text


def test_a_non_loopback_server_gives_the_graph_and_code_only_to_the_token(
    graph_seeded: Seeded,
) -> None:
    guard = Guard("r" * 32, reads_need_token=True)
    server = UiServer(graph_seeded.service, guard, "127.0.0.1", 0).start()
    [g] = graph_seeded.symbols("pkg.b.g")
    paths = [f"/graph.json?node=atom:{graph_seeded.extra['x']}", f"/code/symbol/{g}", "/code"]
    try:
        with httpx.Client(base_url=server.url) as http:
            anonymous = [http.get(p) for p in paths]
            http.cookies.set(COOKIE, guard.token)
            holder = [http.get(p) for p in paths]
    finally:
        server.stop()
    assert [a.status_code for a in anonymous] == [403, 403, 403]
    assert not any("pkg.b" in a.text or "lexer" in a.text for a in anonymous)
    assert [h.status_code for h in holder] == [200, 200, 200]
