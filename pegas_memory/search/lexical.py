"""The lexical arm: BM25 over the tsvector of atoms, passages or episodic traces, in Postgres.

A query is cut into words; each word is analysed with the russian, english and simple text-search
configurations (russian stems Cyrillic and hands Latin words to the English stemmer), which gives
its lexemes. Document frequencies are counted through the GIN index, N and the average document
length come from cheap corpus statistics, and all three are cached for a minute (the analysis of
a word never changes, so it is kept for good), so a warm query costs one statement.

Scoring every document that shares any term with the query does not scale: at 100k atoms a
query of ordinary words touches thousands of rows. `plan_candidates` (pure) keeps the documents
that can reach the top instead: those containing one of the query's rare words (together at most
`RARE_BUDGET` documents) or at least two of its other words. A document holding a single common
word scores below either kind. Candidates are then scored with full BM25 over every query term.
If the pruned plan yields fewer than k documents, the plain union is scored instead.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any, Literal

from psycopg import sql

from pegas_memory.db.pool import Conn
from pegas_memory.db.sql import compose
from pegas_memory.search.queries import SEARCH_SQL as Q
from pegas_memory.search.translit import cross_script_prefix

Entity = Literal["atom", "trace", "passage"]
# What BM25 reads: an entity's rows, or the passages of every version with the interval each
# version was current (`passage_ever`, migration 0016: an as-of search).
Source = Literal["atom", "trace", "passage", "passage_ever"]
# The rows each entity's BM25 scores: passages are the chunks of current document versions.
TABLE: Mapping[Source, str] = {
    "atom": "pm_atom",
    "trace": "pm_episodic_trace",
    "passage": "pm_passage",
    "passage_ever": "pm_passage_ever",
}
# The table whose planner estimate sizes an entity (a view has none of its own).
ESTIMATED: Mapping[Source, str] = {**TABLE, "passage": "pm_chunk", "passage_ever": "pm_chunk"}
TEXT_CONFIGS = ("russian", "english", "simple")
BM25_K1 = 1.2
BM25_B = 0.75
MAX_WORDS = 64
# Documents holding a rare word are all scored while the rare words' frequencies add up to this.
RARE_BUDGET = 500
# The other words are paired (a document must hold both of a pair), rarest pairs first, while
# their expected joint frequencies add up to this.
PAIR_BUDGET = 300
# Hard cap on the candidates one query scores (about 15 microseconds each).
CANDIDATE_CAP = 2_000
STATS_TTL = 60.0
# Below this many rows N and the average length are counted exactly; above, estimated.
EXACT_STATS_ROWS = 50_000
STATS_SAMPLE_ROWS = 10_000
CACHE_LIMIT = 200_000
_WORD = re.compile(r"\w+", re.UNICODE)
NO_FILTER = sql.SQL("")


@dataclass(frozen=True)
class _TableStatements:
    """The statements over one entity's table, composed once at import (the table is fixed)."""

    corpus_exact: sql.Composed
    corpus_sampled: sql.Composed
    frequencies: sql.Composed
    newest: sql.Composed
    table: sql.Identifier


def _table_statements(table: str, base: str) -> _TableStatements:
    """`base`: the table behind the entity's rows (a view's base table), which a block sample
    reads (a view cannot be sampled) and whose newest id says whether rows came. For passages
    that is pm_chunk: max(id) over the pm_passage view is a join of every chunk with its
    document (PostgreSQL answers max() from an index only for a single table), which cost
    about 10 ms per search at 50k passages, on every search (bench_search_latency.py)."""
    return _TableStatements(
        corpus_exact=compose(Q.corpus_exact, table=table),
        corpus_sampled=compose(Q.corpus_sampled, table=base),
        frequencies=compose(Q.document_frequencies, table=table),
        newest=compose(Q.newest_id, table=base),
        table=sql.Identifier(table),
    )


_SQL: Mapping[Source, _TableStatements] = {
    e: _table_statements(t, ESTIMATED[e]) for e, t in TABLE.items()
}
# The prefix parts of the scoring statement, with and without prefix terms.
_PREFIX_PARTS = {
    True: {
        "prefix_score": sql.SQL(Q.prefix_score),
        "prefix_join": sql.SQL(Q.prefix_join),
        "prefix_matched": sql.SQL(Q.prefix_matched),
    },
    False: {
        "prefix_score": sql.SQL(Q.no_prefix_score),
        "prefix_join": sql.SQL(""),
        "prefix_matched": sql.SQL(Q.no_prefix_matched),
    },
}


