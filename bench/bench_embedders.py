"""Benchmark of the offline embedders: retrieval quality on Russian and English sets, and cost.

For each local candidate of `embedding.embedders.LOCAL_MODELS` this embeds the corpora and
queries below, ranks each corpus by exact cosine (numpy, no index) and prints a markdown table of
nDCG@10, Recall@10 and MRR@10 (binary relevance, BEIR style), then throughput.

Sets (read from $PEGAS_SHARED_DATA, default ../shared/data next to the repository):
- XQuAD-ru paragraphs: 1,190 Russian questions against 240 Russian paragraphs;
- XQuAD-ru sentences: the same questions against the 1,209 sentences of those paragraphs;
- XQuAD en→ru: the parallel English questions against the Russian paragraphs;
- TyDi QA ru GoldP: 812 native Russian questions against 778 passages indexed as title + text;
- SciFact sample: all 300 test claims against a corpus SUBSET: every cited abstract plus
  `--scifact-distractors` random others (seeded), since the full 5,183 abstracts take about an
  hour with the slowest model here. Scores on the subset are higher than on the full corpus.

Throughput is measured while embedding the XQuAD sentence corpus (sentences/s) and the XQuAD
paragraph corpus (paragraphs/s, about 680 characters each), one process, all cores.

Vectors are cached under $PEGAS_BENCH_CACHE (default: <tmp>/pegas-bench-embeddings), keyed by
model id and the texts, with the time it took to compute them, so an interrupted run resumes and
a rerun reports the throughput measured when the cache was filled (`--no-cache` to recompute).

    .venv/bin/python bench/bench_embedders.py [--models e5-small,use-multilingual]
        [--scifact-distractors 200] [--limit-queries N] [--no-cache]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pegas_memory.embedding.embedders import LOCAL_MODELS, LocalEmbedder

K = 10
SET_KEYS = ("xquad-par", "xquad-sent", "xquad-en", "tydi", "scifact")


def data_root() -> Path:
    default = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
    return Path(os.environ.get("PEGAS_SHARED_DATA", str(default))).resolve()


def read_jsonl(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def read_qrels(path: Path) -> dict[str, set[str]]:
    qrels: dict[str, set[str]] = {}
    with path.open(encoding="utf-8") as f:
        next(f)  # header
        for line in f:
            qid, did, score = line.rstrip("\n").split("\t")
            if int(score) > 0:
                qrels.setdefault(qid, set()).add(did)
    return qrels


@dataclass(frozen=True)
class RetrievalSet:
    key: str
    name: str
    corpus_key: str  # sets sharing a corpus embed it once
    doc_ids: list[str]
    doc_texts: list[str]
    query_ids: list[str]
    query_texts: list[str]
    qrels: dict[str, set[str]]


def doc_text(row: dict[str, object], with_title: bool) -> str:
    title = str(row.get("title") or "").strip()
    text = str(row["text"]).strip()
    return f"{title}. {text}" if with_title and title else text


def build_set(
    key: str,
    name: str,
    corpus_key: str,
    corpus: list[dict[str, object]],
    queries: list[dict[str, object]],
    qrels: dict[str, set[str]],
    *,
    with_title: bool,
    limit: int | None,
) -> RetrievalSet:
    qs = [q for q in queries if str(q["_id"]) in qrels][:limit]
    return RetrievalSet(
        key=key,
        name=name,
        corpus_key=corpus_key,
        doc_ids=[str(d["_id"]) for d in corpus],
        doc_texts=[doc_text(d, with_title) for d in corpus],
        query_ids=[str(q["_id"]) for q in qs],
        query_texts=[str(q["text"]) for q in qs],
        qrels=qrels,
    )


def load_sets(root: Path, distractors: int, limit: int | None) -> list[RetrievalSet]:
    xq = root / "ru" / "xquad"
    ty = root / "ru" / "tydiqa_goldp"
    sf = root / "scifact"
    xq_corpus = read_jsonl(xq / "corpus.jsonl")
    xq_qrels = read_qrels(xq / "qrels" / "test.tsv")
    sets = [
        build_set(
            "xquad-par",
            "XQuAD ru→ru paragraphs",
            "xquad-par",
            xq_corpus,
            read_jsonl(xq / "queries.jsonl"),
            xq_qrels,
            with_title=False,
            limit=limit,
        ),
        build_set(
            "xquad-sent",
            "XQuAD ru→ru sentences",
            "xquad-sent",
            read_jsonl(xq / "corpus_sentences.jsonl"),
            read_jsonl(xq / "queries.jsonl"),
            read_qrels(xq / "qrels" / "test_sentences.tsv"),
            with_title=False,
            limit=limit,
        ),
        build_set(
            "xquad-en",
            "XQuAD en question → ru paragraph",
            "xquad-par",
            xq_corpus,
            read_jsonl(xq / "queries_en.jsonl"),
            xq_qrels,
            with_title=False,
            limit=limit,
        ),
        build_set(
            "tydi",
            "TyDi QA ru (title + text)",
            "tydi",
            read_jsonl(ty / "corpus.jsonl"),
            read_jsonl(ty / "queries.jsonl"),
            read_qrels(ty / "qrels" / "test.tsv"),
            with_title=True,
            limit=limit,
        ),
    ]
    sf_qrels = read_qrels(sf / "qrels" / "test.tsv")
    sf_corpus = read_jsonl(sf / "corpus.jsonl")
    relevant = {d for docs in sf_qrels.values() for d in docs}
    others = [d for d in sf_corpus if str(d["_id"]) not in relevant]
    picked = random.Random(20261129).sample(others, min(distractors, len(others)))
    subset = [d for d in sf_corpus if str(d["_id"]) in relevant] + picked
    sets.append(
        build_set(
            "scifact",
            f"SciFact (en; {len(subset)}-doc subset)",
            "scifact",
            subset,
            read_jsonl(sf / "queries.jsonl"),
            sf_qrels,
            with_title=True,
            limit=limit,
        )
    )
    return sets


def score(ranked: Sequence[str], relevant: set[str]) -> tuple[float, float, float]:
    """nDCG@K, Recall@K and MRR@K of one ranking with binary relevance."""
    top = list(ranked[:K])
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(top) if d in relevant)
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), K)))
    recall = sum(1 for d in top if d in relevant) / len(relevant)
    mrr = next((1.0 / (i + 1) for i, d in enumerate(top) if d in relevant), 0.0)
    return dcg / idcg, recall, mrr


def evaluate(rs: RetrievalSet, doc_vecs: np.ndarray, query_vecs: np.ndarray) -> dict[str, float]:
    sims = query_vecs @ doc_vecs.T
    top = np.argsort(-sims, axis=1)[:, :K]
    totals = np.zeros(3)
    for qi, qid in enumerate(rs.query_ids):
        totals += score([rs.doc_ids[j] for j in top[qi]], rs.qrels[qid])
    n = len(rs.query_ids)
    return {"ndcg": totals[0] / n, "recall": totals[1] / n, "mrr": totals[2] / n}


@dataclass
class ModelRun:
    name: str
    metrics: dict[str, dict[str, float]]
    load_s: float
    sentences_per_s: float
    paragraphs_per_s: float
    queries_per_s: float


class VectorCache:
    """Vectors on disk with the seconds they took, keyed by model, role and texts."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)

    def get_or_embed(
        self, emb: LocalEmbedder, texts: list[str], *, queries: bool
    ) -> tuple[np.ndarray, float]:
        digest = hashlib.sha256("\x1e".join(texts).encode()).hexdigest()[:24]
        role = "q" if queries else "d"
        path = (
            self.directory / f"{emb.model_id.replace('/', '_')}-{role}-{digest}.npz"
            if self.directory is not None
            else None
        )
        if path is not None and path.exists():
            with np.load(path) as z:
                return z["vectors"], float(z["seconds"])
        t0 = time.perf_counter()
        if queries:  # one at a time, as a search would
            vectors = np.asarray([emb.embed_query(q) for q in texts], dtype=np.float32)
        else:
            vectors = np.asarray(emb.embed_documents(texts), dtype=np.float32)
        seconds = time.perf_counter() - t0
        if path is not None:
            np.savez(path, vectors=vectors, seconds=np.float64(seconds))
        return vectors, seconds


