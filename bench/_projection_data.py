"""Test data for bench_projection: text, synthetic embeddings, a call-counting embedder, and a
bulk loader of atoms, links, documents and citations into an open MemoryService.

Texts are sentences of SciFact abstracts (../shared/data/scifact, or $PEGAS_SHARED_DATA), topped
up with sentences sampled from their vocabulary; without the data, everything is generated.
Vectors are clustered unit vectors, so no model is needed and none is called.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from _common import WrappedEmbedder, log, shared_data_dir

from pegas_memory.app.service import MemoryService
from pegas_memory.db.repo import atom_hash
from pegas_memory.embedding.embedders import Embedder
from pegas_memory.outbox.projection import atom_embed_text, passage_embed_text
from pegas_memory.sentences import split_sentences
from pegas_memory.text import raw_hash

TYPES = ["text", "fact", "definition", "text", "fact", "code", "table", "logical_rule"]
STATUSES = ["candidate"] * 6 + ["verified"] * 2 + ["stale", "contested"]
LINK_KINDS = ["reference", "cause", "depends_on", "defines", "inference", "contradicts"]
_WORD = re.compile(r"[A-Za-z][A-Za-z-]+")


@dataclass(frozen=True)
class Corpus:
    sentences: list[str]
    queries: list[str]
    source: str


def load_corpus(needed: int, n_queries: int, seed: int) -> Corpus:
    """Real sentences (SciFact abstracts) topped up with sentences sampled from their words;
    queries are SciFact claims, which are never stored. Without the data, all is generated."""
    rng = random.Random(seed)
    root = shared_data_dir() / "scifact"
    sentences: list[str] = []
    queries: list[str] = []
    if (root / "corpus.jsonl").is_file():
        with open(root / "corpus.jsonl", encoding="utf-8") as fh:
            for line in fh:
                doc = json.loads(line)
                for s in [doc.get("title", ""), *(x.text for x in split_sentences(doc["text"]))]:
                    if 20 <= len(s) <= 400:
                        sentences.append(s.strip())
        if (root / "queries.jsonl").is_file():
            with open(root / "queries.jsonl", encoding="utf-8") as fh:
                queries = [json.loads(line)["text"] for line in fh]
    sentences = list(dict.fromkeys(sentences))
    rng.shuffle(sentences)
    source = f"scifact ({len(sentences)} sentences)" if sentences else "generated"
    counts = Counter(w.lower() for s in sentences for w in _WORD.findall(s))
    if not counts:  # no data: a Zipf-distributed vocabulary of pronounceable made-up words
        syll = ["ka", "lo", "mi", "ne", "ru", "ta", "ve", "so", "di", "pa", "ze", "go", "hu"]
        words = list(
            dict.fromkeys(
                "".join(rng.choice(syll) for _ in range(rng.randint(2, 4))) for _ in range(30_000)
            )
        )
        counts = Counter({w: int(10_000 / (i + 1)) + 1 for i, w in enumerate(words)})
    vocab = list(counts)
    weights = np.asarray([counts[w] for w in vocab], dtype=np.float64)
    weights /= weights.sum()
    np_rng = np.random.default_rng(seed)

    def generated(k: int) -> list[str]:
        # One draw for all words: choice() with p= rebuilds its table on every call.
        lengths = np_rng.integers(8, 25, size=k)
        words = np_rng.choice(len(vocab), size=int(lengths.sum()), p=weights)
        out, start = [], 0
        for length in lengths:
            text = " ".join(vocab[i] for i in words[start : start + length])
            out.append(text[0].upper() + text[1:] + ".")
            start += int(length)
        return out

    if len(queries) < n_queries:
        queries += generated(n_queries - len(queries))
    if len(sentences) < needed:
        extra = needed - len(sentences)
        log(f"generating {extra} sentences from the vocabulary ({len(vocab)} words)")
        sentences += [f"{s}" for s in generated(extra)]
        source += f" + {extra} generated from its vocabulary"
    return Corpus(sentences=sentences, queries=queries[:n_queries], source=source)


class ClusteredVectors:
    """Deterministic unit vectors around cluster centres, like real embeddings (not uniform
    noise, which is HNSW's worst case and makes every cosine near zero)."""

    def __init__(self, dim: int, seed: int, clusters: int = 400):
        self.dim = dim
        self.rng = np.random.default_rng(seed)
        self.centres = self.rng.standard_normal((clusters, dim)).astype(np.float32)

    def make(self, n: int, noise: float = 1.1) -> np.ndarray:
        labels = self.rng.integers(0, len(self.centres), n)
        x = self.centres[labels] + noise * self.rng.standard_normal((n, self.dim)).astype(
            np.float32
        )
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        return x


class BenchEmbedder(WrappedEmbedder):
    """The inner embedder for the bench: query vectors come from a table (query embedding is
    excluded from the latencies); document calls are counted and passed to the real model."""

    def __init__(self, real: Embedder, queries: dict[str, list[float]]):
        super().__init__(real)
        self.queries = queries
        self.document_calls = 0
        self.document_texts = 0
        self.query_misses = 0

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.document_calls += 1
        self.document_texts += len(texts)
        return self.real.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        vector = self.queries.get(text)
        if vector is None:
            self.query_misses += 1
            return self.real.embed_query(text)
        return vector

    @property
    def model_calls(self) -> int:
        return self.document_calls + self.query_misses


# ---------------------------------------------------------------------- loading
@dataclass(frozen=True)
class AtomRow:
    type: str
    claim: str
    content: str
    status: str
    confidence: float
    topic: str
    tags: tuple[str, ...]


def make_atoms(sentences: Sequence[str], start: int, n: int, suffix: str = "") -> list[AtomRow]:
    """n atoms from sentences[start:]; every fourth carries the next sentence as content.

    A suffix keeps a second set (the live writes) disjoint from the first."""
    atoms: list[AtomRow] = []
    seen: set[str] = set()
    i = start
    while len(atoms) < n:
        claim = sentences[i % len(sentences)]
        content = sentences[(i + 1) % len(sentences)] if i % 4 == 0 else ""
        if i >= len(sentences):  # wrapped around: make the text new
            claim = f"{claim} ({i // len(sentences)})"
        claim += suffix
        i += 1
        key = atom_hash(claim, content)
        if key in seen:
            continue
        seen.add(key)
        k = len(atoms)
        atoms.append(
            AtomRow(
                type=TYPES[k % len(TYPES)],
                claim=claim,
                content=content,
                status=STATUSES[k % len(STATUSES)],
                confidence=0.3 + 0.6 * ((k * 37) % 100) / 100,
                topic=f"topic{k % 40}",
                tags=(f"t{k % 7}", f"t{7 + k % 5}"),
            )
        )
    return atoms


def prefill_cache(svc: MemoryService, atoms: Sequence[AtomRow], vectors: np.ndarray) -> None:
    """Cache rows for exactly the texts the projector will embed (projection.atom_embed_text)."""
    rows: dict[str, bytes] = {}
    for atom, vector in zip(atoms, vectors, strict=True):
        rows[raw_hash(atom_embed_text(atom.claim, atom.content))] = vector.astype("<f4").tobytes()
    _copy_embedding_cache(svc, rows)


def bulk_load(svc: MemoryService, atoms: Sequence[AtomRow], seed: int) -> dict[str, int]:
    """Documents, atoms, one citation per atom and N/2 random links by COPY (the outbox triggers
    fire per row as for any insert). Language is set to English: the texts are English, and
    detecting it per row would add ~0.6 ms each to the load (the writer thread does detect)."""
    rng = random.Random(seed)
    n_docs = max(1, len(atoms) // 50)
    with svc.db.transaction() as conn, conn.cursor() as cur:
        doc_ids = _copy_documents(cur, n_docs, "web", "")
        atom_rows = _copy_atoms(
            cur, atoms, [doc_ids[k % n_docs] for k in range(len(atoms))], "bench"
        )
        with cur.copy(
            "COPY pm_citation (atom_id, doc_id, locator, quoted_text) FROM STDIN"
        ) as copy:
            for r in atom_rows:
                locator = f"p. {r['id'] % 17 + 1}"
                copy.write_row((r["id"], r["doc_id"], locator, r["claim"][:200]))
        ids = [int(r["id"]) for r in atom_rows]
        pairs = _copy_random_links(cur, ids, rng)
    return {"documents": n_docs, "atoms": len(ids), "links": len(pairs)}


def bulk_load_passages(
    svc: MemoryService, atoms: Sequence[AtomRow], seed: int, per_chunk: int = 2
) -> tuple[dict[str, int], list[str]]:
    """Like `bulk_load`, but as an ingest leaves it: documents (50 atoms each) with chunks,
    every `per_chunk` consecutive atoms of a document read from one chunk (the chunk's text is
    their claims and contents), each atom cited from its chunk, N/2 random links. All by COPY
    (the outbox triggers fire per row). Returns the counts and the chunks' texts (to pre-fill
    the embedding cache with `prefill_passages`)."""
    rng = random.Random(seed)
    per_doc = 50
    n_docs = max(1, -(-len(atoms) // per_doc))
    texts: list[str] = []
    with svc.db.transaction() as conn, conn.cursor() as cur:
        doc_ids = _copy_documents(cur, n_docs, "pdf", ".pdf")
        chunk_of_atom: list[tuple[int, int]] = []  # (doc index, chunk ord) per atom
        with cur.copy(
            "COPY pm_chunk (doc_id, ord, content, content_hash, locator, heading_path, "
            "char_start, char_end, language) FROM STDIN"
        ) as copy:
            for d in range(n_docs):
                group = atoms[d * per_doc : (d + 1) * per_doc]
                for ord_, start in enumerate(range(0, len(group), per_chunk)):
                    part = group[start : start + per_chunk]
                    text = " ".join(
                        " ".join(x for x in (a.claim.strip(), a.content) if x) for a in part
                    )
                    texts.append(text)
                    offset = ord_ * 1000
                    copy.write_row(
                        (
                            doc_ids[d],
                            ord_,
                            text,
                            raw_hash(text),
                            f"p. {ord_ // 3 + 1}",
                            [f"Section {ord_ // 5 + 1}"],
                            offset,
                            offset + len(text),
                            "en",
                        )
                    )
                    chunk_of_atom += [(d, ord_)] * len(part)
        chunk_ids = {
            (int(r["doc_id"]), int(r["ord"])): int(r["id"])
            for r in cur.execute("SELECT id, doc_id, ord FROM pm_chunk")
        }
        atom_doc_ids = [doc_ids[d] for d, _ in chunk_of_atom]
        atom_rows = _copy_atoms(cur, atoms, atom_doc_ids, "ingest")
        with cur.copy(
            "COPY pm_citation (atom_id, doc_id, chunk_id, locator, quoted_text) FROM STDIN"
        ) as copy:
            for k, r in enumerate(atom_rows):
                d, ord_ = chunk_of_atom[k]
                chunk = chunk_ids[(doc_ids[d], ord_)]
                copy.write_row(
                    (r["id"], r["doc_id"], chunk, f"p. {ord_ // 3 + 1}", r["claim"][:200])
                )
        ids = [int(r["id"]) for r in atom_rows]
        pairs = _copy_random_links(cur, ids, rng)
    counts = {"documents": n_docs, "atoms": len(ids), "passages": len(texts), "links": len(pairs)}
    return counts, texts


def prefill_passages(svc: MemoryService, texts: Sequence[str], vectors: np.ndarray) -> None:
    """Cache rows for the passages' texts (projection.passage_embed_text), so projecting them
    calls no model."""
    rows = {
        raw_hash(passage_embed_text(t)): v.astype("<f4").tobytes()
        for t, v in zip(texts, vectors, strict=True)
    }
    _copy_embedding_cache(svc, rows)


def _copy_embedding_cache(svc: MemoryService, rows: dict[str, bytes]) -> None:
    """Embedding-cache rows (content hash -> float32 bytes) of the service's model, by COPY."""
    embedder = svc.runtime.embedder.get()
    with (
        svc.db.transaction() as conn,
        conn.cursor() as cur,
        cur.copy("COPY pm_embedding_cache (model, content_hash, dim, vector) FROM STDIN") as copy,
    ):
        for key, data in rows.items():
            copy.write_row((embedder.model_id, key, embedder.dim, data))


def _copy_documents(cur: Any, n_docs: int, kind: str, suffix: str) -> list[int]:
    """`n_docs` documents `Paper d` of `kind`, at example.org/paper/{d}{suffix}; their ids."""
    with cur.copy("COPY pm_document (kind, uri, title, content_hash) FROM STDIN") as copy:
        for d in range(n_docs):
            uri = f"https://example.org/paper/{d}{suffix}"
            copy.write_row((kind, uri, f"Paper {d}", raw_hash(uri)))
    return [int(r["id"]) for r in cur.execute("SELECT id FROM pm_document ORDER BY id")]


def _copy_atoms(
    cur: Any, atoms: Sequence[AtomRow], doc_ids: Sequence[int], source: str
) -> list[dict[str, Any]]:
    """The atoms (English), the k-th in document `doc_ids[k]`; their rows (id, doc_id, claim)."""
    with cur.copy(
        "COPY pm_atom (type, claim, content, content_hash, confidence, status, doc_id, "
        "topic, tags, language, ts_config, source) FROM STDIN"
    ) as copy:
        for a, doc_id in zip(atoms, doc_ids, strict=True):
            copy.write_row(
                (
                    a.type,
                    a.claim.strip(),
                    a.content,
                    atom_hash(a.claim, a.content),
                    a.confidence,
                    a.status,
                    doc_id,
                    a.topic,
                    list(a.tags),
                    "en",
                    "english",
                    source,
                )
            )
    return list(cur.execute("SELECT id, doc_id, claim FROM pm_atom ORDER BY id").fetchall())


def _copy_random_links(
    cur: Any, ids: Sequence[int], rng: random.Random
) -> set[tuple[int, int, str]]:
    """N/2 distinct random links between the atoms `ids` (random kinds and confidences)."""
    pairs: set[tuple[int, int, str]] = set()
    while len(pairs) < len(ids) // 2:
        src, dst = rng.choice(ids), rng.choice(ids)
        if src != dst:
            pairs.add((src, dst, rng.choice(LINK_KINDS)))
    with cur.copy(
        "COPY pm_atom_link (src_atom_id, dst_atom_id, kind, confidence, source) FROM STDIN"
    ) as copy:
        for src, dst, kind in sorted(pairs):
            copy.write_row((src, dst, kind, round(rng.uniform(0.4, 1.0), 2), "bench"))
    return pairs
