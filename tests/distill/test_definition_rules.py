"""The definition rules (`distill.definition_rules`): each rule reads its shape and decides, or a
veto rejects what it read and the next rule tries; `definition_trace` names the veto that
rejected each rule before the one that decided. English, Russian and German.

Each test checks the result and the trace. Dropping any one veto changes the definition of at
least one sentence here, not only its trace; the tests are named by the behaviour they pin."""

from __future__ import annotations

import pegas_memory.distill.patterns as patterns
from pegas_memory.distill.definition_rules import (
    ALL_RULES,
    DEFINITION_RULES,
    SENTENCE_VETOES,
    Definition,
    definition_trace,
    match_definition,
)


def check(sentence: str, definition: Definition | None, *vetoed: tuple[str, str]) -> None:
    """The sentence gives this definition (None: no rule decides), and these (rule, veto) pairs
    rejected the rules that read it before."""
    trace = definition_trace(sentence)
    assert (trace.definition, trace.vetoed) == (definition, vetoed)


# --- the list ------------------------------------------------------------------------------------


def test_the_rules_are_tried_in_their_documented_order() -> None:
    assert [rule.name for rule in DEFINITION_RULES] == [
        "lead", "eto", "pod", "nazyv", "opredelyaetsya", "oznachaet", "versteht", "dann_heisst",
        "heisst", "nennt", "bezeichnet", "definiert", "defined", "we_call", "said_to_be",
        "refers", "means", "called", "is_a", "dash",
    ]  # fmt: skip


def test_each_rule_names_its_vetoes_once() -> None:
    for rule in DEFINITION_RULES:
        names = [veto.name for veto in rule.vetoes]
        assert len(names) == len(set(names)), rule.name


def test_patterns_re_exports_match_definition() -> None:
    assert patterns.match_definition is match_definition


def test_match_definition_is_the_traces_definition() -> None:
    sentence = "Энтропия — мера беспорядка системы."
    assert match_definition(sentence) == definition_trace(sentence).definition


def test_a_sentence_no_rule_reads_has_an_empty_trace() -> None:
    check("Python is a lot of fun.", None)


def test_the_trace_gives_the_sentence_as_the_rules_read_it() -> None:
    trace = definition_trace("  Как правило, энтро\u0301пия — мера беспорядка.")
    assert trace.sentence == "энтропия — мера беспорядка."


# --- before the rules: cleaning, and an aim --------------------------------------------------


def test_stress_marks_are_no_part_of_a_term() -> None:
    check("Аве́ркий — русский святой.", ("Аверкий", "русский святой", 0.7, "dash"))


def test_a_glued_abstract_label_is_no_part_of_a_term() -> None:
    check(
        "OBJECTIVE Entropy is a measure of disorder.",
        ("Entropy", "a measure of disorder", 0.7, "is_a"),
    )


def test_a_qualifying_opener_is_no_part_of_a_term() -> None:
    check(
        "In mathematics, a group is a set with an operation.",
        ("group", "a set with an operation", 0.7, "is_a"),
    )
    check("Как правило, энтропия — мера беспорядка.", ("энтропия", "мера беспорядка", 0.7, "dash"))


def test_an_aim_is_no_definition_whatever_its_shape() -> None:
    assert [name for name, _ in SENTENCE_VETOES] == ["an aim"]
    check("Цель исследования — изучить влияние X на Y.", None, (ALL_RULES, "an aim"))


# --- lead ------------------------------------------------------------------------------------


def test_a_lead_with_dates_defines_the_name_before_its_brackets() -> None:
    check(
        "Иван Петров (1900—1970) — советский писатель.",
        ("Иван Петров", "советский писатель", 0.7, "lead"),
    )
    check(
        "Аве́ркий Петро́в (1900) — русский святой.", ("Аверкий Петров", "русский святой", 0.7, "lead")
    )


def test_a_lead_with_an_alias_defines_the_name_before_it() -> None:
    check(
        "Аркадий Гайдар, также Голиков — это советский писатель.",
        ("Аркадий Гайдар", "советский писатель", 0.7, "lead"),
    )


def test_a_leads_body_loses_its_domain() -> None:
    check(
        "Энтропия (от греч. ἐντροπία) — в физике — мера беспорядка системы.",
        ("Энтропия", "мера беспорядка системы", 0.7, "lead"),
    )


def test_a_leads_genus_may_open_on_an_age() -> None:
    check("Иван Петров (1900) — 19-летний поэт.", ("Иван Петров", "19-летний поэт", 0.7, "lead"))


