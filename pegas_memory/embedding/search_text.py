"""What an atom is found by: its claim and content, led by the context it was read in.

A sentence distilled from a document often leans on its document for its subject: "Treatment
for 2 days increased BAT activity" is about the bile acid the title names, "These data indicate
..." about the study the heading names. Searched alone, such an atom loses to a stored passage
that carries its title (SciFact through ingest: bench/bench_ingest_retrieval.py). So an ingested
atom keeps its document title and section path (`search_context`, recorded by the ingest
pipeline in the atom's metadata) and its search text, both the vector and the lexical index,
is that context followed by the claim, as chunk retrievers embed "title + chunk". The claim an
agent reads is unchanged, and so is an atom without a context (memory_store).

Pure: the projection, the self-check's sweep, erasure (which must find the cached vector again)
and the ingest dedup all compute the same text through `atom_search_text`.
"""

from __future__ import annotations

from collections.abc import Sequence

MAX_EMBED_CHARS = 4_000  # the model sees at most this much of an atom
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


def atom_search_text(claim: str, content: str, context: str | None = None) -> str:
    """The text an atom's vector is computed from: its context (when it has one and the claim
    does not already start with it), its claim, then the start of its content."""
    body = claim if not content or content.strip() == claim.strip() else f"{claim}\n{content}"
    ctx = " ".join((context or "").split())
    if ctx and not body.casefold().startswith(ctx.casefold()):
        body = f"{ctx}\n{body}"
    return body[:MAX_EMBED_CHARS]
