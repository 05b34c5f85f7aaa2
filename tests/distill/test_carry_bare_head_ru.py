"""Russian carries the graded sample of seed 11111 showed missing (issue 15, junk ru 24%): a
subject's bare head noun is no mention of it and carries it (`distill.head_ru`), a capitalised
word past the first is no verb, "это" with a neuter noun the sentence before names joins it, and
a short sentence whose subject is a bare plural noun joins the sentence before. Each rule fires
and does not fire, in Russian and English."""

from __future__ import annotations

import pytest

from pegas_memory.distill.agree_ru import bare_plural_subject
from pegas_memory.distill.carry import carry, head_reference, mentions
from pegas_memory.distill.context import leans_back
from pegas_memory.distill.types import DraftAtom
from tests.distill.offline_chunk import claims

_TITLE = "Статьи Википедии"
_WAR = "Вторая Пуническая война"
_GUN = "76-мм полковая пушка образца 1927 года"
_THEORY = "Эволюционная теория асимметрии В. А. Геодакяна"


def _claims(text: str, heading: str, language: str = "ru") -> list[str]:
    return claims(text, _TITLE, (_TITLE, heading), language)


def _atom(claim: str, language: str = "ru") -> DraftAtom:
    return DraftAtom("fact", claim, claim, 0.6, claim, 0, len(claim), language)


@pytest.mark.parametrize(
    ("claim", "subject"),
    [
        # the head alone: there were three Punic wars, many regimental guns, many theories
        ("В результате войны Карфаген потерял все свои владения за пределами Африки.", _WAR),
        ("Первые серийные полковые пушки были приняты военными 22 декабря 1928 года.", _GUN),
        ("Теория позволяет установить связь асимметрии мозга и рук с полом.", _THEORY),
    ],
)
def test_a_bare_head_noun_is_no_mention_and_carries_the_subject(claim: str, subject: str) -> None:
    assert not mentions(claim, subject)
    carried = carry(_atom(claim), subject).claim
    assert carried.startswith(f"{subject}: ")
    assert carried.endswith(claim[1:])


def test_the_prototypes_of_the_gun_carry_it_though_they_are_76_mm_guns() -> None:
    text = (
        "Работы над новой пушкой начались в 1924 году. В качестве прототипов рассматривались"
        " 76-мм горная пушка обр. 1909 г. и 76-мм короткая пушка обр. 1913 г., из которых в"
        " начале 1925 года была выбрана последняя."
    )
    claims = _claims(text, _GUN)
    assert claims[-1].startswith(f"{_GUN}: в качестве прототипов рассматривались")


@pytest.mark.parametrize(
    ("claim", "subject"),
    [
        # the distinguishing words are there: it names its own subject
        ("Вторая Пуническая война началась в 218 году до н. э.", _WAR),
        ("Пуническая война закончилась победой Рима.", _WAR),
        ("Геодакян предложил теорию в 1965 году.", _THEORY),
        ("76-мм полковая пушка образца 1927 года была принята на вооружение.", _GUN),
        # a person's name has no common head: its surname says who
        ("Меган и Гарри ожидают появления первенца.", "Меган, герцогиня Сассекская"),
    ],
)
def test_a_claim_holding_what_tells_the_subject_apart_carries_nothing(
    claim: str, subject: str
) -> None:
    assert mentions(claim, subject)
    assert carry(_atom(claim), subject).claim == claim


@pytest.mark.parametrize(
    ("claim", "subject"),
    [
        # the head with a modifier of its own is another one: a mercury lamp, a daylight lamp
        ("В 1901 году Питер Купер Хьюитт демонстрировал ртутную лампу.", "Люминесцентная лампа"),
        ("Э. Гермер признан изобретателем лампы дневного света.", "Люминесцентная лампа"),
        # no head in the claim at all
        ("Карфаген потерял все свои владения за пределами Африки.", _WAR),
        # a name, no common head ("Тур де Франс"), and an English subject
        ("Газета спонсировала Тур много лет.", "Тур де Франс"),
        ("As a result of the war Carthage lost its lands.", "Second Punic War"),
    ],
)
def test_no_bare_head_no_category_carry(claim: str, subject: str) -> None:
    assert head_reference(claim, subject) is None


def test_an_english_claim_with_the_bare_head_is_not_read_by_the_russian_rule() -> None:
    claim = "The war ended with the defeat of Carthage in 201 BC."
    assert head_reference(claim, "Second Punic War") is None
    assert mentions("The Second Punic War ended in 201 BC.", "Second Punic War")


