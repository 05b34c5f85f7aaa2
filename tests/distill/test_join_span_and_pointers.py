"""Joins and carries after offline-v7 (issue 15, scope 2; `distill/context.py`, `carry.py`,
`join_en.py`): past the 3-sentence cap a leaning sentence takes the span that holds its referent;
a definite category noun ("the method") names what the sentence before called by its name;
"here", "above", "below", "здесь", "выше" point at what the page shows; a surname alone after a
connector repeats a two-word name; a pronoun carry must agree with the subject. Each rule on
both sides, en and ru (de where it applies)."""

from __future__ import annotations

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


def test_the_satscan_sentence_joins_the_one_that_names_the_method() -> None:
    text = (
        f"{_SATSCAN} However, two issues make using the method and interpreting its results "
        "non-trivial."
    )
    assert [n for _, n, _ in _spans(text, "en")] == [2]


def test_the_code_block_reference_joins_the_sentence_introducing_it() -> None:
    text = (
        "Above, we pass account_id into the remote_side list. The relationship() construct "
        "recognizes that the account_id column here is on each side of the join."
    )
    assert [n for _, n, _ in _spans(text, "en")] == [2]


def test_a_connector_that_opened_the_sentence_before_is_no_name() -> None:
    before = "Однако Чивас выбыли из MLS после сезона 2014 года."
    assert not leans_back("Однако лига расширилась до двадцати клубов.", "ru", before)


def test_a_possessive_that_disagrees_with_the_subject_carries_nothing() -> None:
    text = "До прибытия Роллона, его население не отличалось от Пикардии или Иль-де-Франса."
    for subject, carried in (("Normans", False), ("Нормандия", False), ("Руан", True)):
        context = ChunkContext(heading_path=(subject,), language="ru")
        (atom,) = OfflineDistiller().distill(text, context)
        assert atom.claim.startswith(f"{subject}:") is carried