def run_model(name: str, sets: list[RetrievalSet], cache: VectorCache) -> ModelRun:
    emb = LocalEmbedder(name)
    t0 = time.perf_counter()
    emb.embed_query("warm-up")  # loads the model
    load_s = time.perf_counter() - t0
    corpora: dict[str, np.ndarray] = {}
    corpus_rate: dict[str, float] = {}
    metrics: dict[str, dict[str, float]] = {}
    q_count, q_time = 0, 0.0
    for rs in sets:
        if rs.corpus_key not in corpora:
            corpora[rs.corpus_key], dt = cache.get_or_embed(emb, rs.doc_texts, queries=False)
            corpus_rate[rs.corpus_key] = len(rs.doc_texts) / dt
            print(f"  {name}: {rs.corpus_key} {len(rs.doc_texts)} docs {dt:.0f} s", file=sys.stderr)
        qv, dt = cache.get_or_embed(emb, rs.query_texts, queries=True)
        q_time += dt
        q_count += len(rs.query_texts)
        metrics[rs.name] = evaluate(rs, corpora[rs.corpus_key], qv)
        print(f"  {name}: {rs.name} nDCG@10 {metrics[rs.name]['ndcg']:.3f}", file=sys.stderr)
    emb.close()
    return ModelRun(
        name=name,
        metrics=metrics,
        load_s=load_s,
        sentences_per_s=corpus_rate.get("xquad-sent", float("nan")),
        paragraphs_per_s=corpus_rate.get("xquad-par", float("nan")),
        queries_per_s=q_count / q_time if q_time else float("nan"),
    )


