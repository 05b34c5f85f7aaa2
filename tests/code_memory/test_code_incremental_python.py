"""A one-file change of Python re-resolves only the files that depend on it (issue 16): the
changed file and its importers, analysed with what they import. The edges after such an index
must equal those of a full re-index (store_code force=True changes none of them). Real engines:
embedded Postgres; the repository is built in tmp_path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.runtime import ProjectionRuntime
from pegas_memory.code_memory.index import CodeMemory
from pegas_memory.code_memory.py_scope import python_scope
from pegas_memory.code_memory.symbols import extract_file
from pegas_memory.config import Settings
from tests.conftest import make_settings

FILES = {
    "pkg/__init__.py": "from pkg.base import Base\n",
    "pkg/base.py": (
        "class Base:\n    def run(self):\n        return 1\n\n\ndef make():\n    return Base()\n"
    ),
    "pkg/util.py": "def helper():\n    return 2\n\n\ndef apply(fn):\n    return fn()\n",
    "pkg/a.py": (
        "from pkg.base import Base, make\nfrom pkg import util\n\n\n"
        "class A(Base):\n    def go(self):\n        self.run()\n        util.helper()\n"
        "        return make().run()\n"
    ),
    "pkg/b.py": "from pkg.a import A\n\n\ndef use():\n    return A().go()\n",
    "pkg/c.py": (
        "import pkg.util\n\n\ndef cb():\n    return 3\n\n\n"
        "def f():\n    return pkg.util.apply(cb)\n"
    ),
    **{f"pkg/d{n}.py": f"def d{n}():\n    return d{n}()\n" for n in range(6)},
}

BASE_V2 = (
    "class Base:\n    def run(self):\n        return 1\n\n\n"
    "class Other:\n    def run(self):\n        return 4\n\n\n"
    "def make():\n    return Other()\n"
)


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def indexed_repo(code: CodeMemory, tmp_path: Path) -> Path:
    """FILES written under tmp_path/src/inc and indexed; the repository's root."""
    root = tmp_path / "src" / "inc"
    for rel, text in FILES.items():
        write(root, rel, text)
    code.store_code(str(root))
    return root


@pytest.fixture
def csettings(database_url: str, tmp_path: Path) -> Settings:
    return make_settings(
        tmp_path / "data", database_url=database_url, ingest_roots=[str(tmp_path / "src")]
    )


def edges(rt: ProjectionRuntime) -> set[tuple[Any, ...]]:
    sql = (
        "SELECT s.qualified_name AS src, d.kind, d.dst_name, t.qualified_name AS dst, "
        "d.line, d.metadata::text AS lines "
        "FROM pm_code_dependency d JOIN pm_code_symbol s ON s.id = d.src_symbol_id "
        "LEFT JOIN pm_code_symbol t ON t.id = d.dst_symbol_id"
    )
    with rt.db.connection() as conn:
        return {tuple(r.values()) for r in conn.execute(sql.encode()).fetchall()}


def calls(found: set[tuple[Any, ...]], src: str) -> set[str]:
    return {e[3] for e in found if e[0] == src and e[1] == "calls" and e[3]}


def test_scope_is_the_importers_and_what_they_import() -> None:
    files = [extract_file(rel, text.encode()) for rel, text in FILES.items()]
    plan = python_scope(files, ["pkg/base.py"])
    assert plan is not None
    # base is imported by a and the package; b imports a, and c imports pkg.util, which runs
    # the package first (its __init__ imports base): both are affected too.
    assert plan.affected == {"pkg/base.py", "pkg/a.py", "pkg/__init__.py", "pkg/b.py", "pkg/c.py"}
    # Their analysis reads what they import (util), never the unrelated files.
    assert plan.analysed == plan.affected | {"pkg/util.py"}
    leaf = python_scope(files, ["pkg/d3.py"])
    assert leaf is not None and leaf.affected == leaf.analysed == {"pkg/d3.py"}
    # A deleted module's importers are found by its name.
    gone = python_scope(
        [f for f in files if f.path != "pkg/util.py"], ["pkg/util.py"], ["pkg.util"]
    )
    assert gone is not None and gone.affected == {"pkg/a.py", "pkg/b.py", "pkg/c.py"}
    # When the analysis would cover most files, the caller resolves everything.
    assert python_scope(files, list(FILES)) is None


def test_one_python_file_change_equals_a_full_reindex(
    code: CodeMemory, runtime: ProjectionRuntime, tmp_path: Path
) -> None:
    root = indexed_repo(code, tmp_path)
    before = edges(runtime)
    assert calls(before, "pkg.a.A.go") == {"pkg.base.Base.run", "pkg.base.make", "pkg.util.helper"}
    # make() now returns another class: the importer a.py is re-resolved and its call moves.
    write(root, "pkg/base.py", BASE_V2)
    again = code.store_code(str(root))
    assert again.files_changed == 1
    after = edges(runtime)
    assert calls(after, "pkg.a.A.go") == {
        "pkg.base.Base.run",  # self.run()
        "pkg.base.Other.run",  # make().run()
        "pkg.base.make",
        "pkg.util.helper",
    }
    forced = code.store_code(str(root), force=True)
    assert (forced.dependencies_added, forced.dependencies_removed) == (0, 0)
    assert edges(runtime) == after
    # A deleted module: its importers lose their edges into it, as a full index would have it.
    (root / "pkg/util.py").unlink()
    deleted = code.store_code(str(root))
    assert deleted.files_deleted == 1
    after_delete = edges(runtime)
    assert not [e for e in after_delete if e[3] and str(e[3]).startswith("pkg.util")]
    forced = code.store_code(str(root), force=True)
    assert (forced.dependencies_added, forced.dependencies_removed) == (0, 0)
    assert edges(runtime) == after_delete


def test_writes_in_copy_batches_store_every_row(
    code: CodeMemory, runtime: ProjectionRuntime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Symbols and dependencies go in COPY statements of COPY_BATCH rows (each one statement under
    # the statement timeout); batches of 3 must store exactly what one COPY stores.
    from pegas_memory.code_memory import store

    root = indexed_repo(code, tmp_path)
    whole = edges(runtime)
    with runtime.db.transaction() as conn:
        conn.execute(b"DELETE FROM pm_code_repo")
        conn.execute(b"DELETE FROM pm_code_file")
        conn.execute(b"DELETE FROM pm_code_symbol")
    monkeypatch.setattr(store, "COPY_BATCH", 3)
    batched = code.store_code(str(root))
    assert batched.symbols_total > 3 * 5 and batched.dependencies > 3 * 5
    assert edges(runtime) == whole
