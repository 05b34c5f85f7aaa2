"""Distillation: a chunk of text becomes typed atoms, each resting on an exact quoted span.

Two distillers share one Protocol (`distill_types`). The offline one (the default, in
`distill_offline`) is deterministic and works on English and Russian with heuristics; the Ollama
one (here) asks a chat model for typed atoms with structured output, checks every quote against
the chunk (`locate_quote`), and falls back to the offline one when the model is slow, absent or
keeps answering nonsense. The LLM self-critique verdict used by verification (`critique`) lives
here too: it shares the client and the prompt conventions.
"""

from __future__ import annotations

import difflib
import json
import logging
import re
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pegas_memory.distill.carry import carry, document_subject, topic
from pegas_memory.distill.llm import InvalidModelOutput, OllamaChat
from pegas_memory.distill.offline import (
    _LETTER,
    _WS,
    OfflineDistiller,
    _machine_readable,
    _prose_units,
    _rules_in,
    _script_language,
    match_definition,
)

# Re-exported unchanged for callers that import them from pegas_memory.distill.ollama.
from pegas_memory.distill.types import ATOM_TYPES as ATOM_TYPES
from pegas_memory.distill.types import CRITIQUE_PROMPT_VERSION as CRITIQUE_PROMPT_VERSION
from pegas_memory.distill.types import OFFLINE_VERSION as OFFLINE_VERSION
from pegas_memory.distill.types import (
    PROMPT_VERSION,
    TYPED_BY,
    AtomType,
    ChunkContext,
    Distiller,
    DraftAtom,
)
from pegas_memory.distill.units import conversational
from pegas_memory.errors import BackendUnavailable
from pegas_memory.models import VerifyVerdict
from pegas_memory.sentences import split_sentences
from pegas_memory.text import detect_language

if TYPE_CHECKING:
    from pegas_memory.config import Settings

log = logging.getLogger(__name__)

# The verdicts self-critique may answer (memory_verify adds confirmed and unchecked).
CRITIQUE_VERDICTS: tuple[VerifyVerdict, ...] = (
    VerifyVerdict.NEW,
    VerifyVerdict.DUPLICATE,
    VerifyVerdict.CORROBORATES,
    VerifyVerdict.CONTRADICTS,
)


# ---------------------------------------------------------------------------------------------
# Quote checking
# ---------------------------------------------------------------------------------------------

_QUOTE_CHARS = str.maketrans({"«": '"', "»": '"', "“": '"', "”": '"', "„": '"', "’": "'",
                              "‘": "'", "—": "-", "–": "-", "ё": "е", "Ё": "Е"})  # fmt: skip


def _normalized(text: str) -> tuple[str, list[int]]:
    """Text with unified quotes/dashes, collapsed whitespace and case folded, and for each of
    its characters the index of the source character it came from."""
    out: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text.translate(_QUOTE_CHARS)):
        if ch.isspace() or ch in "*_`":
            if out and out[-1] != " " and ch.isspace():
                out.append(" ")
                index.append(i)
            continue
        for folded in ch.casefold():
            out.append(folded)
            index.append(i)
    return "".join(out), index


def locate_quote(text: str, quote: str, *, min_ratio: float = 0.85) -> tuple[int, int] | None:
    """The span of `text` that `quote` stands for, or None when the text does not contain it.

    Exact match first; then a match ignoring case, whitespace, markdown emphasis and quote/dash
    style; then "A ... B" quotes by their ends; then the closest run of one to three sentences
    when it is at least `min_ratio` similar (a model's near-quote snaps to the real span).
    """
    quote = quote.strip()
    if not quote:
        return None
    exact = text.find(quote)
    if exact >= 0:
        return exact, exact + len(quote)
    norm_text, index = _normalized(text)
    norm_quote = _normalized(quote)[0].strip()
    if not norm_quote:
        return None
    found = norm_text.find(norm_quote)
    if found >= 0:
        return index[found], index[found + len(norm_quote) - 1] + 1
    parts = [p.strip() for p in re.split(r"\.\.\.|…", quote) if p.strip()]
    if len(parts) >= 2:
        first, last = locate_quote(text, parts[0]), locate_quote(text, parts[-1])
        if first and last and first[0] < last[1] <= first[0] + 3 * len(quote):
            return first[0], last[1]
    sentences = split_sentences(text)
    best: tuple[float, int, int] = (0.0, 0, 0)
    for i in range(len(sentences)):
        for j in range(i, min(i + 3, len(sentences))):
            s0, s1 = sentences[i].start, sentences[j].end
            window = _normalized(text[s0:s1])[0]
            if abs(len(window) - len(norm_quote)) > 0.5 * len(norm_quote):
                continue
            ratio = difflib.SequenceMatcher(None, window, norm_quote, autojunk=False).ratio()
            if ratio > best[0]:
                best = (ratio, s0, s1)
    return (best[1], best[2]) if best[0] >= min_ratio else None


