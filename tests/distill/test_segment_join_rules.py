"""The segment stage (`distill.segment`) is an ordered list of named rules: for each sentence of a
prose span the first rule with a verdict decides whether it joins the group before it or starts
one, a group keeps the names of the rules that joined it (`Group.joined_by`), and the offline
distiller writes them to the atom's metadata (`joined_by`)."""

from __future__ import annotations

from dataclasses import dataclass
from unittest.mock import patch

import pegas_memory.distill.units as units
from pegas_memory.distill.segment import JOIN_RULES, JOINED_BY, SentenceState, Verdict, join_verdict
from tests.distill.offline_chunk import distil


@dataclass(frozen=True)
class Cut:
    """A prose span as the segment stage cuts it."""

    groups: list[str]  # each group's text
    joined_by: list[tuple[str, ...]]  # each group's `joined_by`
    decided: list[str]  # for each sentence, the rule whose verdict decided
    fragment: list[bool]
    anaphoric: list[bool]


def cut(text: str, language: str, *, conversation: bool = False) -> Cut:
    """The groups `units.sentence_groups` cuts the whole of `text` into, and the rule that decided
    each sentence (read off the walk's calls to `join_verdict`)."""
    decided: list[str] = []

    def recorded(s: SentenceState) -> tuple[str, Verdict]:
        name, verdict = join_verdict(s)
        decided.append(name)
        return name, verdict

    with patch.object(units, "join_verdict", recorded):
        groups = units.sentence_groups(
            text, 0, len(text), conversation=conversation, language=language
        )
    return Cut(
        [text[g.start : g.end] for g in groups],
        [g.joined_by for g in groups],
        decided,
        [g.fragment for g in groups],
        [g.anaphoric for g in groups],
    )


def test_the_rules_are_named_once_and_in_a_fixed_order() -> None:
    names = [name for name, _ in JOIN_RULES]
    assert names == [
        "quotation tail",
        "open quotation",
        "lower-case start",
        "leans back",
        "after a premise",
        "outburst",
        "after a lead outburst",
        "after a sentence left open",
        "fragment at the unit start",
        "held referent",
        "anaphoric group",
        "new group",
    ]
    assert len(set(names)) == len(names)


# --- quotation tail ------------------------------------------------------------------------------


def test_the_tail_of_a_quotation_the_chunk_starts_inside_is_a_fragment() -> None:
    text = "We should be home before dark,” said Tom. The rain stopped in the evening."
    c = cut(text, "en", conversation=True)
    assert c.groups == [
        "We should be home before dark,” said Tom.",
        "The rain stopped in the evening.",
    ]
    assert c.fragment == [True, False]
    assert c.decided == ["quotation tail", "new group"]
    assert c.joined_by == [(), ()]


def test_the_tail_of_a_russian_quotation_the_chunk_starts_inside_is_a_fragment() -> None:
    text = "Мы вернёмся домой до темноты», — сказал Том. Вечером над городом прошёл сильный дождь."
    c = cut(text, "ru", conversation=True)
    assert c.fragment == [True, False]
    assert c.decided == ["quotation tail", "new group"]


def test_outside_a_conversation_a_closing_quote_cuts_no_tail() -> None:
    text = "We should be home before dark,” said Tom. The rain stopped in the evening."
    assert cut(text, "en").fragment == [False, False]


# --- joins ----------------------------------------------------------------------------------------


def test_a_sentence_inside_an_open_quotation_joins_it() -> None:
    text = "The minister said: “The bridge will stay closed until May. A ferry will run every hour."
    c = cut(text, "en")
    assert c.groups == [text]
    assert c.joined_by == [("open quotation",)]


def test_a_sentence_inside_an_open_russian_quotation_joins_it() -> None:
    text = "Министр сказал: «Мост будет закрыт до мая. Паром будет ходить каждый час."
    c = cut(text, "ru")
    assert c.groups == [text]
    assert c.joined_by == [("open quotation",)]


def test_a_sentence_starting_in_lower_case_joins_the_one_before() -> None:
    text = "Apple released the new phone in 2019. iPhone sales rose by ten percent that year."
    c = cut(text, "en")
    assert c.groups == [text]
    assert c.joined_by == [("lower-case start",)]


def test_a_russian_sentence_starting_in_lower_case_joins_the_one_before() -> None:
    text = "Компания выпустила новый телефон в 2019 году. iPhone продавался лучше, чем ожидали."
    c = cut(text, "ru")
    assert c.groups == [text]
    assert c.joined_by == [("lower-case start",)]


