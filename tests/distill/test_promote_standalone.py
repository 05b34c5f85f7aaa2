"""What still does not stand alone after join and carry is not stored, damaged source text is no
claim, and a lead-in that only announces its list is not glued to a claim (issue 15, session 9:
`distill.standalone`, `distill.units`). Each rule fires and does not fire, in English and
Russian, through the offline distiller and its `dropped` reasons.

The labelled sentences of these rules are rows of `cases/promote.toml` (run by
`test_promote_rules.py`); what stays here distils whole chunks or asserts more than one answer.
"""

from __future__ import annotations

from pathlib import Path

from pegas_memory.app.requests import IngestRequest
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.standalone import DAMAGED, NEEDS_CONTEXT, damaged_gap, needs_context
from pegas_memory.distill.types import ChunkContext, DraftAtom
from tests.conftest import files_memory
from tests.distill.offline_chunk import distil


def _distill(text: str, language: str, title: str | None = None) -> tuple[list[DraftAtom], dict]:
    return distil(text, title, (), language)


# A chunk with no heading or title: nothing can be carried, so a claim leaning back stays marked.


def test_a_pronoun_claim_that_carries_a_subject_is_kept() -> None:
    """The rule is for what nothing resolved: under a heading that names something, the carry
    makes the claim stand alone and it is stored."""
    text = "Они были отправлены на корабле «Калькутта» в 1803 году."
    atoms, dropped = OfflineDistiller().distill_counted(
        text, ChunkContext("Порт-Филлип", ("Порт-Филлип", "Поселенцы Порт-Филлипа"), "ru")
    )
    assert NEEDS_CONTEXT not in dropped
    assert [a.quote for a in atoms] == [text]
    assert atoms[0].claim.startswith("Поселенцы Порт-Филлипа:")


def test_partitive_pronouns_need_context() -> None:
    assert needs_context("Most of them were destroyed after the uprising of 1944.", "en")
    assert needs_context("Многие из них были уничтожены в 1944 году.", "ru")
    assert not needs_context("Most of the churches were destroyed in 1944.", "en")
    assert not needs_context("Многие из церквей были уничтожены в 1944 году.", "ru")


def test_damaged_gap_reads_grammar_not_particular_words() -> None:
    assert damaged_gap("Группа записала песню для , выпущенного в 2001 году.", "ru")
    assert damaged_gap("The band recorded the song for , released in 2001.", "en")
    assert not damaged_gap("Группа записала песню , выпущенную в 2001 году.", "ru")
    assert not damaged_gap("The band recorded a new song , released in 2001.", "en")


_WALK = (
    "By default, the walker of the ignore crate skips hidden files and directories. This can be"
    " disabled by building the iterator with WalkBuilder:\n\n```rust\n"
    'let walker = WalkBuilder::new("./").hidden(false).build();\n```\n'
)


def test_a_lead_in_that_says_something_stays_with_its_sentence() -> None:
    atoms, _ = _distill(_WALK, "en", title="Notes on walking")
    prose = [a for a in atoms if a.type != "code"]
    assert [a.claim for a in prose] == [
        "By default, the walker of the ignore crate skips hidden files and directories. This can"
        " be disabled by building the iterator with WalkBuilder:"
    ]
    assert any(a.type == "code" for a in atoms)  # the block it introduces is its own atom


def test_literal_punctuation_of_inline_code_is_no_gap() -> None:
    """A manual's "separated with ``:``, or ``;``" reads "with :, or ;" once the backticks go."""
    text = "Multiple paths are separated with :, or ; on Windows since version 2.0."
    atoms, dropped = _distill(text, "en", title="Flask configuration")
    assert DAMAGED not in dropped
    assert [a.quote for a in atoms] == [text]


def test_ingest_reports_what_it_dropped_as_needing_context_or_damaged(
    database_url: str, tmp_path: Path
) -> None:
    """The reasons reach memory_ingest's answer, so an agent sees why a sentence is missing."""
    text = (
        "Они были отправлены на корабле «Калькутта» под командованием капитана Вудрифа.\n\n"
        "В 2010 году началась работа над фильмом .\n\n"
        "Корабль «Калькутта» был спущен на воду в 1795 году в Бомбее.\n"
    )
    with files_memory(database_url, tmp_path) as svc:
        path = tmp_path / "files" / "notes.md"
        path.write_text(text, encoding="utf-8")
        result = svc.ingest(IngestRequest(source=str(path)))
    assert result.dropped.get(NEEDS_CONTEXT) == 1, result.dropped
    assert result.dropped.get(DAMAGED) == 1, result.dropped
    assert result.atoms_new == 1, result