@dataclass(frozen=True)
class Term:
    """One lexeme of the query (or, with `prefix`, a cross-script prefix of a word: any lexeme
    starting with it matches): the words (by position) it came from and its frequency."""

    lexeme: str
    words: frozenset[int]
    df: int
    prefix: bool = False

    @property
    def query(self) -> str:
        """The term as tsquery input."""
        return tsquery_literal(self.lexeme) + (":*" if self.prefix else "")


@dataclass(frozen=True)
class LexicalResult:
    hits: list[tuple[int, float]]  # (id, BM25 score), best first
    coverage: float  # share of the query's idf mass the best hit matched, 0..1
    note: str


def query_words(query: str) -> list[str]:
    """Distinct lower-cased words of the query, in order, at most MAX_WORDS."""
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))[:MAX_WORDS]


def lexemes_by_word(rows: Iterable[tuple[str, str, Sequence[str]]]) -> dict[str, tuple[str, ...]]:
    """(word, configuration, its lexemes) rows -> word -> sorted distinct lexemes, with no
    lexemes for a word any stemming configuration (all but `simple`) dropped as a stopword."""
    found: dict[str, set[str]] = {}
    stop: set[str] = set()
    for word, cfg, lexemes in rows:
        found.setdefault(word, set()).update(lexemes)
        if not lexemes and cfg != "simple":
            stop.add(word)
    return {w: () if w in stop else tuple(sorted(lx)) for w, lx in found.items()}


