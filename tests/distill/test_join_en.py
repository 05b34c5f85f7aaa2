"""English claims that stand alone (issue 15, scope 2: "needs context"): a sentence that leans on
the one before by a word past its first ones (`distill/join_en.py`, through
`distill.context.leans_back`) is joined with it; a leaning paragraph joins the paragraph before
(`distill.units.next_paragraph`); a chain of leaning sentences stops at 3 sentences or 700
characters. Each rule fires and does not fire; Russian and German keep their own rules. Pure:
the distiller runs on text, no engine."""

from __future__ import annotations

from pegas_memory.distill.context import leans_back
from pegas_memory.distill.types import DraftAtom
from pegas_memory.distill.units import next_paragraph, sentence_groups
from tests.distill.offline_chunk import distil


def test_a_definite_description_that_repeats_the_sentence_before_leans_back() -> None:
    before = "The success rate for producing live offspring by cloning remains below 5%."
    sentence = "The low success rate is believed to be associated with epigenetic errors."
    assert leans_back(sentence, "en", before)
    # without that sentence, or after one about something else, it stands
    assert not leans_back(sentence, "en")
    assert not leans_back(sentence, "en", "Most cloned embryos undergo developmental arrest.")
    # "of ..." says whose: the description names its own referent
    named = "The success rate of cloning by nuclear transfer is below 5%."
    assert not leans_back(named, "en", before)


def test_russian_and_german_keep_their_own_rules() -> None:
    # ru: a demonstrative after the verb names its own subject (context.py's rule), and the
    # English rules do not read Russian or German sentences
    assert not leans_back("Рудольф Клаузиус ввёл это понятие в 1865 году.", "ru")
    assert leans_back("Изначально она была второстепенным персонажем.", "ru")
    assert not leans_back("Die Ergebnisse sind therefore nicht eindeutig.", "de")
    assert not leans_back("Beide Medikamente wurden gut vertragen.", "de")
    assert not leans_back("Außerdem unterscheidet sich das Ansprechen auf die Therapie.", "de")
    # ru "Кроме того," leans back by its own rule already (the demonstrative "того")
    assert leans_back("Кроме того, ответ на терапию различается по подтипу опухоли.", "ru")
    # the English reading of the same words does fire
    assert leans_back("The results are therefore not conclusive.", "en")


def _distill(
    text: str, title: str = "Statins and inflammation after cardiac surgery"
) -> list[DraftAtom]:
    return distil(text, title, (), "en")[0]


def test_a_mid_sentence_reference_is_joined_with_the_sentence_before() -> None:
    text = (
        "We show that DNA replication activity in extracts of human HeLa cells decreases "
        "following UV irradiation. Alterations in replication activity in vitro parallel the "
        "UV-induced block in cell cycle progression of these cells in culture."
    )
    atoms = _distill(text)
    assert len(atoms) == 1
    (atom,) = atoms
    assert atom.quote == text[atom.quote_start : atom.quote_end] == text
    assert "HeLa cells" in atom.claim and "these cells in culture" in atom.claim
    assert not atom.metadata.get("anaphoric")


def test_an_additive_sentence_about_the_same_subject_is_joined_and_a_named_one_is_not() -> None:
    text = (
        "Glioblastomas fall into four molecular subtypes of distinct prognosis. "
        "Additionally, response to aggressive therapy differs by subtype, with the greatest "
        "benefit in the second subtype."
    )
    (atom,) = _distill(text)
    assert atom.quote == text and "four molecular subtypes" in atom.claim
    named = (
        "Glioblastomas fall into four molecular subtypes of distinct prognosis. "
        "Additionally, Proneural tumours respond poorly to aggressive therapy in 2 trials."
    )
    assert len(_distill(named)) == 2


def test_a_reference_to_the_study_itself_is_not_joined() -> None:
    text = (
        "Lower socioeconomic status predicts higher mortality in many chronic illnesses. "
        "In this study we followed 1200 patients with heart failure for five years."
    )
    assert [a.claim for a in _distill(text)] == [
        "Lower socioeconomic status predicts higher mortality in many chronic illnesses.",
        "In this study we followed 1200 patients with heart failure for five years.",
    ]


