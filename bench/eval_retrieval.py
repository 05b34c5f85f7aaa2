"""Retrieval evaluation harness: every search preset on public sets, through the real service.

    .venv/bin/python bench/eval_retrieval.py --sets xquad,tydi,locomo,lme,scifact
        [--limit-queries N] [--presets hybrid,dense,...] [--ingest-only] [--dump-arms FILE]
        [--lexical-engine postgres|sparse|both]

For each set the corpus is stored as atoms (bench/eval_data.py says how) in an embedded
pegas-memory of its own under the cache directory (default bench/.cache/, override with
PEGAS_EVAL_CACHE), projected by the real outbox worker into the vector slice, and queried with
`MemoryService.search` once per preset: BM25 alone (lexical), dense alone, plain RRF of the two,
the hybrid and its ablations. The cache keeps the database, so the embedding cache survives
between runs and the slow local model embeds each text once; query vectors are kept in a file
next to it (keyed by model and text), so latency is measured without query embedding.

Metrics follow each SOURCE.md: SciFact nDCG@10 and Recall@100 (BEIR, pytrec_eval when installed),
LoCoMo turn-level evidence recall@5/10/25 overall and per category 1-4, LongMemEval-S session
recall_any@5/10 and ndcg_any@10 over non-abstention questions (user turns only, and both roles),
XQuAD-ru and TyDi-ru nDCG@10, Recall@10, MRR@10. Latency p50/p99 is per search call.

`--lexical-engine sparse` serves the lexical arm from the vector engine's sparse index
(PEGAS_LEXICAL_ENGINE=sparse; the store's `_bm25` collections are rebuilt from PostgreSQL the
first time); `both` runs every preset under each engine, side by side ("preset [sparse]").

The embedder is the one the settings choose: the local model by default, Ollama when
PEGAS_OLLAMA_URL is set (the harness runs unchanged; the caches are keyed by model id).
Data is read from $PEGAS_SHARED_DATA (default ../shared/data next to the repository).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, ensure_sparse, log, md_table, percentile, shared_data_dir
from eval_data import LOADERS, EvalSet, Query, restrict

from pegas_memory.app.requests import SearchRequest
from pegas_memory.app.runtime import Lazy
from pegas_memory.app.service import MemoryService
from pegas_memory.config import Settings, load_settings
from pegas_memory.db.pool import Database
from pegas_memory.db.repo import AtomInput, insert_atom
from pegas_memory.embedding.cache import CachedEmbedder
from pegas_memory.embedding.embedders import Embedder, build_embedder
from pegas_memory.memgraph_store.falkor import stop_embedded_graph
from pegas_memory.search.filters import SearchFilter
from pegas_memory.search.presets import POOL, PRESETS
from pegas_memory.text import raw_hash

pytrec_eval: Any
try:
    import pytrec_eval
except ImportError:  # the recipes' formulas are implemented below as well
    pytrec_eval = None

DEFAULT_PRESETS = [
    "lexical",
    "dense",
    "plain_rrf",
    "hybrid",
    "hybrid_rrf",
    "no_graph",
    "no_status",
    "no_mmr",
]
ORDER = ["xquad", "tydi", "locomo", "lme", "scifact"]


# --------------------------------------------------------------------------- query vectors
class QueryVectorFile:
    """Query vectors kept in an .npz file, keyed by text hash (one file per embedding model)."""

    def __init__(self, path: Path):
        self.path = path
        self.vectors: dict[str, list[float]] = {}
        self.dirty = False
        if path.exists():
            with np.load(path) as data:
                for key, vec in zip(data["keys"], data["vecs"], strict=True):
                    self.vectors[str(key)] = vec.astype(float).tolist()

    def save(self) -> None:
        if not self.dirty or not self.vectors:
            return
        keys = np.array(list(self.vectors))
        vecs = np.asarray(list(self.vectors.values()), dtype=np.float32)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=keys, vecs=vecs)
        tmp.replace(self.path)
        self.dirty = False


class FileCachedEmbedder(CachedEmbedder):
    """The service's cached embedder, plus query vectors that persist between runs."""

    def __init__(self, embedder: Embedder, db: Database, store: QueryVectorFile):
        super().__init__(embedder, db)
        self.store = store
        self.embedded_queries = 0
        self.query_seconds = 0.0

    def embed_query(self, text: str) -> list[float]:
        key = raw_hash(text)
        found = self.store.vectors.get(key)
        if found is not None:
            return found
        t0 = time.perf_counter()
        vector = self.inner.embed_query(text)
        self.query_seconds += time.perf_counter() - t0
        self.embedded_queries += 1
        self.store.vectors[key] = vector
        self.store.dirty = True
        return vector


