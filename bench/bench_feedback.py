"""Does the agent's feedback help ranking? SciFact nDCG@10 with PEGAS_FEEDBACK_WEIGHT 0 and > 0.

    .venv/bin/python bench/bench_feedback.py [--preset lexical|hybrid] [--weights 0,0.3]
        [--misled-top N] [--limit-queries N]

The SciFact corpus (BEIR: title + abstract per atom, as bench/eval_retrieval.py stores it) is
stored as atoms. Feedback is simulated on the **train** claims (qrels/train.tsv): each is
searched at weight 0, every judged-relevant hit among its top 10 is reported `helped` through
`MemoryService.feedback`, and the non-relevant hits among its top `--misled-top` (default 3) are
reported `misled` (an agent that read them and found them beside the point). Then the **test**
claims (qrels/test.tsv, never reported on) are searched at each weight: the out-of-sample
nDCG@10 is what feedback from past questions does for new ones. The train claims are searched
again too (in-sample: the very questions reported on), which shows the mechanism works but says
nothing about new questions.

`--preset lexical` (the default) ranks with the BM25 arm alone, so no embedding is needed and the
run takes minutes; `--preset hybrid` embeds the corpus with the settings' embedder first (the
vector cache is kept under the cache dir, as bench/eval_retrieval.py does), which takes an hour
or more for 5,183 abstracts with the local model on two cores. The store lives under
$PEGAS_EVAL_CACHE (default bench/.cache) in `scifact-feedback-<preset>`, and is rebuilt (its
feedback cleared) on each run. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import log, md_table, shared_data_dir
from eval_data import EvalSet, Query, _beir
from eval_retrieval import close_store, ingest, ndcg, open_store, project

from pegas_memory.app.requests import FeedbackRequest, SearchRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.models import FeedbackItem
from pegas_memory.search.hybrid import PRESETS


def scifact_split(root: Path) -> tuple[EvalSet, EvalSet]:
    """The corpus with the train claims, and with the test claims."""
    d = root / "scifact"

    def one(qrels: str) -> EvalSet:
        return _beir(
            "scifact",
            "scifact",
            d / "corpus.jsonl",
            d / "queries.jsonl",
            d / "qrels" / qrels,
            use_title=True,
            limit=10,
        )

    return one("train.tsv"), one("test.tsv")


def ranked_ext(
    service: MemoryService, q: Query, preset: str, atom_ext: dict[int, list[str]]
) -> tuple[list[str], list[int]]:
    """The external ids of a search's top 10, and the atom ids behind them, in order."""
    result = service.search(SearchRequest(query=q.text, preset=preset, limit=10, store="atoms"))
    ext: list[str] = []
    for hit in result.hits:
        for e in atom_ext.get(hit.id, []):
            if e not in ext:
                ext.append(e)
    return ext, [h.id for h in result.hits]


def simulate_feedback(
    service: MemoryService,
    queries: Sequence[Query],
    preset: str,
    atom_ext: dict[int, list[str]],
    misled_top: int,
) -> tuple[int, int]:
    """Report on each train claim's top 10 (see the module docstring); return (helped, misled)."""
    helped = misled = 0
    service.searcher.feedback_weight = 0.0
    for i, q in enumerate(queries):
        _, ids = ranked_ext(service, q, preset, atom_ext)
        items = []
        for rank, atom in enumerate(ids):
            relevant = any(e in q.relevant for e in atom_ext.get(atom, []))
            if relevant:
                items.append(FeedbackItem(id=atom, outcome="helped"))
                helped += 1
            elif rank < misled_top:
                items.append(FeedbackItem(id=atom, outcome="misled"))
                misled += 1
        if items:
            service.feedback(FeedbackRequest(items=tuple(items), query=q.text))
        if i % 200 == 199:
            log(f"feedback: {i + 1}/{len(queries)} train claims reported on")
    return helped, misled


def mean_ndcg(
    service: MemoryService,
    queries: Sequence[Query],
    preset: str,
    atom_ext: dict[int, list[str]],
    weight: float,
) -> float:
    service.searcher.feedback_weight = weight
    scores = [ndcg(ranked_ext(service, q, preset, atom_ext)[0], q.relevant, 10) for q in queries]
    return float(np.mean(scores)) if scores else 0.0


def clear_feedback(service: MemoryService) -> None:
    """A fresh run: no feedback from an earlier one (erasing events cascades nowhere else)."""
    with service.db.transaction() as conn:
        conn.execute("DELETE FROM pm_feedback_event")
        conn.execute("DELETE FROM pm_atom_feedback")
        conn.execute("DELETE FROM pm_passage_feedback")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="lexical", choices=sorted(PRESETS))
    parser.add_argument("--weights", default="0,0.3")
    parser.add_argument("--misled-top", type=int, default=3)
    parser.add_argument("--limit-queries", type=int, default=0, help="0: every claim")
    args = parser.parse_args()
    weights = [float(w) for w in args.weights.split(",")]
    train, test = scifact_split(shared_data_dir())
    if args.limit_queries:
        train.queries[:] = train.queries[: args.limit_queries]
        test.queries[:] = test.queries[: args.limit_queries]
    name = f"scifact-feedback-{args.preset}"
    service, cached = open_store(name)
    try:
        t0 = time.perf_counter()
        atom_ext, created = ingest(service, [train])
        log(f"{name}: {len(atom_ext)} atoms ({created} new) in {time.perf_counter() - t0:.1f}s")
        if PRESETS[args.preset].dense:
            project(service, name)
        clear_feedback(service)
        helped, misled = simulate_feedback(
            service, train.queries, args.preset, atom_ext, args.misled_top
        )
        log(f"feedback: {helped} helped, {misled} misled over {len(train.queries)} train claims")
        # SciFact's claims were written from cited abstracts, and many test claims share an
        # abstract with a train claim: those can gain from "helped" reports directly; the rest
        # only through what the reports say about other abstracts.
        reported = {e for q in train.queries for e in q.relevant}
        shared = [q for q in test.queries if reported & set(q.relevant)]
        alone = [q for q in test.queries if not reported & set(q.relevant)]
        rows = []
        for label, queries in (
            (f"test claims, out of sample ({len(test.queries)})", test.queries),
            (f"... sharing a relevant abstract with a train claim ({len(shared)})", shared),
            (f"... sharing none ({len(alone)})", alone),
            (f"train claims, in sample ({len(train.queries)})", train.queries),
        ):
            values = [mean_ndcg(service, queries, args.preset, atom_ext, w) for w in weights]
            rows.append([label, *(f"{v:.4f}" for v in values)])
        print(f"# Feedback in ranking: SciFact nDCG@10, preset {args.preset}\n")
        print(
            f"Feedback simulated on the train claims: {helped} helped (judged relevant in the "
            f"top 10), {misled} misled (not relevant, in the top {args.misled_top}); prior "
            f"{service.searcher.feedback_prior}. {len(atom_ext)} atoms.\n"
        )
        print(md_table(["queries", *(f"weight {w:g}" for w in weights)], rows))
    finally:
        close_store(service, cached)


if __name__ == "__main__":
    main()
