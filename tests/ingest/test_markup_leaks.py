"""Markup of documentation generators never reaches claims, titles or locators: mkdocs attribute
lists and abbreviation glossaries, MDX comments and heading ids, HTML <abbr>, LaTeX references
and formatting in prose. Offsets stay the file's (the text keeps its length)."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.ingest.markup import flavour_of, normalise
from tests.conftest import cited_claims, files_memory, ingest_text

DOC = """# Installing the server { #install }

*[CLI]: Command Line Interface

{/* TODO: move this section
    to the guide */}

## Running it {#running .advanced}

The <abbr title="Command Line Interface">CLI</abbr> starts the server on port 8080, as
\\textbf{every} deployment guide says \\cite{guide2024}.

## Запуск {: #zapusk }

Команда запускает сервер на порту 8080.
"""


def test_generator_markup_is_blanked_in_place() -> None:
    out, _, _ = normalise(DOC, "markdown")
    assert len(out) == len(DOC)
    for leak in (
        "{ #install }",
        "#running",
        "*[CLI]",
        "TODO",
        "<abbr",
        "\\textbf",
        "\\cite",
        "#zapusk",
    ):
        assert leak not in out
    assert "CLI" in out.split("Running it")[1]  # the abbreviation's own text stays
    assert "every" in out and "Команда запускает сервер" in out
    assert flavour_of("guide.mdx") == "markdown"


def test_ingested_claims_titles_and_locators_carry_no_markup(
    database_url: str, tmp_path: Path
) -> None:
    with files_memory(database_url, tmp_path, dim=64) as svc:
        report = ingest_text(svc, tmp_path / "files" / "guide.mdx", DOC)
        assert report.title == "Installing the server"
        rows = cited_claims(svc)
        with svc.db.connection() as conn:
            chunks = conn.execute("SELECT heading_path, locator FROM pm_chunk").fetchall()
        assert rows
        text = " ".join(f"{claim} {locator}" for claim, locator in rows)
        text += " ".join(" ".join(c["heading_path"]) + c["locator"] for c in chunks)
        for leak in ("{", "}", "#running", "<abbr", "\\cite", "\\textbf", "TODO"):
            assert leak not in text, (leak, text)
