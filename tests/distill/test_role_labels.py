"""Junk of the graded sample of seed 12121 (issue 15): a troubleshooting entry's role label
("Reason:", "Solution:", "Причина:") carries the heading that names the problem; a Russian
sentence whose subject is what the sentence before says ("... это обеспечило ...", "Полученные
результаты ...", "Считается, что у них ...") joins it instead of carrying the section; a name
built on an acronym has no gender its verbs could contradict, and a capitalised name word read
in lower case is the common noun, no mention. Each rule fires and does not fire, en and ru."""

from __future__ import annotations

from pegas_memory.distill.carry import carry, mentions
from pegas_memory.distill.context import leans_back
from pegas_memory.distill.items import role_label
from pegas_memory.distill.lean_ru import described_results, situation_subject
from pegas_memory.distill.types import DraftAtom
from tests.distill.offline_chunk import claims

_GUIDE = "Troubleshooting Guide"
_NPE = "`NullPointerException` when parsing an empty file"
_SECTION_EN = """**Symptom:** A `NullPointerException` is thrown when the parser reads an empty file

**Reason:**

- The input stream was closed before the parser started reading it
- Or, the file is not readable by the current user

**Solution:** Open the stream inside the `try` block and check the file permissions first.

**Note:** The parser never closes a stream it did not open itself.
"""
_SECTION_RU = """Симптом: при запуске сервер сразу завершает работу с кодом 1.

Причина: порт 8080 уже занят другим процессом на этой машине.

Решение: освободите порт или укажите другой в файле настроек сервера.

Примечание: журнал сервера хранится в каталоге logs рядом с файлом настроек.
"""


def _claims(text: str, title: str, heading: str, language: str) -> list[str]:
    return claims(text, title, (title, heading), language)


def _atom(claim: str, language: str) -> DraftAtom:
    return DraftAtom("fact", claim, claim, 0.6, claim, 0, len(claim), language)


def test_english_role_labels_carry_the_heading_that_names_the_problem() -> None:
    claims = _claims(_SECTION_EN, _GUIDE, _NPE, "en")
    head = "NullPointerException when parsing an empty file"
    assert f"{head} — reason: The input stream was closed before the parser started reading it" in (
        claims
    )
    # the alternative's "Or," is no part of the reason: it says there are several
    assert f"{head} — reason (alternatively): The file is not readable by the current user" in (
        claims
    )
    assert any(c.startswith(f"{head} — solution: Open the stream") for c in claims)


def test_a_symptom_naming_its_problem_and_a_note_keep_their_own_words() -> None:
    claims = _claims(_SECTION_EN, _GUIDE, _NPE, "en")
    # the symptom names the NullPointerException of the heading; "Note" is no role label
    assert "Symptom: A NullPointerException is thrown when the parser reads an empty file" in claims
    assert not any("— note:" in c for c in claims)
    assert role_label("Note: the parser never closes a stream") is None
    assert role_label("Reasonable defaults: the parser reads UTF-8") is None


def test_russian_role_labels_carry_the_heading() -> None:
    claims = _claims(
        _SECTION_RU, "Руководство по устранению неполадок", "Сервер не запускается", "ru"
    )
    assert (
        "Сервер не запускается — причина: порт 8080 уже занят другим процессом на этой машине."
        in (claims)
    )
    assert any(c.startswith("Сервер не запускается — решение: освободите порт") for c in claims)
    assert not any(c.startswith("Сервер не запускается — примечание") for c in claims)


def test_a_role_label_without_a_heading_carries_nothing() -> None:
    atom = _atom("Reason: the input stream was closed before reading.", "en")
    assert carry(atom, None) == atom
    labelled = carry(_atom("Причина: порт уже занят.", "ru"), "Сервер не запускается")
    assert labelled.claim == "Сервер не запускается — причина: порт уже занят."


_GRAMOPHONE = (
    "Граммофон был изобретён Эмилем Берлинером в 1887 году. Основное преимущество граммофона над"
    " фонографом — поперечная запись и более громкий звук. Вкупе с лёгкостью тиражирования"
    " записей это обеспечило быструю победу граммофона."
)


