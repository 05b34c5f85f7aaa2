"""Joins and carries after offline-v7 (issue 15, scope 2; `distill/context.py`, `carry.py`,
`join_en.py`): past the 3-sentence cap a leaning sentence takes the span that holds its referent;
a definite category noun ("the method") names what the sentence before called by its name;
"here", "above", "below", "здесь", "выше" point at what the page shows; a surname alone after a
connector repeats a two-word name; a pronoun carry must agree with the subject. Each rule on
both sides, en and ru (de where it applies)."""

from __future__ import annotations

import pytest

from pegas_memory.distill.carry import agrees
from pegas_memory.distill.context import leans_back
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext
from pegas_memory.distill.units import sentence_groups

_SKETE = (
    "В 1984 году с благословением наместника лавры и своего духовника переехал в Абхазию. "
    "Его целью был горный скит около тридцати километров к северо-востоку от Сухуми. "
    "Накануне его приезда скит разгромили милиционеры, другие насельники убежали. "
    "Через некоторое время скит восстановили."
)


def _spans(text: str, language: str) -> list[tuple[str, int, bool]]:
    return [
        (text[g.start : g.end], g.sentences, g.anaphoric)
        for g in sentence_groups(text, 0, len(text), language=language)
    ]


def test_past_the_cap_a_repeated_noun_takes_the_sentence_that_names_it() -> None:
    groups = _spans(_SKETE, "ru")
    assert [n for _, n, _ in groups] == [3, 2]
    last, _, anaphoric = groups[-1]
    assert last.startswith("Накануне его приезда скит") and last.endswith("скит восстановили.")
    assert anaphoric  # its first sentence still leans ("его"): the carry names whose arrival
    context = ChunkContext(heading_path=("Рафаил (Берестов)",), language="ru")
    atoms = OfflineDistiller().distill(_SKETE, context)
    claims = [a.claim for a in atoms]
    assert any(c.startswith("Рафаил (Берестов): накануне") and "восстановили" in c for c in claims)
    for atom in atoms:
        assert _SKETE[atom.quote_start : atom.quote_end] == atom.quote


def test_past_the_cap_a_span_over_700_characters_or_one_that_leans_again_stays_alone() -> None:
    long = ", ".join(f"отдел {i} работал ежедневно" for i in range(26))
    text = (
        "В 1984 году монах переехал в Абхазию. Его целью был горный скит. "
        f"Накануне его приезда скит разгромили. Через некоторое время скит восстановили, {long}."
    )
    assert [n for _, n, _ in _spans(text, "ru")] == [3, 1]
    # the sentence before leans by a demonstrative the carry cannot resolve: no gain in taking it
    again = (
        "Рихтер написал трактат о братстве. В нём он называл себя членом этого братства. "
        "Такими братствами управляли мастера. Братством управляет император."
    )
    assert [n for _, n, _ in _spans(again, "ru")][-1] == 1


def test_past_the_cap_an_english_pronoun_takes_only_the_sentence_before() -> None:
    sentences = [
        "Natural killer cells normalize at six months after transplantation.",
        "Chronic disease did not influence those parameters for CD8 subsets.",
        "They were seen at monthly visits in the clinic for ten years.",
        "The monthly visits were shorter in the second year.",
    ]
    text = " ".join(sentences)
    groups = _spans(text, "en")
    assert [n for _, n, _ in groups] == [3, 2]
    assert groups[1][0] == " ".join(sentences[2:]) and groups[1][2]  # "They ..." is carried
    # the sentence before leans by a determiner the carry cannot resolve ("Such patients"): the
    # sentence past the cap stays alone, marked anaphoric
    such = [*sentences[:2], "Such patients were seen at monthly visits.", sentences[3]]
    assert [(n, a) for _, n, a in _spans(" ".join(such), "en")] == [(3, False), (1, True)]


_SATSCAN = (
    "Kulldorff's spatial scan statistic and its software implementation - SaTScan - are widely "
    "used for detecting and evaluating geographic clusters."
)


@pytest.mark.parametrize(
    ("sentence", "leans"),
    [
        ("However, two issues make using the method and interpreting its results non-trivial.",
         True),
        ("In practice the drug was withdrawn after two years of use.", True),
        ("We propose a new method for clustering, and the method halves the error.", False),
        ("The method of moments gives consistent estimates of the cluster size.", False),
        ("The approach described in the appendix avoids the scaling problem.", False),
        ("Outbreaks are detected earlier in rural counties than in cities.", False),
    ],
)  # fmt: skip
def test_a_definite_category_noun_leans_on_the_thing_named_before(
    sentence: str, leans: bool
) -> None:
    assert leans_back(sentence, "en", _SATSCAN) is leans
    if leans:
        assert not leans_back(sentence, "en", None)  # a first sentence has nothing to lean on


