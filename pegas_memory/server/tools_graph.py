"""MCP tools of the knowledge graph: run the logical rules, query the graph.

The operations, node labels and directions are the Literals of `reasoning.rules` and
`memgraph_store.cypher`; the bounds those of `memgraph_store.cypher`, which enforces them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

import pegas_memory.memgraph_store.cypher as memgraph_store
from pegas_memory.app.requests import GraphQueryRequest
from pegas_memory.memgraph_store.cypher import Direction, NodeLabel
from pegas_memory.models import GraphQueryResult, InferResult
from pegas_memory.reasoning.rules import Op
from pegas_memory.server.calls import READ_ONLY, WRITES, Server, ServiceContext, run


def register(mcp: Server) -> None:
    """memory_infer and memory_query_graph."""

    @mcp.tool(annotations=WRITES)
    async def memory_infer(
        ctx: ServiceContext,
        max_rounds: Annotated[
            int, Field(ge=1, le=10_000, description="Safety cap on evaluation rounds (100).")
        ] = 100,
    ) -> InferResult:
        """Apply the logical rules to the links between atoms, and to each indexed repository's
        code dependencies (calls, imports, inherits between symbols; imports between modules),
        until nothing new follows. Rules
        are logical_rule atoms whose content is JSON, e.g. {"if": "imports", "then":
        "depends_on"} or {"if": ["depends_on", "depends_on"], "then": "depends_on"}. Inferred
        links are marked as such, keep their derivation, and are withdrawn when their support
        goes (for code: when a re-index changes the code). Reports rounds, links and code edges
        derived per rule, invalid or idle rules with reasons, and time."""
        return await run(ctx, lambda service: service.infer(max_rounds=max_rounds))

    @mcp.tool(annotations=READ_ONLY)
    async def memory_query_graph(
        ctx: ServiceContext,
        op: Annotated[
            Op,
            Field(
                description="neighbours of node_id; paths from node_id to target_id; counts of "
                "links by kind (inferred vs extracted); derivation of the link src-kind->dst"
            ),
        ],
        node_id: Annotated[int | None, Field(description="Atom (or code symbol) id.")] = None,
        label: Annotated[NodeLabel, Field(description="What node_id names.")] = "Atom",
        target_id: Annotated[int | None, Field(description="For paths: the end node.")] = None,
        kinds: Annotated[
            list[str] | None, Field(description="Only these link kinds, e.g. depends_on.")
        ] = None,
        direction: Annotated[Direction, Field()] = "both",
        depth: Annotated[
            int, Field(ge=1, le=memgraph_store.MAX_DEPTH, description="Hops (paths: max length).")
        ] = 1,
        limit: Annotated[int, Field(ge=1, le=memgraph_store.MAX_LIMIT)] = 50,
        offset: Annotated[int, Field(ge=0, le=memgraph_store.MAX_OFFSET)] = 0,
        src: Annotated[
            int | None,
            Field(
                description="For derivation: link source (atom; code symbol with label=CodeSymbol)."
            ),
        ] = None,
        dst: Annotated[
            int | None, Field(description="For derivation: link target atom or code symbol.")
        ] = None,
        kind: Annotated[str | None, Field(description="For derivation: link kind.")] = None,
    ) -> GraphQueryResult:
        """Query the knowledge graph with structured, bounded operations (no query language):
        neighbourhoods by link kind and direction to a depth, paths between two nodes, link
        counts by kind split into extracted and inferred, and why an inferred link holds.
        label=CodeSymbol walks the code graph: extracted dependencies (calls, imports, inherits)
        and the edges rules derived from them (inferred, with derivations; kinds=["depends_on"]
        keeps to those)."""
        request = GraphQueryRequest(
            op=op,
            node_id=node_id,
            label=label,
            target_id=target_id,
            kinds=tuple(kinds or ()),
            direction=direction,
            depth=depth,
            limit=limit,
            offset=offset,
            src=src,
            dst=dst,
            kind=kind,
        )
        return await run(ctx, lambda service: service.query_graph(request))