def test_a_leaning_paragraph_joins_the_paragraph_before_as_one_verbatim_span() -> None:
    first = (
        "Template engines are like programming languages and each of those engines has a "
        "certain understanding about how things work."
    )
    second = "But that's about where similarities end."
    third = "Jinja for example has an extensive filter system and a way to inherit templates."
    text = f"{first}\n\n{second} {third}"
    atoms = _distill(text, "Design Decisions in Flask")
    joined = [a for a in atoms if second in a.claim]
    assert len(joined) == 1
    assert joined[0].claim.startswith("Template engines are like")
    assert joined[0].quote == text[joined[0].quote_start : joined[0].quote_end]
    assert joined[0].quote.startswith(first) and joined[0].quote.endswith(second)
    assert any(a.claim == third for a in atoms)


def test_a_paragraph_that_stands_alone_or_follows_a_heading_is_not_joined() -> None:
    first = "Flask decides on one template engine: Jinja is always configured."
    alone = "Template engines are like programming languages with rules of their own."
    atoms = _distill(f"{first}\n\n{alone}", "Design Decisions in Flask")
    assert sorted(a.claim for a in atoms) == sorted([first, alone])
    # a heading between the paragraphs: the second is in another section
    leaning = "But that's about where similarities end for the two engines."
    text = f"{first}\n\n## Other engines\n\n{leaning}"
    atoms = _distill(text, "Design Decisions in Flask")
    assert not any(first in a.claim and leaning in a.claim for a in atoms)
    assert not next_paragraph(text, (0, len(first)), text.index(leaning), len(text))
    assert next_paragraph(f"{first}\n\n{leaning}", (0, len(first)), len(first) + 2, 999)
    plain = "One thing is done. But that is all."
    assert not next_paragraph(plain, (0, 18), 19, len(plain))  # no paragraph boundary
    # a paragraph opening with a bare pronoun or demonstrative starts a new point: not joined
    these = "These engines differ in how templates inherit from each other."
    atoms = _distill(f"{alone}\n\n{these}", "README")  # a one-word title carries nothing
    assert not any(alone in a.claim and these in a.claim for a in atoms)
    # nor does it say which engines: it stays in its passage (distill.reference)
    assert not any(a.quote == these for a in atoms)


def test_a_chain_of_leaning_sentences_stops_at_three_and_the_rest_stays_anaphoric() -> None:
    sentences = [
        "Natural killer cells normalize at six months after transplantation.",
        "Chronic disease did not influence those parameters for CD8 subsets.",
        "Such patients were nevertheless followed for ten years in the clinic.",
        "Both groups had the same survival at the end of follow-up.",
        "Neither drug changed that outcome at one year.",
    ]
    text = " ".join(sentences)
    groups = sentence_groups(text, 0, len(text), language="en")
    assert [g.sentences for g in groups] == [3, 2]
    assert not groups[0].anaphoric and groups[1].anaphoric
    atoms = _distill(text, "README")  # a one-word title carries nothing
    assert len(atoms) == 2
    assert atoms[1].confidence == 0.4 and atoms[1].metadata.get("anaphoric")


def test_a_long_chain_stops_at_700_characters() -> None:
    long = "with " + ", ".join(f"marker {i} measured twice daily" for i in range(12))
    sentences = [
        f"Plasma levels of interleukins were measured before surgery {long}.",
        f"These levels were compared between the two groups of patients {long}.",
        f"Those parameters did not differ at baseline {long}.",
    ]
    text = " ".join(sentences)
    assert len(sentences[0]) + len(sentences[1]) > 700
    groups = sentence_groups(text, 0, len(text), language="en")
    assert [g.sentences for g in groups] == [1, 1, 1]
    assert [g.anaphoric for g in groups] == [False, True, True]
    # the same sentences, short, are one group
    short = "Levels were measured. These levels were compared. Those parameters did not differ."
    assert [g.sentences for g in sentence_groups(short, 0, len(short), language="en")] == [3]