# --------------------------------------------------------------------------- the store
def cache_root() -> Path:
    return Path(os.environ.get("PEGAS_EVAL_CACHE", str(REPO_ROOT / "bench" / ".cache")))


def open_store(name: str) -> tuple[MemoryService, FileCachedEmbedder]:
    """An open embedded service whose data lives in the cache dir (kept between runs)."""
    data_dir = (cache_root() / name).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    overrides: dict[str, Any] = {
        "data_dir": data_dir,
        "qdrant_url": None,
        "graph_uri": None,
        "embedded_worker": "off",
        "outbox_batch_size": 32,  # small batches: progress is committed often on a slow model
    }
    if not os.environ.get("PEGAS_DATABASE_URL"):
        overrides["database_url"] = None
    settings: Settings = load_settings(**overrides)
    service = MemoryService(settings).open()
    model = build_embedder(settings).model_id.replace("/", "_")
    qfile = QueryVectorFile(data_dir / f"queries-{model}.npz")
    cached = FileCachedEmbedder(build_embedder(settings), service.db, qfile)
    # The searcher asks the runtime for its embedder on each call; the projector keeps its own.
    service.runtime.embedder = Lazy("embedder", lambda: cached)
    return service, cached


def close_store(service: MemoryService, cached: FileCachedEmbedder) -> None:
    cached.store.save()
    data_dir = service.settings.data_dir
    try:
        service.close()
    finally:
        stop_embedded_graph(data_dir, timeout=30.0)


def ingest(service: MemoryService, evsets: Sequence[EvalSet]) -> tuple[dict[int, list[str]], int]:
    """Store every document as an atom (idempotent); return atom id -> external ids, and how
    many atoms were new. Equal texts collapse into one atom (content dedup): it keeps every
    external id and the union of the tags, so each scope still finds it."""
    atom_ext: dict[int, list[str]] = {}
    created = 0
    seen: set[str] = set()
    with service.db.transaction() as conn:
        for evset in evsets:
            for doc in evset.docs:
                if doc.ext_id in seen:
                    continue
                seen.add(doc.ext_id)
                atom_id, new = insert_atom(
                    conn,
                    AtomInput(
                        type="text",
                        claim=doc.claim,
                        content=doc.content,
                        topic=doc.topic,
                        tags=doc.tags,
                        source="eval",
                        decay=doc.decay,
                        about_at=doc.about,
                    ),
                )
                created += int(new)
                if not new:  # a store filled before decay profiles: set them
                    conn.execute(
                        """UPDATE pm_atom SET decay = %s, about_at = %s
                            WHERE id = %s AND (decay IS DISTINCT FROM %s
                                               OR about_at IS DISTINCT FROM %s)""",
                        (doc.decay, doc.about, atom_id, doc.decay, doc.about),
                    )
                ids = atom_ext.setdefault(atom_id, [])
                if doc.ext_id not in ids:
                    ids.append(doc.ext_id)
                if not new and doc.tags:
                    conn.execute(
                        """UPDATE pm_atom SET tags = ARRAY(
                                  SELECT DISTINCT x FROM unnest(tags || %s::text[]) AS x ORDER BY x)
                            WHERE id = %s AND NOT (tags @> %s::text[])""",
                        (list(doc.tags), atom_id, list(doc.tags)),
                    )
    service.searcher.invalidate_stats()
    return atom_ext, created


def pending(service: MemoryService) -> int:
    with service.db.connection() as conn:
        row = conn.execute(
            "SELECT count(*) AS n FROM pm_outbox WHERE processed_at IS NULL AND parked_at IS NULL"
        ).fetchone()
    return int(row["n"]) if row else 0


def project(service: MemoryService, name: str) -> float:
    """Drain the outbox into the slices (embedding what the cache lacks); return seconds."""
    t0 = time.perf_counter()
    worker = service.runtime.worker("eval")
    left = pending(service)
    while left:
        log(f"{name}: projecting, {left} outbox events left")
        report = worker.drain(timeout=60.0, include_delayed=True)
        if report.errors:
            log(f"{name}: projection errors: {report.errors[:3]}")
        now_left = pending(service)
        if now_left >= left and report.processed == 0:
            raise SystemExit(f"{name}: the outbox does not drain ({now_left} left); see the log")
        left = now_left
    return time.perf_counter() - t0


