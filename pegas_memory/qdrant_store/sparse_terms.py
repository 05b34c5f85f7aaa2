"""BM25 as sparse vectors: the terms of a text and their weights, for the vector engine's index.

Qdrant scores a sparse query against a sparse document as the dot product, and with the IDF
modifier on the collection it multiplies each term by its inverse document frequency, which the
engine counts itself. So the document side holds each term's saturated term frequency
(`tf (k1 + 1) / (tf + k1 (1 - b + b len / avglen))`) and the query side holds 1 per term: the
sum is BM25 (the documented way to do BM25 in Qdrant).

The terms are the ones PostgreSQL's lexical arm uses, computed here instead of by
`to_tsvector`: words (`\\w+`, lower-cased, ё kept) that are not stopwords of PostgreSQL's
english or russian configurations (the files under `stopwords/`, copied from PostgreSQL 15's
tsearch_data, themselves the Snowball lists), each giving its Snowball stem (russian for Cyrillic
words, english for Latin ones, as the russian configuration does; PyStemmer, the same algorithms
as PostgreSQL's snowball dictionaries). Words of other scripts and numbers are kept as they are.
The plain word as a second term (an exact form scoring above another form of the same stem) is
there behind `PLAIN_WORDS` and off: it measured worse. Term ids are the first 4 bytes of the
term's BLAKE2b digest (a u32, the engine's index type), with the stem and the word in separate
namespaces ("s:", "w:"); at 100k distinct terms about one pair collides (n^2 / 2^33), measured
on the bench's vocabulary in bench/results/search-lexical-sparse.md.

The length is the number of terms the text yields (its stems, counted with repeats; PostgreSQL's
BM25 counts distinct lexemes); the average length is fixed per store (`AVG_TERMS`), since a
point's weights are written once: a stored average would change every point's weights as the
memory grows.

What this cannot do: the cross-script prefixes of search/translit.py (a Latin query word
matching the start of a Cyrillic lexeme, "тесл" for "Tesla"): a sparse index matches whole term
ids only. The sparse arm leaves those out.

Pure functions only; the projection (outbox/projection.py) writes the vectors, the lexical arm
(search/arms.py) queries them. It lives beside the vector slice, whose `SparseVector` it makes
(a driver's own type, below both of the domain families that read it).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Literal

import Stemmer

from pegas_memory.qdrant_store.index import SparseVector

Kind = Literal["atom", "passage", "trace"]
BM25_K1 = 1.2
BM25_B = 0.75
# Average terms per point, fixed per store (the module docstring says why): about what an
# atom (a sentence and its context's words) and a passage (a chunk of up to 1,200 characters,
# the chunker's limit when this was measured; 2,000 since) hold.
AVG_TERMS: Mapping[Kind, float] = {"atom": 16.0, "passage": 80.0, "trace": 32.0}
MAX_TERM_CHARS = 64
# Whether a word whose stem differs from it is also a term of its own (its exact form). Off: on
# SciFact it cost 0.026 lexical nDCG@10 (bench/results/search-lexical-sparse.md).
PLAIN_WORDS = False
_WORD = re.compile(r"\w+", re.UNICODE)
_CYRILLIC = re.compile(r"[а-яё]+")
_LATIN = re.compile(r"[a-z]+")


@cache
def stopwords() -> frozenset[str]:
    """PostgreSQL's english and russian stopwords (one set: the scripts keep them apart)."""
    words: set[str] = set()
    for name in ("english.stop", "russian.stop"):
        text = (
            resources.files("pegas_memory.qdrant_store")
            .joinpath("stopwords", name)
            .read_text("utf-8")
        )
        words.update(w.strip() for w in text.splitlines() if w.strip())
    return frozenset(words)


@cache
def _stemmer(language: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(language)


@lru_cache(maxsize=200_000)
def word_terms(word: str) -> tuple[str, ...]:
    """The terms of one lower-cased word: its stem ("s:") and, with PLAIN_WORDS and if it
    differs, itself ("w:");
    none for a stopword or an overlong word."""
    if word in stopwords() or len(word) > MAX_TERM_CHARS:
        return ()
    if _CYRILLIC.fullmatch(word):
        stem = _stemmer("russian").stemWord(word)
    elif _LATIN.fullmatch(word):
        stem = _stemmer("english").stemWord(word)
    else:
        stem = word
    return (f"s:{stem}",) if stem == word or not PLAIN_WORDS else (f"s:{stem}", f"w:{word}")


def words(text: str) -> list[str]:
    """The lower-cased words of a text, in order."""
    return [w.lower() for w in _WORD.findall(text)]


def text_terms(text: str) -> list[str]:
    """Every term of a text, in order, repeated as often as it occurs."""
    return [t for w in words(text) for t in word_terms(w)]


@lru_cache(maxsize=500_000)
def term_id(term: str) -> int:
    """A term's id: the first 4 bytes of its BLAKE2b digest, big-endian (0 .. 2^32 - 1)."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest(), "big")


def saturated_tf(
    tf: int, length: int, avg_length: float, k1: float = BM25_K1, b: float = BM25_B
) -> float:
    """BM25's term-frequency part of one term in a document of `length` terms."""
    return tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg_length))


def _by_id(weights: Mapping[str, float]) -> SparseVector:
    merged: dict[int, float] = {}
    for term, w in weights.items():  # two terms on one id (a collision) add up
        tid = term_id(term)
        merged[tid] = merged.get(tid, 0.0) + w
    ids = sorted(merged)
    return SparseVector(tuple(ids), tuple(merged[i] for i in ids))


def document_vector(texts: Iterable[str], kind: Kind) -> SparseVector:
    """The document side of BM25 for the texts of one point (a claim, its content, its
    context...), counted together as one document."""
    terms = [t for text in texts if text for t in text_terms(text)]
    if not terms:
        return SparseVector((), ())
    counts = Counter(terms)
    length = len(terms)
    avg = AVG_TERMS[kind]
    return _by_id({t: saturated_tf(tf, length, avg) for t, tf in counts.items()})


@dataclass(frozen=True)
class QueryTerms:
    """The query side: the sparse vector (1 per term) and, per distinct query word in order
    (stopwords included, with no ids), its term ids, for the coverage of a hit."""

    vector: SparseVector
    word_ids: tuple[frozenset[int], ...]

    @property
    def words(self) -> int:
        return len(self.word_ids)

    def held(self, hit_ids: Iterable[int]) -> set[int]:
        """The positions of the query words a hit holds a term of."""
        ids = set(hit_ids)
        return {pos for pos, word in enumerate(self.word_ids) if word & ids}


def query_vector(query: str, max_words: int = 64) -> QueryTerms:
    """The query side of BM25: each distinct term weighs 1 (the engine applies its IDF). The
    words are those of lexical.query_words, in the same order."""
    distinct = list(dict.fromkeys(words(query)))[:max_words]
    per_word = tuple(frozenset(term_id(t) for t in word_terms(w)) for w in distinct)
    ids = sorted(set().union(*per_word)) if per_word else []
    return QueryTerms(SparseVector(tuple(ids), tuple(1.0 for _ in ids)), per_word)


def word_coverage(query: QueryTerms, hit_ids: Iterable[int]) -> float:
    """Share of the query's words (stopwords count as unmatched, as in lexical.coverage) that a
    hit holds a term of, every word weighing the same."""
    if query.words == 0:
        return 0.0
    return len(query.held(hit_ids)) / query.words
