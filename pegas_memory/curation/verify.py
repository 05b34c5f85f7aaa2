"""Verification: knowledge earns its status.

Two independent checks per atom, both against its nearest atoms *by embedding* (never by id):
- cross-confirmation: the same claim found in at least one other document (cosine at or above
  the cross-confirmation threshold of the embedding space, and the claim guard agreeing:
  ingest.claims, so "the tail of a 0" is never confirmed by "the tail of a 1") raises confidence
  and marks the atom verified, recording the confirming atoms and their citations as evidence.
  A joined atom (a claim of two sentences or more) is compared sentence by sentence too, both
  ways: the same sentence on its own in another document confirms it, and it confirms that one;
- self-critique: the LLM compares the atom with its neighbours and answers new | duplicate |
  corroborates | contradicts. contradicts: both atoms contested and linked; duplicate: the newer
  one stale and linked to the one it repeats; corroborates: confidence up and linked.
  Without an LLM, duplicates are still decided by similarity (whole claim against whole claim,
  the claim guard agreeing), and the result says which check could not run. An LLM that fails
  or talks nonsense changes nothing and is reported.
Every status change goes through repo.set_status (recorded with from, to, why, which check) and
the outbox, so search sees it at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pegas_memory.config import Settings
from pegas_memory.curation.queries import CURATION_SQL as Q
from pegas_memory.db.pool import Conn, Database
from pegas_memory.db.repo import add_link, atoms_for_dedup, set_status
from pegas_memory.distill.llm import OllamaChat
from pegas_memory.distill.ollama import CandidateText, NeighbourText, critique
from pegas_memory.errors import BackendUnavailable, InvalidInput, NotFound, PegasMemoryError
from pegas_memory.ingest.claims import ClaimSignature, atom_signature, claim_sentences, differences
from pegas_memory.ingest.dedup import CANDIDATES, threshold_for
from pegas_memory.lazy import Lazy
from pegas_memory.models import AtomStatus, AtomType, LinkKind, VerifyVerdict
from pegas_memory.outbox.projection import atom_embed_text
from pegas_memory.outbox.slices import Engines
from pegas_memory.qdrant_store.index import VectorFilter

log = logging.getLogger(__name__)

NEIGHBOURS = 5
MAX_BATCH = 200
CONFIRM_BOOST = 0.5  # confidence moves this far towards 1 on confirmation
CORROBORATE_STEP = 0.1


@dataclass
class AtomVerdict:
    atom_id: int
    verdict: VerifyVerdict
    reason: str
    old_status: str
    new_status: str
    confidence: float
    ref_id: int | None = None
    evidence: list[dict[str, Any]] = field(default_factory=list)
    checks_skipped: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class VerifiedAtom:
    """The atom under verification, as read when its turn comes (it may have changed since)."""

    id: int
    type: AtomType
    claim: str
    content: str
    status: str
    confidence: float


@dataclass(frozen=True)
class Neighbour:
    """A stored atom near the one being verified, by embedding: its cosine (`score`) and the
    documents that cite it (`docs`)."""

    id: int
    claim: str
    content: str
    status: str
    score: float
    docs: frozenset[int]
    # `score` is of two claims (or sentences of joined ones) the claim guard finds alike
    agrees: bool = True
    # `score` compares the whole claims (not a sentence of a joined one)
    whole: bool = True


@dataclass(frozen=True)
class Scored:
    """A candidate neighbour's best cosine with the atom (`neighbour_score`)."""

    id: int
    score: float
    agrees: bool
    whole: bool


def neighbour_score(
    mine: ClaimSignature,
    my_vectors: Sequence[Sequence[float]],
    theirs: ClaimSignature,
    their_vectors: Sequence[Sequence[float]],
) -> tuple[float, bool, bool]:
    """Pure: (cosine, agrees, whole) of two atoms, each given as its signature and its vectors
    (the whole claim's, then one per sentence of a joined claim, as in `parts`). The whole claims'
    cosine when the claim guard finds them alike; else the best cosine of a sentence of one with
    the other (or a sentence of it) that the guard finds alike; else the whole claims' cosine,
    not agreeing."""
    mine_rows = _unit(my_vectors)
    their_rows = _unit(their_vectors)
    sims = mine_rows @ their_rows.T
    whole_score = float(sims[0, 0])
    if not differences(theirs, mine):
        return whole_score, True, True
    sigs_a = (mine, *mine.parts)
    sigs_b = (theirs, *theirs.parts)
    best: float | None = None
    for x in range(min(len(sigs_a), sims.shape[0])):
        for y in range(min(len(sigs_b), sims.shape[1])):
            if (x, y) == (0, 0) or (best is not None and sims[x, y] <= best):
                continue
            if not differences(sigs_b[y], sigs_a[x]):
                best = float(sims[x, y])
    if best is None:
        return whole_score, False, True
    return best, True, False


