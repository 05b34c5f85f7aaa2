"""The merge of atoms and passages into one answer (pure: search/stores.py)."""

from __future__ import annotations

from pegas_memory.search.stores import Candidate, fold_cited, merge


def atom(i: int, score: float, cites: tuple[int, ...] = (), kept: bool = False) -> Candidate:
    return Candidate("atom", i, score, {"dense": 1}, frozenset(cites), kept)


def passage(i: int, score: float) -> Candidate:
    return Candidate("passage", i, score, {"lexical": 1})


def test_an_atom_and_its_passage_are_one_hit_the_better_scored_one() -> None:
    folded = fold_cited([atom(1, 0.95, cites=(7,))], [passage(7, 0.9), passage(8, 0.4)])
    assert [(c.store, c.id) for c in folded] == [("atom", 1), ("passage", 8)]
    assert folded[0].score == 0.95
    assert folded[0].arms == {"dense": 1, "passage_lexical": 1}
    # the passage matched better than the sentence its atom quotes: it stands for both
    folded = fold_cited([atom(1, 0.3, cites=(7,), kept=True)], [passage(7, 0.9)])
    assert [(c.store, c.id, c.kept) for c in folded] == [("passage", 7, True)]
    assert folded[0].arms == {"lexical": 1, "atom_dense": 1}


def test_neither_store_takes_more_than_its_share_while_the_other_has_candidates() -> None:
    passages = [passage(i, 1.0 - i / 100) for i in range(20)]
    atoms = [atom(100 + i, 0.5 - i / 100) for i in range(5)]
    hits = merge(atoms, passages, 10, share=0.7)
    assert sum(h.store == "passage" for h in hits) == 7
    assert sum(h.store == "atom" for h in hits) == 3


def test_a_store_alone_fills_the_answer() -> None:
    hits = merge([], [passage(i, 1.0 - i / 100) for i in range(20)], 10, share=0.7)
    assert len(hits) == 10
    hits = merge([atom(1, 0.9)], [passage(i, 1.0 - i / 100) for i in range(20)], 10, share=0.7)
    assert len(hits) == 10 and sum(h.store == "atom" for h in hits) == 1


def test_the_agents_own_atoms_keep_a_floor() -> None:
    passages = [passage(i, 1.0 - i / 100) for i in range(20)]
    atoms = [atom(100 + i, 0.9 - i / 100) for i in range(10)]
    atoms += [atom(200, 0.01, kept=True), atom(201, 0.02, kept=True)]
    hits = merge(atoms, passages, 10, share=0.7, floor=0.2)
    assert {200, 201} <= {h.id for h in hits}
    assert len(hits) == 10
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_an_ingested_sentence_counts_less_than_a_passage_that_scored_the_same() -> None:
    """Each store's scores are normalised within its own list: a sentence of one document and
    a passage of another that both lead their lists tie, and the passage, which holds more
    of its document, goes first; the agent's own atom keeps its whole score."""
    hits = merge([atom(1, 1.0, cites=(9,))], [passage(7, 1.0)], 10, sentence_weight=0.9)
    assert [(h.store, h.id) for h in hits] == [("passage", 7), ("atom", 1)]
    assert [h.score for h in hits] == [1.0, 0.9]
    hits = merge([atom(1, 1.0, kept=True)], [passage(7, 0.99)], 10, sentence_weight=0.9)
    assert [(h.store, h.id, h.score) for h in hits] == [("atom", 1, 1.0), ("passage", 7, 0.99)]
    # a sentence found alone (atoms only) keeps its score
    assert merge([atom(1, 1.0)], [], 10, sentence_weight=0.9)[0].score == 1.0


def test_atoms_of_one_passage_are_one_hit_the_best_standing_for_the_others() -> None:
    """Small-to-big: sentences cited from the same passage are one piece of evidence; the
    others are listed as folded into the best, so ten hits come from ten passages."""
    atoms = [atom(1, 0.9, cites=(7,)), atom(2, 0.8, cites=(7,)), atom(3, 0.7, cites=(8,))]
    atoms.append(atom(4, 0.6, cites=(7,), kept=True))
    hits = merge(atoms, [passage(7, 0.5), passage(9, 0.4)], 10, sentence_weight=1.0)
    assert [(h.store, h.id) for h in hits] == [("atom", 1), ("atom", 3), ("passage", 9)]
    assert hits[0].folded == (2, 4) and hits[0].kept  # the verified sibling keeps its floor
    assert hits[1].folded == ()
    # the passage scored clearly better: it stands for all of its atoms
    weak = [atom(1, 0.4, cites=(7,)), atom(2, 0.3, cites=(7,))]
    hits = merge(weak, [passage(7, 1.0)], 10, sentence_weight=1.0)
    assert [(h.store, h.id, h.folded) for h in hits] == [("passage", 7, (1, 2))]


def test_a_claim_cited_from_two_documents_stands_for_neither_passage() -> None:
    """The same sentence in two documents is one atom with two citations: it does not hide
    the other document's own atoms, and stays while one of its passages is not yet taken."""
    shared = atom(2, 0.8, cites=(7, 8))
    hits = fold_cited([atom(1, 0.9, cites=(7,)), shared, atom(3, 0.5, cites=(8,))], [])
    assert [(h.id, h.folded) for h in hits] == [(1, ()), (2, ()), (3, ())]
    hits = fold_cited([atom(1, 0.9, cites=(7,)), atom(3, 0.85, cites=(8,)), shared], [])
    assert [(h.id, h.folded) for h in hits] == [(1, (2,)), (3, ())]
