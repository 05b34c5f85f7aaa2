"""Hybrid retrieval: a dense arm, a lexical BM25 arm in Postgres, graph expansion, fused.

Each arm is a method that returns a ranked list and can be weighed or used alone:
- dense: the vector slice (cosine over the current embedding space's collection);
- lexical: BM25 over the tsvector of atoms (or traces), in Postgres (lexical.py: analysis with
  the russian, english and simple configurations, cached frequencies, candidate pruning);
- graph: one hop over pm_atom_link from the top fused hits, weighted by link kind and confidence
  (read from Postgres, the truth, so expansion never lags the outbox).
Fusion weighs each arm by its evidence: a lexical arm that matched almost none of the query's
terms (an English question over Russian text) or a dense arm whose best cosine is low is turned
down instead of dragging the other arm down. The hybrid fuses normalised scores (a convex
combination, `fusion.score_fusion`), which keeps how far ahead an arm's best hit is; weighted
RRF stays available (`hybrid_rrf`). Within the text arms an ingested atom is supported by its
document's other hits (`fusion.document_support`: a document that answers in several sentences
beats one stray sentence). Then status multipliers, the agent's feedback (a weight that is 0
by default: `PEGAS_FEEDBACK_WEIGHT`), decay (each hit's profile, when PEGAS_DECAY_RANKING is
on, or the call's half-life) and MMR.
Presets name the combinations; `plain_rrf` (equal-weight RRF of the two arms) is the baseline.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, LiteralString

from psycopg import sql

from pegas_memory.db.pool import Conn, Database
from pegas_memory.db.repo import Citation, citations_as_of, citations_for, document_versions
from pegas_memory.errors import BackendUnavailable, InvalidInput
from pegas_memory.models import AtomStatus, LinkKind
from pegas_memory.outbox.slices import Engines
from pegas_memory.qdrant_store.index import VectorFilter
from pegas_memory.search.fusion import (
    FEEDBACK_PRIOR,
    ArmHit,
    Feedback,
    Fused,
    Support,
    adjust,
    dense_weight,
    document_support,
    half_lives_of,
    lexical_weight,
    mmr,
    score_fusion,
    weighted_rrf,
)
from pegas_memory.search.lexical import Entity, LexicalIndex, Source
from pegas_memory.search.queries import SEARCH_SQL as Q
from pegas_memory.search.stores import KEPT_FLOOR, STORE_SHARE, Candidate, merge

log = logging.getLogger(__name__)

# The instant of an as-of search inside a filter fragment (SearchFilter.sql).
AS_OF = {"t": sql.Placeholder("f_as_of")}

MAX_QUERY_CHARS = 4_000
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

# How much a neighbour reached through a link of this kind is worth, relative to its seed.
# Which store(s) knowledge comes from: atoms, passages, or both (the default).
StoreChoice = Literal["atoms", "passages", "both"]
STORE_CHOICES: tuple[StoreChoice, ...] = ("atoms", "passages", "both")

LINK_KIND_WEIGHT: dict[str, float] = {
    LinkKind.DEFINES: 0.8,
    LinkKind.DEPENDS_ON: 0.7,
    LinkKind.CAUSE: 0.7,
    LinkKind.REFERENCE: 0.6,
    LinkKind.CONTRADICTS: 0.6,
    LinkKind.CORROBORATES: 0.6,
    LinkKind.INFERENCE: 0.5,
    LinkKind.CALLS: 0.5,
    LinkKind.DUPLICATE_OF: 0.2,
}


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


def aware(at: datetime) -> datetime:
    """A time without a zone is UTC (as the vector slice reads `created_before`)."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


