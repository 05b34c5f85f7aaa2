"""Cross-confirmation counts sources, not document rows: a copy of a file under another name, or
another version of the same document, never confirms a claim."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.curation.verify import source_keys
from tests.conftest import files_memory, ingest_text

TEXT = (
    "# Rivers\n\nThe Danube flows through ten countries before it reaches the Black Sea.\n\n"
    "Дунай впадает в Чёрное море.\n"
)


def test_copies_and_versions_of_one_document_are_one_source() -> None:
    docs = [
        (1, 1, "h1"),  # a.md, version 1
        (2, 1, "h2"),  # a.md, version 2
        (3, 3, "h1"),  # b.md: a copy of a.md's first version
        (4, 4, "h9"),  # another document
    ]
    keys = source_keys(docs)
    assert keys[1] == keys[2] == keys[3] == 1
    assert keys[4] == 4


def test_a_copy_under_another_name_does_not_confirm_its_claims(
    database_url: str, tmp_path: Path
) -> None:
    files = tmp_path / "files"
    with files_memory(database_url, tmp_path, dim=64) as svc:
        first = ingest_text(svc, files / "a.md", TEXT)
        ingest_text(svc, files / "copy-of-a.md", TEXT)  # the same bytes under another name
        svc.runtime.worker().drain()
        assert first.document_id is not None
        report = svc.verify(document_id=first.document_id)
        confirmed = [v for v in report.verdicts if v.verdict == "confirmed"]
        assert confirmed == [], [v.reason for v in confirmed]
        with svc.db.connection() as conn:
            verified = conn.execute(
                "SELECT count(*) AS n FROM pm_atom WHERE status = 'verified'"
            ).fetchone()
        assert verified is not None and verified["n"] == 0
