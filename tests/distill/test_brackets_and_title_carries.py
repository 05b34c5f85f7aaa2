"""Four distiller fixes found by the graded sample of seed 9191 (issue 15), each on both sides:
no sentence ends inside an open bracket ("(odds ratio [OR], 4.21; 95% CI, ...)"), with a cap so
an unclosed "(" swallows nothing; a claim about "this crate / эта библиотека / diese Bibliothek"
carries the document's title, not its section's label ("Performance"); a Russian measure before
a dash ("Общая площадь — 312,31 км²") and a subject whose only number is a bracketed aside
("Некоторое время (с ноября 2013 года ...) проходило ...") carry the section's subject; a
Wikipedia lead whose brackets hold a ";" or run long ("Эрнст Иоганн Бирон (German: ...; 23
ноября 1690 ...) — фаворит ...") is a definition, a body sentence with a dash is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from pegas_memory.config import load_settings
from pegas_memory.distill.carry import document_subject
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.patterns import match_definition
from pegas_memory.distill.types import ChunkContext, DraftAtom
from pegas_memory.ingest.chunking import chunk_source, chunk_spans
from pegas_memory.ingest.sources import parse_source, read_source
from pegas_memory.sentences import split_sentences


def ingest_atoms(tmp_path: Path, name: str, text: str) -> list[DraftAtom]:
    """The offline atoms of a file parsed and chunked as `memory_ingest` does it."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    settings = load_settings(ingest_roots=[str(tmp_path)], data_dir=tmp_path / "data")
    parsed = parse_source(read_source(str(path), settings), settings)
    atoms: list[DraftAtom] = []
    for chunk in chunk_source(parsed):
        context = ChunkContext(parsed.title, chunk.heading_path, chunk.language)
        atoms += OfflineDistiller().distill(chunk.text, context)
    return atoms


def distil(text: str, heading_path: tuple[str, ...], language: str) -> list[DraftAtom]:
    title = heading_path[0] if heading_path else None
    return OfflineDistiller().distill(text, ChunkContext(title, heading_path, language))


# --- 1. no sentence ends inside an open bracket ----------------------------------------------

BRACKETED = [
    (
        "Compared with the lowest quartile, participants in the highest quartile had a higher"
        " risk for HDP (odds ratio [OR], 4.21; 95% confidence interval [95% CI], 1.31-13.53)"
        " after multivariate adjustment.",
        "It stayed after adjustment.",
    ),
    (
        "Смертность снизилась (отношение шансов 0,61; 95% ДИ 0,45–0,83) после лечения.",
        "Эффект сохранился через год.",
    ),
    ("Он жил в Москве (род. 1950; ум. 2001) и писал стихи.", "Потом он уехал в Париж."),
    (
        "Die Studie zeigte ein höheres Risiko (Odds Ratio 2,1; 95%-KI 1,2–3,4) nach Adjustierung.",
        "Der Effekt blieb bestehen.",
    ),
]


def test_a_chunk_never_ends_inside_a_bracket() -> None:
    """The chunker packs sentences: a cut at the ";" let a chunk end on "(OR, 4.21;" (the atom
    of seed 9191), with the CI and the close in the next chunk."""
    filler = " ".join(f"Sentence number {i} says something plain here." for i in range(18))
    bracketed = BRACKETED[0][0]
    text = f"{filler} {bracketed} {BRACKETED[0][1]}"
    for max_chars in range(900, 1300, 20):
        for start, end in chunk_spans(text, max_chars=max_chars, overlap=0):
            piece = text[start:end]
            assert not piece.rstrip().endswith("4.21;")
            assert not piece.lstrip().startswith("95% confidence")


def test_the_whole_bracket_reaches_the_claim(tmp_path: Path) -> None:
    text = "# Serum corin and hypertensive disorders\n\n" + " ".join(BRACKETED[0]) + "\n"
    claims = [a.claim for a in ingest_atoms(tmp_path, "corin.md", text)]
    assert any("4.21; 95% confidence interval [95% CI], 1.31-13.53)" in c for c in claims)
    assert not any(c.rstrip().endswith("4.21;") for c in claims)


def test_a_bracket_closing_past_the_cap_keeps_the_cut() -> None:
    long_tail = " ".join(["Further words of a long aside follow here."] * 32)  # past 1200
    text = f"The risk rose (odds ratio 4.21; {long_tail} end) after adjustment."
    assert len(split_sentences(text)) > 1


# --- 2. "this crate" is the document's subject ------------------------------------------------

