"""Code memory against real engines: embedded Postgres, FalkorDB, and an Ollama fake on loopback
(atoms citing code are embedded when the outbox drains). The repository under test is generated
in tmp_path: Python, JavaScript and Go, plus files that must be skipped."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.requests import CodeGraphRequest, CodeSearchRequest
from pegas_memory.app.runtime import Lazy, ProjectionRuntime
from pegas_memory.code_memory import index as codeindex
from pegas_memory.code_memory.graph import Dependency
from pegas_memory.code_memory.index import CodeMemory
from pegas_memory.code_memory.query import identifier_words
from pegas_memory.code_memory.store import (
    DepRow,
    StoredDep,
    StoredSymbol,
    dependency_rows,
    plan_dependencies,
    plan_symbols,
)
from pegas_memory.code_memory.symbols import Symbol
from pegas_memory.config import Settings
from pegas_memory.db.repo import AtomInput, add_citation, insert_atom
from pegas_memory.errors import (
    BackendUnavailable,
    InvalidInput,
    LimitExceeded,
    NotFound,
    SecurityRefused,
)
from pegas_memory.outbox.reconcile import reconcile
from tests.conftest import make_settings
from tests.fake_ollama import FakeOllama

MODELS_PY = '''\
"""Shop models."""


class User:
    """A customer."""

    def get_user_name(self):
        """Возвращает имя пользователя."""
        return "name"


class Admin(User):
    def promote(self):
        return self.get_user_name()


def make_admin():
    return Admin()
'''

SERVICE_PY = '''\
from shop.models import User, make_admin
from shop.util import helper


def getUserById(uid):
    """Find a user by id."""
    return User()


def handle():
    user = getUserById(1)
    user.get_user_name()
    helper()
    make_admin()
    print("done")


def main():
    handle()
'''

UTIL_PY = """\
def helper():
    return 1


def unused():
    return 2
"""

ORDERS_PY = '''\
def получить_заказ(номер):
    """Найти заказ по номеру."""
    return номер
'''

APP_JS = """\
class Widget {
  render() { this.draw(); }
  draw() { return 1; }
}
function main() { new Widget().render(); }
"""

MAIN_GO = """\
package main

func Run() { helper() }

