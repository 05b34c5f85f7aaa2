"""How the two stores' arms become one answer, replayed offline on captured arms (issue 33).

`bench_ingest_retrieval.py --arms-dump FILE` writes, for every query, each store's arm lists
as the hybrid ranks them (dense and lexical, with their evidence weights) and the maps from
atoms and passages to documents, citations and judged abstracts. This replays the fusion from
there with the product's own pure functions (search/fusion.py, search/ranking.py,
search/stores.py), so a way of joining the stores is measured in seconds instead of a 30-minute
re-ingest. What the replay leaves out: MMR (it needs the vectors) and the graph arm (ingested
abstracts have no links); the first row says how far the replay of what ships is from the real
search of the same run (`--dump` of that run).

Variants:
- `apart` (what ships): each store fused on its own (score fusion, document support over the
  atoms), the two lists merged (stores.merge: an atom folds with the passage it cites, caps).
- `evidence`: the stores fused together. Each arm's list of each store is normalised as now
  (the atoms' with document support), every hit is mapped to its piece of evidence (the passage
  it is, or the passage an atom is cited from), and a piece's score in an arm is the best of its
  members' weighted scores there; the pieces' arms are then summed. A document found by one arm
  through its passage and by the other through one of its sentences scores as the store path's
  whole abstract does.

A second table asks whether the units or the fusion make the difference, from the store path's
arms in the same dump (each abstract one unit, "Title. abstract"): the store path replayed;
its dense arm with the passages' lexical arm and the reverse; and the store path's units
standing in for whole-abstract passages (the first chunk of each abstract), with and without
the atoms.

    python bench/two_store_fusion_replay.py ARMS.json [--real PERQUERY.json]
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import md_table, paired
from bench_ingest_retrieval import halves as split_queries
from eval_data import Query
from eval_retrieval import ndcg

from pegas_memory.search.arms import ArmResult
from pegas_memory.search.fusion import ArmHit, Fused, Support, _normalised, document_support
from pegas_memory.search.presets import DOCUMENT_SHARE, DOCUMENT_SIBLINGS, PRESETS
from pegas_memory.search.ranking import arm_weights, fuse
from pegas_memory.search.stores import SENTENCE_WEIGHT, Candidate, merge

HYBRID = PRESETS["hybrid"]
TEXT_ARMS = ("dense", "lexical")
LIMIT = 60  # hits asked per query, as bench_ingest_retrieval.HITS

Arms = dict[str, ArmResult]


class Capture:
    """The dump of one run: per query its judged abstracts and each store's arms."""

    def __init__(self, path: Path) -> None:
        raw = json.loads(path.read_text(encoding="utf-8"))
        self.store_path: dict[str, Any] = raw.get("store_path") or {}
        self.atom_doc = {int(k): v for k, v in raw["atom_doc"].items()}
        self.passage_doc = {int(k): v for k, v in raw["passage_doc"].items()}
        self.atom_cites = {int(k): v for k, v in raw["atom_cites"].items()}
        self.atom_abstracts = {int(k): v for k, v in raw["atom_abstracts"].items()}
        self.passage_abstracts = {int(k): v for k, v in raw["passage_abstracts"].items()}
        self.relevant: dict[str, dict[str, int]] = {}
        self.arms: dict[str, dict[str, Arms]] = {}
        for qid, q in raw["queries"].items():
            self.relevant[qid] = q["relevant"]
            self.arms[qid] = {
                store: {
                    arm: ArmResult([ArmHit(int(i), float(s)) for i, s in r["hits"]], r["weight"])
                    for arm, r in arms.items()
                    if r["hits"]
                }
                for store, arms in q["arms"].items()
            }

    def abstracts(self, store: str, id_: int) -> list[str]:
        if store == "atom":
            return self.atom_abstracts.get(id_, [])
        e = self.passage_abstracts.get(id_)
        return [e] if e else []

    def first_chunks(self) -> tuple[dict[int, int], dict[str, int]]:
        """Each document's first chunk, and each judged abstract's: the id a whole-abstract
        unit takes here."""
        first: dict[int, int] = {}
        for p, d in self.passage_doc.items():
            first[d] = min(first.get(d, p), p)
        by_abstract = {e: first[self.passage_doc[p]] for p, e in self.passage_abstracts.items()}
        return first, by_abstract

    def evidence(self, store: str, id_: int, by: str = "passage") -> tuple[str, int]:
        """The piece of evidence a hit belongs to: a passage is its own; an atom belongs to
        the passage it is cited from (the first, when several), else stands alone. `by`
        "document": the document of either."""
        if by == "document":
            doc = (self.atom_doc if store == "atom" else self.passage_doc).get(id_)
            return ("document", doc) if doc is not None else (store, id_)
        if store == "passage":
            return ("passage", id_)
        cites = self.atom_cites.get(id_)
        return ("passage", min(cites)) if cites else ("atom", id_)


