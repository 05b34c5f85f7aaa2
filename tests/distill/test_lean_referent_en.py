"""English sentences that lean on what the distiller could not join (issue 15, seed 16161's en
junk; `distill/lean_en.py`, `distill/referent_en.py`, `distill/standalone.py`, continues_en rule
8 with a gerund, and rst admonitions whose body starts on the marker's line):

- a bare "this" ("You can achieve this with ...", "Currently, this will ..."), an aside in
  brackets, "I thought it was ...", "the group of columns" after "Sets of columns", "For
  example, ..." join the sentence before; what still leans so with nothing to join is dropped as
  needing context, unless the section's heading is the question it answers (or a code object's
  name), which it then carries;
- a paragraph right after a code block that points back by its first words ("This alias checks
  ...", "The first says ... the latter ...") leans on the code: dropped, and so is the one
  leaning on it in turn;
- "However, for PCRE2, things are much worse." opening a paragraph leans on nothing it can join.

Each on both sides (fires / does not fire); Russian text is not read by these rules."""

from __future__ import annotations

import pytest

from pegas_memory.distill.continues_en import conditional_description
from pegas_memory.distill.lean_en import (
    aside,
    bare_this,
    collective,
    leans,
    speaker_it,
    unresolved,
)
from pegas_memory.ingest.markup import normalise
from tests.distill.offline_chunk import grouped, typed_claims


def _claims(text: str, heading: tuple[str, ...] = (), language: str = "en") -> list[str]:
    return [c for t, c in typed_claims(text, None, heading, language) if t != "code"]


# --- rule 1: a bare "this" -------------------------------------------------------------------


def test_this_first_is_read_only_when_asked() -> None:
    assert not bare_this("This can be done with the --sort flag.")
    assert bare_this("This can be done with the --sort flag.", opening=True)


def test_a_bare_this_joins_the_sentence_before_in_a_paragraph() -> None:
    text = (
        "The only way to make the order of results consistent is to ask ripgrep to sort the "
        "output. Currently, this will disable all parallelism."
    )
    assert grouped(text) == [text]


# --- rules 2 and 6: an aside, an example -----------------------------------------------------


def test_an_aside_in_brackets_joins_the_sentence_it_comments_on() -> None:
    sentence = "(On smaller repositories, you might not notice much of a performance difference!)"
    assert aside(sentence)
    assert leans(sentence, "Currently, this will disable all parallelism.")
    assert not leans(sentence, None)  # a paragraph's first: nothing to comment on
    assert not aside("(1999)")
    assert not aside("(x1, y1, etc.) are also accessible on the class.")


def test_an_example_joins_the_sentence_it_illustrates_but_not_as_a_lead_in() -> None:
    before = "The problem here is that some patterns can match across multiple lines."
    assert leans("For example, foo\\sbar will match foo\\nbar.", before)
    assert leans("For instance, Flask uses Jinja's autoescaping support.", before)
    assert not leans("For example, you can easily find all palindromes:", before)
    assert not leans("For example, foo\\sbar will match foo\\nbar.", None)


def test_past_an_example_the_leaning_sentence_has_nothing_to_join_and_is_dropped() -> None:
    text = (
        "Remember that ripgrep only reports matches spanning a single line. The problem here is "
        "that some patterns can match across multiple lines. For example, foo\\sbar will match "
        "foo\\nbar. The most obvious way to achieve this is to read the data line by line."
    )
    claims = _claims(text)
    assert not any("most obvious way" in c for c in claims)
    assert any(c.endswith("will match foo\\nbar.") for c in claims)


# --- rule 3: "it" after the speaker's own verb -----------------------------------------------


def test_the_speakers_it_joins_the_name_before() -> None:
    text = (
        "Before ripgrep's first public release, I decided that I didn't like xrep. I thought it "
        "was slightly awkward to type."
    )
    assert grouped(text) == [text]


# --- rule 4: a definite collective of a kind named before ------------------------------------


def test_the_group_of_columns_joins_the_sentence_about_columns() -> None:
    before = "Sets of columns can be associated with a single user-defined datatype."
    sentence = "The ORM provides a single attribute which represents the group of columns."
    assert collective(sentence, before)
    assert grouped(f"{before} {sentence}") == [f"{before} {sentence}"]
    assert not collective(sentence, "The ORM maps classes to tables.")
    assert not collective("The set of all integers is infinite.", "Integers are numbers.")


