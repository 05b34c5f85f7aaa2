"""The layout holds: no import cycles, no huge module, SQL in `.sql` files, blocks that load.

Imports are read from the source with `ast`, function-local ones and `if TYPE_CHECKING:` blocks
included: a cycle hidden behind a type-only or a lazy import is still a cycle in the design.
An edge goes to the module named: ``from pkg.mod import x`` depends on ``pkg.mod``;
``from pkg import mod`` on ``pkg`` (its ``__init__`` runs) and on ``pkg.mod``. A package's
``__init__`` sits above its modules (it re-exports them and holds the factory), so a module
names a sibling by its full path (``import pkg.mod as mod``), never through its own package.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from pegas_memory.db.sql import compose, load_queries, parse_blocks

PKG = Path(__file__).resolve().parent.parent / "pegas_memory"
# A module is cut by responsibility, not by count: past ~800 lines it deserves a look, and past
# MAX_LINES it certainly holds more than one responsibility.
MAX_LINES = 1000


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append(child)
            walk(child)

    walk(tree)
    return found


def _resolve(module: str, node: ast.ImportFrom) -> str | None:
    if not node.level:
        return node.module
    base = module.split(".")
    if MODULES[module].name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for node in _imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                target = _resolve(name, node)
                if target is None:
                    continue
                # `from pkg import mod` runs pkg's __init__ too: an edge to both.
                targets = [target, *(f"{target}.{alias.name}" for alias in node.names)]
            graph[name].update(t for t in targets if t in MODULES and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_cycle_finder_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_modules_below_the_size_limit() -> None:
    long = {
        name: n
        for name, path in MODULES.items()
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


# A string literal that starts like a SQL statement. Cypher (the graph stores) starts with MATCH,
# MERGE, CREATE or UNWIND and is not SQL.
_SQL_START = re.compile(
    r"^\s*(SELECT\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|WITH\s+\w+\s+AS\s*\("
    r"|(LISTEN|UNLISTEN|NOTIFY)\s+\w+|(TRUNCATE|VACUUM|ANALYZE)\s|SET\s+(LOCAL\s+)?\w+\s*(=|TO)\s"
    r"|(CREATE|DROP|ALTER)\s+(TABLE|INDEX|EXTENSION|SCHEMA|TRIGGER|FUNCTION|VIEW)\s)",
    re.I,
)


def sql_literals(path: Path) -> list[int]:
    lines = []
    tree = ast.parse(path.read_text())
    in_fstring = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in in_fstring or id(node) in docstrings:
                continue
            if _SQL_START.match(node.value):
                lines.append(node.lineno)
        elif isinstance(node, ast.JoinedStr):
            head = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
            if _SQL_START.match(head):
                lines.append(node.lineno)
    return lines


def test_sql_lives_in_sql_files() -> None:
    found = {
        name: at
        for name, path in MODULES.items()
        if not name.startswith("pegas_memory.memgraph_store") and (at := sql_literals(path))
    }
    assert found == {}


def test_sql_finder_sees_sql() -> None:
    tree = (
        'X = "SELECT 1"\nY = f"UPDATE pm_atom SET status = {s}"\nZ = "MATCH (a) RETURN a"\n'
        'W = "LISTEN pm_outbox"\nV = "set the path, e.g. /data"\n'
    )
    path = Path(__file__).with_name("_sql_probe.tmp")
    path.write_text(tree)
    try:
        assert sql_literals(path) == [1, 2, 4]
    finally:
        path.unlink()


def test_every_query_file_loads() -> None:
    """Importing every module loads every `.sql` file through `load_queries` (fields checked)."""
    for name in MODULES:
        importlib.import_module(name)
    sql_files = sorted(PKG.rglob("*.sql"))
    for path in sql_files:
        assert parse_blocks(path.read_text(), origin=str(path))


def test_parse_blocks_rejects_mistakes() -> None:
    assert parse_blocks("-- name: a\n-- says what\nSELECT 1;\n-- name: b\nSELECT 2\n") == {
        "a": "SELECT 1;",
        "b": "SELECT 2",
    }
    with pytest.raises(ValueError, match="twice"):
        parse_blocks("-- name: a\nSELECT 1\n-- name: a\nSELECT 2\n")
    with pytest.raises(ValueError, match="empty"):
        parse_blocks("-- name: a\n-- only a comment\n")
    with pytest.raises(ValueError, match="before the first"):
        parse_blocks("SELECT 1\n-- name: a\nSELECT 2\n")


def test_load_queries_checks_fields(tmp_path: Path) -> None:
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Two:
        one: str
        two: str

    with pytest.raises(ValueError, match=r"no block for \['two'\]"):
        load_queries(Two, "tests", "_fixture_queries.sql")


def test_compose_quotes_identifiers() -> None:
    from psycopg import sql

    composed = compose("SELECT count(*) FROM {table}", table='pm_atom"; DROP')
    assert composed == sql.Composed(
        [sql.SQL("SELECT count(*) FROM "), sql.Identifier('pm_atom"; DROP')]
    )


def _map_table() -> str:
    """ARCHITECTURE.md's table of families."""
    text = (PKG.parent / "ARCHITECTURE.md").read_text()
    table = text[text.index("## The families") :]
    return table[: table.index("\n## ", 1)]


