"""Types by grammar (issue 15, "types that mean something"; `distill/mood.py` and the rules of
`distill/patterns.py` that use it): advice, instructions, norms and lead-ins are `text`, a phrase
without a verb is `text`, a result ("we demonstrate ...") or a state ("was predominantly ...") is a
`fact`, a Russian closing predicate adjective is a `fact`, and a relational noun with its owner
before a dash is no definition. Each rule on both sides, in English, Russian and German where it
applies."""

from __future__ import annotations

import pytest

from pegas_memory.distill.mood import instructs, presents_result, ru_adjective_predicate, verbless
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.patterns import is_fact, match_definition
from pegas_memory.distill.types import ChunkContext
from tests.both_sides import both_sides


def typed(text: str, language: str) -> str:
    atoms = OfflineDistiller().distill(text, ChunkContext(language=language))
    assert len(atoms) == 1, [(a.type, a.claim) for a in atoms]
    return atoms[0].type


# --- instructions, advice, norms, lead-ins: text ------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("First, use go get to install the latest version of the library.", "en"),
        ("If you want to apply a WSGI middleware, just wrap it and you're done.", "en"),
        ("Save the file as hello.py before you run the server.", "en"),
        ("To counter this attack, be sure to always quote your attributes.", "en"),
        ("After receiving the data, you would then have to compare the two tokens.", "en"),
        ("Our society has to call attention to this subject and it should be placed on the agenda.",
         "en"),
        ("Patients with diabetes should receive the vaccine before travel.", "en"),
        ("It can be installed by running:", "en"),
        ("Сначала установите пакет через менеджер пакетов.", "ru"),
        ("Для этого необходимо установить пакет заново.", "ru"),
        ("Граждане должны соблюдать правила дорожного движения.", "ru"),
        ("В состав университета входят следующие факультеты:", "ru"),
        ("Verwenden Sie die neue Version des Pakets.", "de"),
        ("Man sollte das Ergebnis zuerst mit der Definition vergleichen.", "de"),
    ],
)  # fmt: skip
def test_instructions_norms_and_lead_ins_are_text(sentence: str, language: str) -> None:
    assert instructs(sentence, language)
    assert not is_fact(sentence, language)


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        # A verb of the list used as a noun, a capability, necessity stated of a thing.
        ("Use of statins was associated with a lower risk of stroke.", "en"),
        ("Start codons were mutated in 12 of the strains.", "en"),
        ("Type 2 diabetes is a common disease in adults.", "en"),
        ("If you have set the secret key you can use sessions in Flask applications.", "en"),
        ("But they have to use the current working directory for that, which is unreliable.",
         "en"),
        ("Async functions may need to be modified when other event loops are used.", "en"),
        # A reported norm is what someone said: an event.
        ("Richardson decided to weigh in on Monday, saying that Rudolph should be disciplined.",
         "en"),
        # A remark ("it should be noted that") whose claim follows; a past "должен был".
        ("Следует отметить, что Волга является самой длинной рекой Европы.", "ru"),
        ("Он должен был уехать в Москву в 1920 году.", "ru"),
        ("Из этого следует, что x равно нулю.", "ru"),
        ("Der Raum hat eine abzählbare Basis.", "de"),
    ],
)  # fmt: skip
def test_statements_that_look_like_instructions_stay_facts(sentence: str, language: str) -> None:
    assert not instructs(sentence, language)
    assert is_fact(sentence, language)


def test_a_german_mathematical_must_is_no_norm() -> None:
    assert not instructs("Dann muss f stetig sein, wenn f differenzierbar ist.", "de")


def test_instruction_atoms_are_typed_text_through_the_distiller() -> None:
    assert typed("First, use go get to install the latest version of the library.", "en") == "text"
    assert typed("Сначала установите пакет, чтобы запустить примеры.", "ru") == "text"
    assert typed("Use of statins was associated with a lower risk of stroke.", "en") == "fact"


# --- phrases without a verb: text ---------------------------------------------------------------


@pytest.mark.parametrize(
    "phrase",
    [
        "Fully POSIX-compliant flags (including short & long versions)",
        "Six gastroenterology units in the UK and Italy.",
        "Global configuration through class attributes.",
    ],
)
def test_a_phrase_without_a_verb_is_text(phrase: str) -> None:
    assert verbless(phrase)
    assert not is_fact(phrase, "en")