func helper() {}
"""


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, "utf-8")
    return path


@pytest.fixture
def repo_dir(tmp_path: Path) -> Path:
    root = tmp_path / "src" / "shop"
    write(root, "shop/__init__.py", "")
    write(root, "shop/models.py", MODELS_PY)
    write(root, "shop/service.py", SERVICE_PY)
    write(root, "shop/util.py", UTIL_PY)
    write(root, "shop/orders.py", ORDERS_PY)
    write(root, "web/app.js", APP_JS)
    write(root, "go/main.go", MAIN_GO)
    # skipped: vendored, .gitignored, binary
    write(root, "node_modules/dep/index.js", "function vendored() {}\n")
    write(root, ".gitignore", "build/\n")
    write(root, "build/gen.py", "def generated():\n    pass\n")
    write(root, "blob.py", b"\x00\x01\x02binary")
    return root


@pytest.fixture
def csettings(database_url: str, tmp_path: Path, fake_ollama: FakeOllama) -> Settings:
    return make_settings(
        tmp_path / "data",
        database_url=database_url,
        ollama_url=fake_ollama.url,
        embedding_dim=64,
        ingest_roots=[tmp_path / "src"],
    )


def rows(rt: ProjectionRuntime, sql: str, *params: Any) -> list[dict[str, Any]]:
    with rt.db.connection() as conn:
        return [dict(r) for r in conn.execute(sql.encode(), params).fetchall()]


def symbol_id(rt: ProjectionRuntime, qualified_name: str) -> int:
    found = rows(rt, "SELECT id FROM pm_code_symbol WHERE qualified_name = %s", qualified_name)
    assert len(found) == 1, found
    return int(found[0]["id"])


def outbox_mark(rt: ProjectionRuntime) -> int:
    return int(rows(rt, "SELECT coalesce(max(id), 0) AS m FROM pm_outbox")[0]["m"])


# --------------------------------------------------------------------------- indexing


def test_store_code_indexes_a_multi_language_repository(
    code: CodeMemory, runtime: ProjectionRuntime, repo_dir: Path
) -> None:
    seen: list[tuple[float, float, str]] = []
    result = code.store_code(str(repo_dir), progress=lambda d, t, m: seen.append((d, t, m)))
    assert result.repo == "shop" and result.root == str(repo_dir)
    assert result.files_seen == 7 and result.files_changed == 7
    assert result.files_skipped == 3  # node_modules, build/ (.gitignore), blob.py (binary)
    assert result.symbols_added == result.symbols_total > 20
    assert result.unresolved > 0 and result.dependencies > result.unresolved
    assert seen and all(d <= t for d, t, _ in seen)
    paths = {r["path"] for r in rows(runtime, "SELECT path FROM pm_code_file")}
    assert paths == {
        "shop/__init__.py",
        "shop/models.py",
        "shop/service.py",
        "shop/util.py",
        "shop/orders.py",
        "web/app.js",
        "go/main.go",
    }
    langs = {r["language"] for r in rows(runtime, "SELECT DISTINCT language FROM pm_code_symbol")}
    assert {"python", "javascript", "go"} <= langs
    edges = rows(
        runtime,
        """SELECT s.qualified_name AS src, d.kind, d.dst_name, t.qualified_name AS dst,
                  d.line, d.metadata
             FROM pm_code_dependency d JOIN pm_code_symbol s ON s.id = d.src_symbol_id
             LEFT JOIN pm_code_symbol t ON t.id = d.dst_symbol_id""",
    )
    resolved = {(e["src"], e["kind"], e["dst"]) for e in edges if e["dst"]}
    assert ("shop.service.handle", "calls", "shop.service.getUserById") in resolved
    assert ("shop.service.handle", "calls", "shop.util.helper") in resolved
    assert ("shop.models.Admin", "inherits", "shop.models.User") in resolved
    external = [e for e in edges if e["dst"] is None]
    assert any(e["dst_name"] == "builtins.print" for e in external)
    assert all(e["metadata"]["target"] in ("external", "unresolved") for e in external)
    # An unchanged tree: nothing parsed, nothing written, no outbox rows.
    mark = outbox_mark(runtime)
    again = code.store_code(str(repo_dir))
    assert (again.files_changed, again.files_deleted, again.symbols_added) == (0, 0, 0)
    assert outbox_mark(runtime) == mark


def test_reindex_touches_only_changed_and_deleted_files(
    code: CodeMemory, runtime: ProjectionRuntime, repo_dir: Path
) -> None:
    code.store_code(str(repo_dir))
    runtime.worker().drain(timeout=60)
    before = {
        r["id"]: r
        for r in rows(runtime, "SELECT id, path, qualified_name, start_line FROM pm_code_symbol")
    }
    handle_id = symbol_id(runtime, "shop.service.handle")
    mark = outbox_mark(runtime)

    write(repo_dir, "shop/util.py", "\n\n" + UTIL_PY.replace("def unused", "def fresh"))
    (repo_dir / "go/main.go").unlink()
    result = code.store_code("shop")  # relative to the ingest root
    assert (result.files_changed, result.files_deleted) == (1, 1)
    assert result.symbols_added == 1  # shop.util.fresh
    go_ids = {i for i, r in before.items() if r["path"] == "go/main.go"}
    assert result.symbols_removed == len(go_ids) + 1  # + shop.util.unused

    after = {r["id"]: r for r in rows(runtime, "SELECT id, path, start_line FROM pm_code_symbol")}
    assert symbol_id(runtime, "shop.service.handle") == handle_id
    helper = symbol_id(runtime, "shop.util.helper")
    assert helper in before and after[helper]["start_line"] == before[helper]["start_line"] + 2
    events = rows(runtime, "SELECT entity_type, entity_id, op FROM pm_outbox WHERE id > %s", mark)
    touched = {e["entity_id"] for e in events if e["entity_type"] == "code_symbol"}
    util_ids = {i for i, r in after.items() if r["path"] == "shop/util.py"}
    unused = {i for i, r in before.items() if r["qualified_name"] == "shop.util.unused"}
    assert touched == util_ids | go_ids | unused
    assert {e["op"] for e in events if e["entity_id"] in go_ids} == {"delete"}

    runtime.worker().drain(timeout=60)
    assert reconcile(runtime).drift == 0
    graph = runtime.graph.get()
    assert graph.node_counts()["CodeSymbol"] == len(after)
    assert not (go_ids & set(graph.iter_node_ids("CodeSymbol")))

    # A single file of the known repository: only that file is in scope.
    write(repo_dir, "shop/util.py", UTIL_PY)
    single = code.store_code(str(repo_dir / "shop/util.py"))
    assert single.repo == "shop" and single.files_seen == 1 and single.files_changed == 1


def test_atom_citing_a_vanished_symbol_becomes_stale(
    code: CodeMemory, runtime: ProjectionRuntime, repo_dir: Path
) -> None:
    code.store_code(str(repo_dir))
    unused, helper = symbol_id(runtime, "shop.util.unused"), symbol_id(runtime, "shop.util.helper")
    with runtime.db.transaction() as conn:
        gone, _ = insert_atom(conn, AtomInput(type="code", claim="unused() returns two"))
        kept, _ = insert_atom(conn, AtomInput(type="code", claim="helper() returns one"))
        add_citation(conn, gone, code_symbol_id=unused, quote="return 2")
        add_citation(conn, kept, code_symbol_id=helper, quote="return 1")
    write(repo_dir, "shop/util.py", "# moved down\n" + UTIL_PY.split("def unused")[0])
    result = code.store_code(str(repo_dir))
    assert result.stale_atoms == [gone]
    atoms = {r["id"]: r for r in rows(runtime, "SELECT id, status, status_reason FROM pm_atom")}
    assert atoms[kept]["status"] == "candidate"
    assert atoms[gone]["status"] == "stale"
    assert "shop.util.unused" in atoms[gone]["status_reason"]
    change = rows(
        runtime, "SELECT check_name FROM pm_status_change WHERE atom_id = %s AND to_status = %s",
        gone, "stale",
    )  # fmt: skip
    assert change == [{"check_name": "code_reindex"}]
    cites = {r["atom_id"]: r for r in rows(runtime, "SELECT * FROM pm_citation")}
    assert cites[kept]["code_symbol_id"] == helper  # the symbol moved a line but kept its id
    assert cites[gone]["code_symbol_id"] is None and cites[gone]["doc_id"] is not None
    assert "shop.util.unused" in cites[gone]["locator"]
    doc = rows(runtime, "SELECT kind FROM pm_document WHERE id = %s", cites[gone]["doc_id"])
    assert doc == [{"kind": "code_repo"}]
    runtime.worker().drain(timeout=60)
    assert reconcile(runtime).drift == 0


def test_failed_store_writes_nothing(
    code: CodeMemory, runtime: ProjectionRuntime, repo_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> None:
        raise BackendUnavailable("disk full (injected)")

    monkeypatch.setattr(codeindex, "write_dependencies", broken)
    with pytest.raises(BackendUnavailable):
        code.store_code(str(repo_dir))
    for table in ("pm_code_repo", "pm_code_file", "pm_code_symbol", "pm_outbox", "pm_document"):
        assert rows(runtime, f"SELECT count(*) AS n FROM {table}") == [{"n": 0}], table


# --------------------------------------------------------------------------- search


def test_search_code_identifiers_and_docstrings(code: CodeMemory, repo_dir: Path) -> None:
    code.store_code(str(repo_dir))

    def top(query: str, **kw: Any) -> list[str]:
        return [
            h.qualified_name for h in code.search_code(CodeSearchRequest(query=query, **kw)).hits
        ]

    assert top("get_usr")[0] == "shop.models.User.get_user_name"  # trigram near miss
    assert top("getUserName")[0] == "shop.models.User.get_user_name"  # camelCase vs snake_case
    assert set(top("getUser")[:2]) == {"shop.service.getUserById", "shop.models.User.get_user_name"}
    assert top("get_user_by")[0] == "shop.service.getUserById"  # snake query, camel name
    assert top("make_adm")[0] == "shop.models.make_admin"  # prefix
    assert top("пользователь")[0] == "shop.models.User.get_user_name"  # stemmed Russian doc
    assert top("получить_заказ")[0] == "shop.orders.получить_заказ"  # Cyrillic identifier
    assert top("заказы")[0] == "shop.orders.получить_заказ"
    hit = code.search_code(CodeSearchRequest(query="helper", language="go")).hits[0]
    assert (hit.qualified_name, hit.path, hit.start_line) == ("go.helper", "go/main.go", 5)
    assert {
        h.kind for h in code.search_code(CodeSearchRequest(query="admin", kinds=["class"])).hits
    } == {"class"}
    assert all(
        h.path.startswith("web/")
        for h in code.search_code(CodeSearchRequest(query="main", path_prefix="web/")).hits
    )
    assert code.search_code(CodeSearchRequest(query="helper", repo="elsewhere")).hits == []
    full = code.search_code(CodeSearchRequest(query="user", limit=100))
    pages = [
        h.id
        for offset in range(0, full.total, 2)
        for h in code.search_code(CodeSearchRequest(query="user", limit=2, offset=offset)).hits
    ]
    assert pages == [h.id for h in full.hits] and full.total == len(full.hits)


def test_search_code_refuses_or_survives_hostile_queries(code: CodeMemory, repo_dir: Path) -> None:
    code.store_code(str(repo_dir))
    for query in [
        "'; DROP TABLE pm_code_symbol; --",
        "a & | ! :* ( <-> \\",
        "get%user_",
        "x" * 900,
    ]:
        code.search_code(CodeSearchRequest(query=query))
    # the table is still there
    assert code.search_code(CodeSearchRequest(query="helper")).total >= 2
    for bad in ["", "  %_\\ ", "a\x00b", "x" * 1001]:
        with pytest.raises(InvalidInput):
            code.search_code(CodeSearchRequest(query=bad))
    with pytest.raises(InvalidInput):
        code.search_code(CodeSearchRequest(query="user", limit=101))
    with pytest.raises(InvalidInput):
        code.search_code(CodeSearchRequest(query="user", kinds=["klass"]))


# --------------------------------------------------------------------------- graph


def via(result: Any) -> list[list[str]]:
    return [p.via for p in result.paths]


def test_code_graph_relations_depth_and_pagination(
    code: CodeMemory, runtime: ProjectionRuntime, repo_dir: Path
) -> None:
    code.store_code(str(repo_dir))
    callers = code.code_graph(
        CodeGraphRequest(
            repo="shop", symbol="shop.util.helper", relation="callers", build=True, detail=True
        )
    )
    assert callers.source == "graph" and callers.warnings == []
    assert via(callers) == [["shop.util.helper", "shop.service.handle"]]
    edge = callers.paths[0].edges[0]
    assert (edge.src, edge.dst, edge.path, edge.line) == (
        "shop.service.handle", "shop.util.helper", "shop/service.py", 13,
    )  # fmt: skip
    deep = code.code_graph(
        CodeGraphRequest(repo="shop", symbol="helper", relation="callers", depth=2)
    )
    assert deep.symbol.qualified_name == "shop.util.helper"  # ranked above go/main.helper
    assert [a.qualified_name for a in deep.alternatives] == ["go.helper"]
    assert ["shop.util.helper", "shop.service.handle", "shop.service.main"] in via(deep)

    callees = code.code_graph(
        CodeGraphRequest(repo="shop", symbol="shop.service.handle", relation="callees")
    )
    ends = {p.end.qualified_name for p in callees.paths}
    assert {"shop.service.getUserById", "shop.util.helper", "shop.models.make_admin",
            "shop.models.User.get_user_name"} <= ends  # fmt: skip
    assert any(x.name == "builtins.print" for x in callees.external)

    sub = code.code_graph(
        CodeGraphRequest(repo="shop", symbol="shop.models.User", relation="inherited_by")
    )
    assert via(sub) == [["shop.models.User", "shop.models.Admin"]]
    base = code.code_graph(CodeGraphRequest(repo="shop", symbol="Admin", relation="inherits"))
    assert via(base) == [["shop.models.Admin", "shop.models.User"]]
    imported = code.code_graph(
        CodeGraphRequest(repo="shop", symbol="shop.util.helper", relation="imported_by")
    )
    assert {p.end.qualified_name for p in imported.paths} == {"shop.service"}

    whole = code.code_graph(
        CodeGraphRequest(repo="shop", symbol="shop.service.handle", depth=2, limit=200)
    )
    paged: list[list[str]] = []
    offset = 0
    while True:
        page = code.code_graph(
            CodeGraphRequest(
                repo="shop", symbol="shop.service.handle", depth=2, limit=3, offset=offset
            )
        )
        paged += via(page)
        if not page.has_more:
            break
        offset += 3
    assert paged == via(whole) and len(paged) > 3 and not whole.has_more

    # The same walk in Postgres when the graph slice is down: same answer, flagged.
    real, runtime.graph = runtime.graph, Lazy("graph slice", _down)
    try:
        fallback = code.code_graph(
            CodeGraphRequest(repo="shop", symbol="shop.service.handle", depth=2, limit=200)
        )
    finally:
        runtime.graph = real  # the fixture closes it (and its server)
    assert fallback.source == "postgres" and "unavailable" in fallback.warnings[0]
    assert via(fallback) == via(whole)


def _down() -> Any:
    raise BackendUnavailable("graph engine stopped for the test")


def test_code_graph_answers_from_postgres_before_projection(
    code: CodeMemory, repo_dir: Path
) -> None:
    code.store_code(str(repo_dir))  # the outbox is not drained: the graph slice is empty
    result = code.code_graph(
        CodeGraphRequest(repo="shop", symbol="shop.util.helper", relation="callers")
    )
    assert result.source == "postgres" and "build=true" in result.warnings[0]
    assert via(result) == [["shop.util.helper", "shop.service.handle"]]


def test_code_graph_rejects_bad_arguments(code: CodeMemory, repo_dir: Path) -> None:
    code.store_code(str(repo_dir))
    with pytest.raises(NotFound, match="memory_store_code"):
        code.code_graph(CodeGraphRequest(repo="nope", symbol="helper"))
    with pytest.raises(NotFound, match="memory_search_code"):
        code.code_graph(CodeGraphRequest(repo="shop", symbol="no_such_thing_anywhere"))
    with pytest.raises(NotFound):
        code.code_graph(CodeGraphRequest(repo="shop", symbol_id=10**12))
    bad: list[dict[str, Any]] = [
        {"symbol": "helper", "depth": 6},
        {"symbol": "helper", "limit": 0},
        {"symbol": "helper", "offset": -1},
        {"symbol": "helper", "relation": "friends"},
        {"symbol": "helper", "symbol_id": 1},
        {},
        {"symbol": "x\x00y"},
    ]
    for kwargs in bad:
        with pytest.raises(InvalidInput):
            code.code_graph(CodeGraphRequest(repo="shop", **kwargs))
    with pytest.raises(NotFound):
        code.code_graph(
            CodeGraphRequest(repo="shop", symbol="'; MATCH (n) DETACH DELETE n //", build=True)
        )
    assert code.code_graph(
        CodeGraphRequest(repo="shop", symbol="shop.util.helper", relation="callers")
    ).paths


# --------------------------------------------------------------------------- path security


def test_store_code_stays_inside_the_ingest_roots(
    code: CodeMemory, csettings: Settings, repo_dir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.py", "def secret():\n    pass\n")
    with pytest.raises(SecurityRefused):
        code.store_code(str(outside))
    with pytest.raises(SecurityRefused):
        code.store_code("../outside")
    os.symlink(outside, repo_dir.parent / "link")
    with pytest.raises(SecurityRefused):
        code.store_code(str(repo_dir.parent / "link"))
    with pytest.raises(InvalidInput):
        code.store_code("shop\x00")
    with pytest.raises(InvalidInput):
        code.store_code(str(repo_dir), repo=" ")
    no_roots = CodeMemory(csettings.model_copy(update={"ingest_roots": []}), code.db, code.runtime)
    with pytest.raises(SecurityRefused, match="PEGAS_INGEST_ROOTS"):
        no_roots.store_code(str(repo_dir))
    other = write(repo_dir.parent / "elsewhere" / "shop", "x.py", "def x():\n    pass\n").parent
    code.store_code(str(repo_dir))
    with pytest.raises(InvalidInput, match="already indexed"):
        code.store_code(str(other))
    assert code.store_code(str(other), repo="shop-2").symbols_total >= 2


# --------------------------------------------------------------------------- pure planning


def sym(qname: str, line: int, kind: str = "function") -> Symbol:
    return Symbol("m.py", "python", qname.rsplit(".", 1)[-1], qname, kind, None, None, line, line)  # type: ignore[arg-type]


def test_plan_symbols_pairs_by_name_and_order() -> None:
    old = [
        StoredSymbol(1, "m.py", "m.f", "function", 1),
        StoredSymbol(2, "m.py", "m.g", "function", 5),
        StoredSymbol(3, "m.py", "m.g", "function", 9),
        StoredSymbol(4, "m.py", "m.gone", "function", 12),
    ]
    plan = plan_symbols(old, [sym("m.f", 3), sym("m.g", 9), sym("m.g", 20), sym("m.new", 30),
                              sym("m.new", 30)])  # fmt: skip
    assert [(i, s.start_line) for i, s in plan.updates] == [(1, 3), (2, 9), (3, 20)]
    assert plan.moved == (2, 3) and plan.deletes == (4,)
    assert [s.qualified_name for s in plan.inserts] == ["m.new"]


def test_dependency_rows_merge_call_sites_and_plan_a_diff() -> None:
    ids = {"m.a": 1, "m.b": 2}
    deps = [
        Dependency("m.a", "calls", "m.b", "m.b", 7, "internal"),
        Dependency("m.a", "calls", "m.b", "m.b", 3, "internal"),
        Dependency("m.a", "calls", "os.path.join", None, 4, "external"),
        Dependency("m.zz", "calls", "m.b", "m.b", 1, "internal"),  # unknown source: dropped
    ]
    rows_ = dependency_rows(deps, ids)
    assert [(r.src_id, r.dst_id, r.line, r.lines) for r in rows_] == [
        (1, 2, 3, (3, 7)),
        (1, None, 4, (4,)),
    ]
    stored = [
        StoredDep(10, (1, "calls", "m.b", 2), 3, {"target": "internal", "lines": [3]}),
        StoredDep(11, (1, "calls", "gone", 0), 1, {}),
    ]
    plan = plan_dependencies(stored, rows_)
    assert plan.deletes == (11,)
    assert [(i, r.lines) for i, r in plan.updates] == [(10, (3, 7))]
    assert [r.dst_name for r in plan.inserts] == ["os.path.join"]
    assert plan_dependencies([], []).inserts == ()
    assert DepRow(1, "calls", "x", None, 1, (1,), "external").key == (1, "calls", "x", 0)


def test_identifier_words_split_like_the_database() -> None:
    assert identifier_words("getHTTPResponse_v2 click.core Имя") == [
        "get", "http", "response", "v2", "click", "core", "имя",
    ]  # fmt: skip
    assert identifier_words("'; DROP --") == ["drop"]
    assert identifier_words("%_\\") == []


# --------------------------------------------------------------------------- bounded, cooperative


def test_progress_reaches_every_phase(code: CodeMemory, repo_dir: Path) -> None:
    seen: list[str] = []
    code.store_code(str(repo_dir), progress=lambda done, total, message: seen.append(message))
    text = "\n".join(seen)
    for phase in (
        "reading files",
        "extracting symbols",
        "writing symbols",
        "resolving dependencies: following Python values",  # the points-to worklist
        "resolving dependencies: Python file",
        "resolving dependencies: file",  # resolution by name (JS, Go)
        "writing dependencies",
        "indexed shop",
    ):
        assert phase in text, (phase, seen)


def test_deadline_mid_index_rolls_back_and_leaves_no_transaction(
    code: CodeMemory, runtime: ProjectionRuntime, repo_dir: Path
) -> None:
    # The deadline passes once symbols are written and resolution has started: the next check
    # raises, the transaction rolls back (symbols included) and no session stays in it.
    resolving = False

    def progress(done: float, total: float, message: str) -> None:
        nonlocal resolving
        resolving = resolving or message.startswith("resolving dependencies")

    def check() -> None:
        if resolving:
            raise LimitExceeded("indexing ran past its deadline (injected)")

    with pytest.raises(LimitExceeded):
        code.store_code(str(repo_dir), progress=progress, check=check)
    assert resolving
    for table in ("pm_code_repo", "pm_code_file", "pm_code_symbol", "pm_code_dependency"):
        assert rows(runtime, f"SELECT count(*) AS n FROM {table}") == [{"n": 0}], table
    idle = rows(
        runtime,
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() "
        "AND state LIKE 'idle in transaction%%'",
    )
    assert idle == [{"n": 0}]
    # Nothing is left half-done: the same call without a deadline indexes normally.
    result = code.store_code(str(repo_dir))
    assert result.symbols_total > 0 and result.dependencies > 0


def test_store_code_streams_files_instead_of_holding_them(code: CodeMemory, tmp_path: Path) -> None:
    # 24 files of 300 KB (7 MB): a store that kept every file's bytes until resolution would
    # peak above their sum; streamed (read, hash, drop; read again to extract, drop), the peak
    # stays near one file plus the small indexes.
    import tracemalloc

    root = tmp_path / "src" / "big"
    filler = "# " + "x" * 300_000 + "\n"  # one comment node: cheap to parse under tracemalloc
    for n in range(24):
        write(root, f"pkg/m{n}.py", f"def f{n}():\n    return {n}\n{filler}")
    tracemalloc.start()
    try:
        result = code.store_code(str(root))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.files_changed == 24 and result.symbols_total >= 24
    assert peak < 4_000_000, f"peak {peak:,} bytes while indexing 24 x 300 KB"


def test_one_file_reindex_re_resolves_what_depends_on_it(
    code: CodeMemory, runtime: ProjectionRuntime, tmp_path: Path
) -> None:
    root = tmp_path / "src" / "inc"
    write(root, "a/run.go", "package a\n\nfunc Run() { Helper() }\n")
    write(root, "a/other.go", "package a\n\nfunc Other() {}\n")
    for n in range(8):  # enough unrelated files that the change is a small part of the repo
        write(root, f"b/f{n}.go", f"package b\n\nfunc F{n}() {{ F{n}() }}\n")
    first = code.store_code(str(root))
    calls = (
        "SELECT dst_symbol_id FROM pm_code_dependency d JOIN pm_code_symbol s "
        "ON s.id = d.src_symbol_id WHERE s.qualified_name = %s AND d.dst_name LIKE %s"
    )
    assert rows(runtime, calls, "a.Run", "%Helper") == [{"dst_symbol_id": None}]
    # A new definition in another file: the caller in run.go is re-resolved and now finds it.
    write(root, "a/other.go", "package a\n\nfunc Other() {}\n\nfunc Helper() {}\n")
    again = code.store_code(str(root))
    assert again.files_changed == 1
    assert rows(runtime, calls, "a.Run", "%Helper") == [
        {"dst_symbol_id": symbol_id(runtime, "a.Helper")}
    ]
    # The incremental result equals a full resolution: forcing one changes no edge.
    forced = code.store_code(str(root), force=True)
    assert forced.dependencies_added == 0 and forced.dependencies_removed == 0
    assert forced.dependencies == again.dependencies > first.dependencies - 1


def test_affected_files_follow_changed_names() -> None:
    from pegas_memory.code_memory.graph import affected_files
    from pegas_memory.code_memory.symbols import extract_file

    files = [
        extract_file("a/run.go", b"package a\n\nfunc Run() { Helper() }\n"),
        extract_file("a/other.go", b"package a\n\nfunc Other() {}\n"),
        extract_file("b/f.go", b"package b\n\nfunc F() { F() }\n"),
    ]
    # A body edit keeps the names: only the file itself is re-resolved.
    assert affected_files(files, {"a/other.go": ({"a.Other"}, {"a.Other"})}) == {"a/other.go"}
    # A new name reaches every file that references it.
    both = affected_files(files, {"a/other.go": ({"a.Other"}, {"a.Other", "a.Helper"})})
    assert both == {"a/other.go", "a/run.go"}