def test_architecture_names_every_family_and_top_level_module() -> None:
    """The map names each sub-package and each top-level module; detail lives in docstrings."""
    table = _map_table()
    families = {p.parent.name for p in PKG.glob("*/__init__.py")}
    top_level = {p.name for p in PKG.glob("*.py")} - {"__init__.py"}
    named = set(re.findall(r"`([a-z_]+)/`", table)) | set(re.findall(r"`([a-z_]+\.py)`", table))
    missing = (families | top_level) - named
    assert missing == set(), f"name these in ARCHITECTURE.md's table of families: {missing}"


def test_every_module_says_what_it_does() -> None:
    """Per-module detail lives in the module's docstring, not in ARCHITECTURE.md."""
    silent = {
        name
        for name, path in MODULES.items()
        if path.name != "__init__.py" and not ast.get_docstring(ast.parse(path.read_text()))
    }
    assert silent == set(), f"give these modules a docstring: {silent}"


# Layers, lowest first: a module imports only its own layer and the ones below. Core holds what
# every layer needs; drivers talk to PostgreSQL, the slices, the engine host and the models; the
# domain families hold the product's logic and see the engines through `outbox.slices`'
# Protocols; the application layer (`app/`) composes them for the faces above it. The design
# card's module names (`dedup.py`, `verify.py`, ...) re-export what they name, above all else.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset(
        {
            "__init__", "backoff", "config", "errors", "lazy", "locks", "models", "procs",
            "progress", "request_base", "sentences", "text", "validation", "vocabulary", "watchdog",
        }
    ),
    frozenset(
        {"db", "embedding", "host", "jobs", "memgraph_store", "outbox", "qdrant_store"}
    ),
    frozenset({"code_memory", "curation", "distill", "ingest", "reasoning", "search"}),
    frozenset({"app"}),
    frozenset({"cli", "doctor", "server", "ui"}),
    frozenset(
        {"code_graph", "code_symbols", "dedup", "inference", "pipeline", "research", "verify"}
    ),
)  # fmt: skip


def _family(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _layer(family: str) -> int:
    for level, families in enumerate(LAYERS):
        if family in families:
            return level
    raise AssertionError(f"put the family {family!r} in a layer of tests/test_architecture.py")


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{a} -> {b}"
        for a, targets in graph.items()
        for b in targets
        if _layer(_family(b)) > _layer(_family(a))
    )


def test_no_layer_imports_a_layer_above_it() -> None:
    assert upward_imports(import_graph()) == []


def test_layer_finder_sees_an_upward_import() -> None:
    graph = {"pegas_memory.search.hybrid": {"pegas_memory.app.service"}}
    assert upward_imports(graph) == ["pegas_memory.search.hybrid -> pegas_memory.app.service"]


def test_the_design_cards_names_stay_importable() -> None:
    """The design's module names (mcp_server.py, outbox_sync.py and the package's dedup.py,
    verify.py, pipeline.py, inference.py, research.py, code_symbols.py, code_graph.py) import."""
    for name in (
        "dedup", "verify", "pipeline", "inference", "research", "code_symbols", "code_graph",
    ):  # fmt: skip
        assert importlib.import_module(f"pegas_memory.{name}").__all__
    root = PKG.parent
    for script in ("mcp_server.py", "outbox_sync.py"):
        assert (root / script).is_file()