def idf(n: int, df: int) -> float:
    n = max(n, df)  # N may be a minute old while df is fresh: never a negative idf
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def tsquery_literal(lexeme: str) -> str:
    """A lexeme quoted for tsquery input: parsed verbatim, never normalised again."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def _any_of(terms: Collection[Term]) -> str:
    inner = " | ".join(sorted({t.query for t in terms}))
    return f"( {inner} )" if len(terms) > 1 else inner


@dataclass(frozen=True)
class Plan:
    """Which documents to score: all holding `must` (a tsquery, None: none), then up to the cap
    of those holding `extra`."""

    must: str | None
    extra: str | None = None

    @property
    def pruned(self) -> bool:
        return self.extra is not None


def union_plan(terms: Sequence[Term]) -> Plan:
    """Every document that holds any present term."""
    return Plan(_any_of([t for t in terms if t.df > 0]))


def plan_candidates(
    terms: Sequence[Term],
    n: int,
    *,
    rare_budget: int | None = None,
    pair_budget: int | None = None,
) -> Plan:
    """The documents worth scoring for these terms, in a corpus of n documents.

    Each word of the query stands for the set of its present variants; its frequency is their
    sum. The rarest words go in whole (`must`) while their frequencies add up to at most
    `rare_budget`. Among the other words a document must hold two different ones (`extra`):
    pairs are taken most informative first (rarest together) while their expected joint
    frequency (df_a x df_b / n, as if independent) adds up to at most `pair_budget`.
    With nothing to prune, the plain union.
    """
    rare_budget = RARE_BUDGET if rare_budget is None else rare_budget
    pair_budget = PAIR_BUDGET if pair_budget is None else pair_budget
    present = [t for t in terms if t.df > 0]
    groups: set[frozenset[Term]] = set()
    for w in {w for t in present for w in t.words}:
        groups.add(frozenset(t for t in present if w in t.words))
    if sum(t.df for t in present) <= rare_budget or len(groups) < 2:
        return union_plan(present)
    freq = {g: sum(t.df for t in g) for g in groups}
    words = sorted(groups, key=lambda g: (freq[g], sorted(t.query for t in g)))
    rare: list[frozenset[Term]] = []
    spent = 0
    for g in words:
        if spent + freq[g] > rare_budget:
            break
        rare.append(g)
        spent += freq[g]
    common = words[len(rare) :]
    if len(common) < 2:  # nothing to pair: the rare words, or a single common word
        return union_plan(present)
    rank = {g: i for i, g in enumerate(words)}
    pairs = sorted(
        combinations(common, 2), key=lambda p: (freq[p[0]] * freq[p[1]], rank[p[0]], rank[p[1]])
    )
    chosen: list[str] = []
    expected = 0.0
    for a, b in pairs:
        joint = freq[a] * freq[b] / max(n, 1)
        if chosen and expected + joint > pair_budget:
            break
        chosen.append(f"( {_any_of(a)} & {_any_of(b)} )")
        expected += joint
    must = _any_of(set().union(*rare)) if rare else None
    return Plan(must, " | ".join(chosen))


def coverage(
    matched: Collection[str], terms: Sequence[Term], n: int, words: int | None = None
) -> float:
    """Share of the query's words (weighted by idf) that the matched terms (`Term.query`)
    account for.

    A word weighs as its rarest variant that occurs at all, or as a never-seen word if none
    does; so an English question over Russian text covers almost nothing. With `words` (how
    many words the query has), the words that have no term at all (stopwords) weigh as
    never-seen words too: no hit accounts for them, so a question in full sentences covers
    less than its keywords would, and the dense arm leads on it (XQuAD en->ru nDCG@10 0.909
    this way, 0.906 leaving them out).
    """
    word_idf: dict[int, float] = {}
    for t in terms:
        for w in t.words:
            value = idf(n, t.df) if t.df > 0 else 0.0
            word_idf[w] = max(word_idf.get(w, 0.0), value)
    for w in range(words or 0):
        word_idf.setdefault(w, 0.0)
    unseen = idf(n, 0)
    weights = {w: (v if v > 0 else unseen) for w, v in word_idf.items()}
    matched_set = set(matched)
    hit_words = {w for t in terms if t.query in matched_set for w in t.words}
    total = sum(weights.values()) or 1.0
    return sum(weights[w] for w in hit_words) / total


class _TimedCache:
    """A thread-safe dict whose entries expire (ttl None: never); cleared when it grows big."""

    def __init__(self, ttl: float | None, limit: int = CACHE_LIMIT):
        self.ttl, self.limit = ttl, limit
        self._data: dict[Any, tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def get_many(self, keys: Sequence[Any]) -> dict[Any, Any]:
        now = time.monotonic()
        with self._lock:
            found = {k: self._data.get(k) for k in keys}
        return {
            k: v[1]
            for k, v in found.items()
            if v is not None and (self.ttl is None or now - v[0] < self.ttl)
        }

    def put_many(self, items: Mapping[Any, Any]) -> None:
        now = time.monotonic()
        with self._lock:
            if len(self._data) + len(items) > self.limit:
                self._data.clear()
            self._data.update({k: (now, v) for k, v in items.items()})

    def drop(self, keys: Sequence[Any]) -> None:
        with self._lock:
            for k in keys:
                self._data.pop(k, None)

    def drop_if(self, stale: Callable[[Any, Any], bool]) -> None:
        """Drop every entry whose (key, value) `stale` accepts."""
        with self._lock:
            self._data = {k: kv for k, kv in self._data.items() if not stale(k, kv[1])}

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


class LexicalIndex:
    """BM25 over a table's tsvector column; caches analysis, frequencies and corpus statistics."""

    def __init__(self) -> None:
        self._lexemes = _TimedCache(ttl=None)  # word -> lexemes (analysis is deterministic)
        self._df = _TimedCache(ttl=STATS_TTL)  # (entity, lexeme) -> document frequency
        self._stats = _TimedCache(ttl=STATS_TTL)  # entity -> (N, avgdl)
        self._zeros_at: dict[str, int] = {}  # entity -> newest id when its cached zeros held

    def invalidate(self) -> None:
        """Forget frequencies and statistics (after a bulk change); analysis stays valid."""
        self._df.clear()
        self._stats.clear()

    # ------------------------------------------------------------------ cached lookups
    def corpus_stats(self, conn: Conn, entity: Source) -> tuple[int, float]:
        """(N, average distinct lexemes per row): exact for small tables, sampled for big ones."""
        cached = self._stats.get_many([entity])
        if entity in cached:
            return cached[entity]  # type: ignore[no-any-return]
        row = conn.execute(Q.table_estimate, (ESTIMATED[entity],)).fetchone()
        estimate = int(row["n"]) if row else -1
        if estimate < EXACT_STATS_ROWS:  # -1: never analysed
            row = conn.execute(_SQL[entity].corpus_exact).fetchone()
            n, avgdl = (int(row["n"]), float(row["avgdl"])) if row else (0, 1.0)
        else:
            percent = min(100.0, 100.0 * STATS_SAMPLE_ROWS / estimate)
            row = conn.execute(_SQL[entity].corpus_sampled, (percent,)).fetchone()
            n, avgdl = estimate, float(row["avgdl"]) if row else 1.0
        stats = (n, max(avgdl, 1.0))
        if n > 0:  # an empty table is asked again: its first row must be found at once
            self._stats.put_many({entity: stats})
        return stats

    def analyse(self, conn: Conn, words: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """word -> its lexemes under every configuration; none for a stopword.

        A word that a stemming configuration drops is a stopword of that language ("the",
        "и"): it gets no lexemes at all, or the `simple` configuration would bring it back as
        a term of its own (SciFact lexical nDCG@10 0.677 with such terms, 0.686 without).
        The scripts keep the languages apart, so no word is a stopword in one and a content
        word in the other.
        """
        known: dict[str, tuple[str, ...]] = self._lexemes.get_many(words)
        missing = [w for w in words if w not in known]
        if missing:
            rows = conn.execute(Q.analyse_words, (missing, list(TEXT_CONFIGS))).fetchall()
            fresh = {w: () for w in missing} | lexemes_by_word(
                (r["word"], r["cfg"], r["lexemes"]) for r in rows
            )
            self._lexemes.put_many(fresh)
            known |= fresh
        return known

    def frequencies(self, conn: Conn, entity: Source, queries: Sequence[str]) -> dict[str, int]:
        """tsquery text (one term) -> number of rows matching it (through the GIN index).

        Counts are cached for a minute, but a zero (a word no row holds yet) only while the
        table's newest id stays the same: an atom stored a second ago with a new word is found
        at once, for one cheap index probe per search instead of counting such words again
        (an English query brings a Cyrillic prefix per word, all zeros in English text)."""
        keys = [(entity, q) for q in queries]
        cached = self._df.get_many(keys)
        newest: int | None = None
        if any(df == 0 for df in cached.values()):
            newest = self._newest(conn, entity)
            if newest != self._zeros_at.get(entity):  # rows came: every cached zero may be stale
                self._forget_zeros(entity)
                cached = {k: df for k, df in cached.items() if df > 0}
        known = {q: cached[(entity, q)] for q in queries if (entity, q) in cached}
        missing = [q for q in queries if q not in known]
        if missing:
            if newest is None:  # read before counting: a row added meanwhile shows up as new
                newest = self._newest(conn, entity)
            rows = conn.execute(_SQL[entity].frequencies, (missing,)).fetchall()
            fresh = {r["query"]: int(r["df"]) for r in rows}
            if any(df == 0 for df in fresh.values()):
                if newest != self._zeros_at.get(entity):
                    self._forget_zeros(entity)  # zeros counted before `newest` no longer hold
                self._zeros_at[entity] = newest
            self._df.put_many({(entity, q): df for q, df in fresh.items()})
            known |= fresh
        return known

    def _forget_zeros(self, entity: Source) -> None:
        self._df.drop_if(lambda key, df: key[0] == entity and df == 0)
        self._stats.drop([entity])  # N grew with the new rows too

    @staticmethod
    def _newest(conn: Conn, entity: Source) -> int:
        row = conn.execute(_SQL[entity].newest).fetchone()
        return int(row["id"]) if row else 0

    # ------------------------------------------------------------------ the arm
    def search(
        self,
        conn: Conn,
        query: str,
        entity: Source,
        k: int,
        where: sql.Composable = NO_FILTER,
        params: Mapping[str, Any] | None = None,
    ) -> LexicalResult:
        """Top-k rows by BM25; `where` is a filter fragment on alias t (starting with AND),
        composed through psycopg.sql with its values as named placeholders in `params`."""
        words = query_words(query)
        if not words:
            return LexicalResult([], 0.0, "the query has no words")
        analysed = self.analyse(conn, words)
        word_of: dict[tuple[str, bool], set[int]] = {}
        for pos, word in enumerate(words):
            for lx in analysed.get(word, ()):
                word_of.setdefault((lx, False), set()).add(pos)
            if (other := cross_script_prefix(word)) is not None:
                word_of.setdefault((other, True), set()).add(pos)
        if not word_of:
            return LexicalResult([], 0.0, "no searchable terms")
        n, avgdl = self.corpus_stats(conn, entity)
        if n == 0:
            return LexicalResult([], 0.0, "empty corpus")
        bare = [Term(lx, frozenset(ws), 0, prefix) for (lx, prefix), ws in word_of.items()]
        dfs = self.frequencies(conn, entity, [t.query for t in bare])
        if max(dfs.values(), default=0) > n:  # the memory grew since N was counted
            self._stats.drop([entity])
            n, avgdl = self.corpus_stats(conn, entity)
        terms = [replace(t, df=dfs.get(t.query, 0)) for t in bare]
        present = [t for t in terms if t.df > 0]
        if not present:
            return LexicalResult([], 0.0, "no query term occurs in the memory")
        plan = plan_candidates(terms, n)
        exact = [t for t in present if not t.prefix]
        prefixes = [t for t in present if t.prefix]
        scoring = {
            "lex": [t.lexeme for t in exact],
            "idf": [idf(n, t.df) for t in exact],
            "pq": [t.query for t in prefixes],
            "pidf": [idf(n, t.df) for t in prefixes],
            "avgdl": avgdl,
            "k1": BM25_K1,
            "b": BM25_B,
            "cap": CANDIDATE_CAP,
            "k": k,
            **(params or {}),
        }
        with_prefixes = bool(prefixes)
        rows = self._score(conn, entity, plan, with_prefixes, where, scoring)
        if plan.pruned and len(rows) < k:  # too few documents hold rare or paired words
            rows = self._score(conn, entity, union_plan(present), with_prefixes, where, scoring)
        if not rows:
            return LexicalResult([], 0.0, "no lexical match")
        top = rows[0]
        matched = {tsquery_literal(lx) for lx in top["lexemes"]} | set(top["prefixes"])
        cover = coverage(matched, terms, n, len(words))
        hits = [(int(r["id"]), float(r["score"])) for r in rows]
        return LexicalResult(hits, cover, f"coverage {cover:.2f}")

    @staticmethod
    def _score(
        conn: Conn,
        entity: Source,
        plan: Plan,
        with_prefixes: bool,
        where: sql.Composable,
        params: Mapping[str, Any],
    ) -> list[Any]:
        statement = _score_statement(
            conn, entity, bool(plan.must), bool(plan.extra), with_prefixes, where
        )
        return conn.execute(
            statement, {**params, "must": plan.must, "extra": plan.extra}
        ).fetchall()


# Rendered scoring statements by shape: composing one costs about 70 microseconds, a lookup
# about 2, and a search runs one or two. The shapes are few (entity x plan x prefixes x which
# filters are set), so the cache stays small; it is cleared if it ever grows past the limit.
_SCORE_STATEMENTS: dict[tuple[Source, bool, bool, bool, bytes], bytes] = {}
_SCORE_STATEMENTS_LIMIT = 1_024


def _score_statement(
    conn: Conn, entity: Source, must: bool, extra: bool, with_prefixes: bool, where: sql.Composable
) -> bytes:
    """The BM25 statement for this plan shape and filter, rendered once and then reused."""
    key = (entity, must, extra, with_prefixes, where.as_bytes(conn))
    found = _SCORE_STATEMENTS.get(key)
    if found is not None:
        return found
    table = _SQL[entity].table
    parts: list[sql.Composable] = []
    if must:
        parts.append(sql.SQL(Q.candidates_must).format(table=table, where=where))
    if extra:
        exclude = sql.SQL(Q.exclude_must) if must else sql.SQL("")
        parts.append(sql.SQL(Q.candidates_extra).format(table=table, exclude=exclude, where=where))
    statement = sql.SQL(Q.bm25_score).format(
        candidates=sql.SQL(" UNION ALL ").join(parts), **_PREFIX_PARTS[with_prefixes]
    )
    rendered = statement.as_bytes(conn)
    if len(_SCORE_STATEMENTS) >= _SCORE_STATEMENTS_LIMIT:
        _SCORE_STATEMENTS.clear()
    _SCORE_STATEMENTS[key] = rendered
    return rendered
