"""Shared fixtures of the code-memory tests: a service or a bare CodeMemory over a source root.

Several test files index a small repository under `tmp_path / "src"` on a fake-Ollama service
(the real HTTP client on loopback) and read the code tables back; they share these helpers
instead of each keeping its own copy.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pegas_memory.app.runtime import ProjectionRuntime
from pegas_memory.app.service import MemoryService
from pegas_memory.code_memory.graph import Dependency, resolve
from pegas_memory.code_memory.index import CodeMemory
from pegas_memory.code_memory.symbols import FileIndex, extract_file, iter_source_files
from pegas_memory.db.pool import Database
from tests.conftest import make_settings, offline_memory
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
        db = Database(settings).open()
        rt = ProjectionRuntime(settings, db)
        try:
            yield CodeMemory(settings, db, rt)
        finally:
            rt.close()
            db.close()


def q(svc: MemoryService, sql: str, *params: Any) -> list[dict[str, Any]]:
    with svc.db.connection() as conn:
        return [dict(r) for r in conn.execute(sql.encode(), params).fetchall()]


def sid(svc: MemoryService, qname: str) -> int:
    return int(q(svc, "SELECT id FROM pm_code_symbol WHERE qualified_name = %s", qname)[0]["id"])


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


def call_edges(deps: list[Dependency], kind: str = "calls") -> set[tuple[str, str]]:
    """(caller, callee) of the resolved internal edges of one kind."""
    return {(d.src, d.dst) for d in deps if d.kind == kind and d.dst is not None}


def resolved(root: Path, files: dict[str, str]) -> list[Dependency]:
    return resolve(indexed_files(root, files))