def test_eto_as_the_subject_of_its_verb_joins_and_carries_no_section() -> None:
    assert situation_subject("Вкупе с лёгкостью тиражирования записей это обеспечило победу.")
    assert situation_subject("Это привело к быстрому росту продаж пластинок.")
    claims = _claims(_GRAMOPHONE, "Статьи Википедии", "Граммофон", "ru")
    assert not any(c.startswith("Граммофон: вкупе") for c in claims)
    assert any(
        c.endswith(
            "Вкупе с лёгкостью тиражирования записей это обеспечило быструю победу граммофона."
        )
        and "поперечная запись" in c
        for c in claims
    )
    # alone (the first sentence of a chunk) it stays marked, not carried
    alone = carry(
        _atom("Вкупе с лёгкостью тиражирования это обеспечило победу.", "ru"), "Граммофон"
    )
    assert alone.claim.startswith("Вкупе") and alone.metadata.get("anaphoric")


def test_eto_before_a_noun_or_as_a_copula_is_not_a_situation_subject() -> None:
    assert not situation_subject("Это изобретение было запатентовано в 1887 году.")
    assert not situation_subject("Граммофон — это прибор для воспроизведения звука.")
    # a clause's own "это" ("what it means") is no subject of the sentence
    assert not situation_subject("Для определения того, что это означает, используется машина.")
    # English "this" as a subject is join_en's and standalone's business, not this rule's
    assert not situation_subject("Together with cheap copies this ensured the gramophone won.")


def test_results_just_described_join_the_sentence_before() -> None:
    assert described_results("Полученные результаты были опубликованы в журнале Science.")
    assert described_results("Описанные изменения вступили в силу в 2011 году.")
    assert leans_back("Полученные результаты были опубликованы в журнале Science.", "ru")
    text = (
        "В 2010 году тропические леса Амазонки пережили сильную засуху. Засуха имела три"
        " эпицентра на юго-западе бассейна. Полученные результаты были опубликованы в журнале"
        " Science."
    )
    claims = _claims(text, "Amazon rainforest", "Amazon rainforest", "ru")
    assert not any(c.startswith("Amazon rainforest: Полученные") for c in claims)
    assert any("эпицентра" in c and c.endswith("в журнале Science.") for c in claims)


def test_a_participle_with_its_own_complement_or_in_english_does_not_lean() -> None:
    assert not described_results("Полученные из нефти продукты используются в химии.")
    assert not described_results("Результаты были опубликованы в журнале Science.")
    assert not leans_back("Полученные из нефти продукты используются в химии.", "ru")
    assert not leans_back("Obtained results are stored in the cache directory.", "en")


def test_a_pronoun_after_an_impersonal_opener_joins_the_sentence_before() -> None:
    claim = "Считается, что у них также были структуры, похожие на внутренние органы."
    assert leans_back(claim, "ru")
    text = (
        "Три образца были найдены в сланце Берджеса в Канаде. Все три образца имели от 24 до 80"
        " гребней. Считается, что у них также были структуры, похожие на внутренние органы."
    )
    claims = _claims(text, "Ctenophora", "Ctenophora", "ru")
    assert not any(c.startswith("Ctenophora: считается") for c in claims)
    assert any("гребней" in c and "у них также" in c for c in claims)


def test_an_impersonal_opener_without_a_pronoun_does_not_lean() -> None:
    assert not leans_back("Считается, что гребневики появились в кембрии.", "ru")
    assert not leans_back("Researchers believe that ctenophores appeared in the Cambrian.", "en")


def test_an_acronym_name_takes_a_masculine_verb_and_its_common_noun_is_no_mention() -> None:
    claim = "Являлся домашней ареной для футбольной команды Уралмашзавода до 1960-х годов."
    assert not mentions(claim, "СКБ-Банк Арена")
    carried = carry(_atom(claim, "ru"), "СКБ-Банк Арена")
    assert carried.claim.startswith("СКБ-Банк Арена: являлся домашней ареной")


def test_a_persons_name_still_disagrees_and_a_capitalised_name_word_is_a_mention() -> None:
    # "была" is not Шолохов's: nothing carried (agree_ru), acronym or not
    claim = "Долгое время была в услужении у помещиков."
    assert carry(_atom(claim, "ru"), "Михаил Александрович Шолохов").claim == claim
    assert mentions(
        "Строительство собора Святого Марка было начато в 828 году.", "Собор Святого Марка"
    )
    assert mentions("The Polymeal is a safer diet than the Polypill.", "The Polymeal")
