"""Steps and checklists of English docs pages, through the distiller and the rules it asks
(`distill/steps_en.py`, `distill/following_en.py`, `distill/ordered_lists.py`,
`distill/values_en.py`, `distill/continues_en.py` rule 8; issue 15, seeds 14141 and 17171).
The labelled sentences of the step, announcement and presentative rules are in
`cases/type.toml` and `cases/promote.toml`; what stays here distils whole chunks or decides a
join or a carried heading:

- a step that opens on a bare verb with a bare plural, a path or a code token as its object
  ("Review changes for every crate ...", "Run ci/sha256-releases {VERSION} >> ...") is an
  instruction, typed text; a statement whose subject looks like that verb ("Run times were
  shorter ...", "Check-ins increased ...", "Test scores improved ...") stays a fact;
- "Check crates in the following order." (and "Порядок действий приведён ниже.") only announces
  the list after it and is dropped with the pointers; a lead-in that says more stays;
- a short step naming nothing ("Update the CHANGELOG as appropriate.") carries its heading; a
  step that names its object does not;
- "If the row does not exist, ..." after a sentence about the row joins it; a condition on a
  noun the sentence before does not name, or on the noun's modifier, does not;
- "The following are the steps directly related to the context." (its subject is the list after
  it) is dropped as a `pointer`, as "Here are ...", "Below is ...", ru "Ниже приведён ..." are;
  "The following year ...", "The following review aims to ...", a sentence holding what it
  presents after ":" stay;
- a short list of steps (a lead-in that speaks of steps or an order, or numbered items under no
  ":" lead-in), every item one sentence, is one atom: its lead-in and the items numbered in
  order; a list of features under "X provides:", a long list, an item of several sentences, a
  list that began before the chunk keep their items;
- 'Using "0" can simplify ...' after 'If X is set to the string "0", ...' joins it; a sentence
  that names what it sets, or whose value the sentence before does not hold, stays alone.

Each on both sides (fires / does not fire)."""

from __future__ import annotations

from functools import partial

import pytest

from pegas_memory.distill.continues_en import continues_before
from pegas_memory.distill.ordered_lists import sequences
from pegas_memory.distill.steps_en import bare_step, imperative_step
from pegas_memory.distill.values_en import repeats_value
from tests.both_sides import both_sides
from tests.distill.offline_chunk import typed_claims

_atoms = partial(typed_claims, language="en")  # (type, claim) of each atom of an English chunk


# --- checklist steps, short steps and leading conditions ---


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


# --- "The following are ...": a lead-in ending in "." -------------------------------------------


def test_a_lead_in_ending_in_a_full_stop_is_dropped_and_leads_its_steps_in() -> None:
    text = (
        "Flask dispatches a request in multiple stages which can affect the request. The "
        "following are the\nsteps directly related to the context.\n\n"
        "-   The app context is pushed, the proxies are available.\n"
        "-   The :data:`.appcontext_pushed` signal is sent.\n"
        "-   The request is dispatched.\n"
        "-   Any :meth:`.Flask.teardown_request` decorated functions are called.\n"
        "-   The app context is popped, the proxies are no longer available.\n"
    )
    atoms = _atoms(text, title="The App and Request Context", heading=("Lifecycle",))
    claims = [c for _, c in atoms]
    assert not any(c.startswith("The following") for c in claims)
    assert (
        "fact",
        "The steps directly related to the context: (1) The app context is pushed, the proxies "
        "are available. (2) The appcontext_pushed signal is sent. (3) The request is "
        "dispatched. (4) Any Flask.teardown_request() decorated functions are called. (5) The "
        "app context is popped, the proxies are no longer available.",
    ) in atoms
    assert not any(c.startswith("Any Flask.teardown_request") for c in claims)


# --- A short list of steps in order --------------------------------------------------------------


def test_numbered_steps_under_no_lead_in_take_their_heading() -> None:
    text = (
        "The WSGI application will return data that is translated into an HTTP response.\n\n"
        "1.  Browser or other client makes HTTP request.\n"
        "1.  WSGI server receives request.\n"
        "1.  WSGI server converts HTTP data to WSGI ``environ`` dict.\n"
        "1.  Client receives the HTTP response.\n"
    )
    atoms = _atoms(text, title="Application Structure", heading=("Serving the Application",))
    merged = [c for _, c in atoms if "(1)" in c]
    assert len(merged) == 1
    assert merged[0].startswith("Serving the Application: (1) Browser or other client makes")
    assert "(4) Client receives the HTTP response." in merged[0]
    assert not any(c == "WSGI server receives request." for _, c in atoms)