# --------------------------------------------------------------------------- running queries
@dataclass
class PresetRun:
    ranked: dict[str, list[str]] = field(default_factory=dict)  # qid -> external ids in order
    seconds: list[float] = field(default_factory=list)


def query_filter(q: Query) -> SearchFilter:
    return SearchFilter(
        topics=(q.topic,) if q.topic else (),
        tags=(q.tag,) if q.tag else (),
    )


DECAY_SUFFIX = "+decay"


def run_queries(
    service: MemoryService,
    evset: EvalSet,
    queries: Sequence[Query],
    presets: Sequence[str],
    atom_ext: dict[int, list[str]],
    dump: Any | None,
    decay_modes: Sequence[str] = ("off",),
) -> dict[str, PresetRun]:
    """Every query under every preset; with `decay_modes` "off,on" each preset runs twice, the
    second time ("<preset>+decay") with the decay profiles applied (the settings' half-lives)
    and ages counted to the query's own date. Both then search through `Searcher.search`
    (which takes that date) so the two columns differ by decay alone."""
    cached = service.runtime.embedder.get()
    for i, q in enumerate(queries):  # embed every query first: latency excludes the model
        cached.embed_query(q.text)
        if i % 200 == 199:
            log(f"{evset.name}: embedded {i + 1}/{len(queries)} queries")
    compare = list(decay_modes) != ["off"]
    labels = [(p, m) for p in presets for m in decay_modes]
    runs = {label(p, m): PresetRun() for p, m in labels}
    searcher = service.searcher
    half_lives = service.settings.model_copy(update={"decay_ranking": True}).decay_half_lives
    for i, q in enumerate(queries):
        flt = query_filter(q)
        for p, mode in labels:
            t0 = time.perf_counter()
            if compare:
                searcher.decay_half_lives = half_lives if mode == "on" else {}
                found, _warnings, _arms = searcher.search(
                    q.text, preset=p, limit=evset.limit, flt=flt, now=q.now
                )
                ids = [h.id for h in found]
            else:
                result = service.search(
                    SearchRequest(query=q.text, preset=p, limit=evset.limit, flt=flt)
                )
                ids = [h.id for h in result.hits]
            run = runs[label(p, mode)]
            run.seconds.append(time.perf_counter() - t0)
            ext: list[str] = []
            for hit_id in ids:
                for e in atom_ext.get(hit_id, []):
                    if e not in ext:
                        ext.append(e)
            run.ranked[q.qid] = ext
        if dump is not None:
            dump_arms(service, evset, q, flt, atom_ext, dump)
        if i % 200 == 199:
            log(f"{evset.name}: searched {i + 1}/{len(queries)} queries")
    return runs


def dump_arms(
    service: MemoryService,
    evset: EvalSet,
    q: Query,
    flt: SearchFilter,
    atom_ext: dict[int, list[str]],
    out: Any,
) -> None:
    """One JSON line per query with both arms' raw lists, for tuning the fusion offline."""
    searcher = service.searcher
    with service.db.connection() as conn:
        lex = searcher.lexical_arm(conn, q.text, "atom", flt, 200)
    dense = searcher.dense_arm(q.text, "atom", flt, 200)
    line = {
        "set": evset.name,
        "qid": q.qid,
        "category": q.category,
        "relevant": q.relevant,
        "lexical": [[h.id, h.score] for h in lex.hits],
        "lexical_weight": lex.weight,
        "lexical_note": lex.note,
        "dense": [[h.id, h.score] for h in dense.hits],
        "dense_weight": dense.weight,
        "ext": {str(h.id): atom_ext.get(h.id, []) for h in (*lex.hits, *dense.hits)},
    }
    out.write(json.dumps(line, ensure_ascii=False) + "\n")


def label(preset: str, mode: str) -> str:
    return preset + (DECAY_SUFFIX if mode == "on" else "")


def decay_table(
    evset: EvalSet, queries: Sequence[Query], runs: dict[str, PresetRun], presets: Sequence[str]
) -> str:
    """Each preset's metrics with decay off and on, side by side, and their ratio."""
    rows = []
    for p in presets:
        off = metrics_for(evset, queries, runs[p])
        on = metrics_for(evset, queries, runs[p + DECAY_SUFFIX])
        for key, value in off.items():
            ratio = on[key] / value if value else float("nan")
            rows.append([p, key, fmt(value), fmt(on[key]), f"{ratio:.3f}"])
    return md_table(["preset", "metric", "decay off", "decay on", "on / off"], rows)