# ---------------------------------------------------------------------------------------------
# Ollama distiller
# ---------------------------------------------------------------------------------------------

DISTILL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "atoms": {
            "type": "array",
            "maxItems": 60,
            "items": {
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": list(ATOM_TYPES)},
                    "claim": {"type": "string", "minLength": 1},
                    "content": {"type": "string"},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "quote": {"type": "string", "minLength": 1},
                    "term": {"type": "string"},
                },
                "required": ["type", "claim", "content", "confidence", "quote"],
            },
        }
    },
    "required": ["atoms"],
}

DISTILL_SYSTEM = """You distill a chunk of a document into typed knowledge atoms for a research \
agent's long-term memory. Answer with one JSON object {"atoms": [...]} fitting the given schema.
Atom types:
- definition: a term and its meaning; claim "TERM — meaning" or "TERM is ...", content = the \
meaning, term = the term;
- fact: one checkable statement (numbers, names, dates, relations);
- logical_rule: a rule between relation kinds; content = JSON {"if": "kind" or ["kind", ...], \
"then": "kind"} with single-token kinds;
- code: a code snippet; content = the code exactly; claim = what it does or defines;
- table: a table; content = the table exactly; claim = what it shows;
- text: any other useful statement that stands alone.
Rules:
- An atom is only what states something by itself: a definition, a theorem or rule, a table, a \
code block, or a fact with its own subject. Every sentence stays searchable and cited in the \
document's passages, so leaving one out loses nothing; when in doubt, leave it out.
- Never make atoms of: reference-list or bibliography entries, tables of contents, front matter \
(authors, affiliations, keywords), figure or table captions, table headers alone, running heads, \
page numbers, PDF debris, tutorial steps or narration addressed to the reader ("Then you ...", \
"Let's ..."), pointers to other parts of the text ("see Section 5", "as shown below"), questions, \
sentences that only introduce a list or an example.
- claim is ONE self-contained statement: no pronouns pointing outside it, names spelled out; \
when its subject comes from an earlier sentence or the section heading, write it into the claim \
(the quote stays exact).
- quote is an exact, contiguous copy of the chunk text the atom rests on (one to three \
sentences, or the whole code block or table). Never paraphrase or shorten inside the quote.
- Write claim and content in the language of the chunk (a Russian chunk gives Russian atoms).
- confidence in [0, 1]: how clearly the chunk states the atom.
- Skip trivia: navigation, headings alone, boilerplate, fragments. An empty list is fine."""

_LANGUAGE_NAMES = {"ru": "Russian", "en": "English"}


def build_distill_prompt(text: str, context: ChunkContext) -> str:
    """The user message for one chunk (pure; the version is PROMPT_VERSION)."""
    lines = []
    if context.title:
        lines.append(f"Document: {context.title}")
    if context.heading_path:
        lines.append("Section: " + " > ".join(context.heading_path))
    language = context.language or detect_language(text)
    if language:
        name = _LANGUAGE_NAMES.get(language, language)
        lines.append(f"Chunk language: {name}; write the atoms in {name}.")
    lines.append("Chunk:\n<<<\n" + text + "\n>>>")
    return "\n".join(lines)


