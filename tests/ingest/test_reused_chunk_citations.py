"""An atom of a chunk a new version reuses is cited at its quote's place in the new version, not
at the chunk's start nor at its old offsets."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.app.requests import IngestRequest
from tests.conftest import offline_memory

V1 = (
    "# Europe\n\n## Rivers\n\nThe Volga is the longest river in Europe.\n\n"
    "## Mountains\n\nMount Elbrus is the highest peak in Europe.\n"
)
V2 = (
    "# Europe\n\n## Lakes\n\nLake Ladoga is the largest lake in Europe.\n\n"
    "## Rivers\n\nThe Volga is the longest river in Europe.\n\n"
    "## Mountains\n\nMount Elbrus is the highest peak in Europe.\n"
)


def test_a_reused_chunks_atom_is_cited_at_its_new_place(database_url: str, tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    path = files / "europe.md"
    path.write_text(V1)
    with offline_memory(database_url, tmp_path / "data", ingest_roots=[files]) as svc:
        svc.ingest(IngestRequest(source=str(path)))
        path.write_text(V2)
        second = svc.ingest(IngestRequest(source=str(path)))
        with svc.db.connection() as conn:
            rows = conn.execute(
                """SELECT c.locator, c.char_start, c.char_end, c.quoted_text, k.content,
                          k.char_start AS chunk_start
                     FROM pm_citation c JOIN pm_chunk k ON k.id = c.chunk_id
                    WHERE c.doc_id = %s AND c.quoted_text LIKE 'Mount Elbrus%%'""",
                (second.version_id,),
            ).fetchall()
        assert len(rows) == 1
        cite = rows[0]
        at = V2.index("Mount Elbrus")
        assert cite["locator"].endswith(f"char {at}"), cite["locator"]
        inside = cite["char_start"] - cite["chunk_start"]
        assert cite["content"][inside : inside + len(cite["quoted_text"])] == cite["quoted_text"]