@pytest.mark.parametrize(
    "sentence",
    [
        "37 studies met the inclusion criteria.",  # an irregular past
        "Antibiotics kill bacteria in the gut.",  # a present verb after a plural
        "STIM1 mediate store-operated entry in immune cells.",  # after a symbol
        "Flask provides a simple API for routing.",  # after a name
        "The company's core goals, said its chair in an email to staff.",  # "said" is a past
    ],
)
def test_a_sentence_with_a_verb_is_not_verbless(sentence: str) -> None:
    assert not verbless(sentence)
    assert is_fact(sentence, "en")


# --- results and states: facts; measurement narrative and open questions: text ------------------


@pytest.mark.parametrize(
    ("sentence", "holds"),
    both_sides(
        # results states and properties are facts
        holds=[
            "We demonstrate the importance of circulating monocytes during pulmonary fibrosis, and "
            "emphasize the importance of lung macrophages.",
            "Our study therefore demonstrates the applicability of SCNT for adult human cells.",
            "The location of infarcts was predominantly outside the cerebellum and brain stem.",
            "When the application object is deleted everything it allocated will be freed again.",
            "Antiresorptive agents are widely used to treat osteoporosis.",
            "The sender is the application.",
            "Cells exposed to stress make triacylglycerols, but the relevance of this is unclear.",
        ],
        # evaluations measurements and open questions are text
        fails=[
            "We emphasize the importance of early diagnosis in these patients.",
            "The effect of recombination between the two loci is also examined.",
            "Plasma levels of IL-6 were measured before and 1, 6 and 24 h after surgery.",
            "The role of monocytes and macrophages is therefore controversial.",
            "However, the upper limit of the benefit of more physical activity is unclear.",
            "In particular the situation for inpatients in hospitals is pleasing.",
            "Is the sender the application?",
        ],
    ),
)
def test_results_and_properties_are_facts_and_evaluations_and_open_questions_are_text(
    sentence: str, holds: bool
) -> None:
    assert bool(is_fact(sentence, "en")) is holds


# --- Russian: a closing predicate adjective is a property ---------------------------------------


@pytest.mark.parametrize(
    "sentence", ["Тип ветвления моноподиальный.", "Гребни корки прерывающиеся.",
                 "Тополь чёрный: листья черешка сплюснутые."],
)  # fmt: skip
def test_russian_predicate_adjective_is_a_fact(sentence: str) -> None:
    assert ru_adjective_predicate(sentence)
    assert is_fact(sentence, "ru")


@pytest.mark.parametrize(
    "phrase", ["Большой белый дом.", "Вид на старый город.", "Красная площадь в Москве."]
)
def test_russian_noun_phrase_is_no_predicate(phrase: str) -> None:
    assert not ru_adjective_predicate(phrase)
    assert not is_fact(phrase, "ru")


# --- relational noun with its owner before a dash: no definition --------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "Автор монумента — скульптор Андрей Ковальчук, архитектор Александр Петров.",
        "У парка два входа — западный, со стороны площади, и восточный.",
        "Столица острова — небольшой портовый город на западе.",
    ],
)
def test_relational_noun_before_a_dash_is_no_definition(sentence: str) -> None:
    assert match_definition(sentence) is None
    assert typed(sentence, "ru") == "fact"


# --- revisions after held-out draw 6's first score (general forms, both sides) ------------------


@pytest.mark.parametrize(
    ("sentence", "holds"),
    both_sides(
        # revised rules keep facts
        holds=[
            # A "?" inside a URL asks nothing.
            "If a user submits /hello?name=bob, escaping causes it to be rendered as text.",
            # What a thing requires ("has to have") is a property; a "should" after a comma belongs
            # to a dependent clause.
            "A Python web application based on WSGI has to have one central callable object.",
            "The blueprint owns no URL space, so the app cannot know which handler it should run.",
            # A method verb with a result's rate is a finding.
            "Surgery was performed in 40% of the patients.",
            "Ninety-three participants were randomised, and 12 of 93 were allocated to surgery.",
        ],
        # revised rules keep text
        fails=[
            "Is the server at /hello?name=bob still running?",
            "The role of LytA in removing capsule may explain why nearly all isolates keep it.",
            "The manipulation of the mammalian genome has widespread implications for research.",
            "Using nutrient deprivation as a model of stress, we "
            "have addressed whether LDs protect.",
            "However, our knowledge about the changes to the epigenome has, to date, been limited.",
            "The function of this domain is still poorly understood.",
            "Our society has to call attention to this subject.",
            # Method verbs with time points and group sizes, not rates.
            "Ninety-three participants each were allocated to the "
            "exercise program, and 93 to rest.",
        ],
    ),
)
def test_revised_rules_keep_facts_and_text(sentence: str, holds: bool) -> None:
    assert bool(is_fact(sentence, "en")) is holds


