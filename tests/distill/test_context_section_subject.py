"""A claim's section subject through the whole distiller (issue 15, scope 2;
`distill/context.py`): a sentence without a subject of its own, or one that refers back ("This
method ...", "Он ...", "Фильм является ..."), carries the section's subject in its claim or is
joined with the sentence before it; the quote stays verbatim, down to the stored citation. What
`refers_back` and `leans_back` answer sentence by sentence, and the abbreviation cuts
`sentences.py` glues back ("род. | 27 мая", "am 5. | Mai"), are rows of `cases/context.toml`
and `cases/segment.toml`. en and ru."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.distill.carry import topic
from pegas_memory.distill.context import leans_back, refers_back
from pegas_memory.distill.types import ChunkContext, DraftAtom
from tests.conftest import offline_memory
from tests.distill.offline_chunk import distil

ARISTOV = (
    "Аве́ркий Бори́сович А́ристов (10 октября 1903 года — 11 июля 1973 года) — советский "
    "партийно-государственный деятель.\n\n"
    "Член ЦК КПСС в 1952—1971 годах. Депутат Верховного Совета СССР в 1946—1962 годах.\n\n"
    "В 1916 году уехал в Ленинград. Впервые избран секретарём обкома в 1940 году."
)
LINDER = (
    "Родился в департаменте Жиронда на западе Франции. Уже в 18 лет принят в труппу театра в "
    "Бордо, где был занят в классическом репертуаре.\n\n"
    "Столица — город Ораньестад.\n\n"
    "Фильм является прямым продолжением первой ленты 1978 года."
)
RU_PRONOUN = (
    "Псайлок создана писателем Крисом Клермонтом и художником Хербом Тримпом в 1976 году. "
    "Изначально она была второстепенным персонажем в приключениях брата."
)
EN_METHOD = (
    "We screened 1664 structurally diverse compounds against eight protein interfaces. "
    "A generalization of this method to a larger set of compounds will accelerate discovery."
)
EN_OPENING = "These studies show that zinc finger nucleases cut the genome at 12 sites."


def _atoms(text: str, context: ChunkContext) -> list[DraftAtom]:
    # the quote is always the chunk's own text, never the carried claim (distil checks it)
    return distil(text, context.title, context.heading_path, context.language)[0]


def _claims(text: str, context: ChunkContext) -> list[str]:
    return [a.claim for a in _atoms(text, context)]


def test_a_russian_sentence_without_a_subject_carries_the_article_heading() -> None:
    context = ChunkContext(
        title="Статьи Википедии",
        heading_path=("Статьи Википедии", "Аристов, Аверкий Борисович"),
        language="ru",
    )
    claims = _claims(ARISTOV, context)
    subject = "Аверкий Борисович Аристов"  # the inverted name heading read in order
    assert f"{subject}: член ЦК КПСС в 1952—1971 годах." in claims, claims
    assert f"{subject}: депутат Верховного Совета СССР в 1946—1962 годах." in claims
    assert f"{subject}: в 1916 году уехал в Ленинград." in claims
    assert f"{subject}: впервые избран секретарём обкома в 1940 году." in claims
    # The lead names its subject: nothing is carried onto it.
    assert any(c.startswith("Аверкий Борисович") for c in claims)  # stress marks out


def test_without_a_heading_a_claim_without_subject_or_verb_stays_in_its_passage() -> None:
    # nothing to carry, and no verb: it says nothing by itself (distill.predicate)
    assert _atoms("Член ЦК КПСС в 1952—1971 годах.", ChunkContext(language="ru")) == []
    atoms = _atoms("Был членом ЦК КПСС в 1952—1971 годах.", ChunkContext(language="ru"))
    assert [a.claim for a in atoms] == ["Был членом ЦК КПСС в 1952—1971 годах."]


def test_category_and_relational_nouns_carry_their_owner_ru() -> None:
    context = ChunkContext(heading_path=("Макс Линдер", "Биография"), language="ru")
    atoms = _atoms(LINDER, context)
    by = {a.quote: a for a in atoms}
    assert by["Родился в департаменте Жиронда на западе Франции."].claim == (
        "Макс Линдер: родился в департаменте Жиронда на западе Франции."
    )  # "Биография" names a part of the article, not its subject: the heading above does
    capital = by["Столица — город Ораньестад."]
    assert capital.claim == "Макс Линдер: столица — город Ораньестад."
    assert capital.type != "definition" and capital.term is None  # no definition of "Столица"
    film = by["Фильм является прямым продолжением первой ленты 1978 года."]
    assert film.claim.startswith("Макс Линдер: фильм является")
    assert film.metadata["subject"] == "Макс Линдер" and film.metadata["context"] == "category"


def test_a_pronoun_after_an_adverb_joins_the_sentence_before_ru() -> None:
    context = ChunkContext(heading_path=("Псайлок",), language="ru")
    claims = _claims(RU_PRONOUN, context)
    assert claims == [RU_PRONOUN], claims  # one atom, one quote span over both sentences


def test_a_demonstrative_with_its_noun_joins_the_sentence_before_en() -> None:
    context = ChunkContext(heading_path=("Chemical libraries",), language="en")
    claims = _claims(EN_METHOD, context)
    assert claims == [EN_METHOD], claims


def test_an_english_opening_that_refers_back_carries_the_heading() -> None:
    context = ChunkContext(
        heading_path=("Reading list", "Zinc finger nucleases in human cells"), language="en"
    )
    atom = _atoms(EN_OPENING, context)[0]
    assert atom.claim == f"Zinc finger nucleases in human cells: t{EN_OPENING[1:]}"
    assert atom.quote == EN_OPENING and atom.confidence > 0.4
    assert "anaphoric" not in atom.metadata
    # nothing to carry: which studies, no word of the claim says (distill.reference)
    assert _atoms(EN_OPENING, ChunkContext(language="en")) == []


def test_a_file_name_title_is_no_subject() -> None:
    # Byte-identical files under two names must give the same claims (exact duplicates).
    text = "Был членом ЦК КПСС в 1952—1971 годах."
    one = _claims(text, ChunkContext(title="a", heading_path=("Notes",), language="ru"))
    two = _claims(text, ChunkContext(title="b", heading_path=("Notes",), language="ru"))
    assert one == two == [text]
    assert topic(ChunkContext(title="Статьи Википедии")) == "Статьи Википедии"


def test_a_story_chapter_title_is_no_antecedent_of_she() -> None:
    text = "She went on shedding gallons of tears, until there was a large pool all round her."
    context = ChunkContext(heading_path=("Alice", "The Pool Of Tears"), language="en")
    # Nothing is carried; with nothing to resolve "She", the claim is dropped as needing
    # context (`distill.standalone`), never stored under the chapter's title.
    assert _claims(text, context) == []


def test_a_claim_that_names_the_subject_carries_nothing() -> None:
    context = ChunkContext(heading_path=("Моне, Клод",), language="ru")
    text = "Юность Моне, как он сам отмечал впоследствии, по существу, была юностью бродяги."
    assert _claims(text, context) == [text]
    assert topic(context) == "Клод Моне"


def test_both_with_its_noun_joins_but_carries_nothing() -> None:
    # "both groups" presupposes the groups told before (distill/join_en.py, rule 2): the
    # sentence joins the one before it; a subject is carried only for a reference in the
    # first words
    sentence = "Is there a difference between both groups?"
    assert refers_back(sentence, "en") is None
    assert leans_back(sentence, "en")


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with offline_memory(database_url, tmp_path / "data", dim=64) as svc:
        yield svc


def test_ingest_stores_the_carried_claim_and_cites_the_verbatim_quote(
    service: MemoryService,
) -> None:
    doc = "# Статьи\n\n## Аристов, Аверкий Борисович\n\n" + ARISTOV + "\n"
    result = service.ingest(IngestRequest(source=doc, kind="markdown", title="Статьи"))
    assert not result.errors
    with service.db.connection() as conn:
        rows = conn.execute(
            """SELECT a.claim, c.quoted_text, k.content, c.locator
                 FROM pm_atom a JOIN pm_citation c ON c.atom_id = a.id
                 JOIN pm_chunk k ON k.id = c.chunk_id"""
        ).fetchall()
    by_quote = {r["quoted_text"]: r for r in rows}
    member = by_quote["Член ЦК КПСС в 1952—1971 годах."]
    assert member["claim"] == "Аверкий Борисович Аристов: член ЦК КПСС в 1952—1971 годах."
    assert member["quoted_text"] in member["content"]
    assert "Аристов" in member["locator"]