def test_a_capitalised_word_past_the_first_is_a_name_not_a_verb() -> None:
    # "Валентиниан", "Египет" end like a short participle: they are the claim's own subject
    named = "Через восемь лет император Валентиниан подтвердил эдикт Константина."
    assert carry(_atom(named), "Гладиатор").claim == named
    # with no name in its subject the claim still carries the section's subject
    bare = "Через восемь лет император подтвердил эдикт о запрете боёв."
    assert carry(_atom(bare), "Гладиатор").claim.startswith("Гладиатор: ")
    english = "Eight years later the emperor Valentinian confirmed the edict."
    assert carry(_atom(english, "en"), "Gladiator").claim == english


_RATIO = "Палеоклиматологи измеряют соотношение кислорода-18 и кислорода-16 в раковинах."


def test_eto_with_a_neuter_noun_the_sentence_before_names_joins_it() -> None:
    sentence = "Палеоклиматологи также непосредственно измеряют это соотношение во льду."
    assert leans_back(sentence, "ru", _RATIO)
    claims = _claims(f"{_RATIO} {sentence}", "Кислород")
    assert len(claims) == 1
    assert "соотношение кислорода-18" in claims[0]
    assert claims[0].endswith("это соотношение во льду.")


@pytest.mark.parametrize(
    ("sentence", "before"),
    [
        # the noun is not in the sentence before: joining it gains nothing
        ("Палеоклиматологи также измеряют это соотношение во льду.", "Лёд хранит воздух."),
        # "это" as a particle or before a predicative
        ("Учёные считают, что это было давно.", _RATIO),
        ("Учёные считают, что это возможно уже сейчас.", _RATIO),
    ],
)
def test_eto_without_a_named_neuter_noun_does_not_join(sentence: str, before: str) -> None:
    assert not leans_back(sentence, "ru", before)


def test_an_english_sentence_is_not_read_by_the_eto_rule() -> None:
    sentence = "Climatologists also measure it in ice cores hundreds of thousands years old."
    assert not leans_back(sentence, "en", "Climatologists measure the ratio in shells.")


_TEST = "«Испытания с выдернутыми штекерами» начались утром 27 января 1967 года."


def test_a_short_sentence_with_a_bare_plural_subject_joins_the_sentence_before() -> None:
    assert bare_plural_subject("Проблемы возникли почти сразу же.")
    claims = _claims(f"{_TEST} Проблемы возникли почти сразу же.", "Программа «Аполлон»")
    assert claims == [f"Программа «Аполлон»: {_TEST} Проблемы возникли почти сразу же."]


@pytest.mark.parametrize(
    "sentence",
    [
        "Первые проблемы возникли почти сразу же.",  # a modifier says which
        "Проблемы с двигателем возникли сразу.",  # so does a phrase after the noun
        "Проблемы возникли почти сразу же после начала испытаний на стенде.",  # long
        "Problems arose almost at once.",  # English
    ],
)
def test_no_short_bare_plural_subject_no_join(sentence: str) -> None:
    assert not bare_plural_subject(sentence)
    claims = _claims(f"{_TEST} {sentence}", "Программа «Аполлон»")
    assert len(claims) == 2


@pytest.mark.parametrize(
    ("claim", "subject", "named"),
    [
        # "Скифские" is a plural adjective, not the head: "монахи" alone does not say which
        ("Впервые монахи упоминаются в письме Диоскора.", "Скифские монахи", False),
        # a work's first word as the head, written as a name mid-claim, names the work
        (
            "Чтобы привлечь внимание к «Пикнику», Линдси утверждала это.",
            "Пикник у Висячей скалы",
            True,
        ),
        # a common head capitalised in the claim ("Общества") still does not say which society
        (
            "Первая школа была открыта в год создания Общества.",
            "Императорское православное палестинское общество",
            False,
        ),
        # a word derived from a name is no mention of it
        (
            "Посёлок расположен в 3 км от станции Новосветловский.",
            "Новосветловка (Луганская область)",
            False,
        ),
    ],
)
def test_the_head_and_its_names_are_told_apart(claim: str, subject: str, named: bool) -> None:
    assert mentions(claim, subject) is named
    assert (carry(_atom(claim), subject).claim == claim) is named