# --------------------------------------------------------------------------- metrics
def beir_metrics(
    queries: Sequence[Query], ranked: dict[str, list[str]], cutoffs: Sequence[int]
) -> dict[str, float]:
    """nDCG@10, Recall@k, MRR@10 averaged over the queries (BEIR / pytrec_eval conventions)."""
    qrels = {q.qid: dict(q.relevant) for q in queries}
    if pytrec_eval is not None:
        run = {
            q.qid: {d: float(len(ranked[q.qid]) - i) for i, d in enumerate(ranked[q.qid])}
            or {"__none__": 0.0}
            for q in queries
        }
        measures = {"ndcg_cut.10", "recall." + ",".join(str(k) for k in cutoffs)}
        per_q = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        out = {"nDCG@10": float(np.mean([v["ndcg_cut_10"] for v in per_q.values()]))}
        for k in cutoffs:
            out[f"R@{k}"] = float(np.mean([v[f"recall_{k}"] for v in per_q.values()]))
    else:
        out = {"nDCG@10": float(np.mean([ndcg(ranked[q.qid], q.relevant, 10) for q in queries]))}
        for k in cutoffs:
            out[f"R@{k}"] = float(
                np.mean(
                    [
                        len(set(ranked[q.qid][:k]) & set(q.relevant)) / len(q.relevant)
                        for q in queries
                    ]
                )
            )
    out["MRR@10"] = float(np.mean([mrr(ranked[q.qid], q.relevant, 10) for q in queries]))
    return out


def ndcg(ranked: Sequence[str], relevant: dict[str, int], k: int) -> float:
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def mrr(ranked: Sequence[str], relevant: dict[str, int], k: int) -> float:
    for i, d in enumerate(ranked[:k], start=1):
        if d in relevant:
            return 1.0 / i
    return 0.0


def locomo_metrics(queries: Sequence[Query], ranked: dict[str, list[str]]) -> dict[str, float]:
    """Turn-level evidence recall@k (share of evidence turns in the top k; no evidence = 1),
    overall and per category 1-4."""

    def recall(q: Query, k: int) -> float:
        if not q.relevant:
            return 1.0
        return len(set(ranked[q.qid][:k]) & set(q.relevant)) / len(q.relevant)

    out: dict[str, float] = {}
    for k in (5, 10, 25):
        out[f"R@{k}"] = float(np.mean([recall(q, k) for q in queries]))
    for cat in ("1", "2", "3", "4"):
        sub = [q for q in queries if q.category == cat]
        if sub:
            out[f"c{cat} R@10"] = float(np.mean([recall(q, 10) for q in sub]))
    return out


def lme_metrics(queries: Sequence[Query], ranked: dict[str, list[str]]) -> dict[str, float]:
    """Session recall_any@5/10, recall_all@10 and ndcg_any@10 as LongMemEval's eval_utils
    computes them (DCG = rel_1 + sum_{i>=2} rel_i / log2(i))."""

    def dcg(rels: Sequence[int]) -> float:
        return sum(r if i == 1 else r / math.log2(i) for i, r in enumerate(rels, start=1))

    def ndcg_any(q: Query, k: int) -> float:
        rels = [1 if d in q.relevant else 0 for d in ranked[q.qid][:k]]
        ideal = dcg(sorted([1] * len(q.relevant), reverse=True)[:k])
        return dcg(rels) / ideal if ideal else 0.0

    def any_at(q: Query, k: int) -> float:
        return float(bool(set(ranked[q.qid][:k]) & set(q.relevant)))

    def all_at(q: Query, k: int) -> float:
        return float(bool(q.relevant) and set(q.relevant) <= set(ranked[q.qid][:k]))

    return {
        "recall_any@5": float(np.mean([any_at(q, 5) for q in queries])),
        "recall_any@10": float(np.mean([any_at(q, 10) for q in queries])),
        "recall_all@10": float(np.mean([all_at(q, 10) for q in queries])),
        "ndcg_any@10": float(np.mean([ndcg_any(q, 10) for q in queries])),
    }


