"""Which type the offline distiller gives a sentence or a block (issue 15, "types that mean
something"): Wikipedia leads are definitions with their term; findings are facts; aims, scope,
method narrative, open questions and speculation are text; a capitalised word makes no fact;
theorem, lemma, proposition and corollary blocks are `fact` atoms of kind theorem (en, ru, de).
Each rule is tested on both sides: what must match and what must not."""

from __future__ import annotations

import pytest

from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.patterns import is_fact
from pegas_memory.distill.types import ChunkContext, DraftAtom


def distill(text: str, language: str) -> list[DraftAtom]:
    atoms = OfflineDistiller().distill(text, ChunkContext(language=language))
    for atom in atoms:
        assert text[atom.quote_start : atom.quote_end] == atom.quote
    return atoms


def only(text: str, language: str) -> DraftAtom:
    atoms = distill(text, language)
    assert len(atoms) == 1, [(a.type, a.claim) for a in atoms]
    return atoms[0]


# --- definitions: leads and the other patterns, with the term ----------------------------------


def test_lead_atom_is_a_definition_and_the_superlative_a_fact() -> None:
    lead = only("Иван Петров (1900—1970) — советский писатель.", "ru")
    assert lead.type == "definition" and lead.term == "Иван Петров"
    assert lead.metadata["pattern"] == "lead"
    assert only("The Volga is the longest river in Europe.", "en").type == "fact"
    assert only("The Volga is a river in Russia.", "en").type == "definition"


# --- fact or text --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("Diastolic dysfunction was strongly and inversely associated with exercise capacity.",
         "en"),
        ("Our results suggest that telomere proteins slow replication fork progression.", "en"),
        ("We found that the promoter activation timescale is related to nucleosome remodeling.",
         "en"),
        ("The treatment increased survival by 20% in older patients.", "en"),
        ("Yeast has only a slightly greater genetic complexity than bacteria.", "en"),
        ("Transition of euchromatin is accompanied by segmental duplications.", "en"),
        ("Исследования показали, что курение связано с раком лёгких.", "ru"),
        ("Было выявлено повышение давления у пациентов старшего возраста.", "ru"),
        ("Неравенство связано с более низкими уровнями роста экономики.", "ru"),
        ("Псайлок позже обладала обеими способностями — телепатией и телекинезом.", "ru"),
        ("Государственный язык — албанский.", "ru"),
        ("Фридрих Вильгельм, курфюрст Бранденбурга, принял гугенотов в своих владениях.", "ru"),
    ],
)  # fmt: skip
def test_findings_are_facts(sentence: str, language: str) -> None:
    assert is_fact(sentence, language)
    assert only(sentence, language).type == "fact"


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        # Aims and plans, even with names, acronyms or numbers in them.
        ("We aimed to quantify the mortality burden attributable to ambient temperature.", "en"),
        ("The present study aimed to test whether MO predisposes adipocyte progenitors.", "en"),
        ("The aim of this study was to investigate whether LKB1 expression correlated with "
         "outcome.", "en"),
        ("OBJECTIVE To determine whether physical activity reduces the rate of cognitive "
         "decline.", "en"),
        ("Цель исследования — изучить влияние курения на давление.", "ru"),
        ("В данной работе мы рассматриваем методы сжатия изображений.", "ru"),
        ("Мы планируем изучить влияние температуры на рост кристаллов.", "ru"),
        # Scope, method narrative, open questions, speculation, calls for more research.
        ("Here, we give a historical overview of the search for genetic variants.", "en"),
        ("The p53 staining was compared, using immunohistochemistry, with the pattern of"
         " expression of bcl-2.", "en"),  # a bare "This was ..." alone needs context: dropped
        ("It is unclear whether blockade of the angiotensin system has effects on mental health.",
         "en"),
        ("Further studies are needed to determine the role of other chemotherapeutic agents.",
         "en"),
        ("Во-первых, воспаление вызывало бы нарушения, если бы оно происходило днём.", "ru"),
        # A question.
        ("Why do the structurally identical FFLs play such different dynamical roles?", "en"),
    ],
)  # fmt: skip
def test_aims_scope_and_questions_are_text(sentence: str, language: str) -> None:
    assert not is_fact(sentence, language)
    assert only(sentence, language).type == "text"


def test_german_aim_is_text_and_a_relation_a_fact() -> None:
    assert not is_fact(
        "Ziel dieser Arbeit ist es, die Konvergenz von 3 Folgen zu untersuchen.", "de"
    )
    assert is_fact("Jede stetige Funktion auf einem Kompaktum besitzt ein Maximum.", "de")


def test_a_finding_clause_keeps_a_scope_sentence_a_fact() -> None:
    # "we examined ..." is method narrative, "... and found that ..." reports what came of it.
    assert not is_fact("We examined the tibia of the mice in detail.", "en")
    assert is_fact("We examined the tibia and found that cortical porosity rose.", "en")
    # A method sentence with a quantity is a finding ("performed in 40% of the patients").
    assert not is_fact("Biopsies were performed before and after the treatment.", "en")
    assert is_fact("Biopsies were performed in 40 % of the patients.", "en")