# --- rule 5: a contrast with nothing to contrast ---------------------------------------------


def test_a_paragraph_opening_contrast_with_nothing_to_join_is_dropped() -> None:
    text = (
        "In the former case, ripgrep falls back to the fast line search.\n\n"
        "However, for PCRE2, things are much worse. Unicode mode makes ripgrep decode UTF-8 "
        "before it hands the data to PCRE2.\n"
    )
    claims = _claims(text)
    assert not any("much worse" in c for c in claims)
    assert any(c.startswith("Unicode mode makes ripgrep decode") for c in claims)


# --- what still leans is dropped, unless an opening connector holds the "this" ---------------


def test_a_paragraph_first_bare_this_joins_the_paragraph_before() -> None:
    text = (
        "Releases are made on a best effort basis and no dates will ever be given.\n\n"
        "An exception to this can be high impact bugs.\n"
    )
    claims = _claims(text)
    assert claims == [
        "Releases are made on a best effort basis and no dates will ever be given. An exception"
        " to this can be high impact bugs."
    ]


# --- referent_en rule 1: the question an FAQ answer leans on ---------------------------------

_QUESTION = "How can I get results in a consistent order?"
_ANSWER = (
    f"### {_QUESTION}\n\n"
    "ripgrep uses parallelism, so the order of results is not deterministic.\n\n"
    "The only way to make the order of results consistent is to ask ripgrep to sort the output. "
    "Currently, this will disable all parallelism. (On smaller repositories, you might not "
    "notice much of a performance difference!) You can achieve this with the `--sort path` "
    "flag.\n"
)


def test_an_answers_this_carries_its_question() -> None:
    claims = _claims(_ANSWER, ("FAQ", _QUESTION))
    assert f"{_QUESTION}: You can achieve this with the --sort path flag." in claims
    assert any(c.endswith("(On smaller repositories, you might not notice much of a performance"
                          " difference!)") for c in claims)  # fmt: skip


def test_no_question_carry_without_the_heading_line_or_a_question() -> None:
    deep = _ANSWER.split("\n\n", 1)[1]  # a later chunk of the answer: its heading line is above
    assert not any("--sort path" in c for c in _claims(deep, ("FAQ", _QUESTION)))
    label = _ANSWER.replace(_QUESTION, "Sorting")
    assert not any("--sort path" in c for c in _claims(label, ("FAQ", "Sorting")))


def test_a_code_objects_heading_is_carried_too_but_no_pointer() -> None:
    text = (
        "# SESSION_COOKIE_DOMAIN\n\nThe value of the Domain parameter on the session cookie.\n\n"
        "Default: None\n\nIf this is changed after the browser created a cookie, it may result "
        "in another being created.\n"
    )
    claims = _claims(text, ("Configuration", "SESSION_COOKIE_DOMAIN"))
    assert "SESSION_COOKIE_DOMAIN: if this is changed after the browser created a cookie, it" in (
        " ".join(claims)
    )
    pointer = f"### {_QUESTION}\n\nAn answer.\n\nThis is covered in the section sorting.\n"
    assert not any("covered" in c for c in _claims(pointer, ("FAQ", _QUESTION)))


# --- referent_en rule 2: what leans on a code block ------------------------------------------

_ALIAS = """### How do I create an alias for ripgrep on Windows?

Use below example as reference to how setup alias in PowerShell.

```powershell
function grep {
    $input | rg.exe --hidden $args
}
```

PowerShell special variables:

* input - is powershell `stdin` object that allows you to access its content.
* args - is array of arguments passed to this function.

This alias checks whether there is `stdin` input and propagates only if there
is some lines.
"""

_SED = """### How can I search and replace with ripgrep?

Files containing matching patterns can be provided to sed using

```
rg foo --files-with-matches
```

The output of this command is a list of filenames that contain a match for
the `foo` pattern.

This list can be piped into `xargs`, which will split the filenames from
standard input into arguments for the command following xargs.
"""