def test_a_sentence_that_leans_back_joins_the_one_before() -> None:
    text = "The method was introduced in 1998 by Smith. This technique is now used in most labs."
    c = cut(text, "en")
    assert c.groups == [text]
    assert c.joined_by == [("leans back",)]
    assert c.decided == ["new group", "leans back"]


def test_a_russian_sentence_that_leans_back_joins_the_one_before() -> None:
    text = "Метод был предложен в 1998 году Смитом. Этот метод сейчас используют в лабораториях."
    c = cut(text, "ru")
    assert c.groups == [text]
    assert c.joined_by == [("leans back",)]


def test_leaning_sentences_join_up_to_three_and_each_join_is_named() -> None:
    text = (
        "The museum opened in 1901. It was designed by a local architect. It has three floors."
        " It was restored in 1990."
    )
    c = cut(text, "en")
    assert c.groups[0].endswith("It has three floors.")
    assert c.joined_by[0] == ("leans back", "leans back")
    # the fourth finds no referent that does not lean itself: a group of its own, anaphoric
    assert c.groups[1] == "It was restored in 1990."
    assert c.anaphoric == [False, True]


def test_a_leaning_sentence_after_a_section_label_starts_a_group() -> None:
    text = "Patients received a placebo. RESULTS This reduced the pain in 40 patients."
    c = cut(text, "en")
    # the label is cut off the span; the sentence still leans, so its group is anaphoric
    assert c.groups == ["Patients received a placebo.", "This reduced the pain in 40 patients."]
    assert c.joined_by == [(), ()] and c.anaphoric == [False, True]
    assert c.decided == ["new group", "anaphoric group"]


def test_the_sentence_after_a_premise_joins_it() -> None:
    text = "Let X be a compact metric space. Every continuous function on X attains its maximum."
    c = cut(text, "en")
    assert c.groups == [text]
    assert c.joined_by == [("after a premise",)]


def test_the_sentence_after_a_russian_premise_joins_it() -> None:
    text = "Пусть X — компактное метрическое пространство. Всякая непрерывная функция ограничена."
    c = cut(text, "ru")
    assert c.groups == [text]
    assert c.joined_by == [("after a premise",)]


def test_the_title_after_a_period_label_joins_it() -> None:
    text = "Конец XVIII — начало XIX века. Наименее изученный период истории острова."
    c = cut(text, "ru")
    assert c.groups == [text]
    assert c.joined_by == [("after a premise",)]


def test_a_short_exclamation_joins_the_sentence_before() -> None:
    text = "The storm hit the coast on Monday night. What a night! Many houses lost power."
    c = cut(text, "en")
    assert c.groups == [
        "The storm hit the coast on Monday night. What a night!",
        "Many houses lost power.",
    ]
    assert c.joined_by == [("outburst",), ()]


def test_a_short_russian_exclamation_joins_the_sentence_before() -> None:
    text = "Шторм обрушился на побережье в понедельник. Какая ночь! Многие дома остались без света."
    c = cut(text, "ru")
    assert c.groups[0] == "Шторм обрушился на побережье в понедельник. Какая ночь!"
    assert c.joined_by == [("outburst",), ()]


def test_the_sentence_after_a_lone_lead_exclamation_joins_it() -> None:
    text = "What luck! The team won the national championship in 2019."
    c = cut(text, "en")
    assert c.groups == [text]
    assert c.joined_by == [("after a lead outburst",)]


def test_the_russian_sentence_after_a_lone_lead_exclamation_joins_it() -> None:
    text = "Какая удача! Команда выиграла чемпионат страны в 2019 году."
    c = cut(text, "ru")
    assert c.groups == [text]
    assert c.joined_by == [("after a lead outburst",)]


def test_the_sentence_after_a_clause_ending_in_a_semicolon_joins_it() -> None:
    text = (
        "Noel, 31, is charged with five counts of falsifying records; Thomas, 41, is charged"
        " with three."
    )
    c = cut(text, "en")
    assert c.groups == [text]
    assert c.joined_by == [("after a sentence left open",)]


def test_the_sentence_after_an_unclosed_russian_bracket_joins_it() -> None:
    text = (
        "Давление снизилось у всех пациентов (в среднем на 12 мм; У пожилых снижение было меньше."
    )
    c = cut(text, "ru")
    assert c.groups == [text]
    assert c.joined_by == [("after a sentence left open",)]


