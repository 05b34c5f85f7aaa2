"""Issue 15: clean, typed, self-contained atoms. Layout noise of PDF pages (ingest.layout), the
en/de abbreviation layer of the sentence splitter, labelled statements, German definitions,
joined sentences, markdown and widget noise, and tables, on snippets typed in here."""

from __future__ import annotations

import pytest

from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext, DraftAtom
from pegas_memory.ingest.layout import REPLACEMENT, clean_pages, recover_unmapped
from pegas_memory.sentences import split_sentences


def offline(text: str, language: str | None = None) -> list[DraftAtom]:
    atoms = OfflineDistiller().distill(text, ChunkContext(language=language))
    for atom in atoms:
        assert text[atom.quote_start : atom.quote_end] == atom.quote
    return atoms


def claims(atoms: list[DraftAtom]) -> str:
    return "\n".join(a.claim for a in atoms)


# --- layout noise -------------------------------------------------------------------------------


def book(n: int = 6) -> list[str]:
    """Pages of a book printed from page 3 on, each with a running header and page number."""
    pages = []
    for i in range(n):
        no = i + 3
        header = f"{no} 1.2. METRISCHE RÄUME" if i % 2 == 0 else f"3.2. Stetigkeit {no}"
        kind = ["kompakte", "offene", "zusammenhängende"][i % 3]
        body = f"Auf dieser Seite steht ein Satz über {kind} Räume{'!' * i} und Bilder."
        pages.append(f"{header}\n{body}\n{no}" if i % 3 else f"{header}\n{body}")
    return pages


def test_running_headers_and_page_numbers_are_removed() -> None:
    result = clean_pages(book())
    for page in result.pages:
        assert page.text.startswith("Auf dieser Seite") and page.text.endswith("Bilder.")
    assert result.removed["running header"] == 6
    assert result.removed["page number"] == 4


def test_repeated_footer_without_number_and_roman_page_number() -> None:
    bodies = ["Apples are red.", "Pears are green.", "Plums are blue.", "Limes are sour."]
    pages = [f"{body}\nDraft — do not circulate" for body in bodies]
    pages[0] = "iii\n" + pages[0]
    cleaned = [p.text for p in clean_pages(pages).pages]
    assert cleaned == bodies
    assert all("Draft" not in p for p in cleaned)


def test_toc_dot_leaders_and_figure_labels() -> None:
    page = (
        "Inhaltsverzeichnis\nEinleitung ........................ 5\nStetigkeit . . . . . . . . 17\n"
        "Eine Abbildung ist stetig, wenn Urbilder offener Mengen offen sind.\n"
        "y\nx\nr r\n\x004 \x002 2 4 6 8\nAbbildung 1.3: Die Kugel"
    )
    text = clean_pages([page]).pages[0].text
    assert "Einleitung" not in text and "Stetigkeit" not in text
    assert "\nr r" not in text and "6 8" not in text and "\ny\n" not in text
    assert "Eine Abbildung ist stetig" in text and "Abbildung 1.3: Die Kugel" in text


def test_line_end_hyphenation_is_joined_but_real_hyphens_stay() -> None:
    text = clean_pages(["Eine Mannig-\nfaltig-\nkeit ist ein\nHausdorff-\nRaum."]).pages[0].text
    assert "Mannigfaltigkeit" in text
    assert "Hausdorff-\nRaum" in text


def test_nul_minus_signs_are_recovered_or_marked() -> None:
    text, recovered, damaged = recover_unmapped("f\x001(A) und ‖x1 \x00x2‖ und (\x001)^n")
    assert text == "f⁻¹(A) und ‖x1 −x2‖ und (−1)^n"
    assert (recovered, damaged) == (3, 0)
    page = clean_pages(["Es gilt a\x00b = 0 für alle a und b."]).pages[0]
    assert page.damaged and REPLACEMENT in page.text and "\x00" not in page.text


