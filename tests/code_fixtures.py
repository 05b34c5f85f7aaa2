"""Shared fixtures of the code-memory tests: a service or a bare CodeMemory over a source root.

Several test files index a small repository under `tmp_path / "src"` on a fake-Ollama service
(the real HTTP client on loopback) and read the code tables back; they share these helpers
instead of each keeping its own copy.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.requests import StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.code_memory.analyzers import find_analyzers
from pegas_memory.code_memory.graph import Dependency, resolve
from pegas_memory.code_memory.index import CodeMemory
from pegas_memory.code_memory.symbols import FileIndex, extract_file, iter_source_files
from tests.conftest import make_settings, offline_memory, projection_runtime
from tests.fake_ollama import FakeOllama


@contextmanager
def code_service(database_url: str, tmp_path: Path, dim: int = 32) -> Iterator[MemoryService]:
    """A MemoryService with the offline distiller that may index code under tmp_path/src."""
    with offline_memory(
        database_url, tmp_path / "data", dim=dim, ingest_roots=[tmp_path / "src"]
    ) as svc:
        yield svc


@contextmanager
def code_memory(
    database_url: str, tmp_path: Path, dim: int = 64, **overrides: object
) -> Iterator[CodeMemory]:
    """CodeMemory alone (no MCP service around it), for the indexer's own write path;
    ``overrides`` are settings (``code_analyzer="auto"``)."""
    with FakeOllama(dim=dim) as fake:
        settings = make_settings(
            tmp_path / "data",
            database_url=database_url,
            ollama_url=fake.url,
            embedding_dim=dim,
            ingest_roots=[tmp_path / "src"],
            **overrides,
        )
        with projection_runtime(settings) as rt:
            yield CodeMemory(settings, rt.db, rt)


# --- a package whose pkg.core has a function only one caller reaches (pkg.core.doomed) ---------

CORE_PY = '''\
"""Core."""


def helper(x):
    """Add one."""
    return x + 1


def doomed():
    return helper(1)


class Engine:
    def run(self):
        return doomed()
'''


def write_core_package(root: Path) -> Path:
    """`pkg/__init__.py` and `pkg/core.py` (CORE_PY) under `root` (created); `root`."""
    (root / "pkg").mkdir(parents=True, exist_ok=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "core.py").write_text(CORE_PY)
    return root


# --- a three-module chain (pkg.a imports pkg.b imports pkg.c) and the seed's two code rules -----

CHAIN_MODULES = {
    "a": "from pkg.b import g\n\n\ndef f():\n    return g()\n",
    "b": "from pkg.c import h\n\n\ndef g():\n    return h()\n",
    "c": "def h():\n    return 1\n",
}
IMPORTS_RULE = {"if": "imports", "then": "depends_on"}
TRANSITIVE_RULE = {"if": ["depends_on", "depends_on"], "then": "depends_on"}


def write_chain_repo(root: Path) -> None:
    """The package `pkg` of CHAIN_MODULES under `root` (created)."""
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    for name, text in CHAIN_MODULES.items():
        (root / "pkg" / f"{name}.py").write_text(text)


def store_rule(svc: MemoryService, content: object) -> int:
    """A logical_rule atom whose content is `content` as JSON; its id."""
    text = json.dumps(content)
    return svc.store(StoreRequest(claim=f"rule {text}", type="logical_rule", content=text)).id


def q(svc: MemoryService, sql: str, *params: Any) -> list[dict[str, Any]]:
    with svc.db.connection() as conn:
        return [dict(r) for r in conn.execute(sql.encode(), params).fetchall()]


def sid(svc: MemoryService, qname: str) -> int:
    return int(q(svc, "SELECT id FROM pm_code_symbol WHERE qualified_name = %s", qname)[0]["id"])


# --- type-checker analyzers ---------------------------------------------------------------------


@cache
def installed_analyzers() -> frozenset[str]:
    """Names of the analyzers (scip-python, scip-typescript) this machine has."""
    return frozenset(a.name for a in find_analyzers("auto"))


def needs_analyzer(name: str) -> pytest.MarkDecorator:
    """Skip, saying how to install it, where the analyzer `name` is not installed."""
    return pytest.mark.skipif(
        name not in installed_analyzers(),
        reason=f"{name} is not installed (npm: @sourcegraph/{name}; scripts/system-deps.sh "
        "installs it)",
    )


# --- language fixture repositories: small typed-in source trees, resolved without engines -----


def indexed_files(root: Path, files: dict[str, str]) -> list[FileIndex]:
    """Write ``files`` (path -> source, dedented) under ``root``, then extract every source file
    as the indexer would: found on disk."""
    for rel, code in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code).lstrip("\n"), encoding="utf-8")
    return [
        extract_file(p.relative_to(root).as_posix(), p.read_bytes())
        for p in iter_source_files(root)
    ]


def internal_edges(deps: list[Dependency], kind: str = "calls") -> set[tuple[str, str | None]]:
    """(src, dst) of the resolved dependencies of one kind that stay inside the repository."""
    return {(d.src, d.dst) for d in deps if d.kind == kind and d.target_kind == "internal"}


def external_edges(deps: list[Dependency], kind: str | None = "calls") -> set[tuple[str, str]]:
    """(src, name) of the resolved dependencies of one kind (of every kind: None) that leave the
    repository."""
    return {
        (d.src, d.dst_name)
        for d in deps
        if d.target_kind == "external" and (kind is None or d.kind == kind)
    }


def unresolved_edges(deps: list[Dependency]) -> set[tuple[str, str]]:
    """(src, name) of the dependencies no definition was found for, of every kind."""
    return {(d.src, d.dst_name) for d in deps if d.target_kind == "unresolved"}


def call_edges(deps: list[Dependency], kind: str = "calls") -> set[tuple[str, str]]:
    """(caller, callee) of the resolved internal edges of one kind."""
    return {(d.src, d.dst) for d in deps if d.kind == kind and d.dst is not None}


def resolved(root: Path, files: dict[str, str]) -> list[Dependency]:
    return resolve(indexed_files(root, files))