class OllamaDistiller:
    """Distillation by an Ollama chat model, offline fallback per chunk.

    When the server is down, slow or lacks the model, the distiller stops asking it for
    `cooldown` seconds (a long document must not pay the timeout once per chunk) and every chunk
    in that window is distilled offline with `metadata["distiller"] == "offline-fallback"`.
    """

    prompt_version = PROMPT_VERSION

    def __init__(
        self,
        llm: OllamaChat,
        *,
        fallback: Distiller | None = None,
        timeout: float | None = None,
        cooldown: float = 60.0,
    ) -> None:
        self.llm = llm
        self.name = f"ollama:{llm.model}"
        self.fallback = fallback if fallback is not None else OfflineDistiller()
        self.timeout = timeout
        self.cooldown = cooldown
        self._lock = threading.Lock()
        self._down_until = 0.0
        self._down_reason = ""

    def distill(self, text: str, context: ChunkContext) -> list[DraftAtom]:
        """Typed atoms of one chunk; never raises for model trouble (it falls back instead)."""
        if not text.strip():
            return []
        with self._lock:
            down = time.monotonic() < self._down_until
            reason = self._down_reason
        if down:
            return self._fall_back(text, context, f"model unavailable recently: {reason}")
        try:
            answer = self.llm.complete_json(
                DISTILL_SYSTEM, build_distill_prompt(text, context), DISTILL_SCHEMA,
                timeout=self.timeout,
            )  # fmt: skip
        except InvalidModelOutput as exc:
            return self._fall_back(text, context, str(exc))
        except BackendUnavailable as exc:
            with self._lock:
                self._down_until = time.monotonic() + self.cooldown
                self._down_reason = str(exc)
            return self._fall_back(text, context, str(exc))
        proposed = answer["atoms"]
        atoms = self._to_atoms(text, context, proposed)
        if proposed and not atoms:
            return self._fall_back(text, context, "no quote of the model's atoms is in the chunk")
        return atoms

    def _to_atoms(
        self, text: str, context: ChunkContext, proposed: Sequence[Mapping[str, Any]]
    ) -> list[DraftAtom]:
        chunk_language = context.language or detect_language(text)
        atoms: list[DraftAtom] = []
        seen: set[tuple[str, str]] = set()
        # The model is told to write claims that stand alone, and often does not ("Съёмки
        # сезона начались ...", "It was released in 1999"): its drafts carry the section's
        # subject as the offline distiller's do (`distill.carry`), so both give the same kind
        # of claim. The join does not apply: the model picks its own quote and claim. In a chunk
        # of dialogue "she" is a character, and nothing is carried.
        subject = None if conversational(text, _prose_units(text, ())) else topic(context)
        for item in proposed:
            claim = _WS.sub(" ", item["claim"]).strip()
            kind = AtomType(item["type"])  # the schema checked it
            span = locate_quote(text, item["quote"])
            if not claim or span is None or (kind, claim.casefold()) in seen:
                log.info("dropped atom %r: quote not in chunk or duplicate", claim[:80])
                continue
            seen.add((kind, claim.casefold()))
            meta: dict[str, Any] = {
                "distiller": "ollama", "model": self.llm.model,
                "prompt_version": self.prompt_version, TYPED_BY: "model",
            }  # fmt: skip
            content = item["content"].strip() or claim
            if kind == "definition":
                found = match_definition(claim)
                term = (item.get("term") or "").strip() or (found[0] if found else "")
                if term:
                    meta["term"] = term
            if kind == "logical_rule":
                try:
                    rules = _rules_in(json.loads(content))
                except ValueError:
                    rules = None
                meta["machine_readable"] = bool(rules) and _machine_readable(rules or [])
            confidence = min(1.0, max(0.0, float(item["confidence"])))
            quote = text[span[0] : span[1]]
            language = None if kind == "code" else _script_language(claim, chunk_language)
            draft = DraftAtom(kind, claim, content, confidence, quote, *span, language, meta)
            atoms.append(carry(draft, subject, document=subject and document_subject(context)))
        atoms.sort(key=lambda a: a.quote_start)
        return atoms

    def _fall_back(self, text: str, context: ChunkContext, reason: str) -> list[DraftAtom]:
        log.warning("distilling a chunk offline: %s", reason)
        return [
            replace(
                atom,
                metadata={
                    **atom.metadata,
                    "distiller": "offline-fallback",
                    "fallback_reason": reason,
                    "prompt_version": self.fallback.prompt_version,
                },
            )
            for atom in self.fallback.distill(text, context)
        ]