def ranked_abstracts(cap: Capture, hits: Sequence[tuple[str, int]]) -> list[str]:
    order: list[str] = []
    for store, id_ in hits:
        for e in cap.abstracts(store, id_):
            if e not in order:
                order.append(e)
    return order


def _store_fused(
    cap: Capture, arms: Arms, store: str, share: float, siblings: int = DOCUMENT_SIBLINGS
) -> list[Fused]:
    weights = arm_weights(HYBRID, arms)
    support = None
    if share > 0:
        ids = {h.id for r in arms.values() for h in r.hits}
        docs = cap.atom_doc if store == "atom" else cap.passage_doc
        doc_of = {i: docs[i] for i in ids if i in docs}
        support = Support(doc_of, share, siblings)
    return fuse(HYBRID, arms, weights, support)


def _pooled(arms: Arms, pool: int | None) -> Arms:
    if pool is None:
        return arms
    return {a: ArmResult(r.hits[:pool], r.weight) for a, r in arms.items()}


def apart(
    cap: Capture,
    qid: str,
    share: float = DOCUMENT_SHARE,
    *,
    pool: int | None = None,
    stores: tuple[str, ...] = ("atom", "passage"),
    passage_share: float = 0.0,
    passage_siblings: int = DOCUMENT_SIBLINGS,
    sentence_weight: float = SENTENCE_WEIGHT,
) -> list[str]:
    """What ships: each store fused alone, the heads merged (stores.merge). `pool`: each arm
    cut to its first `pool` hits first (what a search of fewer hits asks of its arms)."""
    arms = {s: _pooled(a, pool) if s in stores else {} for s, a in cap.arms[qid].items()}
    atoms = _store_fused(cap, arms.get("atom", {}), "atom", share)[:LIMIT]
    passages = _store_fused(
        cap, arms.get("passage", {}), "passage", passage_share, passage_siblings
    )[:LIMIT]
    candidates = [
        Candidate("atom", f.id, f.score, {}, frozenset(cap.atom_cites.get(f.id, ()))) for f in atoms
    ]
    loose = [Candidate("passage", f.id, f.score, {}) for f in passages]
    merged = merge(candidates, loose, LIMIT, sentence_weight=sentence_weight)
    return ranked_abstracts(cap, [(c.store, c.id) for c in merged])


def _arm_lists(
    cap: Capture, arms: Arms, store: str, share: float, joint_dense: Mapping[int, float] | None
) -> dict[str, list[Fused]]:
    """Each text arm's normalised list of one store, the atoms' with document support, as
    score_fusion computes them before summing."""
    out: dict[str, list[Fused]] = {}
    for arm in TEXT_ARMS:
        r = arms.get(arm)
        if r is None or not r.hits:
            continue
        normed = _normalised(r.hits, True)
        if joint_dense is not None and arm == "dense":
            normed = [Fused(h.id, joint_dense[(store, h.id)]) for h in r.hits]
        if store == "atom" and share > 0:
            ids = {h.id for h in r.hits}
            doc_of = {i: cap.atom_doc[i] for i in ids if i in cap.atom_doc}
            lifted = document_support(normed, doc_of, share=share, siblings=DOCUMENT_SIBLINGS)
            normed = _normalised([ArmHit(f.id, f.score) for f in lifted], True)
        out[arm] = normed
    return out


