"""Verification paths against real engines and an Ollama speaking HTTP on loopback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.requests import IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.models import VerdictOut
from tests.conftest import offline_memory


@contextmanager
def memory(
    database_url: str,
    tmp_path: Path,
    chat: Callable[[dict[str, Any]], Any] | None,
    *,
    llm: bool = True,
) -> Iterator[MemoryService]:
    with offline_memory(database_url, tmp_path / "data", dim=128, chat=chat, llm=llm) as svc:
        yield svc


def status_of(svc: MemoryService, atom_id: int) -> tuple[str, float]:
    with svc.db.connection() as conn:
        row = conn.execute(
            "SELECT status, confidence FROM pm_atom WHERE id = %s", (atom_id,)
        ).fetchone()
    return row["status"], float(row["confidence"])


def links(svc: MemoryService) -> set[tuple[int, int, str]]:
    with svc.db.connection() as conn:
        rows = conn.execute("SELECT src_atom_id, dst_atom_id, kind FROM pm_atom_link").fetchall()
    return {(r["src_atom_id"], r["dst_atom_id"], r["kind"]) for r in rows}


def test_cross_confirmation_across_documents(database_url: str, tmp_path: Path) -> None:
    with memory(database_url, tmp_path, None, llm=False) as svc:
        a = svc.store(
            StoreRequest(
                claim="The Volga flows into the Caspian Sea", source="https://a.example/volga"
            )
        )
        b = svc.store(
            StoreRequest(
                claim="the Volga flows into the Caspian Sea.", source="https://b.example/rivers"
            )
        )
        svc.runtime.worker().drain()
        result = svc.verify(atom_ids=[a.id])
        (v,) = result.verdicts
        assert v.verdict == "confirmed" and v.new_status == "verified"
        assert v.confidence > 0.5 and v.evidence[0]["atom_id"] == b.id
        assert any("self-critique" in w for w in result.warnings)
        assert status_of(svc, a.id)[0] == "verified"
        # search sees the change through the outbox at once
        svc.runtime.worker().drain()
        hit = svc.search(SearchRequest(query="Volga Caspian", limit=1)).hits[0]
        assert hit.status == "verified"


def test_verify_says_when_atoms_are_still_being_projected(
    database_url: str, tmp_path: Path
) -> None:
    """Right after memory_store the new atom is not in the vector index yet: a verdict of
    "new" then says so, instead of looking final."""
    with memory(database_url, tmp_path, None, llm=False) as svc:
        a = svc.store(
            StoreRequest(
                claim="The Lena flows into the Laptev Sea", source="https://a.example/lena"
            )
        )
        svc.store(
            StoreRequest(
                claim="the Lena flows into the Laptev Sea.", source="https://b.example/rivers"
            )
        )
        early = svc.verify(atom_ids=[a.id])
        assert any("not in the vector index yet" in w for w in early.warnings)
        svc.runtime.worker().drain()
        later = svc.verify(atom_ids=[a.id])
        assert later.verdicts[0].verdict == "confirmed"
        assert not any("not in the vector index yet" in w for w in later.warnings)


def test_same_claim_merged_at_ingest_is_confirmed(database_url: str, tmp_path: Path) -> None:
    with memory(database_url, tmp_path, None, llm=False) as svc:
        svc.ingest(
            IngestRequest(
                source="Lake Baikal is the deepest lake in the world.", kind="text", title="one"
            )
        )
        svc.runtime.worker().drain()
        svc.ingest(
            IngestRequest(
                source="Lake Baikal is the deepest lake in the world!", kind="text", title="two"
            )
        )
        svc.runtime.worker().drain()
        result = svc.verify()
        assert result.counts.get("confirmed") == 1


@contextmanager
def judged(
    database_url: str, tmp_path: Path, verdict: str, reason: str, older: str, newer: str
) -> Iterator[tuple[MemoryService, dict[str, int], VerdictOut]]:
    """`older`, then `newer` stored under an LLM that answers `verdict` with `reason` against the
    older atom; the newer one verified. Yields the service, the ids ("older", "newer") and the
    newer atom's verdict."""
    ids: dict[str, int] = {}

    def chat(request: dict[str, Any]) -> Any:
        return {"verdict": verdict, "reason": reason, "ref_id": ids["older"]}

    with memory(database_url, tmp_path, chat) as svc:
        ids["older"] = svc.store(StoreRequest(claim=older)).id
        ids["newer"] = svc.store(StoreRequest(claim=newer)).id
        svc.runtime.worker().drain()
        (v,) = svc.verify(atom_ids=[ids["newer"]]).verdicts
        yield svc, ids, v


@pytest.mark.parametrize(
    ("verdict", "reason", "older", "newer", "statuses", "link"),
    [
        pytest.param(
            "contradicts",
            "different boiling points",
            "Water boils at 100 degrees at sea level",
            "Water boils at 90 degrees at sea level",
            ("contested", "contested"),
            "contradicts",
            id="a-contradiction-contests-both",
        ),
        pytest.param(
            "duplicate",
            "same statement",
            "Mount Elbrus is the highest peak in Europe",
            "Elbrus is Europe's highest mountain peak",
            ("stale", "candidate"),
            "duplicate_of",
            id="a-duplicate-stales-the-newer",
        ),
    ],
)
def test_the_llms_verdict_sets_both_statuses_and_links_the_newer_claim_to_the_older(
    database_url: str,
    tmp_path: Path,
    verdict: str,
    reason: str,
    older: str,
    newer: str,
    statuses: tuple[str, str],
    link: str,
) -> None:
    with judged(database_url, tmp_path, verdict, reason, older, newer) as (svc, ids, v):
        assert (v.verdict, v.ref_id, v.new_status) == (verdict, ids["older"], statuses[0])
        assert (status_of(svc, ids["newer"])[0], status_of(svc, ids["older"])[0]) == statuses
        assert (ids["newer"], ids["older"], link) in links(svc)
        with svc.db.connection() as conn:
            change = conn.execute(
                "SELECT check_name, reason FROM pm_status_change WHERE atom_id = %s "
                "ORDER BY id DESC LIMIT 1",
                (ids["newer"],),
            ).fetchone()
        assert change["check_name"] == "self_critique" and reason in change["reason"]


def test_nonsense_from_the_llm_changes_nothing(database_url: str, tmp_path: Path) -> None:
    with memory(database_url, tmp_path, lambda r: "I think it is fine :)") as svc:
        a = svc.store(StoreRequest(claim="Mercury is the closest planet to the Sun")).id
        svc.store(StoreRequest(claim="Venus is the second planet from the Sun"))
        svc.runtime.worker().drain()
        result = svc.verify(atom_ids=[a])
        (v,) = result.verdicts
        assert v.new_status == "candidate"
        assert any("could not run" in s for s in v.checks_skipped)


def test_without_llm_duplicates_by_similarity(database_url: str, tmp_path: Path) -> None:
    with memory(database_url, tmp_path, None, llm=False) as svc:
        old = svc.store(StoreRequest(claim="Tokyo is the capital of Japan")).id
        # re-punctuated: the claim guard finds it alike ("tokyo", lowercased, would be no name)
        new = svc.store(StoreRequest(claim="Tokyo is the capital of Japan!")).id
        svc.runtime.worker().drain()
        (v,) = svc.verify(atom_ids=[new]).verdicts
        assert v.verdict == "duplicate" and status_of(svc, new)[0] == "stale"
        assert status_of(svc, old)[0] == "candidate"