def build_distiller(settings: Settings, *, llm: OllamaChat | None = None) -> Distiller:
    """The distiller the settings choose: Ollama (offline fallback) when PEGAS_OLLAMA_URL is set,
    else the offline distiller."""
    if llm is None and not settings.ollama_url:
        return OfflineDistiller()
    return OllamaDistiller(llm or OllamaChat.from_settings(settings))


# ---------------------------------------------------------------------------------------------
# Self-critique verdict
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CandidateText:
    """The atom under verification, as the critique sees it."""

    claim: str
    content: str = ""
    type: AtomType = AtomType.TEXT


@dataclass(frozen=True)
class NeighbourText:
    """A stored atom near the candidate by embedding."""

    id: int
    claim: str
    content: str = ""
    similarity: float | None = None


@dataclass(frozen=True)
class Verdict:
    verdict: VerifyVerdict
    reason: str
    ref_id: int | None  # the neighbour the verdict refers to; None for "new"


VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": list(CRITIQUE_VERDICTS)},
        "reason": {"type": "string", "minLength": 3, "maxLength": 400},
        "ref_id": {"type": ["integer", "null"]},
    },
    "required": ["verdict", "reason", "ref_id"],
}

CRITIQUE_SYSTEM = """You check one candidate statement against stored statements of a knowledge \
base. Answer with one JSON object {"verdict", "reason", "ref_id"}:
- "duplicate": a stored statement says the same thing; ref_id = its id;
- "corroborates": a stored statement supports it without repeating it; ref_id = its id;
- "contradicts": a stored statement cannot be true together with it; ref_id = its id;
- "new": none of the above; ref_id = null.
If several apply, prefer contradicts, then duplicate, then corroborates. reason: one short line \
saying why, in the candidate's language."""


def build_critique_prompt(atom: CandidateText, neighbours: Sequence[NeighbourText]) -> str:
    """The user message of a critique (pure; the version is CRITIQUE_PROMPT_VERSION)."""
    lines = [f"Candidate ({atom.type}): {atom.claim}"]
    if atom.content and atom.content != atom.claim:
        lines.append(f"Candidate details: {atom.content[:800]}")
    lines.append("Stored statements:")
    for n in neighbours:
        detail = f" | {n.content[:400]}" if n.content and n.content != n.claim else ""
        lines.append(f"- id {n.id}: {n.claim}{detail}")
    return "\n".join(lines)


def critique(
    llm: OllamaChat,
    atom: CandidateText,
    neighbours: Sequence[NeighbourText],
    *,
    timeout: float | None = None,
) -> Verdict:
    """The model's verdict on `atom` against its nearest stored atoms.

    With no neighbours the answer is "new" without asking the model.

    Raises:
        InvalidModelOutput: the model kept answering nonsense (a verdict that names no listed
            neighbour, an empty reason...): report "check could not run", change no status.
        BackendUnavailable: the server is down, lacks the model, or timed out (ModelTimeout).
    """
    if not neighbours:
        return Verdict(VerifyVerdict.NEW, "no stored atom is near enough to compare", None)
    ids = {n.id for n in neighbours}

    def check(answer: dict[str, Any]) -> str | None:
        if answer["verdict"] != VerifyVerdict.NEW and answer["ref_id"] not in ids:
            return f"ref_id must be one of the listed ids {sorted(ids)} for {answer['verdict']}"
        if not _LETTER.search(answer["reason"]):
            return "reason must say why in words"
        return None

    answer = llm.complete_json(
        CRITIQUE_SYSTEM, build_critique_prompt(atom, neighbours), VERDICT_SCHEMA,
        timeout=timeout, check=check,
    )  # fmt: skip
    verdict = VerifyVerdict(answer["verdict"])  # the schema checked it
    reason = _WS.sub(" ", answer["reason"]).strip()
    return Verdict(verdict, reason, None if verdict is VerifyVerdict.NEW else int(answer["ref_id"]))
