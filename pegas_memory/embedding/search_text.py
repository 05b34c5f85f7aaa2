"""What an atom is found by, besides its claim: the context it was read in.

A sentence distilled from a document often leaves its subject to the document: "Treatment for
2 days increased BAT activity" is about the bile acid the title names. Searched alone, such an
atom loses to a stored passage that carries its title (SciFact through ingest,
bench/bench_ingest_retrieval.py). So the ingest pipeline records each new atom's document title
and section path (`search_context`, in the atom's metadata) and the lexical index holds it next
to the claim and content (pm_atom.tsv, migration 0008), as chunk retrievers index "title +
chunk". The claim an agent reads is unchanged, and so is an atom without a context
(memory_store).

The vector stays the claim's own. Semantic dedup compares an atom's vector with the vectors of
atoms of other documents, and a title in the vector pulls two near-duplicates under different
titles apart: "The cohort study in Norway ..." and "... in Sweden ..." under the titles
"norway" and "sweden" were no longer near-duplicates at all, so their conflict went unseen
(tests/test_dedup_contrast.py). A dense arm with the context needs a vector of its own beside
the claim's.
"""

from __future__ import annotations

from collections.abc import Sequence

MAX_CONTEXT_CHARS = 300  # a context is a title and a heading path, not a paragraph
CONTEXT_SEPARATOR = " > "
METADATA_KEY = "search_context"  # where the ingest pipeline records an atom's context


def search_context(title: str | None, heading_path: Sequence[str] = ()) -> str:
    """The document title and section path an atom was read under, "Title > Section > Sub".

    A heading that repeats the title or the heading before it (a markdown source's "# Title"
    is its first heading) is given once; blank parts are skipped; the result is cut at a word
    boundary to MAX_CONTEXT_CHARS.
    """
    parts: list[str] = []
    seen: set[str] = set()
    for part in (title or "", *heading_path):
        text = " ".join(part.split())
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
