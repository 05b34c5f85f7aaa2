"""Checklist steps, sentences that only announce a list, short steps that carry their heading, and
a definite noun in a leading condition (issue 15, scopes 2 and 3; seed 14141's English errors,
`distill/steps_en.py`, `distill/continues_en.py` rule 8, `distill/subject_en.py`):

- a step that opens on a bare verb with a bare plural, a path or a code token as its object
  ("Review changes for every crate ...", "Run ci/sha256-releases {VERSION} >> ...") is an
  instruction, typed text; a statement whose subject looks like that verb ("Run times were
  shorter ...", "Check-ins increased ...", "Test scores improved ...") stays a fact;
- "Check crates in the following order." (and "Порядок действий приведён ниже.") only announces
  the list after it and is dropped with the pointers; a lead-in that says more stays;
- a short step naming nothing ("Update the CHANGELOG as appropriate.") carries its heading; a
  step that names its object does not;
- "If the row does not exist, ..." after a sentence about the row joins it; a condition on a
  noun the sentence before does not name, or on the noun's modifier, does not.

Each on both sides (fires / does not fire)."""

from __future__ import annotations

from functools import partial

import pytest

from pegas_memory.distill.continues_en import continues_before
from pegas_memory.distill.steps_en import bare_step, imperative_step
from tests.distill.offline_chunk import typed_claims

_atoms = partial(typed_claims, language="en")  # (type, claim) of each atom of an English chunk


def test_checklist_steps_are_typed_text_and_statements_stay_facts() -> None:
    text = (
        "Review changes for every crate in crates since the last ripgrep release.\n\n"
        "Run ci/sha256-releases {VERSION} >> pkg/brew/ripgrep-bin.rb. Then edit the file to"
        " update the version number.\n\n"
        "Run times were shorter than before the upgrade in every benchmark.\n"
    )
    types = dict((c, t) for t, c in _atoms(text))
    steps = [c for c in types if c.startswith(("Review", "Run ci/"))]
    assert steps and all(types[c] == "text" for c in steps)
    assert types["Run times were shorter than before the upgrade in every benchmark."] == "fact"


def test_the_announcement_before_a_markdown_list_is_dropped() -> None:
    text = (
        "* Review changes for every crate since the last release. Check crates in the"
        " following order. After updating a crate, ensure minimal versions are updated.\n"
        "    * crates/globset\n"
        "    * crates/ignore\n"
    )
    claims = [c for _, c in _atoms(text, title="Release Checklist")]
    assert not any("following order" in c for c in claims)
    assert any(c.endswith("ensure minimal versions are updated.") for c in claims)


def test_a_short_step_naming_nothing_carries_its_heading() -> None:
    assert bare_step("Update the CHANGELOG as appropriate.")
    assert bare_step("Do not share long snippets.")
    text = "Update the CHANGELOG as appropriate.\n"
    claims = [c for _, c in _atoms(text, title="Release Checklist", heading=("Release Checklist",))]
    assert claims == ["Release Checklist: Update the CHANGELOG as appropriate."]


@pytest.mark.parametrize(
    "claim",
    [
        "Push changes to GitHub, NOT including the tag.",  # names GitHub
        "Run cargo publish in crates/core.",  # a path
        "Update the CHANGELOG. Then tag the release.",  # two sentences
        "Review every change made to the search and the printer crates since the release.",
        "The CHANGELOG is updated as appropriate.",  # a statement
    ],
)
def test_a_step_that_names_its_object_carries_nothing(claim: str) -> None:
    assert not bare_step(claim)


def test_a_short_step_under_a_section_label_carries_nothing() -> None:
    text = "Add empty jelly jars to sterilize and warm.\n"
    claims = [c for _, c in _atoms(text, title="Honey Jam Recipe", heading=("Instructions",))]
    assert claims == [text.strip()]


def test_an_interjection_is_no_step() -> None:
    assert not imperative_step("Wait there’s more.")
    assert not bare_step("Wait, it's not over yet.")
    assert imperative_step("Wait for CI to finish creating the release.")


def test_a_statement_under_the_same_heading_carries_nothing() -> None:
    text = "Contributors are expected to be responsible for any code they publish.\n"
    claims = [c for _, c in _atoms(text, title="AI Policy", heading=("AI Policy",))]
    assert claims == [text.strip()]


_ROW = (
    "If a record PtoQ is mapped to tables p and q, the row in q must exist; it will not emit an"
    " INSERT if the primary key identity is already present."
)


def test_a_definite_noun_in_a_leading_condition_joins_the_sentence_naming_it() -> None:
    again = "If the row does not exist, the ORM will fail to detect an updated row."
    assert continues_before(again, _ROW)
    steps = "Review changes for every crate since the last release."
    assert continues_before("If the set of changes is non-empty, issue a new release.", steps)
    claims = [c for _, c in _atoms(f"{_ROW} {again}\n")]
    assert claims == [f"{_ROW} {again}"]


@pytest.mark.parametrize(
    ("sentence", "before"),
    [
        # the noun is not the sentence before's
        ("If the row does not exist, the ORM raises an error.", "The session caches objects."),
        # the condition's noun is "object"; "application" is only its modifier
        (
            "When the application object is deleted everything it allocated is freed.",
            "It can help to create a minimal application to test specific behavior.",
        ),
        # a moment, not a referent
        ("When the time comes, the row is deleted.", _ROW),
        # an indefinite noun in the condition
        ("If a row does not exist, the ORM raises an error.", _ROW),
    ],
)
def test_a_condition_on_a_noun_not_told_before_does_not_join(sentence: str, before: str) -> None:
    assert not continues_before(sentence, before)