def test_a_capitalised_word_alone_makes_no_fact() -> None:
    # The old rule made any sentence with a capitalised word after the first a fact.
    assert not is_fact("A long afternoon at the Hatter's table, with tea and cake.", "en")
    assert not is_fact("Цель работы — сравнить Москву и Петербург.", "ru")
    assert not is_fact("We aimed to compare Spain and Croatia in the final.", "en")
    # A named thing doing or being something is one; so is a relation or a number.
    assert is_fact("Spain will be back in action on Wednesday against Croatia.", "en")
    assert is_fact("The Hatter owned a shop.", "en")
    assert is_fact("the river contains 12 dams.", "en")


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("These data illustrate the relevance of mitotic exit in tumour cells.", False),
        ("These data show that mitotic exit is delayed in tumour cells.", True),
        ("Effects of Bmi-1 inhibition on growth were detected by the tumorigenicity assay.", False),
        ("Bmi-1 inhibition reduced the growth of tumour cells.", True),
        ("Untangling this association might lead to novel interventions.", False),
        ("Competition between binding sites may also lead to crosstalk between transcripts.",
         True),
        ("These are exciting times and the pace of discovery is remarkable.", False),
    ],
)  # fmt: skip
def test_evaluations_and_method_passives_are_text(sentence: str, fact: bool) -> None:
    assert is_fact(sentence, "en") is fact


# --- labelled blocks: theorems, definitions, proofs (en, ru, de) --------------------------------


@pytest.mark.parametrize(
    ("text", "language", "label"),
    [
        ("Satz 2.1. Jede kompakte Teilmenge eines metrischen Raumes ist abgeschlossen.", "de",
         "Satz 2.1"),
        ("Lemma 3. Jede konvergente Folge ist beschränkt und hat genau einen Grenzwert.", "de",
         "Lemma 3"),
        ("Korollar 1.2. Jede stetige Funktion auf einem Kompaktum nimmt ihr Maximum an.", "de",
         "Korollar 1.2"),
        ("Theorem 2. Every compact subset of a metric space is closed and bounded.", "en",
         "Theorem 2"),
        ("Proposition 4. Every convergent sequence in a metric space is bounded.", "en",
         "Proposition 4"),
        ("Corollary 5. Every continuous function on a compact set attains its maximum.", "en",
         "Corollary 5"),
        ("Теорема 1. Всякое компактное подмножество метрического пространства замкнуто.", "ru",
         "Теорема 1"),
        ("Лемма 2. Всякая сходящаяся последовательность ограничена.", "ru", "Лемма 2"),
        ("Следствие 3. Непрерывная функция на компакте достигает своего максимума.", "ru",
         "Следствие 3"),
    ],
)  # fmt: skip
def test_theorem_blocks_are_facts_of_kind_theorem(text: str, language: str, label: str) -> None:
    atom = only(text, language)
    assert atom.type == "fact"
    assert atom.metadata["kind"] == "theorem" and atom.metadata["label"] == label


@pytest.mark.parametrize(
    ("text", "language", "term"),
    [
        ("Definition 2.3. Eine Teilmenge U heißt offen, wenn sie mit jedem Punkt eine Kugel "
         "enthält.", "de", "offen"),
        ("Definition 1. A metric space is complete if every Cauchy sequence converges.", "en",
         None),
        ("Определение 1. Метрикой называется функция двух аргументов со свойствами ниже.", "ru",
         "Метрикой"),
    ],
)  # fmt: skip
def test_definition_blocks_are_definitions(text: str, language: str, term: str | None) -> None:
    atom = only(text, language)
    assert atom.type == "definition" and atom.metadata["kind"] == "definition"
    if term is not None:
        assert atom.term == term


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Beweis. Sei x ein Punkt der Menge, dann liegt eine Kugel um x in der Menge. ■", "de"),
        ("Доказательство. Пусть x — точка множества, тогда шар вокруг x лежит в нём. ■", "ru"),
    ],
)
def test_proof_blocks_are_text(text: str, language: str) -> None:
    atom = only(text, language)
    assert atom.type == "text" and atom.metadata["kind"] == "proof"


def test_a_bare_word_satz_is_no_theorem_label() -> None:
    # "Satz" alone at a line start is a German word ("sentence"), not a numbered statement.
    atoms = distill("Satz und Gegensatz bilden in der Rhetorik eine Figur mit 2 Teilen.", "de")
    assert atoms and all(a.metadata.get("kind") != "theorem" for a in atoms)


def test_a_presented_result_is_a_fact_and_presented_scope_is_text() -> None:
    # "We present/describe X" is scope; with its result in the same sentence it is a finding
    result = (
        "We present a fine-scale map of the reef, based on aerial surveys, and identify more "
        "than 120 bleaching sites, together with the currents that feed them."
    )
    assert only(result, "en").type == "fact"
    assert only("We present the survey design and the sampling grid of the reef.", "en").type == (
        "text"
    )
    ru = "В данной работе представлена карта рифа и обнаружены 12 новых видов кораллов."
    assert only(ru, "ru").type == "fact"
    assert only("В данной работе представлена карта рифа и методы съёмки.", "ru").type == "text"
