"""The ingest pipeline end to end on real engines: versions, reuse, dedup, citations, failures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.errors import IngestError, PegasMemoryError
from tests.conftest import fetch_one, files_memory, ingest_text
from tests.loopback import Replies, serve

DOC_V1 = """# Rivers

The Volga is the longest river in Europe. It flows into the Caspian Sea.

## Definitions

A delta is a landform created by deposition of sediment at a river mouth.

Дельта — это низменность в низовьях реки, сложенная речными наносами.
"""

DOC_V2 = """# Rivers

The Volga is the longest river in Europe. It flows into the Caspian Sea.

## Lakes

Lake Baikal is the deepest lake in the world, reaching 1642 metres.
"""


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with files_memory(database_url, tmp_path, url_allowlist=["127.0.0.1"]) as svc:
        yield svc


def count(svc: MemoryService, table: str) -> int:
    with svc.db.connection() as conn:
        return int(conn.execute(f"SELECT count(*) AS n FROM {table}").fetchone()["n"])


def test_ingest_cites_exact_quotes_and_reingest_does_nothing(service: MemoryService) -> None:
    seen: list[str] = []
    result = service.ingest(
        IngestRequest(source=DOC_V1, kind="markdown", title="Rivers"),
        progress=lambda d, t, m: seen.append(m),
    )
    assert result.atoms_new >= 3 and result.chunks >= 1 and not result.errors
    assert seen and seen[-1].startswith("done")
    with service.db.connection() as conn:
        rows = conn.execute(
            """SELECT a.type, a.claim, c.quoted_text, k.content, c.char_start, c.char_end, c.locator
                 FROM pm_atom a JOIN pm_citation c ON c.atom_id = a.id
                 JOIN pm_chunk k ON k.id = c.chunk_id"""
        ).fetchall()
    assert rows
    for r in rows:
        assert r["quoted_text"] and r["quoted_text"] in r["content"]  # the quote really occurs
    types = {r["type"] for r in rows}
    assert "definition" in types
    assert any(r["claim"].startswith("Дельта") and r["type"] == "definition" for r in rows)
    before = (count(service, "pm_atom"), count(service, "pm_outbox"), count(service, "pm_document"))
    again = service.ingest(IngestRequest(source=DOC_V1, kind="markdown", title="Rivers"))
    assert again.unchanged and again.document_id == result.document_id
    assert (
        count(service, "pm_atom"),
        count(service, "pm_outbox"),
        count(service, "pm_document"),
    ) == before


def test_new_version_reuses_chunks_and_stales_vanished_evidence(
    service: MemoryService, tmp_path: Path
) -> None:
    path = tmp_path / "files" / "rivers.md"
    v1 = ingest_text(service, path, DOC_V1)
    delta = fetch_one(service, "SELECT id FROM pm_atom WHERE claim LIKE 'A delta is%%'")["id"]
    v2 = ingest_text(service, path, DOC_V2)
    # One identity across versions (issue 15): the id stays, each version has its own version_id.
    assert v2.version == 2 and v2.document_id == v1.document_id
    assert v2.version_id != v1.version_id and v2.is_current
    assert v2.chunks_reused >= 1 and v2.marked_stale >= 1 and v2.atoms_new >= 1
    status = fetch_one(service, "SELECT status, status_reason FROM pm_atom WHERE id = %s", delta)
    volga_cites = fetch_one(
        service,
        """SELECT count(DISTINCT c.doc_id) AS n FROM pm_citation c JOIN pm_atom a
             ON a.id = c.atom_id WHERE a.claim LIKE 'The Volga is%%'""",
    )["n"]
    assert status["status"] == "stale" and "evidence is gone" in status["status_reason"]
    assert volga_cites == 2  # the unchanged sentence is cited from both versions


def test_near_duplicates_are_cited_not_stored_again(service: MemoryService) -> None:
    service.ingest(
        IngestRequest(source="The Volga is the longest river in Europe.", kind="text", title="a")
    )
    service.runtime.worker().drain()
    atoms = count(service, "pm_atom")
    second = service.ingest(
        IngestRequest(source="the Volga is the longest river in Europe!!", kind="text", title="b")
    )
    assert second.atoms_new == 0 and second.duplicates_exact + second.duplicates_semantic >= 1
    assert count(service, "pm_atom") == atoms
    with service.db.connection() as conn:
        docs = conn.execute("SELECT count(DISTINCT doc_id) AS n FROM pm_citation").fetchone()["n"]
    assert docs == 2  # the duplicate's source is recorded on the existing atom


@pytest.mark.parametrize(
    "name,data",
    [
        ("broken.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >>\nendobj\ntrailer"),
        ("book.epub", b"this is not a zip file at all"),
        ("garbage.txt", bytes(range(256)) * 64),
    ],
)
def test_bad_files_are_clear_errors_and_write_nothing(
    service: MemoryService, tmp_path: Path, name: str, data: bytes
) -> None:
    (tmp_path / "files" / name).write_bytes(data)
    with pytest.raises(PegasMemoryError) as err:
        service.ingest(IngestRequest(source=str(tmp_path / "files" / name)))
    assert str(err.value)
    assert count(service, "pm_document") == 0 and count(service, "pm_outbox") == 0


def test_file_outside_roots_is_refused(service: MemoryService, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret")
    with pytest.raises(PegasMemoryError, match="root"):
        service.ingest(IngestRequest(source=str(outside)))
    with pytest.raises(PegasMemoryError):
        service.ingest(IngestRequest(source=str(tmp_path / "files" / ".." / "secret.txt")))


class _Pages(Replies):
    def do_GET(self) -> None:
        if self.path == "/article":
            body = (
                "<html><head><title>Lake Baikal</title></head><body><article><h1>Lake Baikal</h1>"
                "<p>Lake Baikal is the deepest lake in the world. It holds about a fifth of the "
                "fresh surface water on Earth.</p><p>Байкал — это самое глубокое озеро на планете."
                "</p></article></body></html>"
            ).encode()
            self.reply(200, body)
        else:
            self.reply(404, b"missing")


def test_web_page_ingest_and_404(service: MemoryService) -> None:
    with serve(_Pages) as base:
        result = service.ingest(IngestRequest(source=f"{base}/article"))
        assert result.kind == "web" and result.atoms_new >= 1 and result.title == "Lake Baikal"
        with pytest.raises(IngestError, match="404"):
            service.ingest(IngestRequest(source=f"{base}/nowhere"))