README = """# globset

Cross platform single glob and glob set matching.

## Performance

This crate implements globs by converting them to regular expressions, and executing them
with the regex crate.

For single glob matching, performance of this crate should be roughly on par with the
performance of the glob crate.
"""


def test_this_crate_carries_the_readme_title_not_its_section(tmp_path: Path) -> None:
    claims = [a.claim for a in ingest_atoms(tmp_path, "README.md", README)]
    assert "globset: this crate implements globs by converting them" in " ".join(claims)
    perf = [c for c in claims if "performance of this crate" in c]
    assert perf and all(c.startswith("globset: ") for c in perf)
    assert not any(c.startswith("Performance:") for c in claims)


def test_a_one_word_title_is_the_subject_only_as_the_documents_heading() -> None:
    assert document_subject(ChunkContext("globset", ("globset", "Performance"), "en")) == "globset"
    assert document_subject(ChunkContext("report-2020", (), "en")) is None
    assert document_subject(ChunkContext(None, ("Performance",), "en")) is None


# --- 3. a Russian measure or time phrase with no subject of its own ---------------------------

SETTLEMENT = ("Статьи", "Пышлицкое сельское поселение")


@pytest.mark.parametrize(
    "text",
    [
        "Михаил Добкин (с ноября 2013 года) возглавлял областную администрацию.",
        "Ан-22 — 1965 год первого полёта.",
        "Пышлицкое сельское поселение — 312,31 км² лесов и болот.",
    ],
)
def test_a_named_subject_carries_nothing(text: str) -> None:
    atoms = distil(text, SETTLEMENT, "ru")
    assert atoms and ":" not in atoms[0].claim.split(" ")[0]
    assert not atoms[0].claim.startswith("Пышлицкое сельское поселение: ")


def test_a_dash_definition_without_a_number_stays_a_definition() -> None:
    atoms = distil("Фотосинтез — основной источник кислорода на планете.", SETTLEMENT, "ru")
    assert [a.type for a in atoms] == ["definition"]
    assert not atoms[0].claim.startswith("Пышлицкое")


# --- 4. Wikipedia leads with long brackets ----------------------------------------------------

BIRON = (
    "Эрнст Иога́нн Биро́н (German: Ernst Johann von Biron; 23 ноября 1690, мыза Калнцеем"
    " (герцогство Курляндия и Семигалия, ныне Калнциемс, Латвия) — 28 декабря 1772, Митавский"
    " дворец, герцогство Курляндия) — фаворит русской императрицы Анны Иоанновны, регент"
    " Российской империи в октябре — ноябре 1740 года."
)
BUSON = (
    "Ёса Бусон, также Буссон, Еса, Эса, Тэсо, Танигути и др. псевдонимы (Japanese: 与謝蕪村;"
    " 1716 год, Кэма в провинции Сэтцу (сейчас это Миякодзима — один 24-х районов Осаки),"
    " Япония — 25 декабря 1783 года, Киото) — японский поэт XVIII века, мастер жанра «хайку»."
)


@pytest.mark.parametrize(("lead", "term"), [(BIRON, "Эрнст Иоганн Бирон"), (BUSON, "Ёса Бусон")])
def test_a_lead_with_long_brackets_is_a_definition(lead: str, term: str) -> None:
    found = match_definition(lead)
    assert found is not None and found[0] == term
    atoms = distil(lead, ("Статьи", term), "ru")
    assert [a.type for a in atoms] == ["definition"]


@pytest.mark.parametrize(
    "sentence",
    [
        "Бирон (после смерти императрицы; по её завещанию) стал регентом — правителем империи.",
        "В 1740 году (после смерти императрицы) Бирон стал регентом — правителем империи.",
        "В 1741 году (после переворота) Бирон был арестован — его сослали в Пелым.",
    ],
)
def test_a_body_sentence_with_brackets_and_a_dash_is_no_lead(sentence: str) -> None:
    assert match_definition(sentence) is None
    atoms = distil(sentence, ("Статьи", "Бирон, Эрнст Иоганн"), "ru")
    assert atoms and all(a.type != "definition" for a in atoms)


@pytest.mark.parametrize("repeat", [1, 8])
def test_a_head_past_the_cap_is_no_lead(repeat: int) -> None:
    aside = "; ".join(["ещё одно длинное пояснение о месте рождения (ныне Москва)"] * repeat)
    found = match_definition(f"Иван Петров (1900, {aside}) — советский писатель.")
    assert (found is None) == (repeat > 1)
