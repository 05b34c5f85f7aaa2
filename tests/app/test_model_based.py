"""A model-based (hypothesis stateful) test of the whole write path against real engines.

Random sequences of store, ingest (new, unchanged and changed versions of a file), verify, link,
infer, retract, erase, rebuild and worker crashes run on one MemoryService: embedded Postgres,
qdrant-edge, embedded FalkorDB, and a FakeOllama on loopback for embeddings and self-critique.
After every step the outbox is drained and these must hold:

- convergence: `reconcile` finds no drift between Postgres and either slice;
- erased atoms never come back: not in search hits, context items, the graph (nodes and
  neighbours of the atoms they were linked to), the vector slice or the embedding cache, and a
  rebuild (a rule of its own) cannot resurrect them since it reads Postgres alone;
- status ranks: "twins" are two atoms with the same claim whose embedded text is identical (one
  has no content, the other repeats the claim as content, so they differ only in the dedup key
  and the second matches lexically at least as well). When one twin is stale or contested and
  the other current (candidate or verified), a search for the claim never ranks the non-current
  twin above the current one, and never returns it without the current one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from pegas_memory.app.requests import (
    ContextRequest,
    GraphQueryRequest,
    IngestRequest,
    SearchRequest,
    StoreRequest,
)
from pegas_memory.db.embedded import EmbeddedPostgres
from pegas_memory.db.repo import add_link, set_status
from pegas_memory.errors import NotFound
from pegas_memory.models import GraphPathsAnswer
from pegas_memory.outbox.projection import Projector, atom_embed_text
from pegas_memory.outbox.reconcile import rebuild, reconcile
from pegas_memory.outbox.worker import OutboxWorker
from pegas_memory.text import raw_hash
from tests.fake_ollama import FakeOllama
from tests.service_machine import ServiceMachine

SUBJECTS = ("river", "glacier", "delta", "canyon", "aquifer", "lagoon")
VERBS = ("feeds", "drains", "floods", "erodes", "cools", "shelters")
OBJECTS = ("valley", "plain", "forest", "city", "wetland", "coast")
LINK_KINDS = ("reference", "depends_on", "cause", "imports")
RULES = (
    {"if": "reference", "then": "depends_on"},
    {"if": ["depends_on", "depends_on"], "then": "depends_on"},
    {"if": "cause", "then": "reference"},
    {"if": "imports", "then": "depends_on"},
)
SENTENCES = tuple(
    f"The {s} slowly {v} the {o} during the long spring season."
    for s, v, o in zip(SUBJECTS, VERBS, reversed(OBJECTS), strict=True)
)
CURRENT = ("candidate", "verified")
# A claim containing this word is "contradicted" by the fake model's self-critique.
DISPUTED = "allegedly"


def critique_answer(request: dict[str, Any]) -> dict[str, Any]:
    """The fake chat model: contradicts the first listed neighbour when the candidate says
    'allegedly', otherwise finds nothing to say (new)."""
    user = next((m["content"] for m in request["messages"] if m["role"] == "user"), "")
    ids = [int(x) for x in re.findall(r"^- id (\d+):", user, re.M)]
    candidate = user.splitlines()[0] if user else ""
    if DISPUTED in candidate and ids:
        return {"verdict": "contradicts", "reason": "they cannot both be true", "ref_id": ids[0]}
    return {"verdict": "new", "reason": "nothing stored says the same", "ref_id": None}


class Crash(BaseException):
    """A worker dying mid-batch: not an Exception, so nothing in the worker catches it and the
    batch transaction rolls back after some slices were already written (like a SIGKILL)."""


class _DiesBeforeCommit(OutboxWorker):
    """A worker that dies after projecting and recording a batch, before it commits."""

    def _record(self, *args: Any, **kwargs: Any) -> None:
        super()._record(*args, **kwargs)
        raise Crash("killed between projecting and committing")


claims = st.builds(
    lambda s, v, o, disputed: f"The {s} {DISPUTED + ' ' if disputed else ''}{v} the {o}",
    st.sampled_from(SUBJECTS),
    st.sampled_from(VERBS),
    st.sampled_from(OBJECTS),
    st.booleans(),
)


picks = st.integers(0, 1_000)


class MemoryMachine(ServiceMachine):
    """Drives one MemoryService on a fresh database and data dir per example (so every example,
    and every replay while shrinking, starts from the same empty state); the model is what was
    erased."""

    examples = 0
    steps = 0

    def __init__(self) -> None:
        super().__init__()
        MemoryMachine.examples += 1
        self.erased: dict[int, str] = {}  # atom id -> claim
        self.linked_to_erased: set[int] = set()
        self.file_version = 0

    # ------------------------------------------------------------------ helpers
    def live_ids(self) -> list[int]:
        with self.service.db.connection() as conn:
            return [int(r["id"]) for r in conn.execute("SELECT id FROM pm_atom ORDER BY id")]

    def pick(self, picks: list[int]) -> list[int]:
        """Live atom ids chosen by position, so the drawn data never depends on the database."""
        ids = self.live_ids()
        return sorted({ids[p % len(ids)] for p in picks}) if ids else []

    def assert_uncached(self, texts: list[str]) -> None:
        """Right after an erase, no embedding of what was erased is cached (unless a live atom
        embeds the very same text)."""
        with self.service.db.connection() as conn:
            live = {
                atom_embed_text(r["claim"], r["content"])
                for r in conn.execute("SELECT claim, content FROM pm_atom")
            }
            row = conn.execute(
                "SELECT count(*) AS n FROM pm_embedding_cache WHERE content_hash = ANY(%s)",
                ([raw_hash(t) for t in texts if t not in live],),
            ).fetchone()
        assert row is not None and row["n"] == 0

    def drain(self) -> None:
        report = self.service.runtime.worker("model").drain(include_delayed=True, timeout=120)
        assert report.parked == 0, report.errors

    # ------------------------------------------------------------------ rules
    @initialize()
    def start(self) -> None:
        self.drain()

    @rule(claim=claims, kind=st.sampled_from(("fact", "definition")), confidence=st.floats(0, 1))
    def store(self, claim: str, kind: str, confidence: float) -> None:
        result = self.service.store(StoreRequest(claim=claim, type=kind, confidence=confidence))
        assert result.id not in self.erased  # ids are never reused

    @rule(index=st.integers(0, len(RULES) - 1))
    def store_rule(self, index: int) -> None:
        body = RULES[index]
        claim = f"Rule {index}: {json.dumps(body['if'])} implies {body['then']}"
        self.service.store(StoreRequest(claim=claim, type="logical_rule", content=json.dumps(body)))

    @rule(claim=claims, how=st.sampled_from(("retract", "contest")))
    def store_twins(self, claim: str, how: str) -> None:
        plain = self.service.store(StoreRequest(claim=claim)).id
        echo = self.service.store(StoreRequest(claim=claim, content=claim)).id
        if plain == echo:
            return  # the claim normalises the same with its content: no twins possible
        if how == "retract":
            self.service.forget(mode="retract", atom_ids=[echo], reason="superseded")
        else:
            with self.service.db.transaction() as conn:
                set_status(conn, echo, "contested", reason="disputed", check_name="model_test")

    @rule(changed=st.booleans(), keep=st.sets(st.integers(0, len(SENTENCES) - 1), min_size=1))
    def ingest_file(self, changed: bool, keep: set[int]) -> None:
        path = self.docs / "notes.txt"
        if changed or not path.exists():
            self.file_version += 1
            lines = [SENTENCES[i] for i in sorted(keep)]
            path.write_text(f"Field notes, revision {self.file_version}.\n\n" + "\n".join(lines))
        report = self.service.ingest(IngestRequest(source=str(path)))
        assert not report.errors, report.errors

    @rule(text=st.sampled_from(SENTENCES))
    def ingest_text(self, text: str) -> None:
        self.service.ingest(IngestRequest(source=text, kind="text"))

    @rule(picks=st.lists(picks, min_size=1, max_size=4))
    def verify(self, picks: list[int]) -> None:
        chosen = self.pick(picks)
        if chosen:
            self.service.verify(atom_ids=chosen)

    @rule(a=picks, b=picks, kind=st.sampled_from(LINK_KINDS))
    def link(self, a: int, b: int, kind: str) -> None:
        ids = self.live_ids()
        if len(ids) < 2:
            return
        src = ids[a % len(ids)]
        dst = ids[b % (len(ids) - 1)]
        dst = dst if dst != src else ids[-1]
        with self.service.db.transaction() as conn:
            add_link(conn, src, dst, kind)

    @rule()
    def infer(self) -> None:
        report = self.service.infer()
        assert report.complete

    @rule(pick=picks)
    def retract(self, pick: int) -> None:
        chosen = self.pick([pick])
        if chosen:
            self.service.forget(mode="retract", atom_ids=chosen)

    @rule(pick=picks)
    def erase(self, pick: int) -> None:
        chosen = self.pick([pick])
        if not chosen:
            return
        victim = chosen[0]
        with self.service.db.connection() as conn:
            row = conn.execute(
                "SELECT claim, content FROM pm_atom WHERE id = %s", (victim,)
            ).fetchone()
            neighbours = conn.execute(
                """SELECT src_atom_id AS other FROM pm_atom_link WHERE dst_atom_id = %(id)s
                   UNION SELECT dst_atom_id FROM pm_atom_link WHERE src_atom_id = %(id)s""",
                {"id": victim},
            ).fetchall()
        assert row is not None
        result = self.service.forget(mode="erase", atom_ids=[victim])
        assert result.atoms == [victim]
        self.erased[victim] = row["claim"]
        self.assert_uncached([atom_embed_text(row["claim"], row["content"])])
        self.linked_to_erased |= {int(r["other"]) for r in neighbours}

    @rule()
    def erase_document(self) -> None:
        with self.service.db.connection() as conn:
            row = conn.execute("SELECT id FROM pm_document ORDER BY id DESC LIMIT 1").fetchone()
            if row is None:
                return
            # An id of any version names the whole document (stable identity): every version
            # goes, with the atoms that only its versions cite.
            doomed = conn.execute(
                """WITH v AS (SELECT id FROM pm_document WHERE identity_id =
                                (SELECT identity_id FROM pm_document WHERE id = %(d)s))
                   SELECT a.id, a.claim, a.content FROM pm_atom a WHERE EXISTS (
                       SELECT 1 FROM pm_citation c WHERE c.atom_id = a.id
                          AND c.doc_id IN (SELECT id FROM v))
                   AND NOT EXISTS (SELECT 1 FROM pm_citation o WHERE o.atom_id = a.id
                                   AND (o.doc_id IS NULL OR o.doc_id NOT IN (SELECT id FROM v)))""",
                {"d": row["id"]},
            ).fetchall()
        result = self.service.forget(mode="erase", document_ids=[int(row["id"])])
        assert sorted(result.atoms) == sorted(int(r["id"]) for r in doomed)
        self.erased.update({int(r["id"]): r["claim"] for r in doomed})
        self.assert_uncached([atom_embed_text(r["claim"], r["content"]) for r in doomed])

    @rule(how=st.sampled_from(("mid_batch", "before_commit", "outage")), after=st.integers(0, 3))
    def worker_crash(self, how: str, after: int) -> None:
        """Write something, then let a worker fail part-way; the invariant's drain restarts."""
        self.service.store(
            StoreRequest(claim=f"Crash marker {len(self.live_ids())} of the {how} kind")
        )
        projector = self.service.runtime.projector
        worker: OutboxWorker = self.service.runtime.worker("doomed")
        calls = 0

        def failing(target: Any, entity_type: str, rows: Any) -> None:
            nonlocal calls
            calls += 1
            if calls > after:
                if how == "outage":
                    from pegas_memory.errors import BackendUnavailable

                    raise BackendUnavailable(f"{target} slice stopped for the test")
                raise Crash(f"killed while projecting {entity_type} into {target}")
            Projector.apply(projector, target, entity_type, rows)

        if how == "before_commit":
            worker = _DiesBeforeCommit(
                self.service.runtime.settings, self.service.runtime.db, projector, name="doomed"
            )
        else:
            projector.apply = failing  # type: ignore[method-assign]
        try:
            worker.run_once()
        except Crash:
            pass
        finally:
            vars(projector).pop("apply", None)  # back to the class method

    @rule()
    def rebuild_slices(self) -> None:
        rebuild(self.service.runtime, "all")

    # ------------------------------------------------------------------ invariants
    @invariant()
    def converged(self) -> None:
        MemoryMachine.steps += 1
        self.drain()
        report = reconcile(self.service.runtime)
        assert report.drift == 0, report.summary()

    @invariant()
    def erased_never_resurface(self) -> None:
        if not self.erased:
            return
        rt = self.service.runtime
        gone = set(self.erased)
        graph_nodes = set(rt.graph.get().iter_node_ids("Atom"))
        assert not gone & graph_nodes
        index = rt.vectors.get()
        assert not index.retrieve(rt.projector.collection("atom"), sorted(gone))
        for claim in list(dict.fromkeys(self.erased.values()))[-4:]:
            hits = self.service.search(SearchRequest(query=claim, limit=20, store="atoms")).hits
            assert not gone & {h.id for h in hits}, claim
            context = self.service.get_context(
                ContextRequest(question=claim, register_gap=False, store="atoms")
            )
            assert not gone & {i.atom_id for i in context.items}, claim
        for atom_id in sorted(self.linked_to_erased - gone)[:5]:
            try:
                found = self.service.query_graph(
                    GraphQueryRequest(op="neighbours", node_id=atom_id, depth=2)
                )
            except NotFound:
                continue
            assert isinstance(found.result, GraphPathsAnswer)
            seen = {n.id for p in found.result.paths for n in p.nodes}
            assert not gone & seen, (atom_id, found.result)

    @invariant()
    def current_twin_ranks_first(self) -> None:
        with self.service.db.connection() as conn:
            groups = conn.execute(
                """SELECT claim, array_agg(id ORDER BY id) AS ids,
                          array_agg(status ORDER BY id) AS statuses
                     FROM pm_atom WHERE content = '' OR content = claim
                    GROUP BY claim HAVING count(*) > 1
                      AND bool_or(status IN ('candidate', 'verified'))
                      AND bool_or(status IN ('stale', 'contested'))"""
            ).fetchall()
        for g in groups:
            current = {i for i, s in zip(g["ids"], g["statuses"], strict=True) if s in CURRENT}
            demoted = set(g["ids"]) - current
            order = [
                h.id
                for h in self.service.search(
                    SearchRequest(query=g["claim"], limit=10, store="atoms")
                ).hits
            ]
            for bad in demoted & set(order):
                for good in current:
                    assert good in order and order.index(good) < order.index(bad), (
                        g["claim"],
                        order,
                        dict(zip(g["ids"], g["statuses"], strict=True)),
                    )


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    with FakeOllama(dim=64, chat=critique_answer) as fake:
        yield fake


