"""The named search recipes and the knobs they share (pure configuration).

A `Preset` says which arms run (dense, lexical, graph), how they are fused (score fusion or
weighted RRF, evidence-weighted or equal) and which adjustments follow (document support, status,
MMR); `PRESETS` names the combinations, `plain_rrf` (equal-weight RRF of the two text arms) being
the baseline. `StoreChoice` says which store(s) knowledge comes from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

POOL = 50  # candidates each arm contributes
# Share of the lexical arm in score fusion when both arms are fully trusted; the dense arm gets
# the rest. 0.5 was best or within 0.002 of best on XQuAD-ru and LoCoMo (bench/eval_retrieval.py).
LEXICAL_SHARE = 0.5
# Graph neighbours count this much relative to the strongest text arm.
GRAPH_SHARE = 0.5
# How much an ingested atom's best sibling candidates (other atoms of its document) add to its
# score, and how many count (fusion.document_support). Chosen on the tune half of SciFact's test
# claims through ingest (bench/bench_ingest_retrieval.py, bench/results/ingest-retrieval.md).
DOCUMENT_SHARE = 0.5
DOCUMENT_SIBLINGS = 2

# Which store(s) knowledge comes from: atoms, passages, or both (the default).
StoreChoice = Literal["atoms", "passages", "both"]
STORE_CHOICES: tuple[StoreChoice, ...] = ("atoms", "passages", "both")


@dataclass(frozen=True)
class Preset:
    name: str
    dense: bool = True
    lexical: bool = True
    graph: bool = True
    status: bool = True
    mmr: bool = True
    documents: bool = True  # an atom's sibling candidates of its document support it
    adaptive: bool = True  # evidence-based arm weights; False = plain equal-weight RRF
    fusion: Literal["score", "rrf"] = "score"  # convex combination of scores, or weighted RRF
    description: str = ""


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("hybrid", description="dense + lexical + graph, score fusion, status, MMR"),
        Preset(
            "hybrid_rrf",
            fusion="rrf",
            description="hybrid with evidence-weighted RRF instead of score fusion",
        ),
        Preset(
            "dense",
            lexical=False,
            graph=False,
            mmr=False,
            documents=False,
            description="vector arm only",
        ),
        Preset(
            "lexical",
            dense=False,
            graph=False,
            mmr=False,
            documents=False,
            description="BM25 arm only",
        ),
        Preset("no_graph", graph=False, description="hybrid without graph expansion"),
        Preset("no_status", status=False, description="hybrid without status weighting"),
        Preset("no_mmr", mmr=False, description="hybrid without MMR diversity"),
        Preset(
            "plain_rrf",
            graph=False,
            status=False,
            mmr=False,
            documents=False,
            adaptive=False,
            fusion="rrf",
            description="baseline: equal-weight RRF of the dense and lexical arms",
        ),
    )
}
