"""Retrieval through ingest (issue 15): SciFact abstracts ingested as documents with the
`memory_ingest` pipeline (title as a markdown heading, the abstract as its body, the offline
distiller and the claim-guarded dedup), scored per document (a hit's document, through its
citations, is what is ranked), next to the `memory_store` path (each abstract one atom, as
bench/eval_retrieval.py stores SciFact) in the same run, on the embedded default stack.

A subset keeps the run within minutes on a small machine: the first `--queries` test claims
with relevance judgements, every abstract they judge relevant, and random others up to
`--docs` abstracts. The gap between the two paths is what distillation costs (or gains).

    python bench/bench_ingest_retrieval.py [--docs 400] [--queries 60]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import embedded_service, log, md_table, shared_data_dir
from eval_data import Doc, Query, scifact
from eval_retrieval import mrr, ndcg

from pegas_memory.db.repo import AtomInput, insert_atom
from pegas_memory.requests import IngestRequest, SearchRequest
from pegas_memory.service import MemoryService

HITS = 60  # atoms asked per query on the ingest path: several atoms share one document
SUM_SHARE = 0.1  # the "max + small sum" document score, computed from the same hits
RANKED_SUM: dict[str, list[str]] = {}


def drain(service: MemoryService) -> None:
    worker = service.runtime.worker("bench")
    while worker.drain(timeout=120.0, include_delayed=True).processed:
        pass


def scores(ranked: dict[str, list[str]], queries: list[Query]) -> dict[str, float]:
    n = len(queries)
    return {
        "nDCG@10": sum(ndcg(ranked[q.qid], q.relevant, 10) for q in queries) / n,
        "R@10": sum(
            len(set(ranked[q.qid][:10]) & set(q.relevant)) / len(q.relevant) for q in queries
        )
        / n,
        "MRR@10": sum(mrr(ranked[q.qid], q.relevant, 10) for q in queries) / n,
    }


def run_store(docs: list[Doc], queries: list[Query]) -> tuple[dict[str, list[str]], dict[str, str]]:
    with embedded_service("pegas-bench-store-") as service:
        t0 = time.monotonic()
        ext: dict[int, list[str]] = {}
        with service.db.transaction() as conn:
            for d in docs:
                atom_id, _ = insert_atom(conn, AtomInput(type="text", claim=d.claim, source="eval"))
                ext.setdefault(atom_id, []).append(d.ext_id)
        drain(service)
        stored = time.monotonic() - t0
        ranked: dict[str, list[str]] = {}
        for q in queries:
            hits = service.search(SearchRequest(query=q.text, limit=10)).hits
            ranked[q.qid] = [e for h in hits for e in ext.get(h.id, [])]
        return ranked, {"atoms": str(len(ext)), "seconds to store": f"{stored:.0f}"}


def run_ingest(
    docs: list[Doc], queries: list[Query]
) -> tuple[dict[str, list[str]], dict[str, str]]:
    with embedded_service("pegas-bench-ingest-") as service:
        t0 = time.monotonic()
        ext_of_doc: dict[int, str] = {}
        by_type: dict[str, int] = {}
        dropped = 0
        for i, d in enumerate(docs):
            title, _, body = d.claim.partition(". ")
            report = service.pipeline.ingest(
                IngestRequest(source=f"# {title}\n\n{body}\n", kind="markdown", title=title)
            )
            assert report.document_id is not None
            ext_of_doc[report.document_id] = d.ext_id
            for t, n in report.atoms_by_type.items():
                by_type[t] = by_type.get(t, 0) + n
            dropped += sum(report.dropped.values())
            if i % 50 == 49:
                log(f"ingested {i + 1}/{len(docs)}")
        drain(service)
        ingested = time.monotonic() - t0
        with service.db.connection() as conn:
            rows = conn.execute(
                """SELECT c.atom_id, d.identity_id FROM pm_citation c
                     JOIN pm_document d ON d.id = c.doc_id"""
            ).fetchall()
        docs_of: dict[int, list[str]] = {}
        for r in rows:
            e = ext_of_doc.get(int(r["identity_id"]))
            if e is not None and e not in docs_of.setdefault(int(r["atom_id"]), []):
                docs_of[int(r["atom_id"])].append(e)
        ranked: dict[str, list[str]] = {}
        summed: dict[str, list[str]] = {}
        for q in queries:
            order: list[str] = []
            total: dict[str, float] = {}
            best: dict[str, float] = {}
            for h in service.search(SearchRequest(query=q.text, limit=HITS)).hits:
                for e in docs_of.get(h.id, []):
                    if e not in order:
                        order.append(e)
                    best[e] = max(best.get(e, 0.0), h.score)
                    total[e] = total.get(e, 0.0) + h.score
            ranked[q.qid] = order
            # the same hits, a document scored by its best atom plus a tenth of the others
            summed[q.qid] = sorted(
                order, key=lambda e: -(best[e] + SUM_SHARE * (total[e] - best[e]))
            )
        RANKED_SUM.update(summed)
        atoms = len(docs_of)
        info = {
            "atoms": f"{atoms} ({', '.join(f'{t} {n}' for t, n in sorted(by_type.items()))})",
            "seconds to store": f"{ingested:.0f}",
            "drafts dropped": str(dropped),
        }
        return ranked, info


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=400)
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    evset = scifact(shared_data_dir())[0]
    queries = evset.queries[: args.queries]
    wanted = {e for q in queries for e in q.relevant}
    rng = random.Random(15)
    others = [d for d in evset.docs if d.ext_id not in wanted]
    rng.shuffle(others)
    docs = [d for d in evset.docs if d.ext_id in wanted]
    docs += others[: max(0, args.docs - len(docs))]
    log(f"{len(docs)} abstracts, {len(queries)} queries")
    stored, stored_info = run_store(docs, queries)
    log("memory_store path done")
    ingested, ingest_info = run_ingest(docs, queries)
    log("memory_ingest path done")
    rows = []
    for name, ranked, info in (
        ("memory_store (one atom per abstract)", stored, stored_info),
        ("memory_ingest (distilled atoms, scored per document)", ingested, ingest_info),
    ):
        m = scores(ranked, queries)
        rows.append(
            [
                name,
                f"{m['nDCG@10']:.3f}",
                f"{m['R@10']:.3f}",
                f"{m['MRR@10']:.3f}",
                info["atoms"],
                info["seconds to store"],
            ]
        )
    print(f"\n### SciFact through ingest: {len(docs)} abstracts, {len(queries)} test claims\n")
    print(md_table(["path", "nDCG@10", "R@10", "MRR@10", "atoms", "seconds to store"], rows))
    print(f"\ndrafts dropped on the ingest path: {ingest_info['drafts dropped']}")
    m = scores(RANKED_SUM, queries)
    print(
        f"\nthe same ingest hits, a document scored by its best atom + {SUM_SHARE} x the sum of"
        f" its other atoms: nDCG@10 {m['nDCG@10']:.3f}, R@10 {m['R@10']:.3f},"
        f" MRR@10 {m['MRR@10']:.3f}"
    )
    print("\nwhere ingest loses (first relevant document's rank, per query):\n")
    rows = []
    for name, ranked in (("first atom", ingested), ("max + small sum", RANKED_SUM)):
        worse = better = missing = 0
        for q in queries:
            rs = _first(stored[q.qid], q.relevant)
            ri = _first(ranked[q.qid], q.relevant)
            worse += ri > rs
            better += ri < rs
            missing += ri == MISS
        rows.append([name, worse, better, len(queries) - worse - better, missing])
    print(
        md_table(
            [
                "ingest ranking",
                "queries worse than stored",
                "better",
                "same",
                f"no relevant document in the {HITS} atom hits",
            ],
            rows,
        )
    )


MISS = 10**6


def _first(order: list[str], relevant: dict[str, int]) -> int:
    return next((i for i, e in enumerate(order) if e in relevant), MISS)


if __name__ == "__main__":
    main()