def metrics_for(evset: EvalSet, queries: Sequence[Query], run: PresetRun) -> dict[str, float]:
    if evset.kind == "locomo":
        return locomo_metrics(queries, run.ranked)
    if evset.kind == "lme":
        return lme_metrics(queries, run.ranked)
    cutoffs = (10, 100) if evset.limit >= 100 else (1, 10)
    return beir_metrics(queries, run.ranked, cutoffs)


# --------------------------------------------------------------------------- throughput
def throughput(root: Path, settings: Settings, n_sent: int, n_para: int) -> list[list[str]]:
    """Embedding throughput of the configured embedder on XQuAD-ru sentences and paragraphs,
    uncached (the first call, which loads the model, is not timed)."""
    from eval_data import xquad

    para, sent, _ = xquad(root)
    embedder = build_embedder(settings)
    embedder.embed_documents(["прогрев модели"])
    rows = []
    for label, docs in (("sentences", sent.docs[:n_sent]), ("paragraphs", para.docs[:n_para])):
        texts = [d.claim for d in docs]
        t0 = time.perf_counter()
        embedder.embed_documents(texts)
        dt = time.perf_counter() - t0
        chars = sum(len(t) for t in texts) / max(1, len(texts))
        rows.append([label, str(len(texts)), f"{chars:.0f}", f"{len(texts) / dt:.2f}"])
    embedder.close()
    return rows


def fewer_docs(evset: EvalSet, others: int, limit_queries: int) -> EvalSet:
    """An unscoped (BEIR) set cut to the relevant documents of its first `limit_queries`
    queries (all when 0) and the first `others` other documents; scoped sets unchanged."""
    if evset.kind != "beir":
        return evset
    queries = evset.queries[: limit_queries or None]
    wanted = {d for q in queries for d in q.relevant}
    kept, extra = [], 0
    for d in evset.docs:
        if d.ext_id in wanted:
            kept.append(d)
        elif extra < others:
            kept.append(d)
            extra += 1
    note = f"{len(kept)} of {len(evset.docs)} documents: the relevant ones and {extra} others"
    return EvalSet(
        evset.name,
        f"{evset.store}_{others}",
        kept,
        queries,
        evset.kind,
        evset.limit,
        [*evset.notes, note],
    )