def test_a_lead_in_with_in_the_following_order_and_a_colon_keeps_its_words() -> None:
    text = (
        "The release runs these steps in order:\n\n"
        "* The version is bumped.\n* The tag is pushed.\n* The artifacts are uploaded.\n"
    )
    (seq,) = sequences(text)
    assert seq.lead == "The release runs these steps in order:"
    assert len(seq.items) == 3


@pytest.mark.parametrize(
    "text",
    [
        # a list of features under a ":" lead-in: each item carries it, as before
        "Cobra provides:\n\n* Easy subcommand-based CLIs.\n* Fully POSIX-compliant flags.\n"
        "* Nested subcommands.\n",
        # bullets under a statement that speaks of no order
        "Flask has configuration options to set these on the session cookie.\n\n"
        "- ``Secure`` limits cookies to HTTPS traffic only.\n"
        "- ``HttpOnly`` protects the contents of cookies from being read with JavaScript.\n"
        "- ``SameSite`` restricts how cookies are sent with requests from external sites.\n",
        # an item of several sentences stands by itself
        "The steps are these.\n\n1. Build it. Then test it.\n2. Tag it.\n3. Push it.\n",
        # two items are no sequence to merge
        "The steps of the release.\n\n1. The tag is pushed.\n2. The wheel is uploaded.\n",
        # a list that began before the chunk: its lead-in is not here
        "4. The tag is pushed.\n5. The wheel is uploaded.\n6. The release is announced.\n",
        # items without a full stop are no sentences
        "The stages of the pipeline:\n\n1. parse\n2. chunk\n3. distill\n",
    ],
)
def test_lists_that_are_no_short_sequence_keep_their_items(text: str) -> None:
    assert sequences(text) == []


def test_a_long_list_of_steps_keeps_its_items() -> None:
    items = "".join(f"1. Step number {n} of the long request lifecycle runs.\n" for n in range(15))
    text = "The following are the steps of each request.\n\n" + items
    atoms = _atoms(text, heading=("Lifecycle",))
    assert not any("(1)" in c for _, c in atoms)  # longer than one claim may be
    assert sum("Step number" in c for _, c in atoms) == 15


# --- A value the sentence before gave a setting ------------------------------------------------

_BEFORE = (
    'If the <PROGRAM>_ACTIVE_HELP environment variable is set to the string "0", Cobra will '
    "automatically disable all Active Help output."
)


def test_a_sentence_on_the_value_joins_the_sentence_that_sets_it() -> None:
    text = (
        "**Note 1**: "
        + _BEFORE.replace("<PROGRAM>_ACTIVE_HELP", "`<PROGRAM>_ACTIVE_HELP`")
        + '  Using "0" can simplify your code in situations where you want to blindly disable '
        "Active Help.\n"
    )
    atoms = _atoms(text, title="Active Help", heading=("Active Help", "User control"))
    assert len(atoms) == 1
    assert atoms[0][1].endswith('Using "0" can simplify your code in situations where you want '
                                "to blindly disable Active Help.")  # fmt: skip
    assert "_ACTIVE_HELP environment variable" in atoms[0][1]


@pytest.mark.parametrize(
    ("before", "claim", "holds"),
    both_sides(
        # a claim about the value before repeats it
        holds=[
            (_BEFORE, 'Using "0" can simplify your code.'),
            ("The cache accepts a timeout in seconds or None.", "Passing None disables the cache."),
            ('The mode is "auto" unless the terminal is not a tty.', '"auto" picks the colors.'),
        ],
        # a claim that names its setting or another value stands
        fails=[
            # it names what it sets
            (_BEFORE, 'Setting COBRA_ACTIVE_HELP to "0" disables Active Help for every program.'),
            # the value is not the one before
            (_BEFORE, 'Using "1" turns the debug output on.'),
            # a number is as often a measure
            ("Doses of 5 mg/kg were given.", "Using 5 mg/kg, the response doubled."),
            # no value opens it
            (_BEFORE, "Active Help can also be disabled for every program."),
        ],
    ),
)
def test_a_claim_about_the_value_before_repeats_it_and_one_naming_its_setting_stands(
    before: str, claim: str, holds: bool
) -> None:
    assert bool(repeats_value(before, claim)) is holds


def test_sentences_in_two_paragraphs_are_not_joined_by_their_value() -> None:
    text = _BEFORE + '\n\nUsing "0" can simplify your code in situations where you want it.\n'
    assert len(_atoms(text, heading=("Active Help",))) == 2