@dataclass(frozen=True)
class SearchFilter:
    types: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    doc_ids: tuple[int, ...] = ()
    topics: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    created_after: datetime | None = None
    created_before: datetime | None = None
    session_id: str | None = None  # episodic only
    # What the memory believed at this instant: atoms recorded by then, with the status they had
    # then (superseded ones come back if they were not superseded yet), passages of the versions
    # current then, traces written by then (migration 0016).
    as_of: datetime | None = None

    @property
    def atoms_only(self) -> bool:
        """The filter names what only atoms have (a type, status, topic or tag): passages,
        which have none of these, cannot match it."""
        return bool(self.types or self.statuses or self.topics or self.tags)

    def vector_filter(self, entity: Entity) -> VectorFilter:
        if self.as_of is not None:  # statuses as they were are checked in PostgreSQL
            before = aware(self.as_of) + timedelta(microseconds=1)
            if self.created_before is None or aware(self.created_before) > before:
                inner = replace(self, as_of=None, created_before=before)
            else:
                inner = replace(self, as_of=None)
            if entity == "atom":
                inner = replace(inner, statuses=())
            return inner.vector_filter(entity)
        if entity == "passage":
            return VectorFilter(
                doc_ids=self.doc_ids,
                languages=self.languages,
                created_after=self.created_after,
                created_before=self.created_before,
            )
        if entity == "trace":
            return VectorFilter(
                languages=self.languages,
                created_after=self.created_after,
                created_before=self.created_before,
            )
        return VectorFilter(
            types=self.types,
            statuses=self.statuses,
            doc_ids=self.doc_ids,
            topics=self.topics,
            tags=self.tags,
            languages=self.languages,
            created_after=self.created_after,
            created_before=self.created_before,
        )

    def sql(self, entity: Entity, alias: str = "t") -> tuple[sql.Composed, dict[str, Any]]:
        """A WHERE fragment (starting with AND) and its parameters; values are never inlined:
        the fragment holds the alias as an identifier and each value as a named placeholder."""
        parts: list[sql.Composable] = []
        params: dict[str, Any] = {}

        def add(cond: LiteralString, name: str, value: Any) -> None:
            parts.append(
                sql.SQL(" AND ")
                + sql.SQL(cond).format(a=sql.Identifier(alias), p=sql.Placeholder(name), **AS_OF)
            )
            params[name] = value

        if self.as_of is not None:
            add("{a}.created_at <= {p}", "f_as_of", self.as_of)
        if entity == "atom":
            if self.types:
                add("{a}.type = ANY({p})", "f_types", list(self.types))
            if self.statuses and self.as_of is not None:
                add(Q.filter_statuses_as_of, "f_statuses", list(self.statuses))
            elif self.statuses:
                add("{a}.status = ANY({p})", "f_statuses", list(self.statuses))
            if self.doc_ids:
                add(Q.filter_documents, "f_docs", list(self.doc_ids))
            if AtomStatus.STALE not in self.statuses:
                current = Q.filter_current_as_of if self.as_of is not None else Q.filter_current
                parts.append(
                    sql.SQL(" AND ") + sql.SQL(current).format(a=sql.Identifier(alias), **AS_OF)
                )
            if self.topics:
                add("{a}.topic = ANY({p})", "f_topics", list(self.topics))
            if self.tags:
                add("{a}.tags && {p}::text[]", "f_tags", list(self.tags))
        elif entity == "passage":
            if self.doc_ids:
                add("{a}.doc_id = ANY({p})", "f_docs", list(self.doc_ids))
            if self.as_of is not None:  # on pm_passage_ever: the version current then
                add("{a}.valid_from <= {p} AND {a}.valid_to > {p}", "f_as_of", self.as_of)
        elif self.session_id:
            add("{a}.session_id = {p}", "f_session", self.session_id)
        if self.languages:
            add("{a}.language = ANY({p})", "f_langs", list(self.languages))
        if self.created_after:
            add("{a}.created_at >= {p}", "f_after", self.created_after)
        if self.created_before:
            add("{a}.created_at < {p}", "f_before", self.created_before)
        return sql.Composed(parts), params


@dataclass
class ArmResult:
    hits: list[ArmHit]
    weight: float
    note: str | None = None