_TRACE = """## Tracing

```
$ rg '^\\w{42}$' subtitles --trace
fast line searcher
$ rg -P '^\\w{42}$' subtitles --trace
slow line searcher
```

The first says it is using the "fast line searcher" where as the latter says
it is using the "slow line searcher."
"""


@pytest.mark.parametrize(
    "text,heading,gone",
    [
        (_ALIAS, ("FAQ", "How do I create an alias for ripgrep on Windows?"), "alias checks"),
        (_SED, ("FAQ", "How can I search and replace with ripgrep?"), "output of this command"),
        (_SED, ("FAQ", "How can I search and replace with ripgrep?"), "piped into xargs"),
        (_TRACE, ("Guide", "Tracing"), "fast line searcher"),
    ],
)
def test_what_leans_on_the_code_before_it_is_dropped(
    text: str, heading: tuple[str, ...], gone: str
) -> None:
    claims = _claims(text, heading)
    assert not any(gone in c for c in claims), claims


@pytest.mark.parametrize(
    "after",
    [
        "It is possible to set any custom validator that satisfies the interface.",
        "Finally, it is possible to disable Unicode support from within the pattern.",
        "The validator runs before the value is stored.",  # names its own subject
        "That is, -t means include files of this type where as -T means exclude them.",
    ],
)
def test_what_follows_code_without_pointing_back_is_kept(after: str) -> None:
    text = f"## Validators\n\nDefine a validator:\n\n```\ndef check(x): ...\n```\n\n{after}\n"
    assert _claims(text, ("Guide", "Validators")), after


# --- continues_en rule 8 with a gerund, rst admonitions --------------------------------------


def test_a_gerund_condition_on_a_noun_told_before_joins() -> None:
    before = "In the example above the columns that represent the composites are accessible."
    sentence = "If accessing the single columns is important they can be explicitly declared."
    assert conditional_description(sentence, before)
    assert not conditional_description(sentence, "The ORM maps classes to tables.")
    assert conditional_description("If the row does not exist, the ORM fails.", "the row exists")


def test_an_admonitions_first_line_on_its_marker_is_kept() -> None:
    source = (
        "Intro.\n\n.. tip:: In the example above the columns that represent the composites\n"
        "    (``x1``, ``y1``) are also accessible on the class.\n"
        "    :ref:`composite_with_typing` shows how.\n\nAfter.\n"
    )
    text, _, _ = normalise(source, "rst")
    assert len(text) == len(source)
    assert "In the example above the columns that represent the composites" in text
    assert ":ref:`composite_with_typing` shows how." in text  # a body line, not an option
    assert ".. tip::" not in text
    versioned = normalise(".. versionadded:: 2.0\n\n    Text.\n", "rst")[0]
    assert "2.0" not in versioned  # a version is no text


def test_russian_text_is_not_read_by_these_rules() -> None:
    question = "Как получить результаты по порядку?"
    text = (
        f"### {question}\n\nЕдинственный способ получить порядок — сортировка вывода. Сейчас это"
        " отключает параллелизм. (На малых репозиториях разницы не заметно!) Вы можете добиться"
        " этого флагом --sort.\n"
    )
    assert not any(c.startswith(question) for c in _claims(text, ("FAQ", question), "ru"))


def test_after_code_a_heading_may_name_this_functionality_but_not_this_command() -> None:
    code = "```\nprint(s.compile(compile_kwargs={'literal_binds': True}))\n```\n\n"
    heading = ("FAQ", "Rendering Bound Parameters Inline")
    head = "## Rendering Bound Parameters Inline\n\nUse the literal_binds flag.\n\n"
    kept = _claims(head + code + "This functionality is provided mainly for debugging.\n", heading)
    assert any("this functionality is provided" in c for c in kept), kept
    gone = _claims(head + code + "The output of this command is a raw SQL string.\n", heading)
    assert not any("raw SQL string" in c for c in gone), gone


def test_a_naming_or_expletive_it_is_no_reference_to_drop() -> None:
    assert not speaker_it("We call it the core of the framework.")
    assert not speaker_it("You may find it useful to pass the flag twice.")
    assert speaker_it("I think it is important to note the flag.")  # joined when it can be
    assert not unresolved("I think it is important to note the flag.")  # kept when alone
