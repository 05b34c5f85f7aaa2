"""The BM25 arm: candidate planning (pure) and, on a real Postgres, that pruning keeps the top."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from psycopg import sql

from pegas_memory.config import Settings
from pegas_memory.db.pool import Conn, Database
from pegas_memory.db.repo import AtomInput, insert_atom
from pegas_memory.search import lexical
from pegas_memory.search.lexical import (
    LexicalIndex,
    Term,
    coverage,
    lexemes_by_word,
    plan_candidates,
    tsquery_literal,
)


def term(lexeme: str, df: int, *words: int) -> Term:
    return Term(lexeme, frozenset(words), df)


def test_small_frequencies_are_not_pruned() -> None:
    plan = plan_candidates([term("a", 10, 0), term("b", 20, 1)], 1000)
    assert plan.extra is None and not plan.pruned
    assert plan.must == "( 'a' | 'b' )"


def test_rare_words_in_whole_common_words_in_pairs() -> None:
    terms = [
        term("rare", 5, 0),
        term("cell", 9000, 1),
        term("cells", 100, 1),  # a variant of the same word: never paired with "cell"
        term("express", 7000, 2),
        term("growth", 6000, 3),
        term("absent", 0, 4),
    ]
    plan = plan_candidates(terms, 100_000, rare_budget=50, pair_budget=10**6)
    assert plan.pruned
    assert plan.must == "'rare'"
    assert plan.extra is not None
    pairs = plan.extra.split(" | ( ")
    assert len(pairs) == 3  # {cell, cells} x express, x growth; express x growth
    assert "'absent'" not in plan.extra
    assert "( 'cell' | 'cells' ) & ( 'cell' | 'cells' )" not in plan.extra
    # the rarest pair first
    assert plan.extra.startswith("( 'growth' & 'express' )")


def test_pairs_stop_at_the_budget_but_one_is_always_kept() -> None:
    terms = [term("x", 9000, 0), term("y", 8000, 1), term("z", 7000, 2)]
    plan = plan_candidates(terms, 10_000, rare_budget=10, pair_budget=1)
    assert plan.must is None
    assert plan.extra == "( 'z' & 'y' )"


def test_a_single_common_word_is_scored_as_is() -> None:
    plan = plan_candidates([term("rare", 3, 0), term("cell", 9000, 1)], 100_000, rare_budget=10)
    assert not plan.pruned and plan.must == "( 'cell' | 'rare' )"


def test_coverage_weighs_words_by_idf() -> None:
    terms = [term("rare", 1, 0), term("common", 500, 1), term("unseen", 0, 2)]
    n = 1000
    full = coverage(["'rare'", "'common'"], terms, n)
    assert 0 < coverage(["'common'"], terms, n) < coverage(["'rare'"], terms, n) < full < 1
    assert coverage([], terms, n) == 0


def test_words_without_terms_count_as_unseen_in_coverage() -> None:
    terms = [term("denver", 40, 1)]
    keyword = coverage(["'denver'"], terms, 1000)
    sentence = coverage(["'denver'"], terms, 1000, words=4)  # "what did denver score"
    assert keyword == 1.0
    assert 0 < sentence < 0.5


def test_a_stopword_of_any_stemming_configuration_has_no_lexemes() -> None:
    rows = [
        ("the", "english", []),
        ("the", "russian", []),
        ("the", "simple", ["the"]),
        ("и", "english", ["и"]),
        ("и", "russian", []),
        ("и", "simple", ["и"]),
        ("cells", "english", ["cell"]),
        ("cells", "russian", ["cell"]),
        ("cells", "simple", ["cells"]),
        ("42", "english", ["42"]),
        ("42", "simple", ["42"]),
    ]
    assert lexemes_by_word(rows) == {"the": (), "и": (), "cells": ("cell", "cells"), "42": ("42",)}


def test_analysis_drops_stopwords_of_both_languages(settings: Settings) -> None:
    db = Database(settings).open()
    try:
        with db.connection() as conn:
            found = LexicalIndex().analyse(conn, ["the", "и", "cells", "кошки", "pegas"])
    finally:
        db.close()
    assert found["the"] == () and found["и"] == ()
    assert "cell" in found["cells"] and "cells" in found["cells"]
    assert "кошк" in found["кошки"]
    assert found["pegas"]


def test_prefix_terms_are_planned_as_prefixes() -> None:
    terms = [term("denver", 0, 0), Term("денве", frozenset({0}), 3, prefix=True)]
    assert plan_candidates(terms, 100).must == "'денве':*"


HOSTILE = ["it's", "back\\slash", "a:b", "!&|<->", "':*", "ёлка", "x'y\\'z", "(", "日本"]


def test_tsquery_literal_survives_hostile_lexemes(settings: Settings) -> None:
    db = Database(settings).open()
    try:
        with db.connection() as conn:
            for lx in HOSTILE:
                row = conn.execute(
                    "SELECT array_to_tsvector(ARRAY[%s]) @@ %s::tsquery AS hit,"
                    " array_to_tsvector(ARRAY['other']) @@ %s::tsquery AS miss",
                    (lx, tsquery_literal(lx), tsquery_literal(lx)),
                ).fetchone()
                assert row is not None and row["hit"] and not row["miss"], lx
    finally:
        db.close()


@pytest.fixture
def corpus_db(settings: Settings) -> Iterator[Database]:
    """600 atoms over a small vocabulary: common words everywhere, a few rare ones."""
    rng = random.Random(5)
    common = ["cell", "protein", "gene", "patient", "tissue", "growth", "signal", "level"]
    rare = ["kinase", "lupus", "plasmablast", "chemokine", "fibrosis", "telomere"]
    db = Database(settings).open()
    with db.transaction() as conn:
        for i in range(600):
            words = rng.sample(common, 4) + ([rng.choice(rare)] if i % 9 == 0 else [])
            words += [f"w{rng.randrange(3000)}" for _ in range(rng.randrange(2, 12))]
            rng.shuffle(words)
            insert_atom(conn, AtomInput(type="fact", claim=" ".join(words) + "."))
    yield db
    db.close()


QUERIES = [
    "kinase signal in patient tissue",
    "cell growth protein level",
    "lupus gene",
    "fibrosis telomere signal gene patient",
    "protein",
    "cell cells cellular",
]


def test_pruning_keeps_the_exact_top(corpus_db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    def top(budgets: tuple[int, int]) -> dict[str, list[int]]:
        monkeypatch.setattr(lexical, "RARE_BUDGET", budgets[0])
        monkeypatch.setattr(lexical, "PAIR_BUDGET", budgets[1])
        index = LexicalIndex()
        with corpus_db.connection() as conn:
            return {q: [i for i, _ in index.search(conn, q, "atom", 10).hits] for q in QUERIES}

    exact = top((10**9, 10**9))
    pruned = top((40, 20))
    for q in QUERIES:
        assert exact[q], q
        assert pruned[q][:3] == exact[q][:3], q
        assert len(set(pruned[q]) & set(exact[q])) >= 8, q


def test_filters_and_empty_results(corpus_db: Database) -> None:
    index = LexicalIndex()
    with corpus_db.connection() as conn:
        assert (
            index.search(conn, "zzzz qqqq", "atom", 10).note == "no query term occurs in the memory"
        )
        assert index.search(conn, "!!! ...", "atom", 10).note == "the query has no words"
        only = index.search(conn, "kinase", "atom", 10, sql.SQL(" AND t.id < 0"), {})
        assert only.hits == [] and only.note == "no lexical match"
        found = index.search(conn, "kinase", "atom", 10)
        assert found.hits and found.coverage == pytest.approx(1.0)


def test_a_filter_is_composed_with_placeholders_and_scored_through_it(corpus_db: Database) -> None:
    """SearchFilter.sql puts identifiers and named placeholders in the fragment, never values;
    the scoring statement of one shape is rendered once and reused for other filter values."""
    from pegas_memory.search.filters import SearchFilter

    facts, params = SearchFilter(types=("fact",), tags=("x'); DROP TABLE pm_atom; --",)).sql("atom")
    other, _ = SearchFilter(types=("definition",), tags=("y",)).sql("atom")
    index = LexicalIndex()
    with corpus_db.connection() as conn:
        rendered = facts.as_string(conn)
        assert rendered == (
            ' AND "t".type = ANY(%(f_types)s) AND "t".superseded_by IS NULL'
            ' AND "t".tags && %(f_tags)s::text[]'
        )
        assert params == {"f_types": ["fact"], "f_tags": ["x'); DROP TABLE pm_atom; --"]}
        assert not index.search(conn, "kinase", "atom", 10, facts, params).hits
        first = lexical._score_statement(conn, "atom", True, True, False, facts)
        assert lexical._score_statement(conn, "atom", True, True, False, other) is first
        assert b"NOT t.tsv @@ %(must)s::tsquery" in first and b'"t".type = ANY' in first
        must_only = lexical._score_statement(conn, "atom", True, False, True, sql.SQL(""))
        assert b"NOT t.tsv" not in must_only and b"%(pq)s::tsquery[]" in must_only


def test_a_name_found_only_through_its_cross_script_prefix(corpus_db: Database) -> None:
    with corpus_db.transaction() as conn:
        denver = insert_atom(conn, AtomInput(type="fact", claim="Денвер — столица Колорадо."))[0]
    index = LexicalIndex()
    with corpus_db.connection() as conn:
        found = index.search(conn, "Denver", "atom", 10)  # no exact lexeme occurs at all
        assert [i for i, _ in found.hits] == [denver]
        assert found.coverage == pytest.approx(1.0)
        both = index.search(conn, "Denver Colorado kinase", "atom", 10)
        assert denver in [i for i, _ in both.hits]


def test_a_new_atom_is_found_at_once_despite_the_caches(settings: Settings) -> None:
    """The caches never hide a write: an empty memory, or a word no atom had, is asked again
    on the next search, and a stale (smaller) N never makes an idf negative."""
    db = Database(settings).open()
    index = LexicalIndex()
    try:
        with db.connection() as conn:
            assert index.search(conn, "zyzzyva habitat", "atom", 10).note == "empty corpus"
        with db.transaction() as conn:
            first, _ = insert_atom(conn, AtomInput(type="fact", claim="Beetles live in logs."))
        with db.connection() as conn:
            assert [i for i, _ in index.search(conn, "beetles", "atom", 10).hits] == [first]
            assert not index.search(conn, "zyzzyva habitat", "atom", 10).hits
        with db.transaction() as conn:
            new, _ = insert_atom(
                conn, AtomInput(type="fact", claim="The zyzzyva weevil's habitat is the tropics.")
            )
            for n in range(5):  # N (cached at 1) is now well below the df of "habitat"
                insert_atom(conn, AtomInput(type="fact", claim=f"Habitat note number {n}."))
        with db.connection() as conn:
            hits = index.search(conn, "zyzzyva habitat", "atom", 10).hits
        assert hits[0][0] == new
        assert all(score > 0 for _, score in hits)
    finally:
        db.close()
    assert lexical.idf(1, 6) >= 0


def test_a_new_row_unblocks_every_cached_zero_not_only_the_next_querys(
    settings: Settings,
) -> None:
    db = Database(settings).open()
    index = LexicalIndex()
    try:
        with db.transaction() as conn:
            insert_atom(conn, AtomInput(type="fact", claim="Beetles live in logs."))
        with db.connection() as conn:
            assert not index.search(conn, "zyzzyva", "atom", 10).hits  # a zero, cached
        with db.transaction() as conn:
            new, _ = insert_atom(conn, AtomInput(type="fact", claim="A zyzzyva is a weevil."))
        with db.connection() as conn:
            assert not index.search(conn, "quokka", "atom", 10).hits  # another zero, counted now
            assert [i for i, _ in index.search(conn, "zyzzyva", "atom", 10).hits] == [new]
    finally:
        db.close()


def test_a_cached_zero_beside_a_present_word_still_sees_a_new_row(settings: Settings) -> None:
    """Warm, the zeros are checked in the scoring round trip: a row that came with the word
    is found by the next search all the same."""
    db = Database(settings).open()
    index = LexicalIndex()
    try:
        with db.transaction() as conn:
            beetles, _ = insert_atom(conn, AtomInput(type="fact", claim="Beetles live in logs."))
        with db.connection() as conn:
            hits = index.search(conn, "beetles zyzzyva", "atom", 10).hits  # zyzzyva: a zero
            assert [i for i, _ in hits] == [beetles]
            assert [i for i, _ in index.search(conn, "beetles zyzzyva", "atom", 10).hits] == [
                beetles
            ]  # every count cached now
        with db.transaction() as conn:
            new, _ = insert_atom(conn, AtomInput(type="fact", claim="A zyzzyva is a weevil."))
        with db.connection() as conn:
            hits = index.search(conn, "beetles zyzzyva", "atom", 10).hits
        assert sorted(i for i, _ in hits) == sorted([beetles, new])
    finally:
        db.close()


def _passage(conn: Conn, uri: str, text: str) -> int:
    """A current document version with one chunk (a passage); the chunk's id."""
    doc = conn.execute(
        "INSERT INTO pm_document (kind, uri, content_hash) VALUES ('text', %s, md5(%s)) "
        "RETURNING id",
        (uri, uri),
    ).fetchone()
    assert doc is not None
    row = conn.execute(
        "INSERT INTO pm_chunk (doc_id, ord, content, content_hash, language) "
        "VALUES (%s, 0, %s, md5(%s), 'en') RETURNING id",
        (doc["id"], text, text),
    ).fetchone()
    assert row is not None
    return int(row["id"])


def test_a_new_passage_unblocks_a_cached_zero_of_the_passages(settings: Settings) -> None:
    db = Database(settings).open()
    index = LexicalIndex()
    try:
        with db.transaction() as conn:
            _passage(conn, "https://example.org/beetles", "Beetles live in logs.")
        with db.connection() as conn:
            assert not index.search(conn, "zyzzyva", "passage", 10).hits  # a zero, cached
        with db.transaction() as conn:
            new = _passage(conn, "https://example.org/weevils", "A zyzzyva is a weevil.")
        with db.connection() as conn:
            assert [i for i, _ in index.search(conn, "zyzzyva", "passage", 10).hits] == [new]
    finally:
        db.close()
