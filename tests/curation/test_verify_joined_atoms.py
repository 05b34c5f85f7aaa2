"""memory_verify cross-confirms a joined atom (a claim of two sentences) with the same claim on
its own in another document, both ways, through the real service, PostgreSQL and the vector
slice; and never confirms a claim by a near-duplicate that states something else."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.app.service import MemoryService
from tests.conftest import files_memory, ingest_text

JOINED = (
    "The Danube flows through ten countries before it reaches the Black Sea. "
    "It is Europe's second-longest river."
)
ALONE = "The Danube flows through ten countries before it reaches the Black Sea."


def _ingest(svc: MemoryService, files: Path, name: str, text: str) -> int:
    report = ingest_text(svc, files / name, text)
    svc.runtime.worker().drain()
    assert report.document_id is not None
    return report.document_id


def test_a_joined_atom_and_the_claim_alone_confirm_each_other(
    database_url: str, tmp_path: Path
) -> None:
    files = tmp_path / "files"
    with files_memory(database_url, tmp_path, llm=False) as svc:
        # the claim alone first: the joined atom that comes later says more and is kept
        alone_doc = _ingest(svc, files, "notes.md", f"# Notes on Europe\n\n{ALONE}\n")
        joined_doc = _ingest(svc, files, "rivers.md", f"# Rivers\n\n{JOINED}\n")
        joined = svc.verify(document_id=joined_doc).verdicts
        assert [v.verdict for v in joined] == ["confirmed"], [v.reason for v in joined]
        alone = svc.verify(document_id=alone_doc).verdicts
        assert [v.verdict for v in alone] == ["confirmed"], [v.reason for v in alone]
        with svc.db.connection() as conn:
            statuses = {r["status"] for r in conn.execute("SELECT status FROM pm_atom")}
        assert statuses == {"verified"}


def test_a_near_duplicate_with_swapped_roles_does_not_confirm(
    database_url: str, tmp_path: Path
) -> None:
    files = tmp_path / "files"
    with files_memory(
        database_url, tmp_path, llm=False, dedup_threshold=0.99, cross_confirm_threshold=0.8
    ) as svc:
        first = _ingest(
            svc, files, "a.md", "# Proxy\n\nThe proxy writes the data from the client to the log.\n"
        )
        _ingest(
            svc, files, "b.md",
            "# Proxy\n\nThe proxy writes the data received by the client to the log.\n",
        )  # fmt: skip
        verdicts = svc.verify(document_id=first).verdicts
        assert verdicts and all(v.verdict != "confirmed" for v in verdicts), [
            v.reason for v in verdicts
        ]