def test_a_clause_before_a_leads_dash_is_no_lead() -> None:
    check(
        "Иван Петров (1900) родился в Москве — советский писатель.",
        None,
        ("lead", "a clause before the dash"),
    )


def test_a_lead_head_over_320_characters_leaves_it_to_the_dash_rule() -> None:
    sentence = "Иван Петров (" + "очень длинное пояснение " * 14 + ") — советский писатель."
    check(
        sentence,
        ("Иван Петров", "советский писатель", 0.7, "dash"),
        ("lead", "a head over 320 characters"),
    )


def test_a_leads_one_word_body_is_no_genus() -> None:
    check(
        "Иван Петров (1900) — писатель.",
        None,
        ("lead", "a one-word body"),
        ("dash", "a one-word body"),
    )


def test_a_leads_exclamation_leaves_it_to_the_dash_rule() -> None:
    # the lead reads the "!" at the end; the dash rule reads the genus without it
    check(
        "Иван Петров (1900—1970) — великий русский поэт!",
        ("Иван Петров", "великий русский поэт", 0.7, "dash"),
        ("lead", "a '!' or '?' after the dash"),
    )


def test_a_name_after_a_leads_dash_is_no_genus() -> None:
    check(
        "Пётр (1900) — Великий князь Московский.",
        None,
        ("lead", "a name after the dash"),
        ("dash", "two names"),
    )


def test_a_verb_after_a_leads_dash_is_no_genus() -> None:
    check(
        "Иван Петров (1900) — считается основателем школы.",
        None,
        ("lead", "a verb after the dash"),
        ("dash", "a verb after the dash"),
    )


def test_a_leads_name_of_over_6_words_is_no_term() -> None:
    check(
        "Иван Иванович Петров Сидоров Кузнецов Попов Смирнов (1900) — советский писатель.",
        None,
        ("lead", "a name of over 6 words"),
        ("dash", "a term of over 4 words"),
    )


def test_a_lead_in_lower_case_leaves_it_to_the_dash_rule() -> None:
    check(
        "приставка (префикс) — часть слова перед корнем.",
        ("приставка", "часть слова перед корнем", 0.7, "dash"),
        ("lead", "a term in lower case"),
    )


def test_a_lead_of_quotes_alone_names_no_term() -> None:
    check(
        "«» (1900) — советский писатель.",
        None,
        ("lead", "no word in the term"),
        ("dash", "no word in the term"),
    )


# --- the Russian markers ---------------------------------------------------------------------


def test_a_lead_named_by_an_anaphor_or_an_opener_is_no_term() -> None:
    check(
        "Этот Иван (1900) — советский писатель.",
        None,
        ("lead", "an anaphor first"),
        ("dash", "an anaphor first"),
    )
    check(
        "Тогда Иван (1900) — советский писатель.",
        None,
        ("lead", "an opener first"),
        ("dash", "an opener first"),
    )


def test_a_clause_before_an_alias_is_no_lead() -> None:
    # "also" reads as an alias; "A city is" before it is a clause, no name
    check(
        "A city is also a commune – but with the city charter.",
        None,
        ("lead", "a clause word in the term"),
        ("dash", "a term of over 4 words"),
    )


def test_eto_defines_the_term_before_the_dash() -> None:
    check(
        "Энтропия — это мера беспорядка системы.",
        ("Энтропия", "мера беспорядка системы", 0.75, "eto"),
    )


def test_an_eto_term_of_over_5_words_is_a_clause() -> None:
    check(
        "Просто кондитер в моем представлении на тот момент – это такая добротная тетушка.",
        None,
        ("eto", "a term of over 5 words"),
        ("dash", "a term of over 4 words"),
    )


def test_a_finite_verb_before_eto_is_a_clause() -> None:
    check(
        "Матерью Ашоки была Субхадранги — это дочь брамина.",
        None,
        ("eto", "a finite verb in the term"),
        ("dash", "a finite verb in the term"),
    )


def test_pod_defines_what_is_understood() -> None:
    check(
        "Под энтропией понимается мера беспорядка системы.",
        ("энтропией", "мера беспорядка системы", 0.75, "pod"),
    )


def test_nazyv_takes_the_side_in_the_instrumental_case() -> None:
    check(
        "Энтропией называется мера беспорядка системы.",
        ("Энтропией", "мера беспорядка системы", 0.75, "nazyv"),
    )
    check(
        "Множество точек, равноудалённых от центра, называется окружностью.",
        ("окружностью", "Множество точек, равноудалённых от центра,", 0.75, "nazyv"),
    )