def print_tables(sets: list[RetrievalSet], runs: list[ModelRun]) -> None:
    head = " | ".join(f"{LOCAL_MODELS[r.name].model_id} nDCG@10 / R@10 / MRR@10" for r in runs)
    print(f"| set | queries / docs | {head} |")
    print("|---|---|" + "---|" * len(runs))
    for rs in sets:
        cells = " | ".join(
            "{ndcg:.3f} / {recall:.3f} / {mrr:.3f}".format(**r.metrics[rs.name]) for r in runs
        )
        print(f"| {rs.name} | {len(rs.query_ids)} / {len(rs.doc_ids)} | {cells} |")
    print()
    print("| cost | " + " | ".join(LOCAL_MODELS[r.name].model_id for r in runs) + " |")
    print("|---|" + "---|" * len(runs))
    print("| dimension | " + " | ".join(str(LOCAL_MODELS[r.name].dim) for r in runs) + " |")
    print("| load (s) | " + " | ".join(f"{r.load_s:.1f}" for r in runs) + " |")
    rows = " | ".join(f"{r.sentences_per_s:.1f}" for r in runs)
    print(f"| sentences/s (batched) | {rows} |")
    rows = " | ".join(f"{r.paragraphs_per_s:.1f}" for r in runs)
    print(f"| paragraphs/s (batched, ~680 chars) | {rows} |")
    rows = " | ".join(f"{r.queries_per_s:.1f}" for r in runs)
    print(f"| queries/s (one at a time) | {rows} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--models", default=",".join(LOCAL_MODELS))
    parser.add_argument("--scifact-distractors", type=int, default=200)
    parser.add_argument("--limit-queries", type=int, default=None, help="per set, for a quick run")
    parser.add_argument(
        "--sets", default=",".join(SET_KEYS), help="subset of " + ",".join(SET_KEYS)
    )
    parser.add_argument("--no-cache", action="store_true", help="recompute every vector")
    args = parser.parse_args()
    default_cache = Path(tempfile.gettempdir()) / "pegas-bench-embeddings"
    cache = VectorCache(
        None if args.no_cache else Path(os.environ.get("PEGAS_BENCH_CACHE", str(default_cache)))
    )
    root = data_root()
    if not (root / "ru" / "xquad").is_dir():
        raise SystemExit(f"no data under {root}: set PEGAS_SHARED_DATA to the shared data folder")
    wanted = set(args.sets.split(","))
    if unknown := wanted - set(SET_KEYS):
        raise SystemExit(f"unknown sets {sorted(unknown)}; choose from {', '.join(SET_KEYS)}")
    sets = [
        rs
        for rs in load_sets(root, args.scifact_distractors, args.limit_queries)
        if rs.key in wanted
    ]
    runs = [run_model(name, sets, cache) for name in args.models.split(",")]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\nData: {root}; exact cosine ranking (numpy); {os.cpu_count()} CPUs; "
        f"load average at the end {load} (throughput is shared-machine noisy).\n"
    )
    print_tables(sets, runs)


if __name__ == "__main__":
    main()
