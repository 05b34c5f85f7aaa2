"""Types by grammar: research gaps, procedures and hypotheses (issue 15, "types that mean
something"), from the errors of held-out draws 5, 7, 8 and graded sample 9191: a research gap
("remains unknown", "has not been studied"), a procedure with its purpose or told in the first
person, and a hypothesis ("might cause", "we hypothesize") are `text`; a result told as a
participle ("..., confirming ...") and a statement before a later hypothesis stay `fact`; an
epistemic "should" about a measure ("should be roughly on par with") is a checkable expectation,
not a norm; a Russian norm inside a relative clause or after a verb of saying is reported; a
sentence before a closing lead-in states something. Each rule on both sides, in English, Russian
and German where it applies."""

from __future__ import annotations

import pytest

from pegas_memory.distill.mood import instructs
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.patterns import is_fact
from pegas_memory.distill.types import ChunkContext
from tests.both_sides import both_sides

GLOBSET = (
    "For single glob matching, performance of this crate should be roughly on par with the "
    "performance of the glob crate."
)
LUTHER = (
    "Martin Luther: в своем трактате он обличил идею жертвы и утверждал, что месса — это дар, "
    "который следует с благодарностью принимать всем приходом."
)


def fact(sentence: str, language: str = "en") -> bool:
    return is_fact(sentence, language)


# --- a research gap is an open question: text ---


@pytest.mark.parametrize(
    ("sentence", "language", "holds"),
    both_sides(
        # a research gap is text
        fails=[
            (
                "The origin and location of the adipose stem cells, however, remain unknown, "
                "presenting an obstacle to the further purification and study of these cells.",
                "en",
            ),
            (
                "Although experiments in human oocytes have shown effective replacement, the "
                "consequences of small amounts of mtDNA carryover "
                "have not been studied sufficiently.",
                "en",
            ),
            ("Механизм этого явления до сих пор не изучен.", "ru"),
            ("Роль этих клеток остаётся неизвестной, что затрудняет их изучение.", "ru"),
            ("Der Mechanismus der 3 Mutationen bleibt weitgehend unklar.", "de"),
            ("Die Folgen der 3 Mutationen wurden bisher nicht untersucht.", "de"),
        ],
        # a statement or a gap after a contrast stays a fact
        holds=[
            ("The stem cells remain in the niche for about 12 weeks.", "en"),
            ("The patients have not been treated with steroids since 2010.", "en"),
            # one clause states X, the gap is in the contrast after "but"
            (
                "Cytoplasmic RNA granules play a central role in "
                "mRNA metabolism, but the importance "
                "of mitochondrial RNA granules remains relatively unexplored.",
                "en",
            ),
            ("Механизм этого явления изучен в 1950 году.", "ru"),
            ("Der Mechanismus wurde 1950 aufgeklärt.", "de"),
        ],
    ),
)
def test_a_research_gap_is_text_and_a_statement_stays_a_fact(
    sentence: str, language: str, holds: bool
) -> None:
    assert bool(fact(sentence, language)) is holds


# --- a procedure is method narrative: text, unless it reports a result ---


@pytest.mark.parametrize(
    ("sentence", "holds"),
    both_sides(
        # a procedure is text
        fails=[
            "Immunofluorescent staining for α-SMA and PDGF-Rβ were applied to identify the "
            "α-SMA-GFP-positive cells.",
            "We harvested ASCs from transgenic mice and sorted them into GFP-positive and "
            "GFP-negative cells by FACS.",
            "We evaluated >100 candidate yeast genes in a battery of assays.",
        ],
        # a result or a stated design stays a fact
        holds=[
            "The drug was approved in 2001 to treat hypertension.",
            "We experimentally evaluated >100 candidate yeast genes in a battery of assays, "
            "confirming involvement of at least 15 new genes.",
            # a structured abstract's method field: graded a fact (sample 8181)
            "Methods: The panel consisted of five sections: hemodynamics, infection, adjunctive "
            "therapies, metabolic, and ventilation.",
            "Patients receiving LY450139 had lower plasma amyloid levels.",
            # the present tense tells how an API works, not what a study did
            "A werkzeug.test.TestResponse is returned to examine the response data.",
        ],
    ),
)
def test_a_procedure_is_text_and_a_result_or_a_stated_design_stays_a_fact(
    sentence: str, holds: bool
) -> None:
    assert bool(fact(sentence)) is holds


# --- a hypothesis is text; a statement before a later hypothesis stands ---


