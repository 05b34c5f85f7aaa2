"""The BM25 terms of the sparse lexical index (qdrant_store/sparse_terms.py): pure logic."""

from __future__ import annotations

import pytest

from pegas_memory.qdrant_store import sparse_terms as st


def ids(*terms: str) -> set[int]:
    return {st.term_id(t) for t in terms}


def test_russian_inflections_share_their_stem_term() -> None:
    assert st.word_terms("чёрное")[0] == st.word_terms("чёрного")[0]
    assert st.word_terms("моря")[0] == st.word_terms("море")[0]
    assert st.word_terms("реки") == ("s:рек",)


def test_english_inflections_share_their_stem_term() -> None:
    assert st.word_terms("flows") == ("s:flow",)
    assert st.word_terms("flowing")[0] == "s:flow"
    assert st.word_terms("countries")[0] == st.word_terms("country")[0]


def test_other_scripts_and_numbers_stay_whole() -> None:
    assert st.word_terms("1888") == ("s:1888",)
    assert st.word_terms("東京") == ("s:東京",)


@pytest.mark.parametrize("word", ["the", "and", "и", "в", "через", "что"])
def test_stopwords_of_either_language_have_no_terms(word: str) -> None:
    assert st.word_terms(word) == ()


def test_the_plain_word_is_a_term_of_its_own_only_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(st, "PLAIN_WORDS", True)
    st.word_terms.cache_clear()
    try:
        assert st.word_terms("flows") == ("s:flow", "w:flows")
        assert st.word_terms("flow") == ("s:flow",)
    finally:
        monkeypatch.undo()
        st.word_terms.cache_clear()


def test_term_ids_are_stable_unsigned_32_bit_hashes() -> None:
    # BLAKE2b with a 4-byte digest, big-endian: the same on every machine and every run.
    assert st.term_id("s:flow") == 3516222846
    assert 0 <= st.term_id("w:реки") < 2**32
    assert st.term_id("s:flow") != st.term_id("w:flow")


def test_document_side_is_saturated_term_frequency_with_length_normalisation() -> None:
    once = st.document_vector(["Danube river"], "atom")
    twice = st.document_vector(["Danube river, the Danube"], "atom")
    danube = st.term_id("s:danub")
    weight = dict(zip(once.indices, once.values, strict=True))[danube]
    weight_twice = dict(zip(twice.indices, twice.values, strict=True))[danube]
    assert weight_twice > weight  # more occurrences weigh more ...
    assert weight_twice < 2 * weight  # ... but saturate
    long_text = "Danube " + " ".join(f"word{i}" for i in range(200))
    long_vector = st.document_vector([long_text], "atom")
    long_weight = dict(zip(long_vector.indices, long_vector.values, strict=True))
    assert long_weight[danube] < weight  # a long document's one occurrence counts less
    assert list(once.indices) == sorted(once.indices)


def test_document_side_counts_every_text_of_a_point_together() -> None:
    vector = st.document_vector(["Дунай впадает в море", "", "Реки Европы"], "passage")
    assert ids("s:дуна", "s:мор", "s:рек", "s:европ") <= set(vector.indices)
    assert not st.document_vector(["и в на"], "atom").indices


def test_query_side_weighs_every_term_one_and_remembers_its_words() -> None:
    query = st.query_vector("Where does the Danube flow?")
    assert set(query.vector.values) == {1.0}
    assert ids("s:danub", "s:flow") == set(query.vector.indices)
    assert query.words == 5  # "where", "does" and "the" are stopwords: they count, unmatched
    assert [bool(w) for w in query.word_ids] == [False, False, False, True, True]


def test_coverage_is_the_share_of_query_words_a_hit_holds() -> None:
    query = st.query_vector("Danube flows Black Sea")
    hit = st.document_vector(["The Danube reaches the Black Sea"], "atom")
    assert st.word_coverage(query, hit.indices) == pytest.approx(3 / 4)
    assert st.word_coverage(st.query_vector("the and"), hit.indices) == 0.0