def test_nazyv_takes_the_shorter_side_without_an_instrumental() -> None:
    check("Такие числа называются простые.", ("простые", "Такие числа", 0.75, "nazyv"))


def test_a_nazyv_side_without_words_is_no_definition() -> None:
    check("(X) называется энтропией.", None, ("nazyv", "a side without words"))


def test_a_clause_before_nazyvayut_is_no_definition() -> None:
    check(
        "Обычно это так; такую величину называют энтропией.",
        None,
        ("nazyv", "a clause before the verb"),
    )


def test_a_nazyv_side_that_reads_as_no_name_is_no_term() -> None:
    check(
        "Район Фресно «Вест-Сайд», который также часто называют «Юго-западным Фресно», является"
        " одним из старейших районов города.",
        None,
        ("nazyv", "a term of over 5 words"),
    )
    check(
        "Вирусы поражают все типы организмов (вирусы бактерий обычно называют бактериофагами).",
        None,
        ("nazyv", "brackets in the term"),
    )
    check(
        "Сам скандал иногда именуется также «Розовая кофточка».", None, ("nazyv", "an opener first")
    )
    check("Он называется так потому что прост.", None, ("nazyv", "an anaphor first"))


def test_opredelyaetsya_defines_the_term() -> None:
    check(
        "Энтропия определяется как мера беспорядка.",
        ("Энтропия", "мера беспорядка", 0.75, "opredelyaetsya"),
    )


def test_an_opredelyaetsya_subject_of_over_5_words_is_no_term() -> None:
    check(
        "В Энциклопедическом словаре Брокгауза и Ефрона гобелен определяется как тканый ковёр.",
        None,
        ("opredelyaetsya", "a term of over 5 words"),
    )


def test_oznachaet_defines_the_term() -> None:
    check("Энтропия означает меру беспорядка.", ("Энтропия", "меру беспорядка", 0.7, "oznachaet"))


def test_odin_iz_vidov_is_a_genus_not_an_assessment() -> None:
    check("Один из видов — это бурый медведь.", ("Один из видов", "бурый медведь", 0.75, "eto"))


# --- German ----------------------------------------------------------------------------------


def test_versteht_defines_what_one_understands() -> None:
    check(
        "Unter einer Gruppe versteht man eine Menge mit einer Verknüpfung.",
        ("einer Gruppe", "eine Menge mit einer Verknüpfung", 0.75, "versteht"),
    )


def test_dann_heisst_defines_the_word_after_its_subject() -> None:
    check(
        "Sei X ein Raum. Dann heißt X zusammenhängend, wenn es keine Zerlegung gibt.",
        ("zusammenhängend", "X", 0.75, "dann_heisst"),
    )


def test_heisst_nennt_and_bezeichnet_define_the_name_given() -> None:
    body = "Eine Menge mit einer assoziativen Verknüpfung"
    for sentence, rule in (
        (f"{body} heißt Halbgruppe.", "heisst"),
        (f"{body} nennt man Halbgruppe.", "nennt"),
        (f"{body} wird als Halbgruppe bezeichnet.", "bezeichnet"),
    ):
        check(sentence, ("Halbgruppe", body, 0.75, rule))


def test_definiert_defines_the_subject() -> None:
    check(
        "Eine Halbgruppe ist definiert als eine Menge mit einer Verknüpfung.",
        ("Eine Halbgruppe", "eine Menge mit einer Verknüpfung", 0.75, "definiert"),
    )


def test_a_german_term_may_hold_brackets() -> None:
    check(
        "Eine Menge mit einer Verknüpfung heißt Halbgruppe (oder Monoid).",
        ("Halbgruppe (oder Monoid)", "Eine Menge mit einer Verknüpfung", 0.75, "heisst"),
    )


def test_a_german_term_of_over_6_words_is_no_term() -> None:
    check(
        "Eine Menge heißt eine ganz besonders schöne und sehr große Halbgruppe.",
        None,
        ("heisst", "a term of over 6 words"),
    )


# --- the English markers ---------------------------------------------------------------------


def test_defined_as_defines_the_subject() -> None:
    check(
        "Entropy is defined as a measure of disorder.",
        ("Entropy", "a measure of disorder", 0.75, "defined"),
    )


def test_we_call_defines_the_word_before_if() -> None:
    check(
        "We call a set S open if every point has a neighbourhood in S.",
        ("open", "a set S", 0.75, "we_call"),
    )


