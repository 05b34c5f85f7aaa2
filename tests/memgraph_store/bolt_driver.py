"""The Bolt back end at the driver boundary, with no Memgraph or Neo4j server (none can run here):
`FakeDriver` records the Cypher and parameters a `neo4j.Driver` session would be sent and answers
from canned rows; `bolt_store` opens the graph store on it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pegas_memory.memgraph_store.cypher import (
    CypherGraphStore,
)


class FakeRecord:
    def __init__(self, values: list[Any]) -> None:
        self._values = values

    def values(self) -> list[Any]:
        return list(self._values)


class FakeResult:
    def __init__(self, rows: list[list[Any]]) -> None:
        self._rows = rows

    def __iter__(self) -> Iterator[FakeRecord]:
        return iter(FakeRecord(r) for r in self._rows)

    def consume(self) -> None:
        return None


class FakeTx:
    def __init__(self, driver: FakeDriver, mode: str) -> None:
        self._driver, self._mode = driver, mode

    def run(self, query: str, parameters: dict[str, Any] | None = None) -> FakeResult:
        self._driver.calls.append((self._mode, query, parameters or {}))
        if self._driver.fail is not None:
            raise self._driver.fail
        return FakeResult(self._driver.respond(query, parameters or {}))


class FakeSession:
    def __init__(self, driver: FakeDriver, database: str | None) -> None:
        self._driver = driver
        driver.databases.append(database)

    def __enter__(self) -> FakeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def execute_write(self, fn: Any, *args: Any) -> Any:
        self._driver.transactions.append(("write", None))
        return fn(FakeTx(self._driver, "write"), *args)

    def execute_read(self, fn: Any, *args: Any) -> Any:
        self._driver.transactions.append(("read", getattr(fn, "timeout", None)))
        return fn(FakeTx(self._driver, "read"), *args)

    def run(self, query: str, parameters: dict[str, Any] | None = None) -> FakeResult:
        return FakeTx(self._driver, "auto").run(query, parameters)


class FakeDriver:
    """Records what a `neo4j.Driver` would be asked; answers from `responses` (query substring ->
    rows)."""

    def __init__(self, agent: str = "Neo4j/v5.11.0 compatible graph database server - Memgraph"):
        self.agent = agent
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self.transactions: list[tuple[str, Any]] = []
        self.databases: list[str | None] = []
        self.responses: dict[str, list[list[Any]]] = {}
        self.fail: Exception | None = None
        self.closed = False

    def respond(self, query: str, params: dict[str, Any]) -> list[list[Any]]:
        for fragment, rows in self.responses.items():
            if fragment in query:
                return rows
        return []

    def session(self, database: str | None = None) -> FakeSession:
        return FakeSession(self, database)

    def get_server_info(self) -> Any:
        if self.fail is not None:
            raise self.fail
        return type("ServerInfo", (), {"agent": self.agent})()

    def close(self) -> None:
        self.closed = True


def bolt_store(driver: FakeDriver, **kwargs: Any) -> CypherGraphStore:
    from pegas_memory.memgraph_store.bolt import open_bolt_graph

    return open_bolt_graph("bolt://graph.invalid:7687", driver=driver, **kwargs)
