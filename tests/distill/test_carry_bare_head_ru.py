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
_GUN = "76-мм полковая пушка образца 1927 года"


def _claims(text: str, heading: str, language: str = "ru") -> list[str]:
    return claims(text, _TITLE, (_TITLE, heading), language)


def _atom(claim: str, language: str = "ru") -> DraftAtom:
    return DraftAtom("fact", claim, claim, 0.6, claim, 0, len(claim), language)


def test_the_prototypes_of_the_gun_carry_it_though_they_are_76_mm_guns() -> None:
    text = (
        "Работы над новой пушкой начались в 1924 году. В качестве прототипов рассматривались"
        " 76-мм горная пушка обр. 1909 г. и 76-мм короткая пушка обр. 1913 г., из которых в"
        " начале 1925 года была выбрана последняя."
    )
    claims = _claims(text, _GUN)
    assert claims[-1].startswith(f"{_GUN}: в качестве прототипов рассматривались")


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
