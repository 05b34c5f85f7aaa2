"""Near-duplicates that state different things are never merged (real-text false merges): the
same numbers but one, the same words in swapped roles (who sends, who receives), the same words
grouped into other sets; in English and Russian, in full sentences. The merge decision
(`ingest.dedup.decide`) runs on the test embedder's vectors at a threshold where similarity alone
merges each pair, with the claim guard (ingest.claims + ingest.claim_agreement); and through the
pipeline, across two documents, on real PostgreSQL and the vector slice."""

from __future__ import annotations

from pathlib import Path

import pytest

from pegas_memory.app.requests import IngestRequest
from pegas_memory.ingest.claims import atom_signature
from pegas_memory.ingest.dedup import decide
from tests.conftest import offline_memory
from tests.fake_ollama import hashed_embedding

DIFFERENT = [
    # (what differs, a, b)
    ("number en", "In the binary counter, the tail of a 0 has one debit.",
     "In the binary counter, the tail of a 1 has one debit."),
    ("number ru", "В двоичном счётчике у хвоста разряда 0 ровно один долг.",
     "В двоичном счётчике у хвоста разряда 1 ровно один долг."),
    ("roles en", "The server log shows the data from the client sent through the network.",
     "The server log shows the data sent by your program and received by the client."),
    ("roles en, the same words", "The proxy writes the data from the client to the log.",
     "The proxy writes the data received by the client to the log."),
    ("roles ru", "В журнале сервера видны данные от клиента, отправленные по сети.",
     "В журнале сервера видны данные, отправленные вашей программой и полученные клиентом."),
    ("roles ru, the same words", "Прокси записывает в журнал данные от клиента.",
     "Прокси записывает в журнал данные, полученные клиентом."),
    ("sets ru", "Обработчик проверяет параметры пути и тело запроса.",
     "Обработчик проверяет параметры тела, пути и запроса."),
    ("sets en", "The handler validates the path parameters and the request body.",
     "The handler validates the body, path and request parameters."),
]  # fmt: skip


def _sig(text: str):  # type: ignore[no-untyped-def]
    return atom_signature(text, text)


@pytest.mark.parametrize("kind,a,b", DIFFERENT, ids=[d[0] for d in DIFFERENT])
def test_near_duplicates_that_state_different_things_are_kept_apart(
    kind: str, a: str, b: str
) -> None:
    vectors = [hashed_embedding(a, 256), hashed_embedding(b, 256)]
    unguarded, _ = decide(vectors, index=None, collection=None, threshold=0.5)
    assert unguarded[1].batch_index == 0, "similarity alone must merge the pair"
    guarded, _ = decide(
        vectors, index=None, collection=None, threshold=0.5, signatures=[_sig(a), _sig(b)]
    )
    assert guarded[1].batch_index is None, f"{kind}: {a!r} and {b!r} merged"
    assert guarded[1].conflicts


@pytest.mark.parametrize(
    "a,b",
    [
        ("The proxy writes the data from the client to the log.",
         "The proxy writes the data received by the client to the log."),
        ("The handler validates the path parameters and the request body.",
         "The handler validates the body, path and request parameters."),
        ("Обработчик проверяет параметры пути и тело запроса.",
         "Обработчик проверяет параметры тела, пути и запроса."),
    ],
)  # fmt: skip
def test_two_documents_stating_different_things_keep_two_atoms(
    database_url: str, tmp_path: Path, a: str, b: str
) -> None:
    with offline_memory(
        database_url, tmp_path / "data", dim=256, llm=False, dedup_threshold=0.8
    ) as svc:
        first = svc.ingest(IngestRequest(source=a, kind="text", title="first"))
        svc.runtime.worker().drain()
        second = svc.ingest(IngestRequest(source=b, kind="text", title="second"))
        assert first.atoms_new == 1
        # near enough to be a candidate (kept apart), but not merged
        assert second.atoms_new == 1 and second.duplicates_semantic == 0
        assert second.kept_apart == 1
        with svc.db.connection() as conn:
            claims = {r["claim"] for r in conn.execute("SELECT claim FROM pm_atom").fetchall()}
        assert claims == {a, b}
