"""The graph page of `pegas-memory ui`: the neighbourhood of a claim or a code symbol, drawn in
the browser by the vendored Cytoscape.js (`static/vendor/cytoscape/`, pinned, with its licence)
from the JSON of `/graph.json`, each node expandable on click; inferred (derived) edges drawn
dashed and coloured apart from the extracted ones. The same neighbourhood is rendered on the
server as a table, so the page says what it shows without a script too.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.ui.graph_data import DEFAULT_LIMIT, MAX_LIMIT, neighbourhood, node_ref
from pegas_memory.ui.host import PageHost


def _limit(request: Request) -> int:
    raw = request.query_params.get("limit") or ""
    return max(1, min(MAX_LIMIT, int(raw))) if raw.isdigit() else DEFAULT_LIMIT


class GraphPages:
    """`/graph` (the page) and `/graph.json` (its data) of one UI."""

    def __init__(self, ui: PageHost):
        self.ui = ui

    def data(self, request: Request) -> Response:
        try:
            center = node_ref(request.query_params.get("node"))
            with self.ui.service.db.connection() as conn:
                body = neighbourhood(conn, center, _limit(request))
        except InvalidInput as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        except NotFound as exc:
            return JSONResponse({"error": str(exc)}, status_code=404)
        return JSONResponse(body, headers={"cache-control": "no-store"})

    def page(self, request: Request) -> Response:
        raw = (request.query_params.get("node") or "").strip()
        graph: dict[str, Any] | None = None
        if raw:
            center = node_ref(raw)
            with self.ui.service.db.connection() as conn:
                graph = neighbourhood(conn, center, _limit(request))
        nodes = {n["id"]: n for n in graph["nodes"]} if graph else {}
        return self.ui.render(request, "graph.html", node=raw, graph=graph, nodes=nodes)

    def routes(self) -> list[Route]:
        return [
            Route("/graph", self.ui.page(self.page)),
            Route("/graph.json", self.ui.page(self.data)),
        ]