# --------------------------------------------------------------------------- main
def fmt(value: float) -> str:
    return f"{value:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--sets", default=",".join(ORDER))
    parser.add_argument("--presets", default=",".join(DEFAULT_PRESETS))
    parser.add_argument("--only", default="", help="only these set names (e.g. xquad-ru-sent)")
    parser.add_argument("--limit-queries", type=int, default=0, help="first N queries per set")
    parser.add_argument(
        "--scopes", type=int, default=0, help="first N conversations/haystacks of LoCoMo and LME"
    )
    parser.add_argument("--ingest-only", action="store_true", help="store and embed, no queries")
    parser.add_argument(
        "--decay",
        default="off",
        help="off (default), on, or off,on: run every preset without and with the decay "
        "profiles, printed side by side",
    )
    parser.add_argument(
        "--beir-docs",
        type=int,
        default=0,
        help="SciFact/XQuAD/TyDi: keep the relevant documents of the kept queries and the "
        "first N others (a smaller corpus, for a slow machine); 0 keeps them all",
    )
    parser.add_argument("--dump-arms", type=Path, help="write both arms' lists per query (jsonl)")
    parser.add_argument(
        "--lexical-engine",
        choices=("postgres", "sparse", "both"),
        default="postgres",
        help="where the lexical arm runs (see the docstring)",
    )
    parser.add_argument("--throughput", default="64,16", help="sentences,paragraphs (0,0: skip)")
    parser.add_argument(
        "--pool", type=int, default=POOL, help="candidates each arm is asked for (Searcher.pool)"
    )
    args = parser.parse_args()

    root = shared_data_dir()
    wanted = [s.strip() for s in args.sets.split(",") if s.strip()]
    for s in wanted:
        if s not in LOADERS:
            raise SystemExit(f"unknown set {s!r}; choose from {', '.join(LOADERS)}")
    presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    for p in presets:
        if p not in PRESETS:
            raise SystemExit(f"unknown preset {p!r}; choose from {', '.join(PRESETS)}")
    dump = args.dump_arms.open("a", encoding="utf-8") if args.dump_arms else None
    decay_modes = [m.strip() for m in args.decay.split(",") if m.strip()]
    if not decay_modes or any(m not in ("off", "on") for m in decay_modes):
        raise SystemExit("--decay takes off, on, or off,on")

    print(f"# Retrieval evaluation ({time.strftime('%Y-%m-%d %H:%M')})\n")
    print(
        f"metrics: {'pytrec_eval' if pytrec_eval else 'built-in formulas'}; latency is per "
        "MemoryService.search call with the query vector cached (no model time)\n"
    )
    settings = load_settings(ollama_url=os.environ.get("PEGAS_OLLAMA_URL"))
    timings: list[list[str]] = []
    for group in wanted:
        evsets = LOADERS[group](root)
        if args.scopes:
            evsets = [restrict(e, args.scopes) for e in evsets]
        if args.only:
            evsets = [e for e in evsets if e.name in args.only.split(",")]
        if args.beir_docs:
            evsets = [fewer_docs(e, args.beir_docs, args.limit_queries) for e in evsets]
        stores: dict[str, list[EvalSet]] = {}
        for e in evsets:
            stores.setdefault(e.store, []).append(e)
        for store, members in stores.items():
            t0 = time.perf_counter()
            service, cached = open_store(store)
            service.searcher.pool = args.pool
            try:
                atom_ext, created = ingest(service, members)
                t_ingest = time.perf_counter() - t0
                t_project = project(service, store)
                n_atoms = len(atom_ext)
                n_docs = len({d.ext_id for e in members for d in e.docs})
                log(f"{store}: {n_atoms} atoms for {n_docs} documents ({created} new)")
                if args.ingest_only:
                    timings.append([store, str(n_atoms), fmt(t_ingest), fmt(t_project), "-"])
                    continue
                engines = (
                    ("postgres", "sparse")
                    if args.lexical_engine == "both"
                    else (args.lexical_engine,)
                )
                if "sparse" in engines:
                    built: dict[str, Any] = {}
                    ensure_sparse(service, built)
                    if built:
                        log(f"{store}: {built}")
                t_q = time.perf_counter()
                for evset in members:
                    queries = evset.queries[: args.limit_queries or None]
                    runs: dict[str, PresetRun] = {}
                    for engine in engines:
                        service.runtime.projector.sparse = engine == "sparse"
                        found = run_queries(
                            service, evset, queries, presets, atom_ext, dump, decay_modes
                        )
                        tag = f" [{engine}]" if len(engines) > 1 else ""
                        runs |= {f"{p}{tag}": r for p, r in found.items()}
                    service.runtime.projector.sparse = False
                    cached.store.save()
                    table = []
                    for p in [
                        label(p, m) + (f" [{e}]" if len(engines) > 1 else "")
                        for p in presets
                        for e in engines
                        for m in decay_modes
                    ]:
                        m = metrics_for(evset, queries, runs[p])
                        sec = runs[p].seconds
                        table.append(
                            [
                                p,
                                *(fmt(v) for v in m.values()),
                                f"{percentile(sec, 50) * 1000:.1f}",
                                f"{percentile(sec, 99) * 1000:.1f}",
                            ]
                        )
                        headers = ["preset", *m.keys(), "p50 ms", "p99 ms"]
                    print(
                        f"## {evset.name}: {len(queries)} queries, {n_atoms} atoms, "
                        f"limit {evset.limit}"
                        + (f" ({'; '.join(evset.notes)})" if evset.notes else "")
                    )
                    print()
                    print(md_table(headers, table))
                    print(flush=True)
                    if decay_modes == ["off", "on"]:
                        print(f"### {evset.name}: decay profiles off and on\n")
                        print(decay_table(evset, queries, runs, presets))
                        print(flush=True)
                timings.append(
                    [
                        store,
                        str(n_atoms),
                        fmt(t_ingest),
                        fmt(t_project),
                        fmt(time.perf_counter() - t_q),
                    ]
                )
            finally:
                close_store(service, cached)
    if dump is not None:
        dump.close()
    print("## Runtimes (seconds)\n")
    print(md_table(["store", "atoms", "store atoms", "project (embed)", "queries"], timings))
    n_sent, n_para = (int(x) for x in args.throughput.split(","))
    if n_sent or n_para:
        print("\n## Embedder throughput (uncached, this machine, now)\n")
        print(f"model: {build_embedder(settings).model_id}\n")
        rows = throughput(root, settings, n_sent, n_para)
        print(md_table(["texts", "n", "mean chars", "per second"], rows))


if __name__ == "__main__":
    main()