def evidence(
    cap: Capture,
    qid: str,
    share: float = DOCUMENT_SHARE,
    *,
    weights_from: str = "own",
    joint_dense_norm: bool = False,
    sibling_share: float = 0.0,
    pool: int | None = None,
    by: str = "passage",
) -> list[str]:
    """The stores fused together over pieces of evidence (module docstring).

    `weights_from`: each store's arms weighted by their own evidence weights ("own") or both
    stores' arms by the larger of the two ("max"). `joint_dense_norm`: the dense arm's cosines
    min-max scaled over both stores at once (one model embeds both) instead of per store.
    `sibling_share`: a piece's arm score also gets this share of its second-best member."""
    arms = {s: _pooled(a, pool) for s, a in cap.arms[qid].items()}
    weights = {s: arm_weights(HYBRID, a) for s, a in arms.items() if a}
    if weights_from == "max":
        both = {arm: max(w.get(arm, 0.0) for w in weights.values()) for arm in TEXT_ARMS}
        weights = {s: dict(both) for s in weights}
    joint: dict[tuple[str, int], float] | None = None
    if joint_dense_norm:
        pairs = [(s, h) for s, a in arms.items() for h in a.get("dense", ArmResult([], 0)).hits]
        if pairs:
            hi = max(h.score for _, h in pairs)
            lo = min(h.score for _, h in pairs)
            span = hi - lo or 1.0
            joint = {(s, h.id): (h.score - lo) / span for s, h in pairs}
    piece_arm: dict[tuple[str, int], dict[str, list[float]]] = {}
    best_member: dict[tuple[str, int], tuple[float, str, int]] = {}
    for store, a in arms.items():
        if not a:
            continue
        lists = _arm_lists(cap, a, store, share if store == "atom" else 0.0, joint)
        own: dict[int, float] = {}
        for arm, normed in lists.items():
            w = weights[store].get(arm, 0.0)
            for f in normed:
                piece = cap.evidence(store, f.id, by)
                piece_arm.setdefault(piece, {}).setdefault(arm, []).append(w * f.score)
                own[f.id] = own.get(f.id, 0.0) + w * f.score
        for id_, score in own.items():
            piece = cap.evidence(store, id_, by)
            if piece not in best_member or score > best_member[piece][0]:
                best_member[piece] = (score, store, id_)
    scored = []
    for piece, by_arm in piece_arm.items():
        total = 0.0
        for values in by_arm.values():
            values.sort(reverse=True)
            total += values[0] + (sibling_share * values[1] if len(values) > 1 else 0.0)
        scored.append((total, piece))
    scored.sort(key=lambda t: (-t[0], t[1]))
    hits = [best_member[p][1:] for _, p in scored[:LIMIT]]
    return ranked_abstracts(cap, hits)


def halves(qids: Sequence[str]) -> tuple[set[str], set[str]]:
    """bench_ingest_retrieval's fixed split of the queries (tune, held-out), by id."""
    tune, held = split_queries([Query(q, "", {}) for q in qids])
    return {q.qid for q in tune}, {q.qid for q in held}


VARIANTS: dict[str, Callable[[Capture, str], list[str]]] = {
    "apart (what ships; no MMR)": apart,
    "apart, sentences weighed as passages (before)": lambda c, q: apart(c, q, sentence_weight=1.0),
    "apart, sentence weight 0.8": lambda c, q: apart(c, q, sentence_weight=0.8),
    "apart, arms cut to 50": lambda c, q: apart(c, q, pool=50),
    "apart, arms cut to 100": lambda c, q: apart(c, q, pool=100),
    "atoms alone": lambda c, q: apart(c, q, stores=("atom",)),
    "passages alone": lambda c, q: apart(c, q, stores=("passage",)),
    "passages alone, arms cut to 50": lambda c, q: apart(c, q, stores=("passage",), pool=50),
    "apart, passages' document support 0.25": lambda c, q: apart(c, q, passage_share=0.25),
    "apart, passages' document support 0.5": lambda c, q: apart(c, q, passage_share=0.5),
    "apart, passages' document support 1.0": lambda c, q: apart(c, q, passage_share=1.0),
    "apart, passages' document support 0.5, 1 sibling": lambda c, q: apart(
        c, q, passage_share=0.5, passage_siblings=1
    ),
    "passages alone, document support 0.5": lambda c, q: apart(
        c, q, stores=("passage",), passage_share=0.5
    ),
    "evidence, own weights": evidence,
    "evidence, own weights, arms cut to 50": lambda c, q: evidence(c, q, pool=50),
    "evidence by document": lambda c, q: evidence(c, q, by="document"),
    "evidence by document, arms cut to 50": lambda c, q: evidence(c, q, by="document", pool=50),
    "evidence by document, no atom support": lambda c, q: evidence(c, q, 0.0, by="document"),
    "evidence by document, second member 0.25": lambda c, q: evidence(
        c, q, by="document", sibling_share=0.25
    ),
    "evidence, max weights": lambda c, q: evidence(c, q, weights_from="max"),
    "evidence, own weights, dense normalised over both": lambda c, q: evidence(
        c, q, joint_dense_norm=True
    ),
    "evidence, own weights, second member 0.25": lambda c, q: evidence(c, q, sibling_share=0.25),
}


def whole_abstracts(cap: Capture) -> Capture:
    """The same capture with the store path's units standing in for the passages: each
    abstract one passage (its first chunk's id; the atoms cite it), its arms the store path's."""
    units = {int(k): v[0] for k, v in cap.store_path["abstracts of atoms"].items()}
    first, by_abstract = cap.first_chunks()
    out = copy.copy(cap)
    out.arms = {
        q: {**arms, "passage": _unit_arms(cap, q, units, by_abstract)}
        for q, arms in cap.arms.items()
    }
    out.atom_cites = {
        a: [first[cap.passage_doc[c]] for c in cs if c in cap.passage_doc]
        for a, cs in cap.atom_cites.items()
    }
    return out


