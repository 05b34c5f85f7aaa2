"""Hybrid retrieval: the `Searcher` runs the arms of each store, fuses them, reads the head's
rows and merges the stores into one answer.

The parts, each in its own module of this package:
- the arms (arms.py): dense (the vector slice), lexical (BM25 in PostgreSQL, lexical.py) and
  graph (one hop over pm_atom_link from the top fused hits, read from PostgreSQL, the truth);
- the ranking (ranking.py, pure): evidence-weighted fusion of the arms (an arm that matched almost
  none of the query, or a dense arm whose best cosine is low, is turned down), document support,
  then status, the agent's feedback (0 by default: `PEGAS_FEEDBACK_WEIGHT`), decay and MMR;
- the hydration (hydrate.py): the rows and citations of every store's head on one connection;
- the hits (hits.py, pure): rows made `Found`, atoms and passages merged (stores.py);
- the filter (filters.py) and the presets (presets.py), `plain_rrf` being the baseline.
Every store's lexical arm is sent at once from helper threads, beside the dense arms.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime
from typing import Any, Literal

import pegas_memory.search.arms as arms
import pegas_memory.search.ranking as ranking
from pegas_memory.db.pool import Conn, Database
from pegas_memory.db.repo import Citation
from pegas_memory.errors import BackendUnavailable, InvalidInput
from pegas_memory.outbox.slices import VectorEngines
from pegas_memory.search.arms import ArmResult
from pegas_memory.search.filters import SearchFilter
from pegas_memory.search.fusion import FEEDBACK_PRIOR, Fused, Support
from pegas_memory.search.hits import Found, two_stores
from pegas_memory.search.hydrate import Rows, every_version, hydrate
from pegas_memory.search.lexical import Entity, LexicalIndex
from pegas_memory.search.presets import (
    DOCUMENT_SHARE,
    DOCUMENT_SIBLINGS,
    POOL,
    PRESETS,
    STORE_CHOICES,
    Preset,
    StoreChoice,
)
from pegas_memory.search.ranking import Ranked, Weighing
from pegas_memory.search.stores import KEPT_FLOOR, SENTENCE_WEIGHT, STORE_SHARE

MAX_QUERY_CHARS = 4_000


class Searcher:
    """Search over one database and its vector slice: `search` for a query's answer; the
    stages (`rank`, the arms, `hydrate`, `finish`) for benches and tools that need one."""

    def __init__(self, db: Database, runtime: VectorEngines):
        self.db = db
        self.runtime = runtime
        self.lexical = LexicalIndex()
        self.document_share = DOCUMENT_SHARE  # a bench may sweep it; 0 turns support off
        self.document_siblings = DOCUMENT_SIBLINGS
        self.store_share = STORE_SHARE  # a bench may sweep it (search/stores.py)
        self.kept_floor = KEPT_FLOOR
        self.sentence_weight = SENTENCE_WEIGHT  # a bench may sweep it (search/stores.py)
        self.pool = POOL  # candidates each arm is asked for at least; a bench may sweep it
        # The agent's feedback in ranking (fusion.feedback_multiplier); a bench may sweep it.
        settings = getattr(runtime, "settings", None)
        self.feedback_weight: float = getattr(settings, "feedback_weight", 0.0)
        self.feedback_prior: tuple[float, float] = (
            getattr(settings, "feedback_prior_helped", FEEDBACK_PRIOR[0]),
            getattr(settings, "feedback_prior_misled", FEEDBACK_PRIOR[1]),
        )
        # Profile -> half-life in days applied in ranking (Settings.decay_half_lives; empty:
        # decay profiles off). The service sets it from the settings; a bench may switch it.
        self.decay_half_lives: dict[str, float] = {}
        self._threads: ThreadPoolExecutor | None = None
        self._threads_lock = threading.Lock()

    def invalidate_stats(self) -> None:
        self.lexical.invalidate()

    def _helpers(self) -> ThreadPoolExecutor:
        with self._threads_lock:
            if self._threads is None:
                self._threads = ThreadPoolExecutor(max_workers=8, thread_name_prefix="pegas-search")
            return self._threads

    def close(self) -> None:
        """Stop the helper threads (a search still running finishes first); a later search
        starts new ones."""
        with self._threads_lock:
            threads, self._threads = self._threads, None
        if threads is not None:
            threads.shutdown(wait=True)

    # ------------------------------------------------------------------ stages
    # Each stage is a method so that a bench can time it (bench/bench_search_latency.py wraps
    # them by name); the work is in arms.py, ranking.py and hydrate.py.
    def lexical_arm(
        self, conn: Conn | None, query: str, entity: Entity, flt: SearchFilter, k: int = POOL
    ) -> ArmResult:
        """BM25 over the tsvector (arms.lexical_arm), or over the vector engine's sparse index
        when the projection writes one for this store (`uses_sparse`); PostgreSQL also when
        the vector slice does not answer. `conn` may be None only when `uses_sparse`."""
        if self.uses_sparse(entity, flt):
            try:
                return arms.sparse_lexical_arm(self.runtime, query, entity, flt, k)
            except BackendUnavailable:
                pass
        if conn is None:
            with self.db.connection() as own:
                return arms.lexical_arm(self.lexical, own, query, entity, flt, k)
        return arms.lexical_arm(self.lexical, conn, query, entity, flt, k)

    def uses_sparse(self, entity: Entity, flt: SearchFilter) -> bool:
        """Whether this store's lexical arm reads the sparse index (PEGAS_LEXICAL_ENGINE=sparse)
        rather than PostgreSQL: atoms and passages, now (an as-of search reads PostgreSQL, the
        only store of what was current then)."""
        return flt.as_of is None and self.runtime.projector.has_sparse(entity)

    def dense_arm(self, query: str, entity: Entity, flt: SearchFilter, k: int = POOL) -> ArmResult:
        """Nearest neighbours in the vector slice (arms.dense_arm).

        Raises BackendUnavailable when the embedder or the vector slice does not answer."""
        return arms.dense_arm(self.runtime, query, entity, flt, k)

    def graph_arm(
        self, conn: Conn, seeds: Sequence[Fused], k: int = POOL, *, as_of: datetime | None = None
    ) -> ArmResult:
        """One hop over links from the seeds (arms.graph_arm); `as_of`: the links then."""
        return arms.graph_arm(conn, seeds, k, as_of=as_of)

    def support(self, conn: Conn, arms_found: Mapping[str, ArmResult]) -> Support:
        """Document support for this ranking: the documents of the text arms' candidates,
        read from PostgreSQL (ingested atoms only: memory_store atoms have no `doc_id`)."""
        doc_of = arms.candidate_documents(conn, arms_found)
        return Support(doc_of, self.document_share, self.document_siblings)

    def finish(
        self,
        ranked: Ranked,
        rows: Rows,
        preset: Preset,
        *,
        limit: int,
        half_life_days: float | None,
        now: datetime | None = None,
    ) -> list[Fused]:
        """Drop what the filters excluded, weigh status, feedback and age, diversify
        (ranking.finish with this searcher's feedback and decay settings)."""
        weighing = Weighing(self.feedback_weight, self.feedback_prior, self.decay_half_lives)
        entity = ranked.entity
        return ranking.finish(
            ranked,
            rows,
            preset,
            limit=limit,
            half_life_days=half_life_days,
            weighing=weighing,
            vectors_of=lambda ids: arms.stored_vectors(self.runtime, entity, ids),
            now=now,
        )

    def hydrate(
        self,
        conn: Conn,
        heads: Mapping[Entity, Sequence[int]],
        flt: SearchFilter,
        *,
        citations: bool = False,
    ) -> tuple[dict[Entity, Rows], dict[int, list[Citation]]]:
        """The rows of each store's head that pass the filters and, with `citations`, the
        citations of the atoms among them, on one connection (hydrate.hydrate)."""
        return hydrate(conn, heads, flt, citations=citations)

    # ------------------------------------------------------------------ composition
    def _lexical_alone(self, query: str, entity: Entity, flt: SearchFilter, k: int) -> ArmResult:
        if self.uses_sparse(entity, flt):  # no connection: it is taken only on a fallback
            return self.lexical_arm(None, query, entity, flt, k)
        with self.db.connection() as conn:
            return self.lexical_arm(conn, query, entity, flt, k)

    def rank(
        self,
        query: str,
        entity: Entity,
        preset: Preset,
        flt: SearchFilter,
        *,
        pool: int = POOL,
        lexical: Future[ArmResult] | None = None,
        conn: Conn | None = None,
    ) -> Ranked:
        """The fused ranking of one store. `lexical`: its lexical arm already sent (`search`
        sends every store's at once); else it is sent here. `conn`: the caller's connection
        for what this ranking reads from PostgreSQL after the arms (else one is taken)."""
        if conn is None:
            with self.db.connection() as own:
                return self.rank(query, entity, preset, flt, pool=pool, lexical=lexical, conn=own)
        ranked = Ranked(entity=entity, fused=[])
        # The lexical arm mostly waits on Postgres while the dense arm runs in this process:
        # with both, the lexical query is sent from a helper thread and the two overlap.
        if lexical is None and preset.lexical and preset.dense:
            lexical = self._helpers().submit(self._lexical_alone, query, entity, flt, pool)
        elif lexical is None and preset.lexical:
            ranked.arms["lexical"] = self.lexical_arm(conn, query, entity, flt, pool)
        dense: ArmResult | None = None
        if preset.dense:
            try:
                dense = self.dense_arm(query, entity, flt, pool)
            except BackendUnavailable as exc:
                ranked.warnings.append(f"dense arm unavailable: {exc}")
        if lexical is not None:
            ranked.arms["lexical"] = lexical.result()
        if dense is not None:
            ranked.arms["dense"] = dense
        weights = ranking.arm_weights(preset, ranked.arms)
        wants_support = preset.documents and entity == "atom" and self.document_share > 0
        wants_graph = preset.graph and entity == "atom"
        # The seeds' links are read after fusion: reading ahead the links of every candidate
        # (about 100 ids) with the documents cost more server time (0.3 ms at 100k) than the
        # round trip it saved (0.05 ms; bench/results/search-latency-passages.md).
        support = self.support(conn, ranked.arms) if wants_support else None
        fused = ranking.fuse(preset, ranked.arms, weights, support)
        if wants_graph and fused:
            graph = self.graph_arm(conn, fused[:10], pool, as_of=flt.as_of)
            ranked.arms["graph"] = graph
            if graph.hits:
                weights["graph"] = graph.weight * max(weights.values(), default=1.0)
                fused = ranking.fuse(preset, ranked.arms, weights, support)
        ranked.fused = fused
        return ranked

    def resolve_documents(self, flt: SearchFilter) -> SearchFilter:
        """Document ids name documents, not versions: an id of any version selects every
        version (hydrate.every_version)."""
        if not flt.doc_ids:
            return flt
        with self.db.connection() as conn:
            return every_version(conn, flt)

    def search(
        self,
        query: str,
        *,
        scope: Literal["knowledge", "episodic", "all"] = "knowledge",
        preset: str = "hybrid",
        limit: int = 10,
        flt: SearchFilter | None = None,
        half_life_days: float | None = None,
        with_citations: bool = True,
        stores: StoreChoice = "both",
        now: datetime | None = None,
    ) -> tuple[list[Found], list[str], dict[str, Any]]:
        """Rank atoms, passages and/or traces for a query; return (hits, warnings, arm
        diagnostics). Knowledge comes from two stores (`stores`): atoms and passages, ranked
        apart and merged (search/stores.py). `now`: the instant ages are counted to (default:
        the present; a benchmark asks as of its question's date).

        Raises InvalidInput for an empty or oversized query, an unknown preset or store."""
        query = validate_query(query)
        if preset not in PRESETS:
            raise InvalidInput(f"unknown preset {preset!r}; use one of {', '.join(PRESETS)}")
        if stores not in STORE_CHOICES:
            raise InvalidInput(f"unknown store {stores!r}; use one of {', '.join(STORE_CHOICES)}")
        p = PRESETS[preset]
        flt = self.resolve_documents(flt or SearchFilter())
        entities = _searched(scope, stores, atoms_only=flt.atoms_only)
        found: dict[Entity, list[Found]] = {}
        warnings: list[str] = []
        diagnostics: dict[str, Any] = {}
        preset_now = p
        pool = max(self.pool, limit * 3)
        # Every store's lexical arm is sent at once: each waits on its own PostgreSQL backend,
        # so with two stores the two BM25 statements run side by side (one per core) while the
        # dense arms run here, instead of one store's after the other's (issue 33: 43 ms -> see
        # bench/results/search-latency-passages.md).
        lexical: dict[Entity, Future[ArmResult]] = {}
        if p.lexical and len(entities) > 1:
            lexical = {
                e: self._helpers().submit(self._lexical_alone, query, e, flt, pool)
                for e in entities
            }
        rankings: list[Ranked] = []
        # One connection for what this thread reads after the arms (documents, links, rows,
        # citations) instead of one taken from the pool per statement.
        with self.db.connection() as conn:
            for entity in entities:
                ranked = self.rank(
                    query,
                    entity,
                    preset_now,
                    flt,
                    pool=pool,
                    lexical=lexical.get(entity),
                    conn=conn,
                )
                warnings += ranked.warnings
                if preset_now.dense and "dense" not in ranked.arms and p.lexical:
                    # The vector slice did not answer (an engine host starting, an outage): the
                    # other stores go without it instead of waiting for it once more each.
                    preset_now = replace(preset_now, dense=False)
                diagnostics[entity] = {
                    arm: {"weight": round(r.weight, 3), "hits": len(r.hits), "note": r.note}
                    for arm, r in ranked.arms.items()
                }
                rankings.append(ranked)
            heads = {r.entity: [f.id for f in r.fused[: max(limit * 3, 30)]] for r in rankings}
            # Citations of the whole atom head (a few more than are shown), with the rows.
            wants_cites = with_citations or "passage" in heads
            rows, cites = self.hydrate(conn, heads, flt, citations=wants_cites)
        for ranked in rankings:
            entity = ranked.entity
            ranked.fused = [f for f in ranked.fused if f.id in rows[entity]]
            final = self.finish(
                ranked, rows[entity], p, limit=limit, half_life_days=half_life_days, now=now
            )
            found[entity] = [
                Found.of(rows[entity][f.id], entity, f.score, f.ranks, self.feedback_prior)
                for f in final
            ]
        atoms = found.get("atom", [])
        if with_citations:
            atoms = [replace(h, citations=tuple(cites.get(h.id, ()))) for h in atoms]
        hits = two_stores(
            atoms,
            found.get("passage", []),
            cites,
            limit,
            share=self.store_share,
            floor=self.kept_floor,
            sentence_weight=self.sentence_weight,
        )
        if "trace" in found:
            hits = sorted([*hits, *found["trace"]], key=lambda h: -h.score)[:limit]
        return hits, warnings, diagnostics


def _searched(
    scope: Literal["knowledge", "episodic", "all"], stores: StoreChoice, *, atoms_only: bool
) -> list[Entity]:
    """The stores a search ranks: atoms and/or passages for knowledge (`stores`; no passages
    under a filter only atoms have), traces for episodic, all of them for all."""
    knowledge: list[Entity] = []
    if stores in ("atoms", "both"):
        knowledge.append("atom")
    if stores in ("passages", "both") and not atoms_only:
        knowledge.append("passage")
    if scope == "knowledge":
        return knowledge
    return ["trace"] if scope == "episodic" else [*knowledge, "trace"]


def validate_query(query: str) -> str:
    """The query without surrounding blanks.

    Raises InvalidInput when it holds a NUL, is blank, or is longer than MAX_QUERY_CHARS."""
    if "\x00" in query:
        raise InvalidInput("the query contains a NUL character; remove it")
    if not query.strip():
        raise InvalidInput("the query is empty; say what to look for")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"the query is {len(query):,} characters; keep it under {MAX_QUERY_CHARS:,}"
        )
    return query.strip()
