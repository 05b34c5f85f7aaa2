"""Types by grammar: research gaps, procedures and hypotheses (issue 15, "types that mean
something"), from the errors of held-out draws 5, 7, 8 and graded sample 9191: a research gap
("remains unknown", "has not been studied"), a procedure with its purpose or told in the first
person, and a hypothesis ("might cause", "we hypothesize") are `text`; a result told as a
participle ("..., confirming ...") and a statement before a later hypothesis stay `fact`; an
epistemic "should" about a measure ("should be roughly on par with") is a checkable expectation,
not a norm; a Russian norm inside a relative clause or after a verb of saying is reported; a
sentence before a closing lead-in states something. Each rule on both sides, in English, Russian
and German where it applies.

The labelled sentences of these rules are rows of `cases/type.toml` (run by
`test_type_rules.py`); what stays here distils whole chunks or asserts more than one answer.
"""

from __future__ import annotations

from pegas_memory.distill.fact_rules import is_fact
from pegas_memory.distill.mood import instructs
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext

GLOBSET = (
    "For single glob matching, performance of this crate should be roughly on par with the "
    "performance of the glob crate."
)
LUTHER = (
    "Martin Luther: в своем трактате он обличил идею жертвы и утверждал, что месса — это дар, "
    "который следует с благодарностью принимать всем приходом."
)


def fact(sentence: str, language: str = "en") -> bool:
    return is_fact(sentence, language)


# --- an epistemic "should" about a measure is an expectation, a checkable claim ---


def test_the_globset_expectation_is_a_fact_atom_through_the_distiller() -> None:
    atoms = OfflineDistiller().distill(GLOBSET, ChunkContext(language="en"))
    assert [a.type for a in atoms] == ["fact"]


# --- a Russian norm that is reported is what someone held, an event ---


def test_a_russian_norm_in_a_relative_clause_or_reported_is_no_norm() -> None:
    assert not instructs(LUTHER, "ru")
    assert fact(LUTHER, "ru")
    assert fact("Лютер утверждал, что нужно отменить мессу, и в 1520 году издал трактат.", "ru")


def test_a_russian_norm_of_the_sentence_itself_stays_text() -> None:
    assert instructs("Перед запуском следует обновить систему.", "ru")
    assert not fact("Перед запуском следует обновить систему.", "ru")
