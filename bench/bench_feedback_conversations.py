"""Does the agent's feedback help ranking on conversational memory? LoCoMo and LongMemEval-S with
PEGAS_FEEDBACK_WEIGHT 0 and > 0, feedback simulated from the judged answers of the other half.

    .venv/bin/python bench/bench_feedback_conversations.py [--sets locomo,lme]
        [--weights 0,0.3] [--misled-top 3] [--preset hybrid]

Each set is stored as bench/eval_retrieval.py stores it (same store under $PEGAS_EVAL_CACHE, so
its embeddings are reused), projected, and its questions split in two halves by position within
each scope (a LoCoMo conversation, a LongMemEval haystack; LongMemEval has one question per
haystack, so its halves alternate over the haystacks): even positions are the *reported* half,
odd ones the *held-out* half. Each reported question is searched at weight 0; every evidence
turn (LoCoMo) or evidence session (LongMemEval) among its top 10 is reported `helped`, and the
other hits among its top `--misled-top` are reported `misled` (an agent that read the judged
answer and knows which hit held it). Then the held-out half, never reported on, is searched at
each weight: the out-of-sample metric is what feedback from past questions does for new ones.
The reported half is searched again too (in sample), which shows the mechanism works. Decay is
off (the settings' default). Feedback from an earlier run is cleared first. Prints markdown.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import log, md_table, shared_data_dir
from _feedback import Agent, clear_feedback, ranked, report_outcomes, stored
from eval_data import LOADERS, EvalSet, Query, restrict
from eval_retrieval import (
    PresetRun,
    close_store,
    metrics_for,
    open_store,
    project,
)

from pegas_memory.app.requests import SearchPreset
from pegas_memory.app.service import MemoryService
from pegas_memory.search.presets import PRESETS

SETS = {"locomo": ("locomo", "locomo"), "lme": ("lme", "lme-s-user")}


def halves(queries: Sequence[Query]) -> tuple[list[Query], list[Query]]:
    """(reported, held out): alternate positions within each scope; a set with one question
    per scope alternates over the scopes."""
    by_scope: dict[str, list[Query]] = {}
    for q in queries:
        by_scope.setdefault(q.topic or q.tag or "", []).append(q)
    if all(len(v) == 1 for v in by_scope.values()):
        return list(queries[0::2]), list(queries[1::2])
    reported: list[Query] = []
    held: list[Query] = []
    for group in by_scope.values():
        reported += group[0::2]
        held += group[1::2]
    return reported, held


def measure(
    service: MemoryService,
    evset: EvalSet,
    queries: Sequence[Query],
    preset: SearchPreset,
    atom_ext: dict[int, list[str]],
    weight: float,
) -> dict[str, float]:
    service.searcher.feedback_weight = weight
    run = PresetRun()
    for q in queries:
        run.ranked[q.qid] = ranked(service, q, preset, evset.limit, atom_ext)[0]
    return metrics_for(evset, queries, run)


def one_set(
    name: str,
    preset: SearchPreset,
    weights: Sequence[float],
    misled_top: int,
    scopes: int = 0,
    projected: bool = False,
) -> str:
    group, set_name = SETS[name]
    evset = next(e for e in LOADERS[group](shared_data_dir()) if e.name == set_name)
    if scopes:
        evset = restrict(evset, scopes)
    service, cached = open_store(evset.store)
    try:
        atom_ext = stored(service, evset.store, [evset])
        if PRESETS[preset].dense and not projected:
            project(service, evset.store)
        elif PRESETS[preset].dense:
            with service.db.connection() as conn:
                row = conn.execute(
                    """SELECT count(*) AS n FROM pm_outbox WHERE processed_at IS NULL
                          AND entity_type = 'atom' AND entity_id = ANY(%s)""",
                    (list(atom_ext),),
                ).fetchone()
            if row and row["n"]:
                raise SystemExit(f"--projected, but {row['n']} of these atoms wait for it")
        clear_feedback(service)
        rep, held = halves(evset.queries)
        done = report_outcomes(service, rep, preset, atom_ext, Agent(misled_top=misled_top))
        helped, misled = done.helped, done.misled
        log(f"{name}: {helped} helped, {misled} misled over {len(rep)} questions")
        rows = []
        for label, queries in (
            (f"held out, out of sample ({len(held)} q)", held),
            (f"reported, in sample ({len(rep)} q)", rep),
        ):
            results = [measure(service, evset, queries, preset, atom_ext, w) for w in weights]
            for key in results[0]:
                rows.append([label, key, *(f"{r[key]:.3f}" for r in results)])
        cached.store.save()
        head = (
            f"## {evset.name}: feedback weight {', '.join(f'{w:g}' for w in weights)}, preset "
            f"{preset}\n\nFeedback from {len(rep)} reported questions: {helped} helped "
            f"(evidence in the top 10), {misled} misled (not evidence, in the top {misled_top}); "
            f"prior {service.searcher.feedback_prior}. {len(atom_ext)} atoms.\n\n"
        )
        return head + md_table(["questions", "metric", *(f"weight {w:g}" for w in weights)], rows)
    finally:
        close_store(service, cached)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="locomo,lme")
    parser.add_argument("--preset", default="hybrid", choices=sorted(PRESETS))
    parser.add_argument("--weights", default="0,0.3")
    parser.add_argument("--misled-top", type=int, default=3)
    parser.add_argument("--scopes", type=int, default=0, help="first N conversations/haystacks")
    parser.add_argument(
        "--projected",
        action="store_true",
        help="do not drain the outbox first: the kept scopes' atoms are embedded already (the "
        "store shared with a run still embedding other scopes; a scope's search sees its own)",
    )
    args = parser.parse_args()
    weights = [float(w) for w in args.weights.split(",")]
    for name in args.sets.split(","):
        if name not in SETS:
            raise SystemExit(f"unknown set {name!r}; choose from {', '.join(SETS)}")
        table = one_set(name, args.preset, weights, args.misled_top, args.scopes, args.projected)
        print(table + "\n", flush=True)


if __name__ == "__main__":
    main()
