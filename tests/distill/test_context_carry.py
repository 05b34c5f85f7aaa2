"""The subject a claim carries (issue 15, scope 2; `distill/carry.py`) through the whole
distiller: a relational noun before a dash carries the section and is no definition, rule 4
carries a name but not a headline nor German, a section label is no subject, and the Ollama
distiller's drafts go through the same carry. The rules' tables (a Russian claim whose subject
is no name carries the section, an English conclusion carries it, a claim naming the subject
carries nothing, what names the subject) are rows of `cases/context.toml`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pegas_memory.app.requests import IngestRequest
from pegas_memory.distill.carry import carry, topic
from pegas_memory.distill.llm import OllamaChat
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.ollama import OllamaDistiller
from pegas_memory.distill.types import ChunkContext, DraftAtom
from tests.conftest import files_memory
from tests.distill.offline_chunk import claims
from tests.fake_ollama import FakeOllama


def _claims(text: str, heading: str, language: str) -> list[str]:
    return claims(text, None, (heading,), language)


def _draft(claim: str, language: str, kind: str = "fact") -> DraftAtom:
    return DraftAtom(kind, claim, claim, 0.6, claim, 0, len(claim), language)  # type: ignore[arg-type]


def test_rule_four_carries_a_name_not_a_headline() -> None:
    sentence = "Участники обсудили бюджет на следующий год."
    assert _claims(sentence, "Правительство России", "ru") == [
        "Правительство России: Участники обсудили бюджет на следующий год."
    ]
    assert _claims(sentence, "Министр провёл совещание по экономике", "ru") == [sentence]
    long = "Совещание правительства по вопросам экономики и бюджета страны"
    assert _claims(sentence, long, "ru") == [sentence]


def test_a_relational_noun_before_a_dash_carries_the_section_and_is_no_definition() -> None:
    atoms = OfflineDistiller().distill(
        "Автор памятника — скульптор Этьен Фальконе.\n\nУ сада три входа — северный, южный и"
        " западный.\n\nОсокорь — народное название чёрного тополя.",
        ChunkContext(heading_path=("Медный всадник",), language="ru"),
    )
    by = {a.quote: a for a in atoms}
    author = by["Автор памятника — скульптор Этьен Фальконе."]
    assert author.claim == "Медный всадник: автор памятника — скульптор Этьен Фальконе."
    assert author.type != "definition" and author.term is None
    gate = by["У сада три входа — северный, южный и западный."]
    assert gate.claim.startswith("Медный всадник: у сада три входа")
    assert gate.type != "definition"
    # a definition of a term of its own stands alone
    osokor = by["Осокорь — народное название чёрного тополя."]
    assert osokor.claim == osokor.quote and osokor.type == "definition"


def test_rule_four_does_not_apply_to_german() -> None:
    sentence = "Die Rolle der Zellen ist daher in der Fibrose unklar."
    assert carry(_draft(sentence, "de"), "Lungenfibrose bei Mäusen").claim == sentence
    assert carry(_draft(sentence, "ru"), "X Y").claim != sentence  # the same rule in ru fires


def test_a_section_label_is_no_subject() -> None:
    assert topic(ChunkContext(heading_path=("Cobra", "Usage"))) == "Cobra"
    assert topic(ChunkContext(heading_path=("Usage",))) is None
    assert topic(ChunkContext(heading_path=("Dreamfall Chapters", "Сюжет"))) == "Dreamfall Chapters"
    assert topic(ChunkContext(heading_path=("Flask", "Getting Started"))) == "Flask"
    assert topic(ChunkContext(heading_path=("Flask", "Blueprints"))) == "Blueprints"
    # a part of a book named by its number is no subject either
    assert topic(ChunkContext(heading_path=("Глава первая",))) is None
    assert topic(ChunkContext(heading_path=("Глава первая", "Первый раздел"))) is None
    assert topic(ChunkContext(heading_path=("Chapter 3",))) is None
    assert topic(ChunkContext(heading_path=("Kapitel 2", "Teil II"))) is None
    assert topic(ChunkContext(heading_path=("Книга Бытия",))) == "Книга Бытия"  # more than a part
    text = "It can be installed with go get in one step."
    # under a bare label nothing names "it": the claim does not stand alone and is dropped as
    # `needs context` (distill.standalone, session 9), never given "Usage" as its subject
    assert _claims(text, "Usage", "en") == []
    assert (
        OfflineDistiller()
        .distill(text, ChunkContext(heading_path=("Cobra", "Usage"), language="en"))[0]
        .claim
        == "Cobra: it can be installed with go get in one step."
    )


def test_the_ollama_distiller_carries_the_section_subject_too() -> None:
    chunk = (
        "Съёмки сезона начались в ноябре 2017 года. Композитор Джон Пейсано написал музыку к"
        " сезону в 2018 году."
    )

    def atom(claim: str) -> dict[str, Any]:
        return {"type": "fact", "claim": claim, "content": claim, "confidence": 0.8,
                "quote": claim}  # fmt: skip

    first, second = chunk.split(". ")
    answer = {"atoms": [atom(first + "."), atom(second)]}
    context = ChunkContext(heading_path=("Сорвиголова (сезон 3)",), language="ru")
    with FakeOllama(chat=lambda req: answer) as fake:
        llm = OllamaChat(fake.url, "qwen2.5:7b-instruct", timeout=10.0, retries=1)
        atoms = OllamaDistiller(llm).distill(chunk, context)
    assert [a.claim for a in atoms] == [
        "Сорвиголова (сезон 3): Съёмки сезона начались в ноябре 2017 года.",
        second,  # a named subject stands alone
    ]
    assert atoms[0].quote == first + "." and chunk[atoms[0].quote_start :].startswith(first)
    assert atoms[0].metadata["distiller"] == "ollama"
    assert atoms[0].metadata["subject"] == "Сорвиголова (сезон 3)"
    assert atoms[0].content == atoms[0].claim


RU_ARTICLE = """# Статьи

## Сорвиголова (сезон 3)

Съёмки сезона начались в ноябре 2017 года в Нью-Йорке.

Съёмки сезона были завершены к середине июня 2018 года.

## Отравленные газами

Гигантское полотно было закончено в марте 1919 года и выставлено в Королевской академии.
"""


def test_carried_claims_of_a_file_under_two_uris_are_exact_duplicates(
    database_url: str, tmp_path: Path
) -> None:
    """Exact duplicates are keyed by claim and content (`ingest.pipeline._dedup`): the carried
    subject comes from the file's own headings, so a copy gives the same claims. (The copy
    differs by one trailing newline: byte-identical content is recorded as another name of the
    first document and not read again, tests/ingest/test_same_bytes_elsewhere.py.)"""
    with files_memory(database_url, tmp_path) as service:
        first, second = tmp_path / "files" / "a.md", tmp_path / "files" / "b.md"
        first.write_text(RU_ARTICLE, encoding="utf-8")
        second.write_text(RU_ARTICLE + "\n", encoding="utf-8")
        a = service.ingest(IngestRequest(source=str(first)))
        b = service.ingest(IngestRequest(source=str(second)))
        with service.db.connection() as conn:
            claims = [r["claim"] for r in conn.execute("SELECT claim FROM pm_atom").fetchall()]
    assert "Сорвиголова (сезон 3): Съёмки сезона начались в ноябре 2017 года в Нью-Йорке." in claims
    assert any(c.startswith("Отравленные газами: Гигантское полотно") for c in claims), claims
    assert a.atoms_new == 3
    assert b.atoms_new == 0 and b.duplicates_semantic == 0 and b.duplicates_exact == 3
