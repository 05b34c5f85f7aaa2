"""Byte-identical content under another path is the same document version: recorded as another
name of it, never stored twice (no doubled citations, one source line in memory_get_context)."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.app.requests import ContextRequest, IngestRequest
from tests.conftest import files_memory, ingest_text

TEXT = "# Rivers\n\nThe Danube flows through ten countries before it reaches the Black Sea.\n"


def test_a_copy_under_another_name_is_the_same_document(database_url: str, tmp_path: Path) -> None:
    files = tmp_path / "files"
    with files_memory(database_url, tmp_path, dim=64) as svc:
        first = ingest_text(svc, files / "a.md", TEXT)
        again = ingest_text(svc, files / "copy.md", TEXT)  # the same bytes under another name
        svc.runtime.worker().drain()
        assert again.unchanged and again.document_id == first.document_id
        assert any("another name" in w for w in again.warnings)
        with svc.db.connection() as conn:
            docs = conn.execute("SELECT metadata FROM pm_document").fetchall()
            cites = conn.execute("SELECT count(*) AS n FROM pm_citation").fetchone()
        assert len(docs) == 1
        (alias,) = docs[0]["metadata"]["aliases"]
        assert alias.endswith("copy.md")
        assert cites is not None and cites["n"] == first.atoms_new
        svc.ingest(IngestRequest(source=str(files / "copy.md")))  # a second time: one alias
        with svc.db.connection() as conn:
            row = conn.execute("SELECT metadata FROM pm_document").fetchone()
        assert row is not None and len(row["metadata"]["aliases"]) == 1
        context = svc.get_context(ContextRequest(question="Which river reaches the Black Sea?"))
        assert context.text.count("source: ") == 1