def test_a_damaged_page_gives_an_atom_that_says_so() -> None:
    page = clean_pages(["Die Differenz a\x00b ist für alle reellen Zahlen eindeutig bestimmt."])
    (atom,) = offline(page.pages[0].text, "de")
    assert atom.metadata["damaged"] is True


# --- sentence splitting -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Es gibt Mengen wie z. B. [0, 1). Auch gibt es andere Mengen.", 2),
        ("Siehe S. 12 und Abb. 3 im Anhang. Das ist gut.", 2),
        ("Er wohnt in St. Petersburg bei Prof. Dr. Herrlich. Gut.", 2),
        ("See Fig. 3 for more, e.g. the plots. Dr. Smith agreed.", 2),
        ("Это, т. е. энтропия, важно, и т. д. Потом ещё.", 2),
        ("Vgl. Abschnitt 3 oben. Ok, weiter.", 2),
    ],
)
def test_abbreviations_do_not_end_sentences(text: str, count: int) -> None:
    sentences = split_sentences(text)
    assert len(sentences) == count, [s.text for s in sentences]
    assert all(text[s.start : s.end] == s.text for s in sentences)


# --- definitions --------------------------------------------------------------------------------


def test_definition_block_is_one_atom_with_its_term() -> None:
    text = (
        "Definition 10\nEin topologischer Raum X heißt hausdorffsch, wenn es für je zwei Punkte\n"
        "x ≠ y Umgebungen Ux und Uy gibt, sodass Ux ∩ Uy = ∅.\nBemerkung 4\nMetrische Räume "
        "sind hausdorffsch.\n"
    )
    atoms = offline(text, "de")
    (definition,) = [a for a in atoms if a.type == "definition"]
    assert definition.quote.startswith("Definition 10\n") and definition.quote.endswith("= ∅.")
    assert definition.term == "hausdorffsch" and definition.metadata["term"] == "hausdorffsch"
    assert definition.metadata["label"] == "Definition 10"
    assert "Bemerkung 4" not in claims(atoms)


def test_definition_block_term_from_its_title() -> None:
    text = "Definition 3 (Metrik)\nEine Abbildung d : X × X → R mit d(x, y) ≥ 0 für alle x, y.\n"
    (atom,) = offline(text, "de")
    assert atom.type == "definition" and atom.term == "Metrik"


# --- theorems and proofs ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Satz 1.1 (Heine-Borel)\nSei K ⊆ Rn. Dann ist K genau dann kompakt, wenn K\n"
         "beschränkt und abgeschlossen ist.\nBeweis: Klar. ■", "Satz 1.1"),
        ("Theorem 2. Let X be compact. Then every sequence in X has a convergent subsequence.",
         "Theorem 2"),
        ("Лемма 3. Пусть X компактно. Тогда X ограничено и замкнуто.", "Лемма 3"),
    ],
)  # fmt: skip
def test_theorem_block_keeps_premises_with_the_conclusion(text: str, label: str) -> None:
    atoms = offline(text)
    theorem = next(a for a in atoms if a.metadata.get("kind") == "theorem")
    assert theorem.type == "fact" and theorem.metadata["label"] == label
    assert theorem.quote.startswith(label)
    assert "Beweis" not in theorem.quote
    assert not [a for a in atoms if a.claim.startswith(("Dann", "Then", "Тогда"))]


def test_proof_is_one_text_atom() -> None:
    text = "Beweis: Sei K kompakt. Dann ist K beschränkt. Also ist K abgeschlossen. ■"
    (proof,) = offline(text, "de")
    assert proof.type == "text" and proof.metadata["kind"] == "proof" and proof.quote == text


