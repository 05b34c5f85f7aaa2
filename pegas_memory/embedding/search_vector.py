"""What an ingested atom is found by: its claim's vector moved toward its document's context.

A sentence distilled from a document often leans on the document for its subject: "Treatment
for 2 days increased BAT activity" is about the bile acid the title names. Searched alone, such
an atom loses to a stored passage that carries its title (SciFact through ingest,
bench/bench_ingest_retrieval.py). Session 6 embedded "title > section + claim" as one text: the
dense arm gained, but semantic dedup compares the same vectors, so two claims of different
documents ("a cohort study in Norway" / "in Sweden") were no longer near-duplicates and their
conflict went unseen. And it embedded every atom a second time.

So an atom keeps two vectors, without a second embedding per atom:
- its **claim vector** (the claim and the start of its content, `atom_embed_text`), the one the
  ingest dedup computes and compares, kept in the embedding cache;
- its **search vector** in the vector slice: the unit sum of the claim vector and
  `CONTEXT_WEIGHT` times the vector of its context (document title > section path, the chunk of
  its first citation), `search_vector`. A context is embedded once for all the atoms of a
  section, so the model's cost grows by one text per section, not per atom. The cosine of a
  query with it is, up to the norm, cos(query, claim) + w cos(query, context): a fusion of
  what the atom says and what its section is about.

An atom without a context (memory_store, whose citations have no chunk) keeps its claim vector
as its search vector, so that path is unchanged. Dedup takes candidates from the slice and
re-scores them with their claim vectors (`ingest.dedup.decide`), so it still compares claim with
claim. Pure: the projection, the self-check's sweep and the dedup use these functions alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# How far the context pulls an atom's search vector (1.0: as much as the claim itself). Chosen
# on bench/bench_ingest_retrieval.py (SciFact, see bench/results/ingest-retrieval.md).
CONTEXT_WEIGHT = 0.5
MAX_CONTEXT_CHARS = 300  # a context is a title and a heading path, not a paragraph
CONTEXT_SEPARATOR = " > "


def search_context(title: str | None, heading_path: Sequence[str] | None = ()) -> str:
    """The document title and section path an atom was read under, "Title > Section > Sub".

    A heading that repeats the title or an earlier heading (a markdown source's "# Title" is its
    first heading) is given once; blank parts are skipped; the result is cut at a word boundary
    to MAX_CONTEXT_CHARS.
    """
    parts: list[str] = []
    seen: set[str] = set()
    for part in (title or "", *(heading_path or ())):
        text = " ".join(str(part).split())
        key = text.casefold().rstrip(".")
        if not text or key in seen:
            continue
        seen.add(key)
        parts.append(text)
    joined = CONTEXT_SEPARATOR.join(parts)
    if len(joined) <= MAX_CONTEXT_CHARS:
        return joined
    cut = joined[:MAX_CONTEXT_CHARS]
    return cut[: cut.rfind(" ")].rstrip(" >") if " " in cut else cut


def _unit(vector: Sequence[float] | np.ndarray) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float64)
    norm = float(np.linalg.norm(v))
    return v / norm if norm else v


def search_vector(
    claim_vector: Sequence[float],
    context_vector: Sequence[float] | None,
    weight: float = CONTEXT_WEIGHT,
) -> list[float]:
    """The search vector of an atom: unit(unit(claim) + weight * unit(context)); the claim
    vector unchanged when there is no context (or the weight is 0)."""
    if context_vector is None or weight <= 0:
        return [float(x) for x in claim_vector]
    combined = _unit(claim_vector) + weight * _unit(context_vector)
    return [float(x) for x in _unit(combined)]


def search_vectors(
    claim_vectors: Sequence[Sequence[float]],
    contexts: Sequence[str],
    context_vectors: dict[str, Sequence[float]],
    weight: float = CONTEXT_WEIGHT,
) -> list[list[float]]:
    """`search_vector` for each atom, its context's vector looked up by its context text (an
    empty context, or one not in `context_vectors`, leaves the claim vector)."""
    return [
        search_vector(c, context_vectors.get(ctx) if ctx else None, weight)
        for c, ctx in zip(claim_vectors, contexts, strict=True)
    ]
