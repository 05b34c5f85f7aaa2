"""English claims that stand alone (issue 15, scope 2: "needs context"): a sentence that leans on
the one before by a word past its first ones (`distill/join_en.py`, through
`distill.context.leans_back`) is joined with it; a leaning paragraph joins the paragraph before
(`distill.units.next_paragraph`); a chain of leaning sentences stops at 3 sentences or 700
characters. Each rule fires and does not fire; Russian and German keep their own rules. Pure:
the distiller runs on text, no engine."""

from __future__ import annotations

import pytest

from pegas_memory.distill.context import leans_back
from pegas_memory.distill.types import DraftAtom
from pegas_memory.distill.units import next_paragraph, sentence_groups
from tests.distill.offline_chunk import distil

FIRES = [
    # 1. a demonstrative with its noun anywhere
    "Alterations in replication activity parallel the block in cell cycle progression of "
    "these cells in culture.",
    "Chronic disease did not influence significantly those parameters for CD8 subsets.",
    "Our society has to call attention to this subject without delay.",
    "A good example for this is unit testing.",
    "Due to this, the second trial was stopped early.",
    # 2. a determiner that presupposes a set told before
    "Group 3 (41 patients) received both medications.",
    "Neither drug changed the outcome at one year.",
    "Such patients were excluded from the analysis.",
    # "such N" with an "as" that belongs to a later phrase, not to "such N as ..."
    "We chose to limit such extensions by marking classes as final.",
    "Doctors avoid such drugs in children as a rule.",
    "The latter was measured at baseline only.",
    "The same was found in mice lacking the receptor.",
    # 3. a connector of consequence inside the clause
    "The role of monocytes and macrophages is therefore controversial.",
    "We thus propose a model of sequential activation.",
    # 4. a connector at the start
    "But they have to use the current working directory for that.",
    "But that's about where similarities end.",
    "In particular the situation for inpatients in hospitals is pleasing.",
    "Instead, the interactive debugger will be shown.",
    "In contrast, mutant mice developed normally.",
    # 5. a subject pronoun after an opening phrase without a comma
    "On the surface they all work the same way.",
    # 8. an additive connector, then a bare or definite noun phrase with no name in its clause
    "Additionally, response to early surgery differs by age group, with the greatest benefit in "
    "the young.",
    "Furthermore, the expression ratio correlated with sensitivity to the drug.",
    "Moreover, the expression of the receptor was higher in resistant tumours.",
    "In addition, help will also support all other commands as input.",
    # 6. an instruction whose object is a pronoun
    "If you want to apply a WSGI middleware, just wrap it and you're done.",
    "Use it to store the configuration of the application.",
]
STANDS = [
    # the document itself, a moment, or the referent named in the sentence
    "In this study we enrolled 120 patients with asthma.",
    "However, this review covers only trials published after 2000.",
    "At this point the model predicts a second peak.",
    "At this, the crowd fell silent and the speaker left.",
    "A blind text like this gives you information about the selected font.",
    "Template engines are like programming languages and each of those engines has its rules.",
    "Patients given the drug recovered faster than those receiving placebo.",
    "Adults with diabetes had higher risk than those with normal glucose.",
    "Patients on metformin had similar rates compared with those in the combination group.",
    # the set is named in the sentence
    "The effect was seen in both men and women.",
    "Treatment was either surgery or radiotherapy.",
    "You can either provide the path of the instance folder when creating the app or let it be.",
    "Now that you have a configuration, you can copy that configuration for another command.",
    "Diseases such as asthma and eczema are common in children.",
    "Doctors treat such common diseases as asthma and eczema.",
    "Nobody has ever seen such a thing as a free lunch.",
    # an additive connector before a subject of its own: a name, an acronym, a number, the
    # authors, something new, or a pronoun that rules 1 and 4 read
    "Additionally, Proneural tumours respond poorly to aggressive therapy.",
    "Moreover, the expression of PD-L1 was higher in the resistant tumours.",
    "Furthermore, 40 patients relapsed within a year of surgery.",
    "In addition, we measured the expression ratio in all subclones.",
    "Additionally, a second cohort of women was enrolled in the trial.",
    # a bare plural names a kind of its own
    "Moreover, plant formins show significant divergence in their sequences.",
    "In addition, patients with diabetes had a higher risk of infection.",
    "The dose was the same as in the first trial.",
    "At the same time the company opened a second plant in Ohio.",
    # a consequence linking two clauses of the same sentence
    "Statins lower LDL cholesterol and thus reduce cardiovascular events.",
    "The protein binds actin, thus stabilising the filaments.",
    # a connector whose sentence names its own subject; a pronoun with its antecedent before it
    "However, plant formins bind actin with low affinity.",
    "However, both autolysis and capsule shedding depend on the hydrolytic activity of LytA.",
    "In contrast to most other organisms, yeast recombines DNA only by homology.",
    "Instead of a plugin system, Flask bundles one template engine.",
    "When patients arrive they are triaged by a nurse.",
    "When Alice woke she found the garden empty.",
    "Heyward said that he is already looking forward to facing the Browns again.",
    "The conjunction that introduces a clause is no demonstrative.",
    "The drug was given early, making it possible to lower the dose.",
    "Researchers found it difficult to recruit enough patients.",
    "We call it the core of the framework.",
    "The proxy is valid for one request, and usually it is what you want.",
    "In a nutshell the object does the right thing, like it does for the session.",
]


@pytest.mark.parametrize("sentence", FIRES)
def test_a_later_reference_leans_back(sentence: str) -> None:
    assert leans_back(sentence, "en")


@pytest.mark.parametrize("sentence", STANDS)
def test_a_sentence_with_its_own_referent_stands(sentence: str) -> None:
    assert not leans_back(sentence, "en")


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