def test_the_satscan_sentence_joins_the_one_that_names_the_method() -> None:
    text = (
        f"{_SATSCAN} However, two issues make using the method and interpreting its results "
        "non-trivial."
    )
    assert [n for _, n, _ in _spans(text, "en")] == [2]


@pytest.mark.parametrize(
    ("sentence", "language", "leans"),
    [
        ("relationship() sees that the account_id column here is on each side of the join.", "en",
         True),
        ("The mapping below uses a composite primary key.", "en", True),
        ("As shown above, the parent row is loaded first.", "en", True),
        ("Here is an example of a self-referential mapping.", "en", False),
        ("Here, we show that the mapping is loaded lazily.", "en", False),
        ("We demonstrate here that the join is symmetric.", "en", False),
        ("Mortality stayed below 5% in the treated group.", "en", False),
        ("Values above the threshold are dropped by the loader.", "en", False),
        ("В приведённом выше примере функция возвращает список.", "ru", True),
        ("Здесь столбец account_id стоит по обе стороны условия.", "ru", True),
        ("Летом температура поднимается выше 30 градусов.", "ru", False),
        ("Город расположен ниже уровня моря на восточном берегу.", "ru", False),
        # German has its own rules: "hier" is not read as a pointer
        ("Die Spalte hier steht auf beiden Seiten der Bedingung.", "de", False),
    ],
)  # fmt: skip
def test_a_pointer_at_what_the_page_shows_leans_on_the_sentence_before(
    sentence: str, language: str, leans: bool
) -> None:
    assert leans_back(sentence, language, "Above, we pass account_id into the list.") is leans


def test_the_code_block_reference_joins_the_sentence_introducing_it() -> None:
    text = (
        "Above, we pass account_id into the remote_side list. The relationship() construct "
        "recognizes that the account_id column here is on each side of the join."
    )
    assert [n for _, n, _ in _spans(text, "en")] == [2]


_CHIVAS = (
    "С 2005 до 2014 года в Лос-Анджелесе было две команды — Лос-Анджелес Гэлекси и Чивас USA, "
    "обе играли на стадионе StubHub Center."
)


@pytest.mark.parametrize(
    ("sentence", "leans"),
    [
        ("Однако Чивас выбыли из MLS после сезона 2014 года.", True),
        ("Чивас выбыли из MLS после сезона 2014 года.", True),
        ("Однако Спартак выбыл из лиги после сезона 2014 года.", False),
        ("Однако в 2015 году лига расширилась до двадцати клубов.", False),
    ],
)
def test_a_surname_alone_after_a_connector_repeats_a_two_word_name(
    sentence: str, leans: bool
) -> None:
    assert leans_back(sentence, "ru", _CHIVAS) is leans


def test_a_connector_that_opened_the_sentence_before_is_no_name() -> None:
    before = "Однако Чивас выбыли из MLS после сезона 2014 года."
    assert not leans_back("Однако лига расширилась до двадцати клубов.", "ru", before)


@pytest.mark.parametrize(
    ("pronoun", "subject", "agree"),
    [
        ("его", "Normans", False),
        ("их", "Normans", True),
        ("их", "Норманны", True),
        ("его", "Норманны", False),
        ("его", "Москва", False),
        ("её", "Москва", True),
        ("её", "Рафаил (Берестов)", False),
        ("его", "Рафаил (Берестов)", True),
        ("их", "Nikola Tesla", False),
        ("его", "Physics", True),
        ("его", "Сочи", True),  # "-и": the number is not clear, the carry stays
        ("its", "Normans", True),  # English pronouns are not checked
    ],
)
def test_a_pronoun_agrees_with_the_subject_it_carries(
    pronoun: str, subject: str, agree: bool
) -> None:
    assert agrees(pronoun, subject) is agree


def test_a_possessive_that_disagrees_with_the_subject_carries_nothing() -> None:
    text = "До прибытия Роллона, его население не отличалось от Пикардии или Иль-де-Франса."
    for subject, carried in (("Normans", False), ("Нормандия", False), ("Руан", True)):
        context = ChunkContext(heading_path=(subject,), language="ru")
        (atom,) = OfflineDistiller().distill(text, context)
        assert atom.claim.startswith(f"{subject}:") is carried