@pytest.mark.parametrize(
    ("sentence", "language", "holds"),
    both_sides(
        # a hypothesis is text
        fails=[
            ("Secondly, long-term statin use might cause adverse effects, such as diabetes.", "en"),
            (
                "Following further results, we hypothesize that incoherent FFLs have been "
                "optimally designed.",
                "en",
            ),
            ("Additionally, we suggest new mechanisms for KLF1 cooperation with GATA1.", "en"),
            ("Это могло бы объяснить рост заболеваемости на 5 %.", "ru"),
            ("Мы предполагаем, что рост связан с климатом.", "ru"),
            ("Dies könnte den Anstieg um 5 % erklären.", "de"),
            ("Wir vermuten, dass der Anstieg um 5 % mit dem Klima zusammenhängt.", "de"),
        ],
        # no hypothesis or one after a statement stays a fact
        holds=[
            ("Long-term statin use causes adverse effects, such as incident diabetes.", "en"),
            ("We show that incoherent FFLs have been optimally designed.", "en"),
            (
                "Moreover, getXXX or isXXX might be semantic rather than indicating properties.",
                "en",
            ),
            ("The committee set up an organ that might become the constitution of 2004.", "en"),
            (
                "On top of that you can register blueprints multiple times though not every "
                "blueprint might respond properly to that.",
                "en",
            ),
            (
                "The phylum Euryarchaeota recruited more than 95% "
                "of the archaeal sequences, and we "
                "hypothesize that these orders may be fundamental to the ecology of the seep.",
                "en",
            ),
            (
                "В 1999 году Совет учредил орган, которому было поручено разработать хартию, "
                "которая могла бы стать конституцией.",
                "ru",
            ),
            ("Это объясняет рост заболеваемости на 5 %.", "ru"),
            ("Dies erklärt den Anstieg um 5 %.", "de"),
        ],
    ),
)
def test_a_hypothesis_is_text_and_a_statement_before_one_stays_a_fact(
    sentence: str, language: str, holds: bool
) -> None:
    assert bool(fact(sentence, language)) is holds


# --- an epistemic "should" about a measure is an expectation, a checkable claim ---


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        (GLOBSET, "en"),
        ("The full build should take about 5 minutes on a laptop.", "en"),
        ("Производительность должна составлять около 5 секунд.", "ru"),
        ("Die Übersetzung sollte etwa 5 Minuten dauern.", "de"),
    ],
)
def test_an_expectation_about_a_measure_is_a_fact(sentence: str, language: str) -> None:
    assert not instructs(sentence, language)
    assert fact(sentence, language)


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("The config file should be placed in the home directory.", "en"),
        ("You should be about two metres from the screen.", "en"),
        ("It should be noted that the results vary.", "en"),
        ("There should be at least separate configurations for production.", "en"),
        ("Файл должен лежать в домашнем каталоге.", "ru"),
        ("Die Datei sollte im Hauptverzeichnis liegen.", "de"),
    ],
)
def test_a_norm_with_should_stays_text(sentence: str, language: str) -> None:
    assert instructs(sentence, language)
    assert not fact(sentence, language)


def test_the_globset_expectation_is_a_fact_atom_through_the_distiller() -> None:
    atoms = OfflineDistiller().distill(GLOBSET, ChunkContext(language="en"))
    assert [a.type for a in atoms] == ["fact"]


# --- a Russian norm that is reported is what someone held, an event ---


def test_a_russian_norm_in_a_relative_clause_or_reported_is_no_norm() -> None:
    assert not instructs(LUTHER, "ru")
    assert fact(LUTHER, "ru")
    assert fact("Лютер утверждал, что нужно отменить мессу, и в 1520 году издал трактат.", "ru")


def test_a_russian_norm_of_the_sentence_itself_stays_text() -> None:
    assert instructs("Перед запуском следует обновить систему.", "ru")
    assert not fact("Перед запуском следует обновить систему.", "ru")


# --- a lead-in after a whole sentence: that sentence states something ---


@pytest.mark.parametrize(
    ("text", "language"),
    [
        (
            "Хотя «Торонто Рэпторс» ни разу не выигрывали чемпионат НБА, команда установила "
            "несколько рекордов в лиге. Среди них:",
            "ru",
        ),
        ("Flask was released in 2010 and has many extensions. Some of them are:", "en"),
    ],
)
def test_a_sentence_before_a_lead_in_states_something(text: str, language: str) -> None:
    assert not instructs(text, language)
    assert fact(text, language)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Среди них:", "ru"),
        (
            "In general, don't do anything to modify the Flask app object from within view "
            "functions. This includes:",
            "en",
        ),
        ("Пожалуйста, обновите систему до версии 5. Вы увидите:", "ru"),
        ("The team set several records, among them:", "en"),
        ("Die Mannschaft stellte mehrere Rekorde auf, darunter:", "de"),
    ],
)
def test_a_lead_in_alone_stays_text(text: str, language: str) -> None:
    assert instructs(text, language)


# --- a joined atom is typed by its first sentence's hypothesis or procedure ---


@pytest.mark.parametrize(
    ("text", "holds"),
    both_sides(
        # a later hypothesis or procedure leaves the first statement
        holds=[
            # a procedure in a later sentence leaves the first sentence's statement
            "Vitamin D made in the skin is biologically inert and requires 2 successive "
            "hydroxylations. With the identification of 25(OH)D, methods were developed to "
            "measure these metabolites in the circulation.",
            # a hypothesis before a contrast: the statement after it stands
            "The small number (<100) of DUBs might at first suggest a low degree of selectivity; "
            "however, DUBs are subject to multiple layers of regulation.",
            # a hypothesis in a later sentence
            "Each clone formed 3 peritoneal tumors. These tumors might arise from stem cells.",
        ],
        # a first sentence hypothesis or procedure types the atom text
        fails=[
            "Immunofluorescent staining for α-SMA were applied to identify the positive cells. "
            "Then the cells were loaded on a collagen gel with endothelial cells.",
            "Long-term statin use might cause adverse effects. Thirdly, the cost-effectiveness of "
            "such a strategy is unclear.",
        ],
    ),
)
def test_a_later_hypothesis_leaves_the_first_statement_and_a_first_sentence_one_types_it_text(
    text: str, holds: bool
) -> None:
    assert bool(fact(text)) is holds