def test_a_lead_whose_head_holds_clauses_is_no_definition() -> None:
    clauses = ("Достигнув расцвета в X—XI веках, Тямпа (Чампа) подверглась нашествию вьетов; около "
               "1470 года пал главный город — последнее княжество стало вассалом.")  # fmt: skip
    assert match_definition(clauses) is None
    lead = "Иван Петров (1900—1970) — советский писатель."
    assert match_definition(lead) is not None


def test_an_open_question_in_a_second_clause_leaves_the_first_a_fact() -> None:
    assert is_fact(
        "Dementias are often associated with behavioral deficits, but the anatomy is poorly "
        "understood.",
        "en",
    )


def test_a_norm_in_a_coordinated_clause_is_a_norm() -> None:
    sentence = "There is no need for special content, but the length of words should match."
    assert instructs(sentence, "en")
    assert not is_fact(sentence, "en")


@pytest.mark.parametrize(
    ("sentence", "imperative"),
    [
        # Any verb before a determiner or an object pronoun opens an instruction ...
        ("Observe a minute silence in honour of the departed souls.", True),
        ("Remove the jars from the boiling water and let them cool.", True),
        # ... but a preposition, an adverb, a participle or a third person does not.
        ("Despite the treatment, mortality rose in 2019.", False),
        ("Among the 40 patients, 12 died within a year.", False),
        ("Using the new assay, we found higher levels of IL-6.", False),
        ("Returns the response object of the view.", False),
        ("First it was hard to breathe, then dizzy spells followed.", False),
        ("Neither the House nor the Senate provided the money.", False),
    ],
)
def test_any_verb_before_a_determiner_is_an_imperative(sentence: str, imperative: bool) -> None:
    assert instructs(sentence, "en") is imperative


# --- "We present / describe / report X": scope, unless it states its result ----------------------


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        # a second verb of finding on the same subject, "report that", a rate, named classes
        ("We present a survey of 400 reefs and identify more than 120 bleaching sites.", "en"),
        ("We describe a classification of lymphomas into Nodal, Splenic, and Cutaneous groups.",
         "en"),
        ("We report that the enzyme degrades plastic at room temperature.", "en"),
        ("We report a 40% fall in hospital admissions after the ban.", "en"),
        ("Here we present a map of the reef and reveal its oldest colonies.", "en"),
        ("В данной работе представлена карта рифов и выявлены 120 очагов обесцвечивания.", "ru"),
        ("В данной работе представлена классификация лимфом на Узловые, Селезёночные и Кожные.",
         "ru"),
        ("Мы описываем карту рифов и показываем, что 40% очагов лежат на мелководье.", "ru"),
    ],
)  # fmt: skip
def test_a_presentation_that_states_its_result_is_a_fact(sentence: str, language: str) -> None:
    assert presents_result(sentence, language)
    assert typed(sentence, language) == "fact"


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        # scope and method: what is presented, nothing found; "to identify" is a purpose
        ("We describe the methods used to recruit the cohort.", "en"),
        ("We present a new method to identify recombination hotspots.", "en"),
        ("We describe a classification of lymphomas into three groups.", "en"),
        ("We present the design of the trial and the outcomes we will measure.", "en"),
        ("В данной работе представлены методы набора когорты.", "ru"),
        ("Мы описываем методы набора когорты и критерии отбора.", "ru"),
    ],
)
def test_a_presentation_of_scope_or_method_stays_text(sentence: str, language: str) -> None:
    assert not presents_result(sentence, language)
    assert typed(sentence, language) == "text"


def test_an_evaluation_in_a_later_contrast_clause_leaves_the_statement_a_fact() -> None:
    # the first clause states what happened; "but the results have been disappointing" judges it
    s = "Many vaccines have been tested against the virus but the results have been disappointing."
    assert is_fact(s, "en")
    assert is_fact("Было испытано много вакцин, но это подчёркивает важность диагностики.", "ru")
    # the evaluation alone, or a first clause that is itself a hedge or an evaluation, stays text
    assert not is_fact("The results have so far been disappointing.", "en")
    assert not is_fact("These results are encouraging, but the sample was small.", "en")
    assert not is_fact("This could reflect a selection bias, but the sample was small.", "en")
    assert not is_fact("Эти данные подчёркивают важность ранней диагностики.", "ru")
