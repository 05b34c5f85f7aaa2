"""The classify stage (`distill.classify`) is ordered lists of named rules: which prose units and
sentence groups are noise, the first rule that holds decides and is named, and its name is the
reason the distiller counts (a heading skipped uncounted, a stand-alone quote kept as dialogue)."""

from __future__ import annotations

import pytest

from pegas_memory.distill.classify import (
    DIALOGUE,
    GROUP_RULES,
    LABEL,
    ONE_SENTENCE_RULES,
    TRIMMED_RULES,
    UNIT_RULES,
    SentenceGroup,
    group_verdict,
    unit_noise,
)
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext
from pegas_memory.distill.units import Group, clean_claim, sentence_groups

# A quote of 11 words of speech: enough outside a conversation (a speaker is enough), too little
# in one, where a line also needs 12 words and a named speaker.
_QUOTE_EN = '"We will rebuild every house that the flood destroyed this spring," she said.'
_QUOTE_RU = (
    "«Мы восстановим каждый дом, который разрушило весеннее наводнение в этом городе», — сказала"
    " она."
)
_GALLERY_EN = (
    "Whitehall complex on Whitehall Place Main building of the Government Code School at "
    "Bletchley Park Security Coordination office in New York City SIS building at Broadway, "
    "New York Headquarters of the Illegals Directorate on the Strand Century House on Westminster "
    "Bridge Road New SIS Building at Vauxhall Cross"
)
_GALLERY_RU = (
    "Комплекс «Уайтхолл» на пл. Уайтхолл Главный корпус ВЦ дешифровальной службы МИД в н.п. "
    "Блечли Управление безопасности СИС по США и Канаде (г. Нью-Йорк[35] )  Корпус СИС на ул. "
    "Бродвей, д. 54 Корпус управления нелегальной разведки между ул. Стрэнд и ул. Олдвич  Главный "
    "корпус СИС на ул. Воксхолльского моста («Сентюри») Новый корпус СИС у Воксхолльского моста"
)


def _verdict(
    text: str, language: str, *, sentences: int = 1, conversation: bool = False
) -> tuple[str | None, Group]:
    """The classify verdict on the whole of `text` as one group of `sentences`."""
    return group_verdict(text, Group(0, len(text), sentences), conversation, language)


def _rule(name: str, text: str, language: str, *, conversation: bool = False) -> bool:
    """Whether the group rule `name` holds for `text` as one sentence, whatever comes before."""
    rule = dict(GROUP_RULES)[name]
    group = SentenceGroup(text, Group(0, len(text), 1), clean_claim(text), conversation, language)
    return rule(group)


def test_the_rule_lists_are_named_once_and_in_a_fixed_order() -> None:
    units = [name for name, _ in UNIT_RULES]
    assert units == [LABEL, "related link", "caption"]
    groups = [name for name, _ in GROUP_RULES]
    assert groups == [
        "exclamation",
        "question",
        "lead-in",
        "pointer",
        "list line",
        "short fragment",
        "dialogue line",
        DIALOGUE,
    ]
    assert len(set(units)) == len(units) and len(set(groups)) == len(groups)
    # the trim sits between the one-sentence rules and the rest
    assert (*ONE_SENTENCE_RULES, *TRIMMED_RULES) == GROUP_RULES
    assert [name for name, _ in ONE_SENTENCE_RULES] == groups[:3]


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("Installation", LABEL),
        ("Установка", LABEL),
        ("Read more: the floods in Bavaria", "related link"),
        ("Читайте также: наводнение в Баварии", "related link"),
        ("**Floods in Bavaria leave thousands homeless**", "related link"),
        ("People wait on the bridge over the Inn. Photo: Reuters", "caption"),
        ("Люди ждут на мосту через Инн. Фото: ТАСС", "caption"),
    ],
)
def test_a_single_line_unit_is_named_by_its_rule_and_counted_unless_a_label(
    line: str, rule: str
) -> None:
    assert unit_noise(line) == (rule, None if rule == LABEL else rule)


def test_a_unit_of_text_or_of_several_lines_goes_on_to_be_segmented() -> None:
    assert unit_noise("The river Inn flooded the old town of Passau on Monday.") is None
    assert unit_noise("Река Инн затопила старый город Пассау в понедельник.") is None
    assert unit_noise("Photo:\nReuters") is None  # only a single line is judged


@pytest.mark.parametrize("line", ["Photo: Reuters", "Фото: ТАСС"])
def test_a_short_unclosed_line_is_skipped_uncounted_before_it_is_read_as_a_caption(
    line: str,
) -> None:
    # the label rule comes first: a caption of two words is no text, and is not counted
    assert unit_noise(line) == (LABEL, None)
    assert unit_noise(f"People wait on the bridge over the Inn. {line}") == ("caption", "caption")


