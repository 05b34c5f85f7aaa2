"""What a sentence or a block says, by pattern, in English, Russian and German (pure logic).

- `match_definition(sentence)`: (term, body, confidence, pattern) when the sentence defines a term
  ("X — это Y", "Под X понимается Y", "X называется Y", "X heißt Y, wenn ...", "X is defined as
  Y", "X is a Y", "X — Y", a lead "Иван Петров (1900—1970) — советский писатель", ...). The
  definition rules live in `distill.definition_rules` (the ordered `DEFINITION_RULES`, each with
  its vetoes, and `definition_trace`, which says which vetoes rejected which rules); this module
  re-exports `match_definition`, which the distiller and the tests import from here.
- `BLOCK_LABEL`: the label line of a numbered statement ("Definition 2.3", "Satz 1.1
  (Heine-Borel)", "Лемма 2.", "Proof."), and `label_kind` which family the label belongs to:
  definition, theorem (Satz, Lemma, Korollar, Theorem, Proposition, Corollary, Теорема, Лемма,
  Следствие), proof, or other (remarks and examples, whose sentences stand on their own). A theorem
  block becomes a `fact` atom with metadata kind=theorem (`distill.types`); `block_term` is the
  term a "Definition N" block defines.
- Whether a sentence is a `fact` or `text` is the type stage's rule list, `distill.fact_rules`,
  which reads the relation, math and acronym shapes here.
- `words_of`, `LETTER` and `ANAPHORS` live in `distill.words` (below this module and the
  definition rules) and are re-exported here.
"""

from __future__ import annotations

import re
from typing import Literal

from pegas_memory.distill.definition_rules import match_definition as match_definition
from pegas_memory.distill.definition_rules import strip_term
from pegas_memory.distill.words import ANAPHORS as ANAPHORS
from pegas_memory.distill.words import LETTER as LETTER
from pegas_memory.distill.words import words_of as words_of

LabelKind = Literal["definition", "theorem", "proof", "other"]


def wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Verbs of relation make a sentence a fact; copulas ("is", "был") do not: nearly all have one.
_RELATION = re.compile(
    r"\b(contains?|consists?|causes?|caused|leads? to|depends?|owns?|owned|built|wrote|written"
    r"|belongs?|located|founded|invented|discovered|born|died|includes?|produces?|equals?"
    r"|requires?|uses?|announced|said|says|reported|released|launched|acquired|increased"
    r"|decreased|rose|fell|won|lost|signed|elected|killed|arrested|sold|bought|grew"
    r"|являет\w*|содерж\w*|состо\w*|вызыва\w*|привод\w*|завис\w*"
    r"|принадлеж\w*|находит\w*|основан\w*|изобр\w*|открыл\w*|родил\w*|умер\w*|включа\w*"
    r"|равн\w*|составля\w*|использу\w*|требу\w*|заяв\w*|сообщ\w*"
    r"|enthält|enthalten|besteht|bestehen|gehört|gehören|liegt|liegen|beträgt|entspricht"
    r"|verursacht|führt zu|hängt|gegründet|gründete|erfunden|entdeckt|geboren|starb|gestorben"
    r"|umfasst|erzeugt|erzeugen|besitzt|hat|haben|gilt|gelten|existiert|existieren|ist gleich"
    r"|konvergiert|induziert)\b",
    re.IGNORECASE,
)
_MATH_RELATION = re.compile(r"[=<>≤≥≠⊆⊂⊇⊃∈∉≅≃∼⇒⇔→↦]|\b\d")
_ACRONYM = re.compile(r"\b[A-ZÄÖÜ]{2,}\b")
# Inside a "Definition N" block a plain "X ist ein Y" / "X is a Y" names the term too.
_BLOCK_IS_A = re.compile(
    r"^(?:(?:ein|eine|einer|der|die|das|a|an|the)\s+)?(?P<term>[^,;:()\n]{2,60}?)\s+"
    r"(?:ist|sind|is|are)\s+(?:ein|eine|einer|a|an|the)\s",
    re.IGNORECASE,
)

_LABELS: dict[str, LabelKind] = {
    **dict.fromkeys(["definition", "def", "определение"], "definition"),
    **dict.fromkeys(
        ["satz", "lemma", "korollar", "folgerung", "theorem", "proposition", "corollary",
         "claim", "теорема", "лемма", "следствие", "утверждение", "предложение"],
        "theorem",
    ),
    **dict.fromkeys(["beweis", "proof", "доказательство"], "proof"),
    **dict.fromkeys(
        ["bemerkung", "beispiel", "beobachtung", "aufgabe", "übungsaufgabe", "notation",
         "remark", "example", "exercise", "note", "замечание", "пример", "упражнение"],
        "other",
    ),
}  # fmt: skip
BLOCK_LABEL = re.compile(
    r"^[ \t]*(?:\*\*|__)?(?P<label>" + "|".join(sorted(_LABELS, key=len, reverse=True))
    + r")(?:\s+(?P<num>\d+(?:\.\d+)*))?\.?(?:\s*\((?P<title>[^()\n]{1,80})\))?"
    r"(?P<sep>[ \t]*[.:][ \t]*|(?:\*\*|__)[ \t]*|[ \t]*$)",
    re.IGNORECASE | re.MULTILINE,
)  # fmt: skip
PROOF_END = re.compile(r"[■□∎]|\bq\.\s?e\.\s?d\.|\bч\.\s?т\.\s?д\.", re.IGNORECASE)


def label_kind(match: re.Match[str]) -> LabelKind | None:
    """The family of a BLOCK_LABEL match, or None when it is prose ("Definition of X is ...")."""
    kind = _LABELS[match["label"].casefold()]
    numbered = match["num"] is not None or match["title"] is not None
    if kind == "proof":
        return kind if match["sep"].strip() or match["sep"] == "" else None
    if not numbered and not match["sep"].strip(" \t*_"):
        return None  # "Satz" alone at a line start is a German word, not a label
    return kind


def block_term(text: str, title: str | None) -> str | None:
    """The term a "Definition N" block defines: by a definition pattern in one of its
    sentences, else the block's title in parentheses, else its "X ist ein Y" subject."""
    flat = re.sub(r"\s+", " ", text).strip()
    for part in re.split(r"(?<=[.!?])\s+", flat):
        found = match_definition(part)
        if found is not None:
            return found[0]
    if title:
        return title.strip()
    m = _BLOCK_IS_A.match(flat)
    return strip_term(m["term"]) if m else None