def _unit(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    raw = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    return raw / np.where(norms == 0, 1.0, norms)  # type: ignore[no-any-return]


class Verifier:
    def __init__(
        self,
        settings: Settings,
        db: Database,
        runtime: Engines,
        llm: Lazy[OllamaChat] | None,
    ):
        self.settings = settings
        self.db = db
        self.runtime = runtime
        self.llm = llm

    # ------------------------------------------------------------------ selection
    def select(
        self, *, atom_ids: Sequence[int] = (), document_id: int | None = None, limit: int = 50
    ) -> list[int]:
        if not 1 <= limit <= MAX_BATCH:
            raise InvalidInput(f"limit must be between 1 and {MAX_BATCH}")
        with self.db.connection() as conn:
            if atom_ids:
                if len(atom_ids) > MAX_BATCH:
                    raise InvalidInput(f"at most {MAX_BATCH} atom ids per call")
                rows = conn.execute(Q.existing_atom_ids, (list(atom_ids),)).fetchall()
                found = [int(r["id"]) for r in rows]
                missing = sorted(set(atom_ids) - set(found))
                if missing:
                    raise NotFound(
                        f"atoms {missing[:10]} not found; use memory_search to find atom ids"
                    )
                return found
            if document_id is not None:
                rows = conn.execute(
                    Q.atoms_of_document,
                    (document_id, limit),
                ).fetchall()
                if not rows:
                    raise NotFound(f"document {document_id} has no atoms (or does not exist)")
                return [int(r["id"]) for r in rows]
            rows = conn.execute(Q.candidate_atoms, (limit,)).fetchall()
            return [int(r["id"]) for r in rows]

    # ------------------------------------------------------------------ checks
    def verify(
        self,
        ids: Sequence[int],
        *,
        progress: Callable[[float, float, str], None] | None = None,
    ) -> list[AtomVerdict]:
        embedder = self.runtime.embedder.get()
        index = self.runtime.vectors.get()
        collection = self.runtime.projector.collection("atom")
        confirm_at = threshold_for(embedder.model_id, self.settings.cross_confirm_threshold)
        dup_at = threshold_for(embedder.model_id, self.settings.dedup_threshold)
        llm, llm_note = self._llm()
        out: list[AtomVerdict] = []
        for n, atom_id in enumerate(ids, start=1):
            if progress and (n == 1 or n % 10 == 0):
                progress(n, len(ids), f"verifying atom {atom_id} ({n} of {len(ids)})")
            with self.db.connection() as conn:
                atom = _atom(conn, atom_id)
            if atom is None:
                continue  # deleted meanwhile
            hits = self._candidates(atom, embedder, index, collection)
            with self.db.transaction() as conn:
                out.append(
                    self._check(
                        conn,
                        atom,
                        hits,
                        llm=llm,
                        llm_note=llm_note,
                        confirm_at=confirm_at,
                        dup_at=dup_at,
                    )
                )
        return out

    def _candidates(
        self, atom: VerifiedAtom, embedder: Any, index: Any, collection: str
    ) -> list[Scored]:
        """The atom's nearest stored atoms, best first, scored claim with claim
        (`neighbour_score`): the slice holds search vectors (claim + context,
        embedding.search_vector), so its candidates are re-scored by their claim vectors, and a
        joined atom's sentences are searched with and compared too."""
        mine = atom_signature(atom.claim, atom.content)
        texts = [atom_embed_text(atom.claim, atom.content), *claim_sentences(atom.claim)]
        my_vectors = [list(v) for v in embedder.embed_documents(texts)]
        where = VectorFilter(
            statuses=(AtomStatus.CANDIDATE, AtomStatus.VERIFIED, AtomStatus.CONTESTED),
            exclude_ids=(atom.id,),
        )
        ids: list[int] = []
        for vector in my_vectors:
            for hit in index.search(collection, vector, k=CANDIDATES, where=where):
                if hit.id not in ids:
                    ids.append(hit.id)
        with self.db.connection() as conn:
            rows = list(atoms_for_dedup(conn, ids).values())
        groups = [[atom_embed_text(r.claim, r.content), *claim_sentences(r.claim)] for r in rows]
        flat = embedder.embed_documents([t for g in groups for t in g]) if groups else []
        out: list[Scored] = []
        at = 0
        for row, group in zip(rows, groups, strict=True):
            theirs = atom_signature(row.claim, row.content, row.term)
            vectors = flat[at : at + len(group)]
            at += len(group)
            score, agrees, whole = neighbour_score(mine, my_vectors, theirs, vectors)
            # float32 rounding can put a cosine a hair past 1: scores become confidences
            out.append(Scored(row.id, min(1.0, max(-1.0, score)), agrees, whole))
        out.sort(key=lambda h: (-h.agrees, -h.score))
        return out[:NEIGHBOURS]

    def _llm(self) -> tuple[OllamaChat | None, str | None]:
        if self.llm is None:
            return None, "self-critique: no LLM configured (set PEGAS_OLLAMA_URL)"
        try:
            return self.llm.get(), None
        except BackendUnavailable as exc:
            return None, f"self-critique: the LLM is unavailable ({exc})"

    def _check(
        self,
        conn: Conn,
        atom: VerifiedAtom,
        hits: Sequence[Any],
        *,
        llm: OllamaChat | None,
        llm_note: str | None,
        confirm_at: float,
        dup_at: float,
    ) -> AtomVerdict:
        atom_id = atom.id
        neighbours = _neighbours(conn, hits)
        result = AtomVerdict(
            atom_id=atom_id,
            verdict=VerifyVerdict.NEW,
            reason="no stored atom says the same or the opposite",
            old_status=atom.status,
            new_status=atom.status,
            confidence=atom.confidence,
        )
        # 1. cross-confirmation across documents
        own_docs = _docs_of(conn, [atom_id]).get(atom_id, set())
        if len(own_docs) >= 2 and atom.status == AtomStatus.CANDIDATE:
            # Ingest already merged the same claim from several documents into this atom.
            conf = atom.confidence + (1 - atom.confidence) * CONFIRM_BOOST
            evidence: list[dict[str, Any]] = [{"documents": sorted(own_docs)}]
            set_status(
                conn,
                atom_id,
                AtomStatus.VERIFIED,
                reason=f"cited by {len(own_docs)} distinct sources",
                check_name="cross_confirmation",
                confidence=min(1.0, conf),
                evidence=evidence,
            )
            result.verdict, result.new_status = VerifyVerdict.CONFIRMED, AtomStatus.VERIFIED
            result.confidence = min(1.0, conf)
            result.reason = f"the same claim is cited from documents {sorted(own_docs)}"
            result.evidence = evidence
        confirming = [
            n
            for n in neighbours
            if n.agrees and n.score >= confirm_at and (n.docs - own_docs) and own_docs
        ]
        trusted = (AtomStatus.CANDIDATE, AtomStatus.VERIFIED)
        if confirming and atom.status in trusted and result.verdict == VerifyVerdict.NEW:
            conf = atom.confidence + (1 - atom.confidence) * CONFIRM_BOOST
            evidence = [
                {
                    "atom_id": n.id,
                    "similarity": round(n.score, 4),
                    "documents": sorted(n.docs - own_docs),
                    "claim": n.claim[:300],
                }
                for n in confirming
            ]
            set_status(
                conn,
                atom_id,
                AtomStatus.VERIFIED,
                reason=f"confirmed by {len(confirming)} atom(s) from other documents",
                check_name="cross_confirmation",
                confidence=min(1.0, conf),
                evidence=evidence,
            )
            for n in confirming:
                add_link(
                    conn, atom_id, n.id, LinkKind.CORROBORATES, confidence=n.score, source="verify"
                )
            result.verdict, result.new_status = VerifyVerdict.CONFIRMED, AtomStatus.VERIFIED
            result.confidence = min(1.0, conf)
            result.reason = f"the same claim is in document(s) {evidence[0]['documents']}"
            result.evidence = evidence
        # 2. self-critique
        if llm is None:
            result.checks_skipped.append(llm_note or "self-critique skipped")
            dup = next((n for n in neighbours if n.agrees and n.whole and n.score >= dup_at), None)
            if dup is not None and result.verdict != VerifyVerdict.CONFIRMED:
                self._duplicate(conn, atom, dup, result, reason="near-identical by embedding")
            return result
        candidate = CandidateText(claim=atom.claim, content=atom.content, type=atom.type)
        texts = [
            NeighbourText(id=n.id, claim=n.claim, content=n.content, similarity=n.score)
            for n in neighbours
        ]
        try:
            verdict = critique(llm, candidate, texts)
        except PegasMemoryError as exc:
            result.checks_skipped.append(f"self-critique could not run: {exc}")
            return result
        ref = next((n for n in neighbours if n.id == verdict.ref_id), None)
        if verdict.verdict == VerifyVerdict.CONTRADICTS and ref is not None:
            for target in (atom_id, ref.id):
                set_status(
                    conn,
                    target,
                    AtomStatus.CONTESTED,
                    reason=verdict.reason,
                    check_name="self_critique",
                    evidence={LinkKind.CONTRADICTS: ref.id if target == atom_id else atom_id},
                )
            add_link(conn, atom_id, ref.id, LinkKind.CONTRADICTS, source="verify")
            result.verdict, result.ref_id = VerifyVerdict.CONTRADICTS, ref.id
            result.new_status = AtomStatus.CONTESTED
            result.reason = verdict.reason
        elif verdict.verdict == VerifyVerdict.DUPLICATE and ref is not None:
            self._duplicate(conn, atom, ref, result, reason=verdict.reason)
        elif verdict.verdict == VerifyVerdict.CORROBORATES and ref is not None:
            conf = min(1.0, result.confidence + CORROBORATE_STEP)
            conn.execute(Q.set_confidence, (conf, atom_id))
            add_link(conn, atom_id, ref.id, LinkKind.CORROBORATES, source="verify")
            if result.verdict != VerifyVerdict.CONFIRMED:
                result.verdict, result.reason = VerifyVerdict.CORROBORATES, verdict.reason
            result.confidence, result.ref_id = conf, ref.id
        elif result.verdict != VerifyVerdict.CONFIRMED:
            result.reason = verdict.reason
        return result

    def _duplicate(
        self,
        conn: Conn,
        atom: VerifiedAtom,
        other: Neighbour,
        result: AtomVerdict,
        *,
        reason: str,
    ) -> None:
        """The newer of the two becomes stale, linked to the one it repeats."""
        newer, older = (atom.id, other.id) if atom.id > other.id else (other.id, atom.id)
        set_status(
            conn,
            newer,
            AtomStatus.STALE,
            reason=f"duplicate of atom {older}: {reason}",
            check_name="self_critique",
            evidence={LinkKind.DUPLICATE_OF: older},
        )
        add_link(conn, newer, older, LinkKind.DUPLICATE_OF, source="verify")
        result.verdict, result.ref_id, result.reason = VerifyVerdict.DUPLICATE, other.id, reason
        if newer == atom.id:
            result.new_status = AtomStatus.STALE


def _atom(conn: Conn, atom_id: int) -> VerifiedAtom | None:
    row = conn.execute(Q.atom_to_verify, (atom_id,)).fetchone()
    if row is None:
        return None
    return VerifiedAtom(
        id=int(row["id"]),
        type=row["type"],
        claim=row["claim"],
        content=row["content"],
        status=row["status"],
        confidence=float(row["confidence"]),
    )


def source_keys(documents: Sequence[tuple[int, int | None, str]]) -> dict[int, int]:
    """Pure: each document id's source, as the smallest document id of its group, where two
    documents are one source when they share an identity (versions of one document) or their
    bytes (a copy under another path or URL), transitively. A claim cited from two documents
    of one source is not confirmed by it."""
    parent = {doc: doc for doc, _, _ in documents}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    first: dict[tuple[str, object], int] = {}
    for doc, identity, content_hash in documents:
        for key in (
            ("identity", identity if identity is not None else doc),
            ("bytes", content_hash),
        ):
            if key in first:
                a, b = find(first[key]), find(doc)
                parent[max(a, b)] = min(a, b)
            else:
                first[key] = doc
    return {doc: find(doc) for doc in parent}


def _docs_of(conn: Conn, ids: Sequence[int]) -> dict[int, set[int]]:
    """The sources citing each atom (`source_keys`: copies and versions of one document are
    one source), each named by a document id of it."""
    rows = conn.execute(Q.documents_of_atoms, (list(ids),)).fetchall()
    identities = sorted({int(r["identity_id"]) for r in rows if r["identity_id"] is not None})
    hashes = sorted({str(r["content_hash"]) for r in rows})
    related = conn.execute(
        Q.related_documents, {"identities": identities, "hashes": hashes}
    ).fetchall()
    documents = [(int(r["id"]), r["identity_id"], str(r["content_hash"])) for r in related]
    documents += [(int(r["doc_id"]), r["identity_id"], str(r["content_hash"])) for r in rows]
    source = source_keys(documents)
    out: dict[int, set[int]] = {i: set() for i in ids}
    for r in rows:
        out[int(r["atom_id"])].add(source[int(r["doc_id"])])
    return out


def _neighbours(conn: Conn, hits: Sequence[Scored]) -> list[Neighbour]:
    """The stored neighbours by embedding, most similar first (those the claim guard finds alike
    before the others), with the documents citing them."""
    if not hits:
        return []
    ids = [h.id for h in hits]
    scored = {h.id: h for h in hits}
    rows = conn.execute(Q.neighbour_atoms, (ids,)).fetchall()
    docs = _docs_of(conn, ids)
    out = [
        Neighbour(
            id=int(r["id"]),
            claim=r["claim"],
            content=r["content"],
            status=r["status"],
            score=float(scored[int(r["id"])].score),
            docs=frozenset(docs.get(int(r["id"]), set())),
            agrees=scored[int(r["id"])].agrees,
            whole=scored[int(r["id"])].whole,
        )
        for r in rows
    ]
    out.sort(key=lambda n: (-n.agrees, -n.score))
    return out