@dataclass
class Ranked:
    """The fused ranking of one entity kind, before rows are fetched."""

    entity: Entity
    fused: list[Fused]
    arms: dict[str, ArmResult] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Found:
    """One hit of `Searcher.search`: the atom's or trace's fields, its fused score, its rank in
    each arm that found it, and (for atoms) its citations."""

    id: int
    scope: Literal["knowledge", "episodic"]
    score: float
    type: str
    claim: str
    content: str
    status: str | None
    confidence: float | None
    topic: str | None
    tags: tuple[str, ...]
    language: str | None
    doc_id: int | None
    created_at: datetime | None
    arms: Mapping[str, int]
    citations: tuple[Citation, ...] = ()
    store: Entity = "atom"
    section: tuple[str, ...] = ()  # a passage's heading path
    unsourced: bool = False  # an atom stored with no provenance (app/store.py)
    feedback: Feedback | None = None  # what the agent reported about it (memory_feedback)
    feedback_confidence: float | None = None  # the Beta posterior of `feedback`
    decay: str | None = None  # its decay profile (fusion.DECAY_PROFILES)
    about_at: datetime | None = None  # the time its claim is about, when recorded

    @classmethod
    def of(
        cls,
        row: Mapping[str, Any],
        entity: Entity,
        score: float,
        arms: Mapping[str, int],
        prior: tuple[float, float] = FEEDBACK_PRIOR,
    ) -> Found:
        confidence = row.get("confidence")
        citations: tuple[Citation, ...] = ()
        if entity == "passage":  # a passage is its own evidence: its document and locator
            citations = (passage_citation(row),)
        return cls(
            store=entity,
            section=tuple(row.get("heading_path") or ()),
            citations=citations,
            id=int(row["id"]),
            scope="episodic" if entity == "trace" else "knowledge",
            score=score,
            type=row["type"],
            claim=row["claim"],
            content=row.get("content") or "",
            status=row.get("status"),
            confidence=None if confidence is None else float(confidence),
            topic=row.get("topic"),
            tags=tuple(row.get("tags") or ()),
            language=row.get("language"),
            doc_id=row.get("doc_id"),
            created_at=row.get("created_at"),
            arms=dict(arms),
            unsourced=bool(row.get("unsourced")),
            feedback=(fb := feedback_of(row)),
            feedback_confidence=None if fb is None else fb.confidence(prior),
            decay=row.get("decay"),
            about_at=row.get("about_at"),
        )


def feedback_of(row: Mapping[str, Any]) -> Feedback | None:
    """The feedback counters of a fetched atom or passage row (fb_*), None when never reported."""
    if row.get("fb_helped") is None:
        return None
    return Feedback(int(row["fb_helped"]), int(row["fb_misled"]), int(row["fb_used"]))


def passage_citation(row: Mapping[str, Any]) -> Citation:
    """Where a passage stands: its document version, locator and character span (the quote is
    the passage itself, given as the hit's text)."""
    return Citation(
        atom_id=0,
        doc_id=row.get("doc_id"),
        title=row.get("title"),
        uri=row.get("uri"),
        locator=row.get("locator") or "",
        quoted_text="",
        code_symbol_id=None,
        chunk_id=int(row["id"]),
        char_start=row.get("char_start"),
        char_end=row.get("char_end"),
        document_identity=row.get("identity_id"),
        document_version=row.get("version"),
        document_is_current=True,
    )