@pytest.mark.parametrize(
    ("text", "language", "title"),
    [
        (
            "Floods\n\nThe river Inn flooded the old town of Passau on Monday.\n\n"
            "People wait on the bridge over the Inn. Photo: Reuters\n",
            "en",
            "Floods in Bavaria",
        ),
        (
            "Наводнение\n\nРека Инн затопила старый город Пассау в понедельник.\n\n"
            "Люди ждут на мосту через Инн. Фото: ТАСС\n",
            "ru",
            "Наводнение в Баварии",
        ),
    ],
)
def test_the_distiller_counts_furniture_by_its_rule_and_not_the_heading_it_skips(
    text: str, language: str, title: str
) -> None:
    atoms, dropped = OfflineDistiller().distill_counted(text, ChunkContext(title, (), language))
    assert dropped == {"caption": 1}
    assert [a.quote for a in atoms] == [text.split("\n\n")[1]]  # the heading is no atom


@pytest.mark.parametrize(
    ("text", "language", "rule"),
    [
        ("Down, down, down!", "en", "exclamation"),
        ("Who is there?", "en", "question"),
        ("Куда же ты?", "ru", "question"),
        ("It can be installed by running:", "en", "lead-in"),
        ("Состав команды:", "ru", "lead-in"),
        ("See the installation guide for details.", "en", "pointer"),
        ("Ограничения этого подхода см. в главе 3.", "ru", "pointer"),
        (_GALLERY_EN, "en", "list line"),
        (_GALLERY_RU, "ru", "list line"),
    ],
)
def test_a_noise_group_is_named_and_counted_by_its_rule(
    text: str, language: str, rule: str
) -> None:
    name, group = _verdict(text, language)
    assert (name, group.noise, group.dialogue) == (rule, rule, False)


@pytest.mark.parametrize(
    ("text", "language"),
    [("See the list below:", "en"), ("См. список ниже:", "ru")],
)
def test_the_first_rule_that_holds_decides_a_lead_in_before_a_pointer(
    text: str, language: str
) -> None:
    assert _rule("pointer", text, language)  # a later rule holds too
    assert _verdict(text, language)[0] == "lead-in"


@pytest.mark.parametrize(
    ("text", "language"),
    [("See chapter 2.", "en"), ("См. главу 3.", "ru")],
)
def test_the_first_rule_that_holds_decides_a_pointer_before_a_short_fragment(
    text: str, language: str
) -> None:
    assert _rule("short fragment", text, language, conversation=True)
    assert _verdict(text, language, conversation=True)[0] == "pointer"


@pytest.mark.parametrize(
    ("text", "language"),
    [("And in she went.", "en"), ("И она вошла.", "ru")],
)
def test_a_short_sentence_without_speech_is_a_fragment_only_in_a_conversation(
    text: str, language: str
) -> None:
    assert _verdict(text, language, conversation=True)[0] == "short fragment"
    assert _verdict(text, language)[0] is None


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ('"Nor I," said the March Hare.', "en"),
        ("— Нет, — сказал он.", "ru"),
        (_QUOTE_EN, "en"),  # no named speaker, and too little speech for a conversation
        (_QUOTE_RU, "ru"),
    ],
)
def test_a_line_of_dialogue_in_a_conversation_is_a_dialogue_line(text: str, language: str) -> None:
    name, group = _verdict(text, language, conversation=True)
    assert (name, group.noise, group.dialogue) == ("dialogue line", "dialogue line", False)
    judged = sentence_groups(text, 0, len(text), conversation=True, language=language)
    assert [g.noise for g in judged] == ["dialogue line"]


@pytest.mark.parametrize(("text", "language"), [(_QUOTE_EN, "en"), (_QUOTE_RU, "ru")])
def test_a_quote_that_stands_alone_is_kept_marked_dialogue(text: str, language: str) -> None:
    name, group = _verdict(text, language)
    assert (name, group.noise, group.dialogue) == (DIALOGUE, None, True)
    judged = sentence_groups(text, 0, len(text), language=language)
    assert [(g.noise, g.dialogue) for g in judged] == [(None, True)]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ('"We will rebuild all 300 houses that the flood destroyed," she said.', "en"),
        ("«Мы восстановим все 300 домов, которые разрушило наводнение», — сказала она.", "ru"),
    ],
)
def test_a_quote_with_a_number_is_no_dialogue_and_stays_a_statement(
    text: str, language: str
) -> None:
    name, group = _verdict(text, language)
    assert (name, group.noise, group.dialogue) == (None, None, False)


@pytest.mark.parametrize(
    ("text", "language", "kept"),
    [
        (
            "The club holds several records in the league. Among them:",
            "en",
            "The club holds several records in the league.",
        ),
        (
            "Клуб установил несколько рекордов в лиге. Среди них:",
            "ru",
            "Клуб установил несколько рекордов в лиге.",
        ),
    ],
)
def test_an_empty_lead_in_is_trimmed_off_a_longer_group_which_no_rule_takes(
    text: str, language: str, kept: str
) -> None:
    name, group = _verdict(text, language, sentences=2)
    assert name is None and group.noise is None
    assert (text[group.start : group.end], group.sentences) == (kept, 1)


def test_a_fragment_is_not_judged() -> None:
    fragment = Group(0, 13, 1, fragment=True)
    assert group_verdict("Who is there?", fragment, False, "en") == (None, fragment)
