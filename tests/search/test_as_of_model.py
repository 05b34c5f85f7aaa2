"""A model-based (hypothesis stateful) test of as-of: random sequences of store, ingest (new and
changed versions of two files), retract, verify, erase and consolidate-then-split run on one
MemoryService over real PostgreSQL and the embedded slices. The model is what was believed at
every recorded instant: after each step, the atoms and their statuses (predicted by the model
for store, retract and erase, read back for what ingest, verification and merges decided), and
the atoms erased since. At every step, `memory_search(as_of=t)` for every earlier instant t
must give exactly the atoms believed at t, with the statuses they had then, less those erased
since (an erased atom leaves no words at any instant, docs/decisions/0009)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from pegas_memory.app.requests import IngestRequest, SearchRequest, StoreRequest
from pegas_memory.db.embedded import EmbeddedPostgres
from pegas_memory.search.filters import SearchFilter
from tests.fake_ollama import FakeOllama
from tests.service_machine import ServiceMachine

SUBJECTS = ("river", "glacier", "delta", "canyon", "aquifer")
OBJECTS = ("valley", "plain", "forest")
CLAIMS = tuple(f"The {s} shapes the {o} in every season." for s in SUBJECTS for o in OBJECTS)
QUERY = " ".join(SUBJECTS + OBJECTS)
ALL = ("candidate", "verified", "contested", "stale")
picks = st.lists(st.integers(0, 1_000), min_size=1, max_size=2)


def on_picked_atoms(step: Callable[[Any, list[int]], None]) -> Callable[[Any, list[int]], None]:
    """A rule over atoms the model holds, picked by position (`picks`): it runs only once there
    are some."""
    return precondition(lambda self: bool(self.now))(rule(which=picks)(step))


@dataclass(frozen=True)
class Instant:
    at: datetime
    believed: dict[int, str]  # atom id -> status at that instant


class AsOfMachine(ServiceMachine):
    checks = 0

    def __init__(self) -> None:
        super().__init__()
        self.service.verifier.llm = None  # verification by similarity alone
        self.now: dict[int, str] = {}  # the model: atom id -> status now
        self.erased: set[int] = set()
        self.instants: list[Instant] = []

    # ------------------------------------------------------------------ helpers
    def live(self) -> dict[int, str]:
        with self.service.db.connection() as conn:
            found = conn.execute("SELECT id, status FROM pm_atom ORDER BY id").fetchall()
        return {int(r["id"]): str(r["status"]) for r in found}

    def pick(self, positions: list[int]) -> list[int]:
        ids = sorted(self.now)
        return sorted({ids[p % len(ids)] for p in positions}) if ids else []

    def settle(self, predicted: bool) -> None:
        """Drain the outbox, check the model (where it predicts) or take what the step decided
        from PostgreSQL (where it does not), and record the instant."""
        self.service.runtime.worker("as-of").drain(include_delayed=True, timeout=120)
        live = self.live()
        if predicted:
            assert live == self.now
        self.now = live
        with self.service.db.connection() as conn:
            row = conn.execute("SELECT clock_timestamp() AS t").fetchone()
        assert row is not None
        self.instants.append(Instant(row["t"], dict(live)))

    def ingest(self, name: str, claims: list[str]) -> None:
        path = self.docs / name
        path.write_text("# Landforms\n\n" + "\n\n".join(claims) + "\n")
        report = self.service.ingest(IngestRequest(source=str(path)))
        assert not report.errors, report.errors

    # ------------------------------------------------------------------ rules
    @initialize()
    def start(self) -> None:
        self.settle(predicted=True)

    @rule(claim=st.sampled_from(CLAIMS))
    def store(self, claim: str) -> None:
        result = self.service.store(StoreRequest(claim=claim, session_id="model"))
        assert result.id is not None
        if result.created:
            self.now[result.id] = "candidate"
        self.settle(predicted=True)

    @rule(
        name=st.sampled_from(("one.md", "two.md")),
        claims=st.lists(st.sampled_from(CLAIMS), min_size=1, max_size=3, unique=True),
    )
    def ingest_version(self, name: str, claims: list[str]) -> None:
        """A new file, or a changed version of one ingested before (its old claims withdrawn)."""
        self.ingest(name, claims)
        self.settle(predicted=False)

    @on_picked_atoms
    def retract(self, which: list[int]) -> None:
        ids = self.pick(which)
        if ids:
            self.service.forget(mode="retract", atom_ids=ids, reason="no longer held")
            self.now.update(dict.fromkeys(ids, "stale"))
        self.settle(predicted=True)

    @on_picked_atoms
    def erase(self, which: list[int]) -> None:
        ids = self.pick(which)
        if ids:
            self.service.forget(mode="erase", atom_ids=ids)
            for i in ids:
                self.now.pop(i)
            self.erased.update(ids)
        self.settle(predicted=True)

    @on_picked_atoms
    def verify(self, which: list[int]) -> None:
        ids = [i for i in self.pick(which) if self.now[i] != "stale"]
        if ids:
            self.service.verify(atom_ids=ids)
        self.settle(predicted=False)

    @precondition(lambda self: len(self.now) >= 2)
    @rule()
    def consolidate_then_split(self) -> None:
        """Merge what consolidation finds, then split the newest merge back."""
        self.service.merges(action="consolidate", apply=True, batch=100)
        found = self.service.merges(action="list", open_only=True, limit=1).merges
        if found:
            self.service.merges(action="split", merge_id=found[0].id, reason="model")
        self.settle(predicted=False)

    # ------------------------------------------------------------------ the check
    @invariant()
    def as_of_gives_what_was_believed(self) -> None:
        for instant in self.instants:
            answer = self.service.search(
                SearchRequest(
                    query=QUERY,
                    limit=50,
                    store="atoms",
                    flt=SearchFilter(statuses=ALL, as_of=instant.at),
                )
            )
            assert answer.as_of == instant.at
            got = {h.id: h.status for h in answer.hits}
            expected = {i: s for i, s in instant.believed.items() if i not in self.erased}
            assert got == expected, (instant.at, got, expected)
            AsOfMachine.checks += 1


def test_as_of_answers_what_was_believed_at_every_recorded_instant(
    embedded_pg: EmbeddedPostgres, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    AsOfMachine.bind(embedded_pg, fake_ollama, tmp_path)
    AsOfMachine.checks = 0
    run_state_machine_as_test(
        AsOfMachine,
        settings=settings(
            max_examples=4,
            stateful_step_count=8,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.reuse, Phase.generate],
            database=None,
        ),
    )
    assert AsOfMachine.checks >= 2  # the invariant ran, over at least one instant per example
