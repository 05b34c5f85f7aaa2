"""Retrieval through ingest (issue 15): SciFact abstracts ingested as documents with the
`memory_ingest` pipeline (title as a markdown heading, the abstract as its body, the offline
distiller and the claim-guarded dedup), scored per document (a hit's document, through its
citations, is what is ranked), next to the `memory_store` path (each abstract one atom, as
bench/eval_retrieval.py stores SciFact) in the same run, on the embedded default stack.

Every test claim with relevance judgements (300; `--queries` takes the first N), every abstract
they judge relevant, and random others up to `--docs` (400) abstracts. The gap between the two
paths is what distillation costs (or gains). A document ranks by its best atom (the first of its
atoms in the hits). One query moves the mean by ~0.003, so each pair of paths is compared per
query: better / worse / same, a two-sided sign test, and a paired bootstrap interval of the mean
difference. The ingest path is searched once per context weight of its search vectors
(`--weights`, embedding/search_vector.py; 0 = the claim vectors the slice held before), the
slice rebuilt from PostgreSQL in between (claim vectors from the cache, contexts embedded once).
Both paths are searched once per share of the hybrid's document support (`--support`,
search.presets.DOCUMENT_SHARE; 0 = search without it, `--siblings` how many count), and every
score is also given on a fixed split of the queries (SPLIT_SEED) into a tune half, where a
setting is chosen, and a held-out half, where it is only reported.

Where the time goes (80 abstracts, loaded 2-core machine): the local model, 836 s of 860 s on
the ingest path (dedup embeds each new atom once; the projection then reads the cached vector,
2 s) and ~4 s per abstract on the store path; distillation took 4 s. So vectors are kept
between runs in `--vector-cache` (query vectors too): a rerun embeds only texts it has not seen
(a change to what is embedded pays only for the texts it changes). The dense-only and
lexical-only columns say which arm a difference comes from.

    python bench/bench_ingest_retrieval.py [--docs 400] [--queries 0] [--weights 0,0.5]
        [--support 0,0.5] [--siblings 2]
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import embedded_service, log, md_table, paired, shared_data_dir
from eval_data import Doc, Query, scifact, tydi, xquad
from eval_retrieval import mrr, ndcg

from pegas_memory.app.requests import IngestRequest, SearchRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.repo import AtomInput, insert_atom
from pegas_memory.embedding.search_vector import CONTEXT_WEIGHT
from pegas_memory.outbox import projection
from pegas_memory.outbox.reconcile import rebuild
from pegas_memory.search.filters import SearchFilter
from pegas_memory.search.presets import DOCUMENT_SHARE, DOCUMENT_SIBLINGS, POOL, PRESETS

HYBRID = PRESETS["hybrid"]

HITS = 60  # atoms asked per query on the ingest path: several atoms share one document
# Context weights of the ingest path's search vectors (embedding.search_vector); 0 is the claim
# vector alone, what the slice held before. Set by --weights.
WEIGHTS: tuple[float, ...] = (0.0, CONTEXT_WEIGHT)
# Shares of the hybrid's document support (search.presets.DOCUMENT_SHARE); 0 is search without
# it, what main did before. Both paths are searched with each. Set by --support.
SHARES: tuple[float, ...] = (0.0, DOCUMENT_SHARE)
SIBLINGS = DOCUMENT_SIBLINGS  # how many sibling candidates support an atom; set by --siblings
# Which stores the ingest path searches: atoms alone (the behaviour before passages were a
# store) and atoms with passages (the default now). Set by --stores.
STORES: tuple[str, ...] = ("atoms", "both")
SPLIT_SEED = 2026  # the queries' fixed split into a tune half and a held-out half
ARMS_DUMP: Path | None = None  # where dump_arms writes (--arms-dump)
STORE_ARMS: dict[str, Any] = {}  # the store path's arms per query, for dump_arms
PASSAGE_HEADER = False  # --passage-header: passages embedded under their heading path
SEARCH_POOL = POOL  # --pool: Searcher.pool on both paths
INGEST_SETTINGS: dict[str, Any] = {}  # settings of the ingest path's memory (--chunk-chars)
TITLES: dict[str, tuple[str, str]] = {}  # ext_id -> (title, abstract), from the corpus itself


# The evaluation sets this bench reads: (loader, corpus file under the shared data dir, name).
SETS = {
    "scifact": (scifact, Path("scifact") / "corpus.jsonl", "SciFact"),
    "tydi-ru": (tydi, Path("ru") / "tydiqa_goldp" / "corpus.jsonl", "TyDi-ru"),
    # Wikipedia paragraphs in Russian without titles, asked in Russian and in English
    "xquad-ru": (lambda root: xquad(root)[:1], Path("ru") / "xquad" / "corpus.jsonl", "XQuAD-ru"),
    "xquad-en-ru": (
        lambda root: xquad(root)[2:],
        Path("ru") / "xquad" / "corpus.jsonl",
        "XQuAD en->ru",
    ),
}


def load_titles(root: Path, corpus: Path = SETS["scifact"][1]) -> None:
    """Title and abstract apart (eval_data joins them as "Title. text", and a title can hold
    ". " itself)."""
    with (root / corpus).open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                TITLES[str(row["_id"])] = (str(row.get("title") or "").strip(), row["text"])


class VectorCache:
    """Vectors kept between runs in a file (default under /tmp), keyed like the service's own
    cache (model, content hash) and, for queries, (model, query text). The local model on a
    loaded 2-core machine needs about 1-4 s per abstract; with this, a second run (before and
    after a change to what is embedded) only embeds the texts that changed. Each path's fresh
    data dir gets the file's rows before it starts, and gives back what it embedded."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.docs: dict[tuple[str, str], tuple[int, bytes]] = {}
        self.queries: dict[tuple[str, str], list[float]] = {}
        if path is not None and path.exists():
            with path.open("rb") as f:
                self.docs, self.queries = pickle.load(f)

    def load_into(self, service: MemoryService, queries: list[Query]) -> None:
        embedder = service.runtime.embedder.get()
        model = embedder.model_id
        rows = [(m, h, dim, v) for (m, h), (dim, v) in self.docs.items() if m == model]
        with service.db.transaction() as conn, conn.cursor() as cur:
            cur.executemany(
                """INSERT INTO pm_embedding_cache (model, content_hash, dim, vector)
                   VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING""",
                rows,
            )
        for q in queries:
            vector = self.queries.get((model, q.text))
            if vector is None:
                vector = embedder.embed_query(q.text)
                self.queries[(model, q.text)] = vector
            embedder._queries[q.text] = vector  # the service's own query LRU
        log(f"vector cache: {len(rows)} document vectors, {len(queries)} query vectors loaded")

    def save_from(self, service: MemoryService) -> None:
        if self.path is None:
            return
        with service.db.connection() as conn:
            for r in conn.execute(
                "SELECT model, content_hash, dim, vector FROM pm_embedding_cache"
            ).fetchall():
                self.docs[(r["model"], r["content_hash"])] = (int(r["dim"]), bytes(r["vector"]))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with tmp.open("wb") as f:
            pickle.dump((self.docs, self.queries), f)
        tmp.replace(self.path)


