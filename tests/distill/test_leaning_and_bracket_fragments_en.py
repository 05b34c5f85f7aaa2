"""English claims of seed 11111 that still leaned back, and bracket fragments (issue 15, scope 2;
`distill/join_en.py` rule 12, `sentences.close_brackets`, `distill/standalone.py`): a predicative
comparative with nothing to compare with joins the sentence before; a sentence whose bracket
closes past 600 characters stays whole; a claim opening on a bare "This"/"It" with its verb
(the command of the item before) is dropped as needs context. Each rule on both sides; the
rules are English grammar, so the Russian side checks that Russian text is left as it was."""

from __future__ import annotations

import pytest

from pegas_memory.distill.context import leans_back
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.standalone import NEEDS_CONTEXT
from pegas_memory.distill.types import ChunkContext
from pegas_memory.distill.units import sentence_groups
from pegas_memory.ingest.chunking import chunk_spans
from pegas_memory.sentences import split_sentences

_BEFORE = (
    "Conventional PKC alpha, beta and gamma were nearly equally susceptible to inhibition by the "
    "peptide."
)


def test_both_before_two_long_prepositional_phrases_names_them() -> None:
    sentence = (
        "Undernutrition was strongly associated, both in the review of published work and in "
        "new analyses, with shorter adult height."
    )
    assert not leans_back(sentence, "en", _BEFORE)
    assert leans_back("Group 3 received both medications in the second week.", "en", _BEFORE)


def test_the_undernutrition_comparative_joins_its_sentence_after_a_chunk_cut() -> None:
    """The chunk starts mid-sentence (overlap): the fragment is dropped, and the sentence that
    names what "not so clear-cut" compares with is no longer swallowed by it."""
    text = (
        "outcomes and for indicators related to blood lipids and mental illness. Undernutrition "
        "was strongly associated, both in the review of published work and in new analyses, with "
        "shorter adult height and less schooling. Associations with adult disease indicators "
        "were not so clear-cut."
    )
    claims = [a.claim for a in OfflineDistiller().distill(text, ChunkContext(language="en"))]
    assert any(c.startswith("Undernutrition") and c.endswith("not so clear-cut.") for c in claims)


def test_a_first_sentence_with_a_bare_comparative_joins_nothing() -> None:
    assert not leans_back("The mutant protein was more stable.", "en", None)


def test_the_pkc_sentence_joins_the_sentence_that_names_the_comparison() -> None:
    second = "The Ca2+-independent PKC delta was much less sensitive to inhibition."
    text = f"{_BEFORE} {second}"
    groups = [(text[g.start : g.end], g.sentences) for g in sentence_groups(text, 0, len(text))]
    assert groups == [(text, 2)]


def test_a_russian_comparative_is_left_to_the_russian_rules() -> None:
    # Rule 12 reads English only: "менее чувствителен" is no English copula + comparative.
    before = "Обычные изоформы одинаково подавлялись пептидом."
    assert not leans_back("Дельта-форма была намного менее чувствительна.", "ru", before)


# --- a bracket closing past 600 characters --------------------------------------------------

_LONG = (
    "The cumulative detection of CIN grade 3 or worse did not differ between study arms, "
    "neither for the whole study group (CIN grade 3 or worse: 259 of 19 999 vs 272 of 20,106; "
    "0·96, 0·81-1·14, p=0·631; CIN grade 2 or worse: 427 of 19 999 vs 399 of 20,106; 1·08, "
    "0·94-1·24; p=0·292), nor for subgroups of women invited for the first time (CIN grade 3 "
    "or worse in women aged 29-33 years: 102 of 3139 vs 105 of 3128; 0·97, 0·74-1·27; CIN grade "
    "2 or worse in women aged 29-33 years: 153 of 3139 vs 151 of 3128; 1·01, 0·81-1·26; CIN "
    "grade 3 or worse in women aged 34-56 years: 157 of 16,860 vs 167 of 16 978; 0·95, "
    "0·76-1·18; CIN grade 2 or worse in women aged 34-56 years: 274 of 16,860 vs 248 of "
    "16 978; 1·11, 0·94-1·32)."
)


def test_a_sentence_whose_bracket_closes_past_600_characters_stays_whole() -> None:
    assert len(_LONG) > 700
    text = f"{_LONG} The trial ended in 2011."
    assert [s.text for s in split_sentences(text)] == [_LONG, "The trial ended in 2011."]


def test_no_chunk_starts_inside_the_long_trial_sentence_bracket() -> None:
    """The chunker packs the splitter's sentences: cut at 600 characters, a chunk started at
    "0·96, 0·81-1·14, p=0·631; ..." (the graded fragment d4931a8bc6)."""
    filler = " ".join(f"Sentence number {i} says something plain here." for i in range(6))
    text = f"{filler} {_LONG} The trial ended in 2011."
    for max_chars in range(900, 1200, 25):
        for start, _end in chunk_spans(text, max_chars=max_chars, overlap=0):
            assert not text[start:].startswith(("0·96", "CIN grade 2", "1·08", "nor for"))


@pytest.mark.parametrize(
    "aside",
    [
        "Further words of a long aside follow here; ",
        "Дальше идут слова длинного отступления; ",
    ],
)
def test_a_bracket_open_past_1200_characters_keeps_razdel_cuts(aside: str) -> None:
    text = f"Start (of an aside. {aside * 40}end). Next sentence."
    assert len(split_sentences(text)) > 1


# --- "This"/"It" standing for the command before ---------------------------------------------

_RELEASE = """1. Run `mvn release:clean`
1. Start the release: `mvn release:prepare`
    - Try to follow Semantic Versioning when choosing the release version number.
    - This will do a full build, change version from `-SNAPSHOT` to the released version, \
commit and create the tags. It will then change the version to `-SNAPSHOT` for the next release.
1. Complete the release: `mvn release:perform`
"""


def test_this_standing_for_the_command_of_the_item_before_is_dropped() -> None:
    context = ChunkContext(title="Gson Release Process", language="en")
    atoms, dropped = OfflineDistiller().distill_counted(_RELEASE, context)
    assert not any(a.claim.startswith("This will") for a in atoms)
    assert dropped.get(NEEDS_CONTEXT) == 1
    assert any("Semantic Versioning" in a.claim for a in atoms)  # the item before stays
