"""Memgraph (the production graph engine) and Neo4j over Bolt, through the official `neo4j` driver.

Chosen when `PEGAS_GRAPH_URI` is set. All Cypher comes from `memgraph_store`; this module only
says how to send it (managed transactions: one per write batch, so the two statements of an edge
upsert commit together) and where the dialects differ:
- index creation: Memgraph `CREATE INDEX ON :Atom(id)` / `CREATE EDGE INDEX ON :RELATES(id)`,
  Neo4j `CREATE INDEX name IF NOT EXISTS FOR ...`; schema statements run in auto-commit because
  neither engine accepts them inside an explicit transaction;
- kind-filtered variable-length paths: Memgraph prunes during expansion with its filter lambda
  `[rs:RELATES *1..3 (e, v | e.kind IN $kinds)]`; Neo4j filters the finished path.
The flavour is read from the server's Bolt agent string unless given.

No Memgraph or Neo4j server can run on the machine this was written on: this module is tested only
against a fake driver at the driver boundary (the Cypher and parameters it sends), never against a
live engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import neo4j
from neo4j import exceptions as neo4j_errors

from pegas_memory.errors import BackendUnavailable, InvalidInput, LimitExceeded
from pegas_memory.memgraph_store.cypher import (
    CypherDialect,
    CypherGraphStore,
    Direction,
    Statement,
    orient_pattern,
)
from pegas_memory.vocabulary import GraphFlavour

_T = TypeVar("_T")


class MemgraphDialect(CypherDialect):
    name = "memgraph"

    def schema_statements(self) -> tuple[str, ...]:
        # Memgraph answers an existing index with a notification, not an error.
        return (
            "CREATE INDEX ON :Atom(id)",
            "CREATE INDEX ON :CodeSymbol(id)",
            "CREATE INDEX ON :Passage(id)",
            "CREATE INDEX ON :Document(id)",
            "CREATE EDGE INDEX ON :RELATES(id)",
            "CREATE EDGE INDEX ON :DEPENDS(id)",
            "CREATE EDGE INDEX ON :DERIVED(id)",
        )

    def expansion(
        self,
        rel: str,
        max_hops: int,
        direction: Direction,
        filtered: bool,
        min_hops: int = 1,
    ) -> str:
        if not filtered:
            return super().expansion(rel, max_hops, direction, filtered, min_hops)
        return orient_pattern(
            f"[rs:{rel} *{min_hops}..{max_hops} (e, v | e.kind IN $kinds)]", direction
        )

    def expansion_filter(self, filtered: bool) -> str:
        return "true"  # the lambda in expansion() already filtered


class Neo4jDialect(CypherDialect):
    name = "neo4j"

    def schema_statements(self) -> tuple[str, ...]:
        return (
            "CREATE INDEX pm_atom_id IF NOT EXISTS FOR (n:Atom) ON (n.id)",
            "CREATE INDEX pm_code_symbol_id IF NOT EXISTS FOR (n:CodeSymbol) ON (n.id)",
            "CREATE INDEX pm_passage_id IF NOT EXISTS FOR (n:Passage) ON (n.id)",
            "CREATE INDEX pm_document_id IF NOT EXISTS FOR (n:Document) ON (n.id)",
            "CREATE INDEX pm_relates_id IF NOT EXISTS FOR ()-[r:RELATES]-() ON (r.id)",
            "CREATE INDEX pm_depends_id IF NOT EXISTS FOR ()-[r:DEPENDS]-() ON (r.id)",
            "CREATE INDEX pm_derived_id IF NOT EXISTS FOR ()-[r:DERIVED]-() ON (r.id)",
        )


def _rows(result: Any) -> list[list[Any]]:
    return [list(record.values()) for record in result]


def _write_tx(tx: Any, statements: Sequence[Statement]) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for query, params in statements:
        rows = _rows(tx.run(query, params))
    return rows


class BoltRunner:
    """`CypherRunner` over a `neo4j` driver (or anything with its session surface)."""

    def __init__(
        self,
        driver: Any,
        *,
        uri: str,
        database: str | None = None,
        query_timeout: float = 30.0,
    ) -> None:
        self._driver = driver
        self._uri = uri
        self._database = database
        self._timeout = query_timeout

        def read_tx(tx: Any, query: str, params: dict[str, Any]) -> list[list[Any]]:
            return _rows(tx.run(query, params))

        self._read_tx = neo4j.unit_of_work(timeout=query_timeout)(read_tx)

    @property
    def timeout_seconds(self) -> float:
        return self._timeout

    def _session(self) -> Any:
        if self._database is None:
            return self._driver.session()
        return self._driver.session(database=self._database)

    def _call(self, action: Callable[[Any], _T]) -> _T:
        try:
            with self._session() as session:
                return action(session)
        except neo4j_errors.AuthError as exc:
            raise BackendUnavailable(
                f"the graph server at {self._uri} rejected the credentials ({exc.message}); "
                "check PEGAS_GRAPH_USER and PEGAS_GRAPH_PASSWORD"
            ) from exc
        except (
            neo4j_errors.ServiceUnavailable,
            neo4j_errors.SessionExpired,
            neo4j_errors.TransientError,
            neo4j_errors.ConnectionPoolError,
        ) as exc:
            raise BackendUnavailable(
                f"the graph server at {self._uri} is unreachable or busy ({exc}); check that "
                "Memgraph is running and PEGAS_GRAPH_URI points at it, then retry"
            ) from exc
        except neo4j_errors.ClientError as exc:
            text = f"{exc.code} {exc.message}".lower()
            if "timedout" in text or "timed out" in text or "timeout" in text:
                raise LimitExceeded(
                    f"the graph query ran over {self._timeout:.0f} s; lower depth, name fewer "
                    "kinds, or ask for a smaller limit"
                ) from exc
            raise

    def write(self, statements: Sequence[Statement]) -> list[list[Any]]:
        batch = list(statements)
        return self._call(lambda session: session.execute_write(_write_tx, batch))

    def read(self, query: str, params: Mapping[str, Any]) -> list[list[Any]]:
        return self._call(lambda session: session.execute_read(self._read_tx, query, dict(params)))

    def run_schema(self, query: str) -> None:
        self._call(lambda session: session.run(query).consume())

    def close(self) -> None:
        self._driver.close()


def _detect_flavour(driver: Any, uri: str) -> Literal["memgraph", "neo4j"]:
    try:
        agent = str(driver.get_server_info().agent)
    except neo4j_errors.AuthError as exc:
        raise BackendUnavailable(
            f"the graph server at {uri} rejected the credentials; check PEGAS_GRAPH_USER and "
            "PEGAS_GRAPH_PASSWORD"
        ) from exc
    except (neo4j_errors.DriverError, neo4j_errors.Neo4jError, OSError) as exc:
        raise BackendUnavailable(
            f"cannot reach the graph server at {uri} ({exc}); start Memgraph, fix "
            "PEGAS_GRAPH_URI, or unset it to use the embedded FalkorDB"
        ) from exc
    # Memgraph presents itself as "Neo4j/v5.x compatible graph database server - Memgraph".
    return "memgraph" if "memgraph" in agent.lower() else "neo4j"


def open_bolt_graph(
    uri: str,
    *,
    user: str | None = None,
    password: str | None = None,
    database: str | None = None,
    flavour: GraphFlavour = GraphFlavour.AUTO,
    driver: Any = None,
    query_timeout: float = 30.0,
    batch_rows: int = 1000,
    page_rows: int = 10_000,
) -> CypherGraphStore:
    """A `GraphStore` on a Memgraph or Neo4j server. `driver` replaces the `neo4j` driver (tests).

    Raises InvalidInput for a malformed URI, BackendUnavailable when the server cannot be reached
    (only checked here when the flavour is detected)."""
    if flavour not in GraphFlavour.values():
        raise InvalidInput(f"graph flavour must be auto, memgraph or neo4j, got {flavour!r}")
    if driver is None:
        auth = (user, password or "") if user else None
        try:
            driver = neo4j.GraphDatabase.driver(
                uri, auth=auth, connection_timeout=10.0, max_transaction_retry_time=15.0
            )
        except (ValueError, neo4j_errors.ConfigurationError) as exc:
            raise InvalidInput(
                f"PEGAS_GRAPH_URI {uri!r} is not a Bolt URI ({exc}); use bolt://host:7687"
            ) from exc
    try:
        chosen = _detect_flavour(driver, uri) if flavour == GraphFlavour.AUTO else flavour
    except BaseException:
        driver.close()
        raise
    dialect: CypherDialect = MemgraphDialect() if chosen == "memgraph" else Neo4jDialect()
    runner = BoltRunner(driver, uri=uri, database=database, query_timeout=query_timeout)
    return CypherGraphStore(runner, dialect, batch_rows=batch_rows, page_rows=page_rows)