def test_said_to_be_defines_the_word_after_it() -> None:
    check(
        "A set is said to be open if it contains a neighbourhood of each point.",
        ("open", "A set", 0.75, "said_to_be"),
    )


def test_refers_to_and_means_define_the_subject() -> None:
    check(
        "Entropy refers to a measure of disorder.",
        ("Entropy", "a measure of disorder", 0.7, "refers"),
    )
    check(
        "Entropy means a measure of disorder.", ("Entropy", "a measure of disorder", 0.7, "means")
    )


def test_a_refers_or_means_subject_that_reads_as_no_name_is_no_term() -> None:
    check(
        "I used to refer to them collectively as my ponytails.",
        None,
        ("refers", "an anaphor first"),
    )
    check(
        "Getting more meaningful reductions in pollution means tackling all of the sources.",
        None,
        ("means", "a term of over 5 words"),
    )
    check("2FA means two-factor authentication.", None, ("means", "a digit first"))
    check("But delaying planting means delaying the harvest.", None, ("means", "an opener first"))


def test_is_called_defines_the_name_given() -> None:
    check(
        "A measure of the disorder of a system is called entropy.",
        ("entropy", "A measure of the disorder of a system", 0.7, "called"),
    )


# --- is_a ------------------------------------------------------------------------------------


def test_is_a_defines_the_subject_by_its_genus() -> None:
    check(
        "Entropy is a measure of the disorder of a system.",
        ("Entropy", "a measure of the disorder of a system", 0.7, "is_a"),
    )
    check(
        "John Smith (born 1950) is an American writer.",
        ("John Smith", "an American writer", 0.7, "is_a"),
    )


def test_a_growing_field_that_combines_names_its_genus() -> None:
    check(
        "Bioinformatics is a growing field that combines biology and computing.",
        ("Bioinformatics", "a growing field that combines biology and computing", 0.7, "is_a"),
    )


def test_a_set_of_vectors_keeps_its_term() -> None:
    check(
        "A set of vectors is a basis if it spans the space.",
        ("set of vectors", "a basis if it spans the space", 0.7, "is_a"),
    )


def test_an_is_a_subject_that_reads_as_no_name_is_no_term() -> None:
    check("This is a curious way to design computers.", None, ("is_a", "an anaphor first"))
    check(
        "VW says the car is a preview of a production vehicle.",
        None,
        ("is_a", "a clause word in the term"),
    )


def test_a_long_subject_without_brackets_is_no_term() -> None:
    check(
        "Early onset colorectal cancer incidence rate is a measure of disease burden.",
        None,
        ("is_a", "a subject of over 4 words without brackets"),
    )


def test_a_subject_of_over_6_words_is_no_term_even_with_brackets() -> None:
    sentence = "Early onset colorectal cancer incidence rate trend (EOCRC) is a measure of burden."
    check(sentence, None, ("is_a", "a term of over 6 words"))


def test_an_evaluative_genus_is_no_definition() -> None:
    check("Hypoxia is a common cause of cell death.", None, ("is_a", "an evaluative genus"))
    check(
        "The integrity of sperm chromatin is a clinical indicator of fertility.",
        None,
        ("is_a", "an evaluative genus"),
    )


def test_an_assessment_is_no_definition() -> None:
    check("Children's exercise physiology is a fast-moving field.", None, ("is_a", "an assessment"))
    check("Карьера Ивана — одна из самых недооценённых тем.", None, ("dash", "an assessment"))


def test_the_x_of_something_is_no_term() -> None:
    check(
        "The capital of France is a city of two million people.",
        None,
        ("is_a", "the X of something"),
    )


def test_a_judgement_with_its_reason_is_no_definition() -> None:
    check(
        "HCC is a fatal disease, primarily due to the limited effective therapies.",
        None,
        ("is_a", "a judgement with its reason"),
    )


# --- dash ------------------------------------------------------------------------------------


def test_a_dash_defines_by_a_lower_case_genus() -> None:
    check(
        "Энтропия — мера беспорядка системы.", ("Энтропия", "мера беспорядка системы", 0.7, "dash")
    )
    check("Python — a programming language.", ("Python", "a programming language", 0.7, "dash"))


def test_a_final_exclamation_is_no_part_of_a_dash_genus() -> None:
    check("Entropy — a measure of disorder!", ("Entropy", "a measure of disorder", 0.7, "dash"))


