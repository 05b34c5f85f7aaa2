"""Two stores, one list: atoms and passages ranked apart, merged into one answer (pure).

Atoms (what states something by itself) and passages (every chunk of a current document version)
are ranked by the same arms and fusion, each in its own list. Merging them follows three rules:

- **One piece of evidence, one hit.** An atom and the passage it was cited from are one hit with
  the arms of both: the atom, unless the passage scored clearly better (it then holds more of the
  answer than the sentence the atom quotes). Two atoms cited from the same passage are one piece
  of evidence too (small-to-big: the sentences of one passage collapse into it): the better one
  stands, the other is listed as folded into it (`folded`) and memory_get_context shows the
  passage around it. A user's 10 hits then come from 9-10 passages instead of 6-7 (SciFact,
  TyDi-ru, XQuAD: bench/results/ingest-retrieval.md).
- **A cap per store.** Neither store takes more than `share` of the answer while the other still
  has candidates, so a long document's passages cannot crowd out every atom, nor the reverse.
- **A sentence counts a little less than its passage's peers.** Each store's scores are
  normalised within its own list, so the best sentence of the atoms and the best passage both
  score about 1, though a sentence cut from a passage is the weaker evidence that its document
  answers (it holds one sentence of what the passage holds). An ingested atom's score counts
  `SENTENCE_WEIGHT` of itself against the passages; the agent's own and verified atoms count
  whole.
- **A floor for what the agent kept.** Atoms the agent stored itself or that are verified keep
  at least `floor` of the answer when there are that many among the candidates: they replace the
  weakest other hits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

Store = Literal["atom", "passage"]
# At most this share of an answer from one store while the other has candidates left.
STORE_SHARE = 0.7
# At least this share of an answer for atoms the agent stored or that are verified.
KEPT_FLOOR = 0.2
# An atom stands for the passage it was cited from unless the passage scored clearly better
# (its atom's score below this share of the passage's): then the passage, which holds more of
# the answer than the one sentence the atom quotes, stands for both.
ATOM_STANDS = 0.5
# How much an ingested atom's score counts against passages (not the agent's own or verified
# atoms). Chosen on the tune halves (bench/two_store_fusion_replay.py over SciFact's whole corpus
# at 2,000-character chunks, at 1,200, and TyDi-ru): 0.9 and 0.8 alike there; at 2,000 nDCG@10
# through ingest 0.705 -> 0.714, at 1,200 and on TyDi-ru +0.002 and +0.001
# (bench/results/ingest-retrieval.md).
SENTENCE_WEIGHT = 0.9


@dataclass(frozen=True)
class Candidate:
    """One ranked candidate of either store. `cites`: for an atom, the passages (chunk ids) it
    is cited from; `kept`: an atom the agent stored itself, or a verified one."""

    store: Store
    id: int
    score: float
    arms: Mapping[str, int] = field(default_factory=dict)
    cites: frozenset[int] = frozenset()
    kept: bool = False
    folded: tuple[int, ...] = ()  # ids of the atoms of the same passage this hit stands for


def fold_cited(atoms: Sequence[Candidate], passages: Sequence[Candidate]) -> list[Candidate]:
    """Each passage an atom of the list was cited from, and its citing atoms, made one hit with
    the arms of both and the better score: the atom stands for both (its status, confidence and
    citations; memory_get_context shows the passage around it), unless the passage scored
    clearly better (`ATOM_STANDS`) and so holds more of the answer. In score order."""
    atom_list = list(atoms)
    citing: dict[int, list[int]] = {}
    for i, a in enumerate(atom_list):
        for chunk in a.cites:
            citing.setdefault(chunk, []).append(i)
    gone: set[int] = set()  # atoms folded into a passage
    out_passages: list[Candidate] = []
    for p in sorted(passages, key=lambda c: (-c.score, c.id)):
        holders = [i for i in citing.get(p.id, ()) if i not in gone]
        if not holders:
            out_passages.append(p)
            continue
        best = max(holders, key=lambda i: (atom_list[i].score, -atom_list[i].id))
        a = atom_list[best]
        if a.score >= ATOM_STANDS * p.score:
            arms = {**{f"passage_{k}": v for k, v in p.arms.items()}, **a.arms}
            score = max(a.score, p.score)
            atom_list[best] = replace(a, score=score, arms=arms)
            continue
        arms = dict(p.arms)
        for i in holders:
            arms |= {
                f"atom_{k}": v for k, v in atom_list[i].arms.items() if f"atom_{k}" not in arms
            }
            gone.add(i)
        kept = any(atom_list[i].kept for i in holders)
        folded = tuple(atom_list[i].id for i in holders)
        out_passages.append(Candidate("passage", p.id, p.score, arms, frozenset(), kept, folded))
    out = [a for i, a in enumerate(atom_list) if i not in gone] + out_passages
    out.sort(key=lambda c: (-c.score, c.store, c.id))
    return one_per_passage(out)


def one_per_passage(ranked: Sequence[Candidate]) -> list[Candidate]:
    """The ranked hits with every atom whose passages a better hit already stands for folded
    into that hit (its id added to the hit's `folded`, its `kept` carried): the sentences of
    one passage are one piece of evidence. An atom cited from several passages (the same claim
    in several documents) stands for none of them: it stays while one of them is not yet
    taken, and folds no other atom into itself."""
    holder: dict[int, int] = {}  # passage (chunk) id -> index in `out` of the hit standing for it
    out: list[Candidate] = []
    for c in ranked:
        passages = c.cites if c.store == "atom" else frozenset({c.id})
        if c.store == "atom" and passages and passages <= holder.keys():
            at = holder[min(passages)]
            h = out[at]
            out[at] = replace(h, kept=h.kept or c.kept, folded=(*h.folded, c.id, *c.folded))
            continue
        if len(passages) == 1:
            holder.setdefault(next(iter(passages)), len(out))
        out.append(c)
    return out


def merge(
    atoms: Sequence[Candidate],
    passages: Sequence[Candidate],
    limit: int,
    *,
    share: float = STORE_SHARE,
    floor: float = KEPT_FLOOR,
    sentence_weight: float = SENTENCE_WEIGHT,
) -> list[Candidate]:
    """The answer of at most `limit` hits from both stores (see the module docstring)."""
    if passages:
        atoms = [a if a.kept else replace(a, score=a.score * sentence_weight) for a in atoms]
    pool = fold_cited(atoms, passages)
    cap = max(1, math.ceil(share * limit))
    left = {"atom": sum(c.store == "atom" for c in pool), "passage": 0}
    left["passage"] = len(pool) - left["atom"]
    taken: list[Candidate] = []
    count = {"atom": 0, "passage": 0}
    skipped: list[Candidate] = []
    for c in pool:
        if len(taken) == limit:
            break
        other = "passage" if c.store == "atom" else "atom"
        left[c.store] -= 1
        if count[c.store] >= cap and left[other] > 0:
            skipped.append(c)
            continue
        taken.append(c)
        count[c.store] += 1
    if len(taken) < limit:  # the other store ran out: fill from what the cap held back
        taken += skipped[: limit - len(taken)]
    taken = _with_floor(taken, pool, limit, floor)
    taken.sort(key=lambda c: (-c.score, c.store, c.id))
    return taken


def _with_floor(
    taken: list[Candidate], pool: Sequence[Candidate], limit: int, floor: float
) -> list[Candidate]:
    want = min(math.ceil(floor * limit), sum(c.kept for c in pool))
    have = sum(c.kept for c in taken)
    if have >= want:
        return taken
    chosen = {(c.store, c.id) for c in taken}
    extra = [c for c in pool if c.kept and (c.store, c.id) not in chosen][: want - have]
    # The weakest hits that are not kept make room.
    removable = sorted((c for c in taken if not c.kept), key=lambda c: (c.score, c.store, c.id))
    gone = {(c.store, c.id) for c in removable[: max(0, len(taken) + len(extra) - limit)]}
    return [c for c in taken if (c.store, c.id) not in gone] + extra
