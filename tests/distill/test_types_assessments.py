"""Types by grammar: assessments and generic presents (issue 15, "types that mean something"), from
the type errors of graded samples 9191 and 10101: an assessment in a definition's shape ("X is a
fast-moving field", "X — одна из самых недооценённых ...") defines nothing; a generic present with
its object ("SIV naturally infects non-human primates") and a Russian past of a consonant stem
("возросла", "предпочли"), a stressed "-ёт" present ("берёт") or the copula ("была в услужении")
state something checkable; a reader told about "this text" is blind text; a long lead-in after
statements leaves them stated unless it speaks to the reader or a sentence before points ahead;
"This part of the documentation covers ..." describes the text. Each rule on both sides, in English
and Russian.

The labelled sentences of these rules are rows of `cases/type.toml` (run by
`test_type_rules.py`); what stays here distils whole chunks or asserts more than one answer.
"""

from __future__ import annotations

from pegas_memory.distill.fact_rules import is_fact
from pegas_memory.distill.leads import match_lead_definition
from pegas_memory.distill.mood import about_the_text
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext


def typed(text: str, language: str, title: str | None = None) -> list[tuple[str, str | None]]:
    atoms = OfflineDistiller().distill(text, ChunkContext(title, (), language))
    return [(a.type, a.term) for a in atoms]


# --- an assessment in a definition's shape is no definition ---


def test_a_lead_that_judges_its_subject_is_no_definition() -> None:
    subjects = ("Exercise physiology",)
    judged = "Exercise physiology is a fast-moving field of study."
    assert match_lead_definition(judged, subjects) is None
    named = "Exercise physiology is the study of the acute responses of the body to exercise."
    found = match_lead_definition(named, subjects)
    assert found is not None and found[0] == "Exercise physiology"


# --- what a part of the documentation covers ---


def test_a_part_of_the_documentation_describes_the_text() -> None:
    docs = "This part of the documentation covers all the interfaces of Flask."
    engine = "This part of the engine covers all the interfaces of Flask."
    assert about_the_text(docs, "en") and not is_fact(docs, "en")
    assert not about_the_text(engine, "en") and is_fact(engine, "en")


# --- an atom of several sentences: an open question or research narrative first ---

HIPPO = (
    "Although a developmental role for Hippo signaling in organ size control is well appreciated, "
    "how this pathway functions in tissue regeneration is largely unknown. Here we address this "
    "issue using a dextran sodium sulfate (DSS)-induced colonic regeneration model."
)
RNA = (
    "Total RNA was collected from pneumococci isolated from infected blood and cerebrospinal "
    "fluid. Microarray analysis of pneumococcal genes expressed in these models identified body "
    "site-specific patterns of expression for virulence factors."
)


def test_an_open_question_then_an_aim_is_text() -> None:
    assert not is_fact(HIPPO, "en")
    # what follows the open question states something: the atom is a fact
    found = HIPPO.split(". Here")[0] + ". The pathway regulates colonic repair through YAP."
    assert is_fact(found, "en")


def test_a_method_then_a_finding_is_a_fact() -> None:
    assert is_fact(RNA, "en")
    # a method followed by more method stays text
    method = RNA.split(". Microarray")[0] + ". The samples were then analysed by microarray."
    assert not is_fact(method, "en")