# --- groups of their own --------------------------------------------------------------------------


def test_a_unit_starting_in_lower_case_starts_with_a_fragment() -> None:
    text = "and the results were published in the same year. Smith moved to Boston in 2001."
    c = cut(text, "en")
    assert c.groups == [
        "and the results were published in the same year.",
        "Smith moved to Boston in 2001.",
    ]
    assert c.fragment == [True, False]
    assert c.decided == ["fragment at the unit start", "new group"]


def test_a_russian_unit_starting_in_lower_case_starts_with_a_fragment() -> None:
    text = "и результаты были опубликованы в том же году. Следующее исследование вышло в 2001 году."
    c = cut(text, "ru")
    assert c.fragment == [True, False]
    assert c.decided == ["fragment at the unit start", "new group"]


def test_a_text_of_one_lower_case_sentence_is_no_fragment() -> None:
    c = cut("iPhone sales rose by ten percent in 2019.", "en")
    assert c.fragment == [False] and c.decided == ["new group"]


def test_a_leaning_sentence_past_the_cap_takes_the_sentence_holding_its_referent() -> None:
    first = "DECnet is a suite of network protocols. It was released in 1975. "
    held = (
        "Initially built with three layers, it later evolved into a seven-layer networking"
        " protocol. The protocols were designed entirely by Digital Equipment Corporation."
    )
    c = cut(first + held, "en")
    assert c.groups[1] == held  # overlaps the group before by one sentence
    assert c.groups[0].endswith("seven-layer networking protocol.")
    assert c.joined_by == [("leans back", "leans back"), ("held referent",)]


def test_a_russian_pronoun_past_the_cap_takes_the_sentence_right_before() -> None:
    text = (
        "Девушка родилась в Париже. Она училась в балетной школе. Затем девушка подалась в мир"
        " кино. Она снималась у многих режиссеров."
    )
    c = cut(text, "ru")
    assert c.groups[1] == "Затем девушка подалась в мир кино. Она снималась у многих режиссеров."
    assert c.joined_by == [("leans back", "leans back"), ("held referent",)]
    assert c.anaphoric == [False, True]


def test_a_leaning_first_sentence_starts_a_group_marked_anaphoric() -> None:
    c = cut("It was restored in 1990. The roof was replaced in 2005.", "en")
    assert c.groups == ["It was restored in 1990.", "The roof was replaced in 2005."]
    assert c.anaphoric == [True, False]
    assert c.decided == ["anaphoric group", "new group"]


def test_a_leaning_russian_first_sentence_starts_a_group_marked_anaphoric() -> None:
    c = cut("Он был отреставрирован в 1990 году. Крышу заменили в 2005 году.", "ru")
    assert c.anaphoric == [True, False]
    assert c.decided == ["anaphoric group", "new group"]


def test_sentences_that_lean_on_nothing_are_groups_of_their_own() -> None:
    text = "The river rises in the mountains of the north. The climate of the valley is warm."
    c = cut(text, "en")
    assert len(c.groups) == 2 and c.joined_by == [(), ()]
    assert c.decided == ["new group", "new group"]


def test_russian_sentences_that_lean_on_nothing_are_groups_of_their_own() -> None:
    c = cut("Река берёт начало в горах на севере. Климат в долине тёплый.", "ru")
    assert c.groups == ["Река берёт начало в горах на севере.", "Климат в долине тёплый."]
    assert c.decided == ["new group", "new group"]


# --- the trace ---------------------------------------------------------------------------------


def test_a_trimmed_lead_in_takes_its_join_with_it() -> None:
    text = (
        "Команда выиграла чемпионат страны в 2019 году. Она установила несколько рекордов в"
        " лиге. Среди них:"
    )
    c = cut(text, "ru")
    assert c.groups == [text[: text.index(" Среди")]]
    assert c.joined_by == [("leans back",)]


def test_the_atom_of_a_joined_group_names_its_rules_in_its_metadata() -> None:
    atoms, _ = distil(
        "The method was introduced in 1998 by Smith. This technique is now used in most labs.\n",
        language="en",
    )
    assert [a.metadata.get(JOINED_BY) for a in atoms] == [["leans back"]]


def test_the_atom_of_one_sentence_has_no_joined_by() -> None:
    atoms, _ = distil(
        "Метод был предложен в 1998 году Смитом и описан в его статье.\n", language="ru"
    )
    assert len(atoms) == 1 and JOINED_BY not in atoms[0].metadata