CACHE = VectorCache(None)


def drain(service: MemoryService, what: str) -> None:
    """Project every pending outbox event, with a progress line per batch drained (the slow part
    of a run on a loaded machine was silent here before)."""
    worker = service.runtime.worker("bench")
    done = 0
    while True:
        report = worker.drain(timeout=30.0, include_delayed=True)
        if not report.processed:
            break
        done += report.processed
        log(f"{what}: {done} outbox events projected")


class Stages:
    """Seconds per ingest stage, from the pipeline's progress messages: each message starts a
    stage that lasts until the next one."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._stage: str | None = None
        self._since = 0.0

    def __call__(self, done: float, total: float, message: str) -> None:
        now = time.monotonic()
        if self._stage is not None:
            self.seconds[self._stage] = self.seconds.get(self._stage, 0.0) + now - self._since
        self._stage, self._since = _stage_of(message), now

    def end(self) -> None:
        self(0, 0, "")
        self._stage = None


def _stage_of(message: str) -> str:
    for key in ("distilling", "embedding", "writing", "parsing", "reading"):
        if key in message:
            return key
    return "other"


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


PRESETS = ("hybrid", "dense", "lexical")  # the default, and each text arm alone (diagnosis)
Ranked = dict[str, dict[str, list[str]]]  # preset -> qid -> ranked abstract ids


def run_store(docs: list[Doc], queries: list[Query]) -> tuple[Ranked, dict[str, str]]:
    with embedded_service("pegas-bench-store-") as service:
        service.searcher.pool = SEARCH_POOL
        CACHE.load_into(service, queries)
        t0 = time.monotonic()
        ext: dict[int, list[str]] = {}
        with service.db.transaction() as conn:
            for d in docs:
                atom_id, _ = insert_atom(conn, AtomInput(type="text", claim=d.claim, source="eval"))
                ext.setdefault(atom_id, []).append(d.ext_id)
        drain(service, "memory_store path")
        stored = time.monotonic() - t0
        by_share: dict[float, Ranked] = {}
        for share in SHARES:
            service.searcher.document_share = share
            service.searcher.document_siblings = SIBLINGS
            ranked: Ranked = {}
            for preset in PRESETS if not by_share else PRESETS[:1]:
                ranked[preset] = {}
                for q in queries:
                    request = SearchRequest(query=q.text, limit=10, preset=preset)
                    hits = service.search(request).hits
                    ranked[preset][q.qid] = [e for h in hits for e in ext.get(h.id, [])]
            by_share[share] = {**by_share.get(SHARES[0], {}), **ranked}
        if ARMS_DUMP is not None:  # as its searches asked them: 10 hits, so the default pool
            for q in queries:
                pool = service.searcher.pool
                ranked = service.searcher.rank(q.text, "atom", HYBRID, SearchFilter(), pool=pool)
                STORE_ARMS[q.qid] = _arms_json(ranked.arms)
            STORE_ARMS["abstracts of atoms"] = ext
        CACHE.save_from(service)
        return by_share, {"atoms": str(len(ext)), "seconds to store": f"{stored:.0f}"}


def run_ingest(
    docs: list[Doc], queries: list[Query]
) -> tuple[dict[tuple[float, float], Ranked], dict[str, str]]:
    with embedded_service("pegas-bench-ingest-", **INGEST_SETTINGS) as service:
        service.searcher.pool = SEARCH_POOL
        CACHE.load_into(service, queries)
        t0 = time.monotonic()
        ext_of_doc: dict[int, str] = {}
        by_type: dict[str, int] = {}
        dropped = semantic = exact = 0
        stages = Stages()
        for i, d in enumerate(docs):
            title, body = TITLES[d.ext_id]
            source = f"# {title}\n\n{body}\n" if title else f"{body}\n"
            report = service.pipeline.ingest(
                IngestRequest(source=source, kind="markdown", title=title or None),
                progress=stages,
            )
            stages.end()
            assert report.document_id is not None
            ext_of_doc[report.document_id] = d.ext_id
            for t, n in report.atoms_by_type.items():
                by_type[t] = by_type.get(t, 0) + n
            dropped += sum(report.dropped.values())
            semantic += report.duplicates_semantic
            exact += report.duplicates_exact
            if i % 10 == 9:
                log(f"ingested {i + 1}/{len(docs)}")
        if PASSAGE_HEADER:
            with_heading_path(service)
        t1 = time.monotonic()
        drain(service, "memory_ingest path")
        ingested = time.monotonic() - t0
        stages.seconds["projection (outbox drain)"] = time.monotonic() - t1
        log("ingest stages: " + ", ".join(f"{k} {v:.0f} s" for k, v in stages.seconds.items()))
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
        by_weight: dict[tuple[float, float, str], Ranked] = {}
        with service.db.connection() as conn:
            rows = conn.execute(
                """SELECT p.id, d.identity_id FROM pm_passage p
                     JOIN pm_document d ON d.id = p.doc_id"""
            ).fetchall()
        passage_docs = {
            int(r["id"]): ext_of_doc[int(r["identity_id"])]
            for r in rows
            if int(r["identity_id"]) in ext_of_doc
        }
        lexical = {
            store: _ranked_by_document(service, queries, ("lexical",), docs_of, store, passage_docs)
            for store in STORES
        }
        for weight in WEIGHTS:
            # each atom's search vector with this context weight, rebuilt from PostgreSQL (the
            # claim vectors are cached from dedup; each distinct context is embedded once)
            t2 = time.monotonic()
            with service.db.connection() as conn:
                before = conn.execute("SELECT count(*) AS n FROM pm_embedding_cache").fetchone()
            service.runtime.projector.context_weight = weight
            rebuild(service.runtime, "qdrant")
            with service.db.connection() as conn:
                after = conn.execute("SELECT count(*) AS n FROM pm_embedding_cache").fetchone()
            log(
                f"context weight {weight}: slice rebuilt in {time.monotonic() - t2:.0f} s,"
                f" {after['n'] - before['n']} texts embedded (contexts)"
            )
            for store in STORES:
                dense = _ranked_by_document(
                    service, queries, ("dense",), docs_of, store, passage_docs
                )
                for share in SHARES:
                    service.searcher.document_share = share
                    service.searcher.document_siblings = SIBLINGS
                    ranked = _ranked_by_document(
                        service, queries, ("hybrid",), docs_of, store, passage_docs
                    )
                    by_weight[(weight, share, store)] = {**ranked, **dense, **lexical[store]}
        if ARMS_DUMP is not None:
            dump_arms(service, queries, docs_of, passage_docs, ARMS_DUMP)
        CACHE.save_from(service)
        with service.db.connection() as conn:
            contexts = conn.execute(
                "SELECT count(DISTINCT metadata->>'search_context') AS n FROM pm_atom"
            ).fetchone()["n"]
        atoms = len(docs_of)
        info = {
            "atoms": f"{atoms} ({', '.join(f'{t} {n}' for t, n in sorted(by_type.items()))})",
            "seconds to store": f"{ingested:.0f}",
            "drafts dropped": str(dropped),
            "duplicates": f"{semantic} semantic, {exact} exact",
            "stages": ", ".join(f"{k} {v:.0f} s" for k, v in stages.seconds.items()),
            "contexts": str(contexts),
        }
        return by_weight, info


def with_heading_path(service: MemoryService) -> None:
    """For this run, a passage's vector is computed from its heading path above its text
    ("Title\n\nchunk"), as a contextual header, instead of its text alone (what ships,
    outbox.projection.passage_embed_text): the projection is patched in this process."""
    with service.db.connection() as conn:
        rows = conn.execute("SELECT content, heading_path FROM pm_chunk").fetchall()
    header = {r["content"]: " > ".join(r["heading_path"] or ()) for r in rows}
    plain = projection.passage_embed_text

    def headed(content: str) -> str:
        path = header.get(content)
        return plain(f"{path}\n\n{content}" if path else content)

    projection.passage_embed_text = headed
    log(f"passages embedded under their heading path ({len(header)} chunks)")


def _arms_json(arms: dict[str, Any]) -> dict[str, Any]:
    """A ranking's arms as JSON: each arm's evidence weight and its (id, score) hits."""
    return {
        arm: {"weight": r.weight, "hits": [[h.id, h.score] for h in r.hits]}
        for arm, r in arms.items()
    }


def dump_arms(
    service: MemoryService,
    queries: list[Query],
    docs_of: dict[int, list[str]],
    passage_docs: dict[int, str],
    path: Path,
) -> None:
    """Every query's arms of each store as the hybrid ranks them (the last context weight and
    support share searched), with what maps atoms and passages to abstracts, documents and
    citations: enough to replay how the two stores' arms are fused without the engines
    (bench/two_store_fusion_replay.py)."""
    searcher = service.searcher
    pool = max(searcher.pool, HITS * 3)  # what Searcher.search asks each arm for HITS hits
    out: dict[str, Any] = {"pool": pool, "queries": {}}
    for q in queries:
        per_store: dict[str, Any] = {}
        for entity in ("atom", "passage"):
            ranked = searcher.rank(q.text, entity, HYBRID, SearchFilter(), pool=pool)
            per_store[entity] = _arms_json(ranked.arms)
        out["queries"][q.qid] = {"relevant": q.relevant, "arms": per_store}
    with service.db.connection() as conn:
        atoms = conn.execute("SELECT id, doc_id FROM pm_atom WHERE doc_id IS NOT NULL").fetchall()
        cites = conn.execute(
            "SELECT atom_id, chunk_id FROM pm_citation WHERE chunk_id IS NOT NULL"
        ).fetchall()
        passages = conn.execute("SELECT id, doc_id FROM pm_passage").fetchall()
    out["atom_doc"] = {int(r["id"]): int(r["doc_id"]) for r in atoms}
    out["passage_doc"] = {int(r["id"]): int(r["doc_id"]) for r in passages}
    out["atom_cites"] = {}
    for r in cites:
        out["atom_cites"].setdefault(int(r["atom_id"]), []).append(int(r["chunk_id"]))
    out["atom_abstracts"] = docs_of
    out["store_path"] = STORE_ARMS
    out["passage_abstracts"] = passage_docs
    path.write_text(json.dumps(out), encoding="utf-8")
    log(f"arms of {len(queries)} queries written to {path}")


def _ranked_by_document(
    service: MemoryService,
    queries: list[Query],
    presets: tuple[str, ...],
    docs_of: dict[int, list[str]],
    store: str = "atoms",
    passage_docs: dict[int, str] | None = None,
) -> Ranked:
    """Per preset and query, the abstracts in the order of their best hit (an atom's documents
    through its citations, a passage's own)."""
    ranked: Ranked = {}
    for preset in presets:
        ranked[preset] = {}
        for q in queries:
            order: list[str] = []
            request = SearchRequest(query=q.text, limit=HITS, preset=preset, store=store)
            for h in service.search(request).hits:
                found = (
                    docs_of.get(h.id, [])
                    if h.store == "atom"
                    else [e for e in [(passage_docs or {}).get(h.id)] if e]
                )
                for e in found:
                    if e not in order:
                        order.append(e)
            ranked[preset][q.qid] = order
    return ranked


def halves(queries: list[Query]) -> tuple[list[Query], list[Query]]:
    """The queries split by a fixed seed into a tune half (where a setting is chosen) and a
    held-out half (where it is only reported)."""
    order = sorted(queries, key=lambda q: q.qid)
    random.Random(SPLIT_SEED).shuffle(order)
    tune = {q.qid for q in order[: len(order) // 2]}
    return [q for q in queries if q.qid in tune], [q for q in queries if q.qid not in tune]


def per_query(ranked: dict[str, list[str]], queries: list[Query]) -> list[float]:
    return [ndcg(ranked[q.qid], q.relevant, 10) for q in queries]


def main() -> None:
    global CACHE, WEIGHTS, SHARES, SIBLINGS, STORES, ARMS_DUMP, PASSAGE_HEADER, SEARCH_POOL, HITS
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", choices=sorted(SETS), default="scifact")
    parser.add_argument("--docs", type=int, default=400)
    parser.add_argument("--queries", type=int, default=0, help="0: every claim with qrels")
    parser.add_argument(
        "--weights",
        default=",".join(str(w) for w in WEIGHTS),
        help="context weights of the ingest path's search vectors, comma separated",
    )
    parser.add_argument(
        "--support",
        default=",".join(str(w) for w in SHARES),
        help="shares of the hybrid's document support, comma separated (0: none)",
    )
    parser.add_argument("--siblings", type=int, default=SIBLINGS, help="of document support")
    parser.add_argument(
        "--stores", default=",".join(STORES), help="stores the ingest path searches (atoms,both)"
    )
    parser.add_argument(
        "--vector-cache",
        type=Path,
        default=Path("/tmp/pegas-bench-vectors/ingest-retrieval.pickle"),
        help="file keeping vectors between runs ('' for none)",
    )
    parser.add_argument("--dump", type=Path, default=None, help="per-query nDCG@10 as JSON")
    parser.add_argument(
        "--passage-header",
        action="store_true",
        help="embed each passage under its heading path (an experiment; not what ships)",
    )
    parser.add_argument(
        "--chunk-chars",
        type=int,
        default=0,
        help="the ingest path's chunk size limit, PEGAS_CHUNK_CHARS (0: the default)",
    )
    parser.add_argument(
        "--arms-dump",
        type=Path,
        default=None,
        help="every query's arms per store, for bench/two_store_fusion_replay.py (JSON)",
    )
    parser.add_argument(
        "--pool",
        type=int,
        default=POOL,
        help="candidates each arm is asked for at least (Searcher.pool; default %(default)s)",
    )
    parser.add_argument(
        "--hits",
        type=int,
        default=HITS,
        help="hits each search asks (default %(default)s; a user's memory_search asks 10); "
        "nDCG@10 counts the abstracts of those hits in order, each once",
    )
    args = parser.parse_args()
    SEARCH_POOL = args.pool
    HITS = args.hits
    WEIGHTS = tuple(float(w) for w in args.weights.split(","))
    SHARES = tuple(float(w) for w in args.support.split(","))
    SIBLINGS = args.siblings
    STORES = tuple(args.stores.split(","))
    ARMS_DUMP = args.arms_dump
    PASSAGE_HEADER = args.passage_header
    if args.chunk_chars:  # the ingest path's chunk size (PEGAS_CHUNK_CHARS) for this run
        INGEST_SETTINGS["chunk_chars"] = args.chunk_chars
    CACHE = VectorCache(args.vector_cache if str(args.vector_cache) else None)
    started = time.monotonic()
    loader, corpus, set_name = SETS[args.set]
    evset = loader(shared_data_dir())[0]
    load_titles(shared_data_dir(), corpus)
    queries = evset.queries[: args.queries] if args.queries else evset.queries
    wanted = {e for q in queries for e in q.relevant}
    rng = random.Random(15)
    others = [d for d in evset.docs if d.ext_id not in wanted]
    rng.shuffle(others)
    docs = [d for d in evset.docs if d.ext_id in wanted]
    docs += others[: max(0, args.docs - len(docs))]
    log(f"{len(docs)} abstracts, {len(queries)} queries")
    stored, stored_info = run_store(docs, queries)
    log("memory_store path done")
    by_weight, info = run_ingest(docs, queries)
    log("memory_ingest path done")
    tune, held = halves(queries)
    paths: list[tuple[str, Ranked, dict[str, str]]] = [
        (f"memory_store (one atom per abstract){_support(sh)}", stored[sh], stored_info)
        for sh in SHARES
    ]
    for w in WEIGHTS:
        for sh in SHARES:
            for store in STORES:
                name = (
                    "memory_ingest, claim vectors"
                    if w == 0
                    else f"memory_ingest, search vectors (context weight {w})"
                )
                name += ", atoms only (as before)" if store == "atoms" else f", store={store}"
                paths.append((name + _support(sh), by_weight[(w, sh, store)], info))
    rows = []
    for name, ranked, path_info in paths:
        m = scores(ranked["hybrid"], queries)
        arms = [f"{scores(ranked[p], queries)['nDCG@10']:.3f}" for p in PRESETS[1:]]
        parts = [f"{scores(ranked['hybrid'], h)['nDCG@10']:.3f}" for h in (tune, held)]
        rows.append(
            [name, f"{m['nDCG@10']:.3f}", *parts, f"{m['R@10']:.3f}", f"{m['MRR@10']:.3f}",
             *arms, path_info["atoms"]]
        )  # fmt: skip
    wall = time.monotonic() - started
    print(
        f"\n### {set_name} through ingest: {len(docs)} documents, {len(queries)} queries"
        f" (wall {wall / 60:.1f} min on a loaded 2-core machine; document support counts"
        f" {SIBLINGS} siblings; {HITS} hits per search, arms of at least {SEARCH_POOL})\n"
    )
    headers = ["path", "nDCG@10", f"tune half ({len(tune)})", f"held-out half ({len(held)})"]
    headers += ["R@10", "MRR@10", "nDCG@10 dense only", "nDCG@10 lexical only", "atoms"]
    print(md_table(headers, rows))
    print(
        f"\nmemory_ingest: drafts dropped {info['drafts dropped']}; merged {info['duplicates']};"
        f" {info['contexts']} distinct contexts; seconds to store {info['seconds to store']}"
        f" (store path {stored_info['seconds to store']}); per stage: {info['stages']}"
    )
    print("\nper query hybrid nDCG@10, paired (b against a, same queries):\n")
    base = paths[0]  # memory_store without support: what main searched
    n_store = len(SHARES)
    pairs = [(base, p) for p in paths[1:]]
    for i in range(n_store, len(paths), len(SHARES)):  # each ingest row against its share 0
        pairs += [(paths[i], p) for p in paths[i + 1 : i + len(SHARES)]]
    rows = []
    dump: dict[str, dict[str, list[Any]]] = {}
    for (a_name, a, _), (b_name, b, _) in pairs:
        for label, part in (("all", queries), ("tune", tune), ("held-out", held)):
            st = paired(per_query(a["hybrid"], part), per_query(b["hybrid"], part))
            rows.append([f"{b_name} vs {a_name}", f"{label} ({len(part)})", *st.values()])
    for name, ranked, _ in paths:
        dump[name] = {p: per_query(ranked[p], queries) for p in PRESETS}
    dump["tune half"] = {"qids": [q.qid for q in tune]}
    print(md_table(["b vs a", "queries", *paired([0.0], [0.0]).keys()], rows))
    if args.dump:
        args.dump.write_text(json.dumps(dump), encoding="utf-8")


def _support(share: float) -> str:
    return f", document support {share}" if share > 0 else ""


if __name__ == "__main__":
    main()