def run_machine(
    embedded_pg: EmbeddedPostgres,
    fake: FakeOllama,
    root: Path,
    examples: int,
    steps: int,
    *,
    shrink: bool,
) -> None:
    MemoryMachine.bind(embedded_pg, fake, root)
    MemoryMachine.examples = MemoryMachine.steps = 0
    run_state_machine_as_test(
        MemoryMachine,
        settings=settings(
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            # Shrinking replays whole sequences (about a second a step here): only the long run
            # spends that time; a default-run failure still prints its full sequence of steps.
            phases=[Phase.explicit, Phase.reuse, Phase.generate]
            + ([Phase.target, Phase.shrink] if shrink else []),
            database=None,
        ),
    )
    # Every example ran its steps: the invariants were checked at least that often.
    assert MemoryMachine.examples >= examples and MemoryMachine.steps >= examples
    print(f"model-based: {MemoryMachine.examples} examples, {MemoryMachine.steps} checked states")


def test_model_based_convergence(
    embedded_pg: EmbeddedPostgres, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    run_machine(embedded_pg, fake_ollama, tmp_path, examples=3, steps=8, shrink=False)


def test_erasing_a_document_erases_the_atoms_of_every_version(
    embedded_pg: EmbeddedPostgres, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    """The shrunk failure of the long run: a file ingested, changed and ingested again, then
    erased by its newest id. memory_forget erases both versions and the atoms only they cite (an
    id names every version); the model used to expect the newest version's atoms alone."""
    MemoryMachine.bind(embedded_pg, fake_ollama, tmp_path)
    machine = MemoryMachine()
    try:
        machine.start()
        machine.ingest_file(changed=True, keep={0, 1})
        first = set(machine.live_ids())
        machine.ingest_file(changed=True, keep={1, 2})
        assert set(machine.live_ids()) > first  # the second version distilled atoms of its own
        machine.erase_document()
        assert first <= set(machine.erased) and not machine.live_ids()
        machine.converged()
        machine.erased_never_resurface()
    finally:
        machine.teardown()


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_model_based_convergence_long(
    embedded_pg: EmbeddedPostgres, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    run_machine(embedded_pg, fake_ollama, tmp_path, examples=12, steps=25, shrink=True)
