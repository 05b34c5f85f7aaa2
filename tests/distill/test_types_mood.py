"""Types by grammar (issue 15, "types that mean something"; `distill/mood.py` and the rules of
`distill/patterns.py` that use it): advice, instructions, norms and lead-ins are `text`, a phrase
without a verb is `text`, a result ("we demonstrate ...") or a state ("was predominantly ...") is a
`fact`, a Russian closing predicate adjective is a `fact`, and a relational noun with its owner
before a dash is no definition. Each rule on both sides, in English, Russian and German where it
applies.

The labelled sentences of these rules are rows of `cases/type.toml` (run by
`test_type_rules.py`); what stays here distils whole chunks or asserts more than one answer.
"""

from __future__ import annotations

from pegas_memory.distill.fact_rules import is_fact
from pegas_memory.distill.mood import instructs
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.patterns import match_definition
from pegas_memory.distill.types import ChunkContext


def typed(text: str, language: str) -> str:
    atoms = OfflineDistiller().distill(text, ChunkContext(language=language))
    assert len(atoms) == 1, [(a.type, a.claim) for a in atoms]
    return atoms[0].type


# --- instructions, advice, norms, lead-ins: text ------------------------------------------------


def test_a_german_mathematical_must_is_no_norm() -> None:
    assert not instructs("Dann muss f stetig sein, wenn f differenzierbar ist.", "de")


def test_instruction_atoms_are_typed_text_through_the_distiller() -> None:
    assert typed("First, use go get to install the latest version of the library.", "en") == "text"
    assert typed("Сначала установите пакет, чтобы запустить примеры.", "ru") == "text"
    assert typed("Use of statins was associated with a lower risk of stroke.", "en") == "fact"


# --- revisions after held-out draw 6's first score (general forms, both sides) ------------------


def test_a_lead_whose_head_holds_clauses_is_no_definition() -> None:
    clauses = ("Достигнув расцвета в X—XI веках, Тямпа (Чампа) подверглась нашествию вьетов; около "
               "1470 года пал главный город — последнее княжество стало вассалом.")  # fmt: skip
    assert match_definition(clauses) is None
    lead = "Иван Петров (1900—1970) — советский писатель."
    assert match_definition(lead) is not None


def test_an_open_question_in_a_second_clause_leaves_the_first_a_fact() -> None:
    assert is_fact(
        "Dementias are often associated with behavioral deficits, but the anatomy is poorly "
        "understood.",
        "en",
    )


def test_a_norm_in_a_coordinated_clause_is_a_norm() -> None:
    sentence = "There is no need for special content, but the length of words should match."
    assert instructs(sentence, "en")
    assert not is_fact(sentence, "en")


# --- "We present / describe / report X": scope, unless it states its result ----------------------


def test_an_evaluation_in_a_later_contrast_clause_leaves_the_statement_a_fact() -> None:
    # the first clause states what happened; "but the results have been disappointing" judges it
    s = "Many vaccines have been tested against the virus but the results have been disappointing."
    assert is_fact(s, "en")
    assert is_fact("Было испытано много вакцин, но это подчёркивает важность диагностики.", "ru")
    # the evaluation alone, or a first clause that is itself a hedge or an evaluation, stays text
    assert not is_fact("The results have so far been disappointing.", "en")
    assert not is_fact("These results are encouraging, but the sample was small.", "en")
    assert not is_fact("This could reflect a selection bias, but the sample was small.", "en")
    assert not is_fact("Эти данные подчёркивают важность ранней диагностики.", "ru")