def _unit_arms(
    cap: Capture, qid: str, units: Mapping[int, str], by_abstract: Mapping[str, int]
) -> Arms:
    return {
        arm: ArmResult(
            [ArmHit(by_abstract[units[int(i)]], float(s)) for i, s in r["hits"]], r["weight"]
        )
        for arm, r in cap.store_path[qid].items()
        if r["hits"]
    }


def units_table(cap: Capture, qids: Sequence[str]) -> list[list[str]]:
    """Rows of the second table (module docstring): nDCG@10 of each mix of units and arms,
    paired against the store path replayed."""
    units = {int(k): v[0] for k, v in cap.store_path["abstracts of atoms"].items()}
    _, by_abstract = cap.first_chunks()

    def fused(arms: Arms, q: str) -> list[str]:
        hits = fuse(HYBRID, arms, arm_weights(HYBRID, arms), None)[:LIMIT]
        return ranked_abstracts(cap, [("passage", f.id) for f in hits])

    def store(q: str) -> Arms:
        return _unit_arms(cap, q, units, by_abstract)

    def passage(q: str) -> Arms:
        return {a: ArmResult(r.hits[:50], r.weight) for a, r in cap.arms[q]["passage"].items()}

    def per_abstract(arms: Arms) -> Arms:
        """Each abstract once, as its best chunk's score, under the id the store path's
        unit has here: the two arms meet on abstracts."""
        out: Arms = {}
        for a, r in arms.items():
            seen: dict[int, ArmHit] = {}
            for h in r.hits:
                unit = by_abstract[cap.passage_abstracts[h.id]]
                seen.setdefault(unit, ArmHit(unit, h.score))
            out[a] = ArmResult(list(seen.values()), r.weight)
        return out

    def mixed(q: str, dense: Arms, lexical: Arms) -> Arms:
        return {
            **({"dense": dense["dense"]} if "dense" in dense else {}),
            **({"lexical": lexical["lexical"]} if "lexical" in lexical else {}),
        }

    whole = whole_abstracts(cap)
    mixes: dict[str, Callable[[str], list[str]]] = {
        "the store path replayed (its own arms)": lambda q: fused(store(q), q),
        "passages alone (chunks), the same pool (50)": lambda q: fused(passage(q), q),
        "store path's dense + passages' lexical (best chunk per abstract)": lambda q: fused(
            mixed(q, store(q), per_abstract(passage(q))), q
        ),
        "passages' dense (best chunk per abstract) + store path's lexical": lambda q: fused(
            mixed(q, per_abstract(passage(q)), store(q)), q
        ),
        "whole abstracts as passages, with the atoms (apart)": lambda q: apart(whole, q),
        "whole abstracts as passages, with the atoms (evidence by document, no support)": (
            lambda q: evidence(whole, q, 0.0, by="document")
        ),
    }
    per = {name: [ndcg(fn(q), cap.relevant[q], 10) for q in qids] for name, fn in mixes.items()}
    base = per["the store path replayed (its own arms)"]
    rows = []
    for name, values in per.items():
        st = paired(base, values)
        rows.append(
            [name, f"{sum(values) / len(values):.3f}", st["better"], st["worse"],
             st["mean diff"], st["95% CI"]]
        )  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("arms", type=Path)
    parser.add_argument("--real", type=Path, default=None, help="the run's --dump (per query)")
    args = parser.parse_args()
    cap = Capture(args.arms)
    qids = list(cap.relevant)  # the run's order of queries, which its --dump follows
    tune, held = halves(qids)
    per: dict[str, list[float]] = {}
    if args.real:
        real: dict[str, Any] = json.loads(args.real.read_text(encoding="utf-8"))
        for name, arms in real.items():
            if "store=both" in name or name.startswith("memory_store"):
                per[f"real: {name}"] = arms["hybrid"]
    for name, fn in VARIANTS.items():
        per[name] = [ndcg(fn(cap, q), cap.relevant[q], 10) for q in qids]
    rows = []
    base = per["apart (what ships; no MMR)"]
    for name, values in per.items():
        if len(values) != len(qids):
            continue

        def mean(part: set[str], values: list[float] = values) -> float:
            return sum(v for q, v in zip(qids, values, strict=True) if q in part) / len(part)

        st = paired(base, values)
        rows.append(
            [name, f"{sum(values) / len(values):.3f}", f"{mean(tune):.3f}", f"{mean(held):.3f}",
             st["better"], st["worse"], st["mean diff"], st["95% CI"]]
        )  # fmt: skip
    print(
        md_table(
            ["fusion", "nDCG@10", "tune", "held-out", "better", "worse", "mean diff", "95% CI"],
            rows,
        )
    )
    if cap.store_path:
        print()
        print(
            md_table(
                ["units and arms", "nDCG@10", "better", "worse", "mean diff", "95% CI"],
                units_table(cap, qids),
            )
        )


if __name__ == "__main__":
    main()
