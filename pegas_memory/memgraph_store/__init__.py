"""The graph slice: the `GraphStore` Protocol, the engine-neutral Cypher store and its engines.

`model` holds the Protocol and the node/edge records (pure); `cypher` the dialects and
`CypherGraphStore`, shared by every engine; `falkor` runs FalkorDB embedded (the default), `bolt`
talks to Memgraph or Neo4j over Bolt. The factory lives here, above them; each engine's driver is
imported only when it is chosen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pegas_memory.memgraph_store.cypher import (
    AtomNode,
    CypherGraphStore,
    DependencyEdge,
    GraphPath,
    GraphStore,
    LinkEdge,
    SymbolNode,
)

if TYPE_CHECKING:
    from pegas_memory.config import Settings

__all__ = [
    "AtomNode",
    "CypherGraphStore",
    "DependencyEdge",
    "GraphPath",
    "GraphStore",
    "LinkEdge",
    "SymbolNode",
    "build_graph_store",
]


def build_graph_store(settings: Settings) -> GraphStore:
    """The graph slice the settings select, schema ensured.

    `graph_uri` unset: FalkorDB under `data_dir/graph` (started or reused); set: Memgraph/Neo4j
    over Bolt. Raises BackendUnavailable when the engine cannot be reached or started."""
    store: CypherGraphStore
    if settings.graph_embedded:
        from pegas_memory.memgraph_store.falkor import open_embedded_graph

        store = open_embedded_graph(
            settings.data_dir,
            graph_name=settings.graph_name,
            query_timeout_ms=settings.graph_query_timeout_ms,
        )
    else:
        from pegas_memory.memgraph_store.bolt import open_bolt_graph

        assert settings.graph_uri is not None
        store = open_bolt_graph(
            settings.graph_uri,
            user=settings.graph_user,
            password=settings.graph_password,
            database=settings.graph_database,
            flavour=settings.graph_flavour,
            query_timeout=settings.graph_query_timeout_ms / 1000,
        )
    try:
        store.ensure_schema()
    except BaseException:
        store.close()
        raise
    return store
