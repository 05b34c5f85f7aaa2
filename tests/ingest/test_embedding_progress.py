"""An ingest's progress counts the embedding of its atoms as steps of their own: the job moves
through them instead of sitting at n-1 of n while the model works."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.app.requests import IngestRequest
from tests.conftest import offline_memory

DOC = "# Catalogue\n\n" + "\n\n".join(
    f"The brass instrument catalogued as item {i} was made in {1700 + 7 * i} in workshop {i}."
    for i in range(24)
)


def test_embedding_is_counted_in_steps(database_url: str, tmp_path: Path) -> None:
    seen: list[tuple[int, int, str]] = []
    with offline_memory(database_url, tmp_path / "data") as svc:
        report = svc.pipeline.ingest(
            IngestRequest(source=DOC, kind="markdown", title="Catalogue"),
            progress=lambda done, total, message: seen.append((done, total, message)),
        )
    assert report.atoms_new > 10
    embedding = [(d, t) for d, t, m in seen if m.startswith("embedding atoms")]
    assert embedding, seen
    done, total = embedding[-1]
    assert total - done == 2  # every text embedded: then the checks and the write are left
    assert done >= report.atoms_new
    steps = [d for d, t, m in seen if t > 1]
    assert steps == sorted(steps), "progress never goes back"
