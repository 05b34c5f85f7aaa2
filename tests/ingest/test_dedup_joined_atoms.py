"""A joined atom (a claim of two sentences) still deduplicates against the same claim on its own:
a claim that one of its sentences says repeats it, within a batch and across documents; a
joined claim never merges into one of its sentences (it would lose the rest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.ingest.claims import atom_signature, claim_sentences, matching_part
from pegas_memory.ingest.dedup import decide, part_match
from tests.fake_ollama import hashed_embedding

JOINED = (
    "The Danube flows through ten countries before it reaches the Black Sea. "
    "It is Europe's second-longest river."
)
ALONE = "The Danube flows through ten countries before it reaches the Black Sea."
JOINED_RU = (
    "Дунай протекает через десять стран и впадает в Чёрное море. Это вторая по длине река Европы."
)
ALONE_RU = "Дунай протекает через десять стран и впадает в Чёрное море."


def _vec(text: str) -> list[float]:
    return hashed_embedding(text, 128)


@pytest.mark.parametrize("joined,alone", [(JOINED, ALONE), (JOINED_RU, ALONE_RU)])
def test_a_sentence_of_a_joined_claim_matches_the_same_claim_alone(joined: str, alone: str) -> None:
    whole, single = atom_signature(joined, joined), atom_signature(alone, alone)
    assert len(whole.parts) == 2 and claim_sentences(alone) == []
    assert matching_part(whole, single) == 0
    assert matching_part(single, whole) is None  # the joined claim says more
    parts = [_vec(s) for s in claim_sentences(joined)]
    assert part_match(_vec(alone), single, whole, parts, 0.9) == pytest.approx(1.0)


@pytest.mark.parametrize("joined,alone", [(JOINED, ALONE), (JOINED_RU, ALONE_RU)])
def test_within_a_batch_the_claim_alone_repeats_the_earlier_joined_one(
    joined: str, alone: str
) -> None:
    vectors = [_vec(joined), _vec(alone)]
    sigs = [atom_signature(joined, joined), atom_signature(alone, alone)]
    parts = [[_vec(s) for s in claim_sentences(joined)], []]
    before, _ = decide(vectors, index=None, collection=None, threshold=0.9, signatures=sigs)
    assert before[1].batch_index is None  # the whole claims are too far apart
    after, _ = decide(
        vectors, index=None, collection=None, threshold=0.9, signatures=sigs, parts=parts
    )
    assert after[1].batch_index == 0
    # the other way round, the joined claim is kept: it says more
    reverse, _ = decide(
        vectors[::-1], index=None, collection=None, threshold=0.9, signatures=sigs[::-1],
        parts=parts[::-1],
    )  # fmt: skip
    assert reverse[1].batch_index is None


def test_another_number_in_the_sentence_does_not_match_the_joined_claim() -> None:
    other = "The Danube flows through nine countries before it reaches the Black Sea."
    whole, single = atom_signature(JOINED, JOINED), atom_signature(other, other)
    parts = [_vec(s) for s in claim_sentences(JOINED)]
    assert matching_part(whole, single) is None
    assert part_match(_vec(other), single, whole, parts, 0.5) is None


# ---------------------------------------------------------------------- through the pipeline
def test_the_claim_alone_in_another_document_is_cited_by_the_joined_atom(
    service: MemoryService, tmp_path: Path
) -> None:
    a, b = tmp_path / "files" / "rivers.md", tmp_path / "files" / "notes.md"
    a.write_text(f"# Rivers\n\n{JOINED}\n")
    b.write_text(f"# Notes on Europe\n\n{ALONE}\n")
    first = service.ingest(IngestRequest(source=str(a)))
    service.runtime.worker().drain()
    second = service.ingest(IngestRequest(source=str(b)))
    assert first.atoms_new == 1
    assert second.atoms_new == 0 and second.duplicates_semantic == 1
    with service.db.connection() as conn:
        atoms = conn.execute("SELECT id, claim FROM pm_atom").fetchall()
        docs = conn.execute(
            "SELECT count(DISTINCT doc_id) AS n FROM pm_citation WHERE atom_id = %s",
            (atoms[0]["id"],),
        ).fetchone()
    assert [r["claim"] for r in atoms] == [JOINED]
    assert docs is not None and docs["n"] == 2


def test_a_joined_claim_after_the_claim_alone_is_kept_as_its_own_atom(
    service: MemoryService, tmp_path: Path
) -> None:
    a, b = tmp_path / "files" / "notes.md", tmp_path / "files" / "rivers.md"
    a.write_text(f"# Notes on Europe\n\n{ALONE}\n")
    b.write_text(f"# Rivers\n\n{JOINED}\n")
    service.ingest(IngestRequest(source=str(a)))
    service.runtime.worker().drain()
    second = service.ingest(IngestRequest(source=str(b)))
    assert second.atoms_new == 1 and second.duplicates_semantic == 0
    with service.db.connection() as conn:
        claims = {r["claim"] for r in conn.execute("SELECT claim FROM pm_atom").fetchall()}
    assert claims == {ALONE, JOINED}
