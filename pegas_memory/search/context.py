"""memory_get_context: the evidence for a question, fitted to a token budget.

Hybrid search picks the atoms and passages; an atom brings its citations (document title,
locator, quote) and the source text around its evidence (the cited chunk of the current version
and its neighbours: small-to-big); a passage brings its neighbours in its document. Near-repeats
are dropped, the rest is ordered by score and cut to the budget, and returned twice: as text with
[n] markers ready to paste into a prompt, and as a structured list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pegas_memory.db.pool import Conn
from pegas_memory.models import CitationOut, ContextItem, DecayProfile, SearchHit
from pegas_memory.search.queries import SEARCH_SQL as Q
from pegas_memory.text import normalize_text

CHARS_PER_TOKEN = 4  # a conservative average for English and Russian with common tokenizers
NEIGHBOUR_CHUNKS = 1
MAX_CONTEXT_CHARS_PER_ITEM = 1_500


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass(frozen=True)
class Window:
    doc_id: int
    text: str


def chunk_windows(
    conn: Conn, chunk_ids: Sequence[int], *, itself: bool = True
) -> dict[int, Window]:
    """For each chunk: its text joined with its neighbours in the same document (without its
    own text when `itself` is false: a passage hit shows its own text already)."""
    if not chunk_ids:
        return {}
    rows = conn.execute(Q.chunk_windows, {"ids": list(chunk_ids), "n": NEIGHBOUR_CHUNKS}).fetchall()
    parts: dict[int, list[str]] = {}
    docs: dict[int, int] = {}
    for r in rows:
        cited = int(r["cited"])
        docs[cited] = int(r["doc_id"])
        if itself or int(r["id"]) != cited:
            parts.setdefault(cited, []).append(r["content"])
    return {cid: Window(docs[cid], "\n".join(parts.get(cid, ()))) for cid in docs}


def cited_chunks(conn: Conn, atom_ids: Sequence[int]) -> dict[int, list[int]]:
    rows = conn.execute(Q.cited_chunks, (list(atom_ids),)).fetchall()
    out: dict[int, list[int]] = {}
    for r in rows:
        out.setdefault(int(r["atom_id"]), []).append(int(r["chunk_id"]))
    return out


def _trim(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _source_line(c: CitationOut) -> str:
    where = (
        c.document_title or c.uri or (f"code symbol {c.code_symbol_id}" if c.code_symbol_id else "")
    )
    parts = [p for p in (where, c.locator) if p]
    return ", ".join(parts)


def assemble(
    hits: Sequence[SearchHit],
    windows: dict[tuple[str, int], str],
    *,
    budget_tokens: int,
) -> tuple[str, list[ContextItem], bool]:
    """Deduplicate, order and fit the evidence; return (text, items, truncated)."""
    seen_claims: set[str] = set()
    seen_windows: set[str] = set()
    blocks: list[str] = []
    items: list[ContextItem] = []
    used = 0
    truncated = False
    for hit in hits:
        key = normalize_text(hit.claim)
        if key in seen_claims:
            continue
        seen_claims.add(key)
        window = windows.get((hit.store, hit.id), "")
        if window and window in seen_windows:
            window = ""  # the same passage is already shown for an earlier item
        if window:
            seen_windows.add(window)
        marker = len(items) + 1
        claim = hit.claim
        if hit.store == "passage":  # a whole chunk: as long as one item's context may be
            claim = _trim(claim, MAX_CONTEXT_CHARS_PER_ITEM)
        head = f"[{marker}] {claim}"
        meta = [hit.type]
        if hit.status:
            meta.append(hit.status)
        if hit.confidence is not None:
            meta.append(f"confidence {hit.confidence:.2f}")
        if hit.unsourced:
            meta.append("unsourced")
        if hit.feedback is not None:
            meta.append(f"feedback: {hit.feedback.describe()}")
        if hit.decay and hit.decay != DecayProfile.TIMELESS:  # how it ages, and since when
            meta.append(f"{hit.decay} from {hit.about[:10]}" if hit.about else hit.decay)
        lines = [f"{head} ({', '.join(meta)})"]
        for c in hit.citations[:2]:
            source = _source_line(c)
            if source:
                lines.append(f"    source: {source}")
            if c.quote and normalize_text(c.quote) != key:
                lines.append(f'    quote: "{_trim(c.quote, 400)}"')
        context = _trim(window, MAX_CONTEXT_CHARS_PER_ITEM) if window else ""
        if context:
            lines.append(f"    context: {context}")
        block = "\n".join(lines)
        cost = estimate_tokens(block) + 1
        if used + cost > budget_tokens:
            # Try the item without its surrounding text before giving up on it.
            short = "\n".join(line for line in lines if not line.startswith("    context:"))
            if used + estimate_tokens(short) + 1 > budget_tokens:
                truncated = True
                break
            block, context, cost = short, "", estimate_tokens(short) + 1
            truncated = True
        used += cost
        blocks.append(block)
        items.append(
            ContextItem(
                marker=marker,
                atom_id=hit.id,
                scope=hit.scope,
                store=hit.store,
                type=hit.type,
                status=hit.status,
                confidence=hit.confidence,
                claim=hit.claim,
                score=hit.score,
                citations=hit.citations,
                context=context,
                feedback=hit.feedback,
                decay=hit.decay,
            )
        )
    return "\n\n".join(blocks), items, truncated


def windows_for(conn: Conn, hits: Sequence[SearchHit]) -> dict[tuple[str, int], str]:
    """The small-to-big text of each knowledge hit, keyed by (store, id): around an atom's first
    cited chunk (a current version's first), and a passage's neighbours."""
    out: dict[tuple[str, int], str] = {}
    atom_ids = [h.id for h in hits if h.store == "atom" and h.scope == "knowledge"]
    if atom_ids:
        chunks_of = cited_chunks(conn, atom_ids)
        first = {a: ids[0] for a, ids in chunks_of.items() if ids}
        win = chunk_windows(conn, sorted(set(first.values())))
        out |= {("atom", a): win[c].text for a, c in first.items() if c in win}
    passage_ids = [h.id for h in hits if h.store == "passage"]
    if passage_ids:
        around = chunk_windows(conn, passage_ids, itself=False)
        out |= {("passage", p): w.text for p, w in around.items() if w.text}
    return out


# The best query-passage cosine below which evidence is weak, for models whose similarity scale
# is compressed (e5: unrelated pairs sit near 0.75, a matching passage above 0.83).
MODEL_WEAK_COSINE: dict[str, float] = {"local/multilingual-e5-small-q4": 0.80}


def weak_cosine_for(model_id: str, default: float) -> float:
    return MODEL_WEAK_COSINE.get(model_id, default)


def weak(hits: Sequence[SearchHit], arms: dict[str, Any], threshold: float) -> bool:
    """Is the best evidence weak? No hit, or neither arm found anything convincing."""
    if not hits:
        return True
    cosine, lexical_weight = 0.0, 0.0
    for store in ("atom", "passage"):  # the best evidence of either store
        found = arms.get(store, {})
        dense_note = (found.get("dense") or {}).get("note") or ""
        lexical_weight = max(lexical_weight, (found.get("lexical") or {}).get("weight", 0.0))
        if dense_note.startswith("top cosine"):
            cosine = max(cosine, float(dense_note.split()[-1]))
    return cosine < threshold and lexical_weight < 0.25
