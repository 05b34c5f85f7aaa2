"""The agent's outcome reports simulated from judged relevance, shared by the feedback benches
(bench_feedback.py on SciFact, bench_feedback_conversations.py on LoCoMo and LongMemEval).

A reported question is searched through `MemoryService.search` at feedback weight 0; every hit
judged relevant among its top 10 is reported `helped`, and the other hits among its top
`misled_top` are reported `misled` (an agent that read them and found them beside the point),
through `MemoryService.feedback`. A noisier agent (`Agent.share` < 1, `Agent.flip` > 0) reports
on only a share of the questions, and gets each outcome wrong with a probability: both drawn
from a seeded generator, so a run is repeatable.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from _common import log
from eval_data import EvalSet, Query
from eval_retrieval import ingest, query_filter

from pegas_memory.app.requests import FeedbackRequest, SearchPreset, SearchRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.models import FeedbackItem, FeedbackOutcome


@dataclass(frozen=True)
class Agent:
    """How the simulated agent reports: on which share of the questions, how many non-relevant
    hits from the top it calls misleading, and how often it gets an outcome backwards."""

    misled_top: int = 3
    share: float = 1.0
    flip: float = 0.0
    seed: int = 32

    def describe(self) -> str:
        parts = [f"misled = not relevant in the top {self.misled_top}"]
        if self.share < 1:
            parts.append(f"reports on {self.share:.0%} of the questions")
        if self.flip > 0:
            parts.append(f"{self.flip:.0%} of the outcomes backwards")
        return ", ".join(parts)


@dataclass
class Reported:
    questions: int = 0
    helped: int = 0
    misled: int = 0


def stored(service: MemoryService, name: str, evsets: Sequence[EvalSet]) -> dict[int, list[str]]:
    """Store the sets' documents as atoms (idempotent, eval_retrieval.ingest) and say how long it
    took; return atom id -> external ids."""
    t0 = time.perf_counter()
    atom_ext, created = ingest(service, evsets)
    took = time.perf_counter() - t0
    log(f"{name}: {len(atom_ext)} atoms ({created} new) in {took:.0f}s")
    return atom_ext


def ranked(
    service: MemoryService,
    q: Query,
    preset: SearchPreset,
    limit: int,
    atom_ext: dict[int, list[str]],
) -> tuple[list[str], list[int]]:
    """The external ids of a search's hits in order, and the atom ids behind them (a question
    scoped to a conversation or haystack searches only its atoms)."""
    flt = query_filter(q) if q.topic or q.tag else None
    result = service.search(
        SearchRequest(query=q.text, preset=preset, limit=limit, flt=flt, store="atoms")
    )
    ext: list[str] = []
    for hit in result.hits:
        for e in atom_ext.get(hit.id, []):
            if e not in ext:
                ext.append(e)
    return ext, [h.id for h in result.hits]


def outcomes(
    q: Query, ids: Sequence[int], atom_ext: dict[int, list[str]], agent: Agent, rng: random.Random
) -> list[FeedbackItem]:
    """What `agent` reports on the hits `ids` (a search's top 10, in order) of question `q`."""
    items = []
    for rank, atom in enumerate(ids):
        relevant = any(e in q.relevant for e in atom_ext.get(atom, []))
        if not relevant and rank >= agent.misled_top:
            continue
        helped = relevant != (rng.random() < agent.flip)
        outcome = FeedbackOutcome.HELPED if helped else FeedbackOutcome.MISLED
        items.append(FeedbackItem(id=atom, outcome=outcome))
    return items


def count(done: Reported, items: Sequence[FeedbackItem]) -> None:
    helped = sum(1 for it in items if it.outcome == FeedbackOutcome.HELPED)
    done.helped += helped
    done.misled += len(items) - helped
    done.questions += int(bool(items))


def report_outcomes(
    service: MemoryService,
    queries: Sequence[Query],
    preset: SearchPreset,
    atom_ext: dict[int, list[str]],
    agent: Agent,
) -> Reported:
    """Report on each question's top 10 as `agent` would (see the module docstring)."""
    rng = random.Random(agent.seed)
    done = Reported()
    weight = service.searcher.feedback_weight
    service.searcher.feedback_weight = 0.0
    try:
        for i, q in enumerate(queries):
            if rng.random() >= agent.share:
                continue
            _, ids = ranked(service, q, preset, 10, atom_ext)
            items = outcomes(q, ids, atom_ext, agent, rng)
            if items:
                service.feedback(FeedbackRequest(items=tuple(items), query=q.text))
            count(done, items)
            if i % 200 == 199:
                log(f"feedback: {i + 1}/{len(queries)} questions looked at")
    finally:
        service.searcher.feedback_weight = weight
    return done


def clear_feedback(service: MemoryService) -> None:
    """A fresh run: no feedback from an earlier one (erasing events cascades nowhere else)."""
    with service.db.transaction() as conn:
        conn.execute("DELETE FROM pm_feedback_event")
        conn.execute("DELETE FROM pm_atom_feedback")
        conn.execute("DELETE FROM pm_passage_feedback")