# --- self-contained sentences -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Researchers built a new solver in 2019. This technique cut run times by half.", "en"),
        ("Hubble measured the expansion of the universe. These studies changed cosmology.", "en"),
        ("Клаузиус предложил гипотезу о тепловой смерти. Эта гипотеза вызвала споры.", "ru"),
        ("Иван Петров открыл новый элемент в 1901 году. Он назвал его в честь города.", "ru"),
        ("Gauß fand ein Verfahren zur Ausgleichsrechnung. Diese Methode nutzt man bis heute.",
         "de"),
    ],
)  # fmt: skip
def test_sentence_leaning_on_the_one_before_is_joined(text: str, lang: str) -> None:
    (atom,) = offline(text, lang)
    assert atom.quote == text and atom.confidence > 0.4


def test_premise_stays_with_its_conclusion() -> None:
    text = "Sei X ein kompakter Raum und f stetig. Dann ist f(X) kompakt."
    (atom,) = offline(text, "de")
    assert atom.quote == text


def test_fragment_of_a_cut_sentence_is_no_atom() -> None:
    text = "hängend ist und daher auch wegzusammenhängend. Metrische Räume sind hausdorffsch."
    atoms = offline(text, "de")
    assert [a.claim for a in atoms] == ["Metrische Räume sind hausdorffsch."]


def test_abbreviation_split_is_no_fragment_atom() -> None:
    text = (
        "Es gibt Mengen, die weder offen noch abgeschlossen sind, wie z. B. das Intervall [0, 1)."
    )
    (atom,) = offline(text, "de")
    assert atom.quote == text


# --- markdown and widget noise ------------------------------------------------------------------


def test_markdown_escapes_and_emphasis_do_not_leak_into_claims() -> None:
    text = "The \\*new\\* model, *called* _Orca_, was **released** in 2023 by \\[Acme\\] Labs."
    (atom,) = offline(text, "en")
    assert atom.claim == "The *new* model, called Orca, was released in 2023 by [Acme] Labs."


@pytest.mark.parametrize(
    "text",
    [
        "Advertisement\nThe council approved the budget of 4 million euros on Monday.",
        "Share\nThe council approved the budget of 4 million euros on Monday.",
        "SummaryThe council approved the budget of 4 million euros on Monday.",
        "Читайте также\nСовет утвердил бюджет в 4 миллиона рублей в понедельник.",
    ],
)
def test_widget_labels_glued_onto_sentences_are_cut_off(text: str) -> None:
    (atom,) = offline(text)
    assert atom.claim.startswith(("The council", "Совет")), atom.claim


def test_bylines_and_newsletter_calls_are_no_atoms() -> None:
    text = (
        "The council approved the budget on Monday.\n\n"
        "Follow him on Twitter @someone for more updates.\n\n"
        "Get the top headlines by subscribing to our newsletter every morning."
    )
    assert [a.claim for a in offline(text, "en")] == ["The council approved the budget on Monday."]


# --- types --------------------------------------------------------------------------------------


def test_german_capitals_do_not_make_a_fact() -> None:
    (atom,) = offline("Die Mitschriften der Vorlesung sind eine gute Vorbereitung.", "de")
    assert atom.type == "text"
    (fact,) = offline("Die Vorlesung wurde im Wintersemester 2013 gehalten.", "de")
    assert fact.type == "fact"


def test_tab_separated_table_is_a_table() -> None:
    text = "Stadt\tEinwohner\tLand\nBerlin\t3645000\tDE\nWien\t1897000\tAT\n"
    (table,) = offline(text, "de")
    assert table.type == "table" and table.metadata["columns"] == ["Stadt", "Einwohner", "Land"]
    assert table.metadata["rows"] == 2


def test_code_block_after_a_definition_block_stays_code() -> None:
    text = (
        "Definition 1\nEine Liste heißt sortiert, wenn jedes Element kleiner als das nächste ist."
        "\n\n```python\ndef is_sorted(xs):\n    return xs == sorted(xs)\n```\n"
    )
    atoms = offline(text, "de")
    assert [a.type for a in atoms] == ["definition", "code"]
    assert atoms[0].term == "sortiert" and "def is_sorted" not in atoms[0].quote
