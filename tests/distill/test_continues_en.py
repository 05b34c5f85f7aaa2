"""English sentences that go on with an enumeration or a comparison of the sentence before (issue
15, scope 2; `distill/continues_en.py`, called by `distill/join_en.py`): "Another 16 loci ...",
"between the 2 groups", "similar to those obtained in NN", and a definite description after a
leading adverbial ("In women with NP, the decrease ..."), each joined to the sentence before; and
in both languages no join crosses a structured abstract's section label ("RESULTS", "РЕЗУЛЬТАТЫ",
"RESULT(S)") or a paragraph. Each rule on both sides (fires / does not fire); Russian sentences
are not read by the English rules."""

from __future__ import annotations

import pytest

from pegas_memory.distill.context import leans_back
from pegas_memory.distill.continues_en import after_opening_phrase, continues_before
from tests.distill.offline_chunk import claims, grouped

_LOCI = (
    "A robust rise in DNA methylation levels across the lifespan was observed for 8/50 loci "
    "(GABRA2, GAD1) in temporal neocortex."
)
_TRIAL = (
    "A total of 200 patients with metabolic syndrome were randomized to rosiglitazone or placebo."
)
_BRS = (
    "Cardiac baroreceptor reflex sensitivity (BRS) was impaired in NP and PIH women relative to NN."
)
_TITLE = "The psychiatric manifestations of mitochondrial disorders: a case and review"


def _claims(text: str, title: str | None = None, language: str = "en") -> list[str]:
    return claims(text, title, (), language)


# --- rule 1: an enumeration goes on ---------------------------------------------------------


def test_an_enumeration_opening_a_paragraph_or_section_joins_nothing() -> None:
    # The set it is other than is the section's before: no join reaches it.
    first = "Other kinds of values or counters can be used for versioning."
    text = f"{first}\n\nCommon types include dates."
    assert not continues_before(first, None)
    assert len(_claims(text)) == 2


# --- rule 3: a comparison whose standard is a pronoun -------------------------------------------


def test_a_standard_described_by_an_abbreviation_of_before_joins() -> None:
    second = (
        "After delivery, sympathetic activity decreased to values similar to those obtained in NN."
    )
    text = f"{_BRS} {second}"
    assert grouped(text) == [text]
    bare = "Heart rate was low in the NP group. Blood pressure was similar to that."
    assert grouped(bare) == [bare]  # "similar to that." with nothing after it


# --- rule 4: a definite description after a leading adverbial ----------------------------------


def test_a_definite_description_after_an_opening_phrase_meets_its_family_before() -> None:
    before = "After delivery, sympathetic activity decreased in every woman."
    second = "In women with NP, the decrease in sympathetic output occurred despite stable BP."
    assert after_opening_phrase(second) is not None
    text = f"{before} {second}"
    assert grouped(text) == [text]


# --- no join crosses a section label or a paragraph; a title carry is kept ----------------------


@pytest.mark.parametrize("label", ["RESULTS", "RESULTS:", "RESULT(S)", "METHODS AND RESULTS"])
@pytest.mark.parametrize(
    "second",
    [
        "There was no significant difference in CIMT between the 2 groups.",
        "These patients showed no change in CIMT at 12 months.",  # leans by its first words
    ],
)
def test_no_join_crosses_a_structured_abstracts_label(label: str, second: str) -> None:
    text = f"{_TRIAL} {label} {second}"
    claims = _claims(text)
    # "These patients" joins nothing across the label, so it does not say which patients: it
    # stays in its passage (`distill.reference`); the other sentence is an atom of its own.
    assert len(claims) == (1 if second.startswith("These") else 2)
    assert not any(label.rstrip(":") in c for c in claims)  # the label is in no claim
    assert not any("These" in c for c in claims)


def test_a_label_line_of_its_own_is_crossed_by_no_join() -> None:
    text = f"{_TRIAL}\nRESULTS\nThere was no significant difference in CIMT between the 2 groups."
    assert all("RESULTS" not in g or g.startswith("RESULTS") for g in grouped(text))
    assert len(grouped(text)) == 2


def test_no_join_crosses_a_russian_label_either() -> None:
    before = "Всего 200 пациентов были рандомизированы в группы розиглитазона и плацебо."
    text = f"{before} РЕЗУЛЬТАТЫ Они не различались по толщине интимы."
    assert leans_back("Они не различались по толщине интимы.", "ru", before)  # it would join
    groups = grouped(text, "ru")
    assert len(groups) == 2
    assert groups[0] == before


def test_a_continuation_keeps_the_title_carry_of_the_sentence_before() -> None:
    first = "The most common diagnosis (52% of cases) was a MELAS mutation."
    second = "Other genetic mitochondrial diagnoses included polymerase gamma mutations."
    claims = _claims(f"{first} {second}", title=_TITLE)
    assert claims[0].startswith(_TITLE) and claims[0].endswith(first[1:])  # still carried
    assert len(claims) == 2
    # Before a sentence whose subject is named, the same continuation joins.
    assert continues_before(second, _LOCI)