class Searcher:
    def __init__(self, db: Database, runtime: Engines):
        self.db = db
        self.runtime = runtime
        self.lexical = LexicalIndex()
        self.document_share = DOCUMENT_SHARE  # a bench may sweep it; 0 turns support off
        self.document_siblings = DOCUMENT_SIBLINGS
        self.store_share = STORE_SHARE  # a bench may sweep it (search/stores.py)
        self.kept_floor = KEPT_FLOOR
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

    # ------------------------------------------------------------------ arms
    def lexical_arm(
        self, conn: Conn, query: str, entity: Entity, flt: SearchFilter, k: int = POOL
    ) -> ArmResult:
        """BM25 over the tsvector (lexical.py); the weight follows the best hit's idf coverage."""
        where, params = flt.sql(entity)
        # An as-of search reads the passages of every version, each with its interval.
        source: Source = "passage_ever" if entity == "passage" and flt.as_of else entity
        found = self.lexical.search(conn, query, source, k, where, params)
        hits = [ArmHit(i, score) for i, score in found.hits]
        weight = lexical_weight(found.coverage) if hits else 0.0
        return ArmResult(hits, weight, found.note)

    def dense_arm(self, query: str, entity: Entity, flt: SearchFilter, k: int = POOL) -> ArmResult:
        """Nearest neighbours in the vector slice; the weight follows the best cosine."""
        embedder = self.runtime.embedder.get()
        # The query first: an Ollama embedder needs no engine host, which may still be starting.
        vector = embedder.embed_query(query)
        index = self.runtime.vectors.get()
        name = self.runtime.projector.collection(entity)
        found = index.search(name, vector, k=k, where=flt.vector_filter(entity), with_payload=False)
        hits = [ArmHit(h.id, h.score) for h in found]
        if not hits:
            return ArmResult([], 0.0, "no vector match")
        return ArmResult(hits, dense_weight(hits[0].score), f"top cosine {hits[0].score:.3f}")

    def graph_arm(
        self, conn: Conn, seeds: Sequence[Fused], k: int = POOL, *, as_of: datetime | None = None
    ) -> ArmResult:
        """One hop over links from the seeds, scored by seed score x kind weight x confidence;
        `as_of`: over the links as they were then."""
        if not seeds:
            return ArmResult([], 0.0)
        seed_score = {f.id: f.score for f in seeds}
        if as_of is None:
            rows = conn.execute(Q.graph_links, {"ids": list(seed_score)}).fetchall()
        else:
            rows = conn.execute(
                Q.graph_links_as_of, {"ids": list(seed_score), "t": as_of}
            ).fetchall()
        best: dict[int, float] = {}
        for r in rows:
            ends = ((r["src_atom_id"], r["dst_atom_id"]), (r["dst_atom_id"], r["src_atom_id"]))
            for seed, other in ends:
                if seed in seed_score and other != seed:
                    w = LINK_KIND_WEIGHT.get(r["kind"], 0.5) * float(r["confidence"])
                    best[other] = max(best.get(other, 0.0), seed_score[seed] * w)
        hits = sorted((ArmHit(i, s) for i, s in best.items()), key=lambda h: (-h.score, h.id))
        return ArmResult(hits[:k], GRAPH_SHARE if hits else 0.0)

    # ------------------------------------------------------------------ composition
    def _lexical_alone(self, query: str, entity: Entity, flt: SearchFilter, k: int) -> ArmResult:
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
    ) -> Ranked:
        """The fused ranking of one store. `lexical`: its lexical arm already sent (`search`
        sends every store's at once); else it is sent here."""
        ranked = Ranked(entity=entity, fused=[])
        # The lexical arm mostly waits on Postgres while the dense arm runs in this process:
        # with both, the lexical query is sent from a helper thread and the two overlap.
        if lexical is None and preset.lexical and preset.dense:
            lexical = self._helpers().submit(self._lexical_alone, query, entity, flt, pool)
        elif lexical is None and preset.lexical:
            ranked.arms["lexical"] = self._lexical_alone(query, entity, flt, pool)
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
        weights = {
            arm: (res.weight if preset.adaptive else (1.0 if res.hits else 0.0))
            for arm, res in ranked.arms.items()
        }
        if len(ranked.arms) == 1:  # a single arm is used as is
            weights = {arm: 1.0 for arm in ranked.arms}
        elif preset.fusion == "score":
            weights = {
                arm: w * (LEXICAL_SHARE if arm == "lexical" else 1.0 - LEXICAL_SHARE)
                for arm, w in weights.items()
            }
        support: Support | None = None
        if preset.documents and entity == "atom" and self.document_share > 0:
            support = self.support(ranked.arms)
        fused = self.fuse(preset, ranked.arms, weights, support)
        if preset.graph and entity == "atom" and fused:
            with self.db.connection() as conn:
                graph = self.graph_arm(conn, fused[:10], pool, as_of=flt.as_of)
            ranked.arms["graph"] = graph
            if graph.hits:
                weights["graph"] = graph.weight * max(weights.values(), default=1.0)
                fused = self.fuse(preset, ranked.arms, weights, support)
        ranked.fused = fused
        return ranked

    def support(self, arms: Mapping[str, ArmResult]) -> Support:
        """Document support for this ranking: the documents of the text arms' candidates,
        read from PostgreSQL (ingested atoms only: memory_store atoms have no `doc_id`)."""
        ids = sorted({h.id for r in arms.values() for h in r.hits})
        doc_of: dict[int, int] = {}
        if ids:
            with self.db.connection() as conn:
                rows = conn.execute(Q.atom_documents, {"ids": ids}).fetchall()
            doc_of = {int(r["id"]): int(r["doc_id"]) for r in rows}
        return Support(doc_of, self.document_share, self.document_siblings)

    @staticmethod
    def fuse(
        preset: Preset,
        arms: dict[str, ArmResult],
        weights: dict[str, float],
        support: Support | None = None,
    ) -> list[Fused]:
        lists = {a: r.hits for a, r in arms.items()}
        if preset.fusion == "rrf":
            fused = weighted_rrf(lists, weights)
            if support is None:
                return fused
            # ranks have no scale to lift within an arm: the fused scores get the support
            return document_support(
                fused, support.doc_of, share=support.share, siblings=support.siblings
            )
        # Min-max per arm: cosines sit in a narrow band far from 0, and the weakest BM25 hit of
        # the pool is as good as a miss (LoCoMo recall@10 0.725 dividing BM25 by its best, 0.734
        # min-max). Document support acts within the text arms (fusion.score_fusion).
        return score_fusion(lists, weights, minmax=("dense", "lexical"), support=support)

    def finish(
        self,
        ranked: Ranked,
        rows: dict[int, dict[str, Any]],
        preset: Preset,
        *,
        limit: int,
        half_life_days: float | None,
        now: datetime | None = None,
    ) -> list[Fused]:
        """Drop what the filters excluded, weigh status, feedback and age, diversify.

        Age counts from each row's reference time: the time its claim is about when recorded
        (a perishable atom's or passage's publication date), else when it was recorded. The
        call's `half_life_days` applies to every row; without it each row's decay profile gives
        its half-life (`decay_half_lives`), timeless rows none."""
        fused = [f for f in ranked.fused if f.id in rows]
        weigh_feedback = preset.status and ranked.entity != "trace" and self.feedback_weight > 0
        feedback: dict[int, Feedback] = {}
        if weigh_feedback:
            feedback = {i: fb for i, r in rows.items() if (fb := feedback_of(r)) is not None}
        reference = {i: r.get("about_at") or r["created_at"] for i, r in rows.items()}
        half_life_of = (
            {}
            if half_life_days
            else half_lives_of(
                {i: r["decay"] for i, r in rows.items() if r.get("decay")},
                self.decay_half_lives,
            )
        )
        if preset.status and ranked.entity == "atom":
            fused = adjust(
                fused,
                status={i: r["status"] for i, r in rows.items()},
                created_at=reference,
                half_life_days=half_life_days,
                unsourced={i for i, r in rows.items() if r.get("unsourced")},
                feedback=feedback,
                feedback_weight=self.feedback_weight,
                feedback_prior=self.feedback_prior,
                half_life_of=half_life_of,
                now=now,
            )
        elif half_life_days or half_life_of or feedback:
            fused = adjust(
                fused,
                status={},
                created_at=reference,
                half_life_days=half_life_days,
                feedback=feedback,
                feedback_weight=self.feedback_weight,
                feedback_prior=self.feedback_prior,
                half_life_of=half_life_of,
                now=now,
            )
        if preset.mmr and len(fused) > limit:
            pool = fused[: max(limit * 3, 20)]
            fused = mmr(pool, self._vectors(ranked.entity, [f.id for f in pool]), k=limit)
        return fused[:limit]

    def _vectors(self, entity: Entity, ids: list[int]) -> dict[int, Sequence[float]]:
        try:
            index = self.runtime.vectors.get()
            name = self.runtime.projector.collection(entity)
            return {
                r.id: r.vector
                for r in index.retrieve(name, ids, with_vectors=True, with_payload=False)
                if r.vector
            }
        except BackendUnavailable:
            return {}

    def fetch_rows(
        self, entity: Entity, ids: Sequence[int], flt: SearchFilter
    ) -> dict[int, dict[str, Any]]:
        """The rows of these ids that pass the filters (graph neighbours are checked here)."""
        if not ids:
            return {}
        where, params = flt.sql(entity)
        fetch = {"atom": Q.fetch_atoms, "passage": Q.fetch_passages, "trace": Q.fetch_traces}
        if flt.as_of is not None:
            fetch["passage"] = Q.fetch_passages_ever
        statement = sql.SQL(fetch[entity]).format(where=where)
        with self.db.connection() as conn:
            rows = conn.execute(statement, {"ids": list(ids), **params}).fetchall()
            found = {int(r["id"]): dict(r) for r in rows}
            if flt.as_of is not None and entity == "atom" and found:
                then = conn.execute(Q.statuses_as_of, {"ids": list(found), "t": flt.as_of})
                for r in then.fetchall():  # ranked and shown with the status it had then
                    found[int(r["id"])]["status"] = r["status"]
        return found

    def resolve_documents(self, flt: SearchFilter) -> SearchFilter:
        """Document ids name documents, not versions: an id of any version (as an earlier
        answer gave it) selects every version, so a new version is found under the old id."""
        if not flt.doc_ids:
            return flt
        with self.db.connection() as conn:
            versions = document_versions(conn, flt.doc_ids)
        return replace(flt, doc_ids=tuple(versions) or flt.doc_ids)

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
        the present; a benchmark asks as of its question's date)."""
        query = validate_query(query)
        if preset not in PRESETS:
            raise InvalidInput(f"unknown preset {preset!r}; use one of {', '.join(PRESETS)}")
        if stores not in STORE_CHOICES:
            raise InvalidInput(f"unknown store {stores!r}; use one of {', '.join(STORE_CHOICES)}")
        p = PRESETS[preset]
        flt = self.resolve_documents(flt or SearchFilter())
        knowledge: list[Entity] = []
        if stores in ("atoms", "both"):
            knowledge.append("atom")
        if stores in ("passages", "both") and not flt.atoms_only:
            knowledge.append("passage")
        entities: list[Entity] = (
            knowledge
            if scope == "knowledge"
            else ["trace"]
            if scope == "episodic"
            else [*knowledge, "trace"]
        )
        found: dict[Entity, list[Found]] = {}
        warnings: list[str] = []
        diagnostics: dict[str, Any] = {}
        preset_now = p
        pool = max(POOL, limit * 3)
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
        for entity in entities:
            ranked = self.rank(
                query, entity, preset_now, flt, pool=pool, lexical=lexical.get(entity)
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
            head = [f.id for f in ranked.fused[: max(limit * 3, 30)]]
            rows = self.fetch_rows(entity, head, flt)
            ranked.fused = [f for f in ranked.fused if f.id in rows]
            final = self.finish(
                ranked, rows, p, limit=limit, half_life_days=half_life_days, now=now
            )
            found[entity] = [
                Found.of(rows[f.id], entity, f.score, f.ranks, self.feedback_prior) for f in final
            ]
        atoms = found.get("atom", [])
        cites: dict[int, list[Citation]] = {}
        if atoms and (with_citations or "passage" in found):
            with self.db.connection() as conn:
                if flt.as_of is not None:
                    cites = citations_as_of(conn, [h.id for h in atoms], flt.as_of)
                else:
                    cites = citations_for(conn, [h.id for h in atoms])
        if with_citations:
            atoms = [replace(h, citations=tuple(cites.get(h.id, ()))) for h in atoms]
        hits = self._two_stores(atoms, found.get("passage", []), cites, limit)
        if "trace" in found:
            hits = sorted([*hits, *found["trace"]], key=lambda h: -h.score)[:limit]
        return hits, warnings, diagnostics

    def _two_stores(
        self,
        atoms: list[Found],
        passages: list[Found],
        cites: Mapping[int, Sequence[Citation]],
        limit: int,
    ) -> list[Found]:
        """Atoms and passages merged into one answer (search/stores.py): a passage an atom was
        cited from folds into that atom; a cap per store; a floor for the agent's own atoms."""
        if not passages:
            return atoms
        if not atoms:
            return passages[:limit]
        candidates = [
            Candidate(
                "atom",
                h.id,
                h.score,
                h.arms,
                frozenset(c.chunk_id for c in cites.get(h.id, ()) if c.chunk_id is not None),
                kept=h.doc_id is None or h.status == AtomStatus.VERIFIED,
            )
            for h in atoms
        ]
        loose = [Candidate("passage", h.id, h.score, h.arms) for h in passages]
        merged = merge(candidates, loose, limit, share=self.store_share, floor=self.kept_floor)
        by_key = {("atom", h.id): h for h in atoms} | {("passage", h.id): h for h in passages}
        return [replace(by_key[(c.store, c.id)], score=c.score, arms=dict(c.arms)) for c in merged]


def validate_query(query: str) -> str:
    if "\x00" in query:
        raise InvalidInput("the query contains a NUL character; remove it")
    if not query.strip():
        raise InvalidInput("the query is empty; say what to look for")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"the query is {len(query):,} characters; keep it under {MAX_QUERY_CHARS:,}"
        )
    return query.strip()