def test_a_one_word_body_after_a_dash_is_no_genus() -> None:
    check("Энтропия — мера.", None, ("dash", "a one-word body"))


def test_a_relational_term_is_a_value_not_a_term() -> None:
    check("Автор монумента — известный русский скульптор.", None, ("dash", "a relational term"))


def test_a_dash_between_two_names_is_no_definition() -> None:
    check("Москва — Санкт-Петербург, Казань и Тверь.", None, ("dash", "two names"))


def test_an_exclamation_or_a_question_after_a_dash_is_no_definition() -> None:
    check(
        "Kjift – not at all! A blind text by the name of Lorem Ipsum.",
        None,
        ("dash", "an exclamation or a question"),
    )
    check("Entropy — not at all?", None, ("dash", "an exclamation or a question"))


def test_a_quantity_after_a_dash_is_no_genus() -> None:
    check("Численность — около 60 тысяч человек.", None, ("dash", "a quantity"))


def test_a_value_with_a_name_after_a_dash_is_no_genus() -> None:
    check("Столица — город Ораньестад.", None, ("dash", "a value with a name"))


def test_a_verb_after_a_dash_is_a_clause() -> None:
    check("Эпоха — характеризуется ростом городов.", None, ("dash", "a verb after the dash"))


def test_a_second_dash_makes_the_first_an_aside() -> None:
    check("Энтропия — мера, скорее — хаоса, чем порядка.", None, ("dash", "a second dash"))


def test_a_dash_term_of_over_4_words_is_no_term() -> None:
    check(
        "Специальная теория относительности Альберта Эйнштейна — физическая теория.",
        None,
        ("dash", "a term of over 4 words"),
    )


def test_a_finite_verb_before_the_dash_is_a_clause() -> None:
    check(
        "Матерью Ашоки была Субхадранги — дочь брамина.",
        None,
        ("dash", "a finite verb in the term"),
    )


def test_a_function_word_before_the_dash_is_prose() -> None:
    check(
        "Глубокое обучение по Хинтону — метод обучения сетей.",
        None,
        ("dash", "a function word in the term"),
    )


def test_a_range_of_dates_is_no_term() -> None:
    check(
        "Первая четверть XIX века — наши дни: поиски сокровищ.", None, ("dash", "a range of dates")
    )


# --- the term's vetoes -----------------------------------------------------------------------


def test_a_term_of_over_5_words_is_no_term() -> None:
    check(
        "Quick brown fox jumps over dogs refers to a typing test.",
        None,
        ("refers", "a term of over 5 words"),
    )


def test_a_term_that_starts_with_a_digit_is_no_term() -> None:
    check(
        "3D-печать — это технология послойного создания объектов.",
        None,
        ("eto", "a digit first"),
        ("dash", "a digit first"),
    )
    check(
        "«2x2» (читается как «дважды два») — первый коммерческий телеканал России.",
        None,
        ("lead", "a digit first"),
        ("dash", "a digit first"),
    )
    check(
        "«1812» (альбом) — студийный альбом группы.",
        None,
        ("lead", "a digit first"),
        ("dash", "a digit first"),
    )


def test_brackets_in_a_term_make_it_no_term() -> None:
    check(
        "Под энтропией (в физике) понимается мера беспорядка.",
        None,
        ("pod", "brackets in the term"),
    )


def test_a_generic_term_is_no_term() -> None:
    check(
        "Термин — это слово или словосочетание.",
        None,
        ("eto", "a generic term"),
        ("dash", "a generic term"),
    )
    check("The term is a word for a concept.", None, ("is_a", "a generic term"))


def test_an_anaphor_first_is_no_term() -> None:
    check("It means a lot to me.", None, ("means", "an anaphor first"))
    check("Эта величина — мера беспорядка системы.", None, ("dash", "an anaphor first"))


def test_an_opener_first_is_no_term() -> None:
    check("Тогда энтропия — мера беспорядка.", None, ("dash", "an opener first"))
    check("However entropy is a measure of disorder.", None, ("is_a", "an opener first"))


def test_a_clause_word_in_a_term_makes_it_a_clause() -> None:
    check(
        "The reason is that entropy means disorder.", None, ("means", "a clause word in the term")
    )


def test_a_member_of_a_series_is_no_term() -> None:
    check("The first argument is a function.", None, ("is_a", "a member of a series"))


def test_a_term_without_a_letter_is_no_term() -> None:
    check(
        "№ 5 — это номер дома.",
        None,
        ("eto", "no letter in the term"),
        ("dash", "no letter in the term"),
    )
