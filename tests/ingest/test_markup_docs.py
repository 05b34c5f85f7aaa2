"""Markup documents (README.md, reStructuredText) distil into clean atoms (issue 15): badges,
HTML, link lines, tables of contents, rst directives and roles never become or leak into atoms;
admonitions are text; code blocks are code; a list under a lead-in carries it; a README is
titled by its project; offsets stay the file's, so quotes are found at their locators."""

from __future__ import annotations

from pathlib import Path

import pytest

from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext
from pegas_memory.distill.units import clean_claim, list_lead_in
from pegas_memory.ingest.chunking import ParsedSource, chunk_source, chunk_spans
from pegas_memory.ingest.markup import normalise
from tests.parsed_documents import claims_of, distil_document, parse_file


def claims(parsed: ParsedSource) -> list[str]:
    return [a.claim for a in distil_document(parsed)[0]]


README = """<div align="center">
<a href="https://cobra.dev">
<img width="512" alt="logo" src="https://example.org/logo.png" />
</a>
</div>

Cobra is a library for creating powerful modern command line applications.

<a href="https://cobra.dev">Visit Cobra.dev for extensive documentation</a>

[![Go Reference](https://pkg.go.dev/badge/cobra.svg)](https://pkg.go.dev/cobra)
[![Slack](https://img.shields.io/badge/Slack-cobra-brightgreen)](https://slack.example.org)
<hr>
<div align="center" markdown="1">
   <sup>Supported by:</sup>
   <a href="https://www.example.org/cobra">
      <img alt="sponsor" width="400" src="https://example.org/s.png">
   </a>
</div>

# Table of Contents

- [Overview](#overview)
- [Concepts](#concepts)

# Overview

Cobra provides:
* Fully POSIX-compliant flags (including short & long versions)
* Automatic help generation for commands and flags

> **Note**
> The generator writes every command file into the cmd folder of the project.

# Installing

It can be installed by running:

```
go install github.com/spf13/cobra-cli@latest
```

# License

Cobra is released under the Apache 2.0 license. See [LICENSE.txt](LICENSE.txt)
"""


def test_readme_badges_html_links_and_toc_give_no_atoms(tmp_path: Path) -> None:
    parsed = parse_file(tmp_path, "cobra/README.md", README)
    found = claims(parsed)
    joined = "\n".join(found)
    for residue in ("<", "](", "badge", "Visit Cobra.dev", "Supported by", "Overview", "[!"):
        assert residue not in joined, residue
    assert "Cobra is released under the Apache 2.0 license." in found
    assert not any(c.startswith("See ") for c in found)  # the pointer line is no atom
    # the admonition is ordinary text, its marker gone
    assert any(c.startswith("The generator writes every command file") for c in found)


def test_readme_is_titled_by_its_project_not_the_file_name(tmp_path: Path) -> None:
    assert parse_file(tmp_path, "cobra/README.md", README).title == "Cobra"
    # a heading that opens the document is its title
    opened = "# Hugo\n\nHugo is a static site generator written in the Go language.\n"
    assert parse_file(tmp_path, "hugo/README.md", opened).title == "Hugo"
    # not a README, and no heading at the top: the file's name, as before
    plain = "Some notes about the project and what it builds for its users.\n\n# Later\n\nText.\n"
    assert parse_file(tmp_path, "cobra/notes.md", plain).title == "notes"
    # a plain text file keeps its old title
    assert parse_file(tmp_path, "cobra/README.txt", README).title == "README"


def test_front_matter_is_no_atom_and_gives_the_title(tmp_path: Path) -> None:
    page = (
        '---\ntitle: "Active Help"\nweight: 3\n---\n\n'
        "Active Help is a framework for showing hints to users of a program.\n"
    )
    parsed = parse_file(tmp_path, "site/help.md", page)
    assert parsed.title == "Active Help"
    assert not any("weight" in c or "title:" in c for c in claims(parsed))


def test_list_under_a_lead_in_carries_it(tmp_path: Path) -> None:
    found = claims(parse_file(tmp_path, "cobra/README.md", README))
    assert "Cobra provides: Fully POSIX-compliant flags (including short & long versions)" in found
    assert "Fully POSIX-compliant flags (including short & long versions)" not in found


@pytest.mark.parametrize(
    ("text", "item", "lead"),
    [
        ("Cobra provides:\n* Nested subcommands\n* Global flags\n", "Global", "Cobra provides:"),
        (
            "Библиотека умеет следующее:\n- разбирать флаги командной строки\n",
            "разбирать",
            "Библиотека умеет следующее:",
        ),
        (
            "Cobra bietet:\n1. verschachtelte Befehle\n2. globale Flags\n",
            "globale",
            "Cobra bietet:",
        ),
        # a bold label over the list is its pseudo-heading
        ("**Improvements**\n\n* Support for flags\n", "Support", "Improvements:"),
        ("**Улучшения:**\n\n* поддержка флагов\n", "поддержка", "Улучшения:"),
        # wrapped items and a blank line between items of the same list
        ("We support:\n* one thing\n  wrapped\n\n* another thing\n", "another", "We support:"),
    ],
)
def test_list_lead_in_found(text: str, item: str, lead: str) -> None:
    assert list_lead_in(text, text.index(item)) == lead


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("Cobra is a library.\n\n* Nested subcommands\n", "Nested"),  # no lead-in
        ("Флаги командной строки.\n- разбирать флаги\n", "разбирать"),  # the line is no lead-in
        ("Cobra bietet:\n* Befehle\n\n- eine andere Liste\n", "eine"),  # another list
        ("Like this::\n\n* not a lead-in\n", "not"),  # an rst literal marker
        ("Cobra provides: flags\n", "flags"),  # not a list item
        ("Some **bold** words in a sentence.\n\n* an item\n", "an item"),  # no label alone
    ],
)
def test_list_lead_in_not_found(text: str, item: str) -> None:
    assert list_lead_in(text, text.index(item)) is None


RST = """.. _design:

=========================
Design Decisions in Flask
=========================

If you are curious why Flask does certain things the way it does, this section is for you.

The Explicit Application Object
-------------------------------

Without such an explicit application object the following code::

    from hypothetical_flask import route

    @route('/')
    def index():
        return 'Hello World!'

Would look like this instead:

.. code-block:: python

    $ flask run

:data:`.current_app` can be used to access the application object without importing it.
The proxy is described in :doc:`the application context </appcontext>` in full detail.

.. note::

    The application object keeps every resource it allocated until it is deleted.

.. versionchanged:: 2.0
    The application object is created once per process by the factory.

.. autoclass:: Flask
    :members:
    :inherited-members:

.. toctree::
    :maxdepth: 2

    tutorial/index

.. image:: _static/flask.png
    :align: center

Nested Details
~~~~~~~~~~~~~~

=========  =============================
Converter  Meaning
=========  =============================
string     accepts any text without a slash
int        accepts positive integers only
=========  =============================

The routing system sorts every rule by its complexity before it matches a request.

----------

The rules follow `the Werkzeug routing <https://werkzeug.example.org>`_ design closely.
"""


def test_rst_markup_never_leaks_into_atoms(tmp_path: Path) -> None:
    parsed = parse_file(tmp_path, "docs/design.rst", RST)
    atoms, dropped, _ = distil_document(parsed)
    prose = [a.claim for a in atoms if a.type not in ("code", "table")]
    joined = "\n".join(prose)
    for residue in (
        ".. ",
        "::",
        ":data:",
        ":doc:",
        "</",
        "`_",
        "autoclass",
        "members",
        "toctree",
        "image",
        "====",
        "~~~",
        "versionchanged",
    ):
        assert residue not in joined, residue
    assert "current_app can be used to access the application object without importing it." in (
        prose
    )
    assert any(
        c.startswith("The proxy is described in the application context in full") for c in prose
    )
    # admonitions are ordinary text
    assert any(c.startswith("The application object keeps every resource") for c in prose)
    assert any(c.startswith("The application object is created once per process") for c in prose)
    assert "The rules follow the Werkzeug routing design closely." in prose
    # the lead-ins of code blocks are no claims, and they are counted
    assert not any("following code" in c or "look like this" in c for c in prose)
    assert dropped.get("lead-in", 0) >= 2


def test_rst_code_blocks_are_code_and_tables_are_tables(tmp_path: Path) -> None:
    atoms, _, _ = distil_document(parse_file(tmp_path, "docs/design.rst", RST))
    code = [a for a in atoms if a.type == "code"]
    assert any("def index():" in a.quote for a in code)  # the literal block after "::"
    assert any("$ flask run" in a.quote for a in code)  # code-block, without a code hint
    tables = [a for a in atoms if a.type == "table"]
    assert len(tables) == 1 and tables[0].metadata["columns"] == ["Converter", "Meaning"]


def test_rst_headings_title_and_levels(tmp_path: Path) -> None:
    parsed = parse_file(tmp_path, "docs/design.rst", RST)
    assert parsed.title == "Design Decisions in Flask"
    paths = [s.heading_path for s in parsed.sections]
    assert paths[0] == ("Design Decisions in Flask",)
    assert ("Design Decisions in Flask", "The Explicit Application Object") in paths
    # "~~~" is a third level (the order in which adornment styles appear), not a code fence
    assert (
        "Design Decisions in Flask",
        "The Explicit Application Object",
        "Nested Details",
    ) in paths
    assert any("sorts every rule" in c for c in claims(parsed))


def test_plain_text_is_not_read_as_markup(tmp_path: Path) -> None:
    text = ".. note:: this line is kept in a text file\n\nSee [the docs](https://x.org) please.\n"
    parsed = parse_file(tmp_path, "notes.txt", text)
    assert ".. note::" in parsed.sections[0].text and "](https" in parsed.sections[0].text


@pytest.mark.parametrize("flavour", ["markdown", "rst"])
def test_normalise_keeps_every_offset(flavour: str) -> None:
    text = README if flavour == "markdown" else RST
    out, _, _ = normalise(text, flavour)  # type: ignore[arg-type]
    assert len(out) == len(text)
    breaks = {i for i, c in enumerate(out) if c == "\n"}
    original = {i for i, c in enumerate(text) if c == "\n"}
    if flavour == "markdown":
        assert breaks == original
    else:  # an rst title and its underline are one line: only those breaks go
        assert breaks < original
        gone = sorted(original - breaks)
        assert [text[:i].rsplit("\n", 1)[-1] for i in gone] == [
            "Design Decisions in Flask",
            "The Explicit Application Object",
            "Nested Details",
        ]


def test_quotes_are_the_files_text_at_their_position(tmp_path: Path) -> None:
    """A quote is the normalised text at its position, and the file's own text wherever no
    markup was blanked in it."""
    for name, text in (("cobra/README.md", README), ("docs/design.rst", RST)):
        flavour = "rst" if name.endswith("rst") else "markdown"
        normalised = normalise(text, flavour)[0]  # type: ignore[arg-type]
        parsed = parse_file(tmp_path, name, text)
        untouched = 0
        for chunk in chunk_source(parsed):
            context = ChunkContext(parsed.title, chunk.heading_path, chunk.language)
            for atom in OfflineDistiller().distill(chunk.text, context):
                pos = chunk.section_offset + chunk.char_start + atom.quote_start
                end = pos + len(atom.quote)
                assert normalised[pos:end] == atom.quote
                if normalised[pos:end] == text[pos:end]:
                    untouched += 1
        assert untouched >= 5


@pytest.mark.parametrize(
    ("raw", "claim"),
    [
        ("The :doc:`request context </reqcontext>` is pushed.", "The request context is pushed."),
        (
            ":data:`.current_app` and :meth:`~flask.Flask.wsgi_app` are used.",
            "current_app and flask.Flask.wsgi_app() are used.",
        ),
        (
            "See `Quart <https://quart.example.org>`_ and `Jinja`_ for more.",
            "See Quart and Jinja for more.",
        ),
        ("It would look like this::", "It would look like this:"),
        ("***Important:*** You should **not** print.", "Important: You should not print."),
        (
            "**Note 1**: If the variable is set, help is off.",
            "Note 1: If the variable is set, help is off.",
        ),
        (
            "Провайдер описан в [руководстве\nпо JSON](https://example.org/json).",
            "Провайдер описан в руководстве по JSON.",
        ),
        # Sphinx roles inside a sentence: the text Sphinx renders for them
        (
            ':func:`_orm.relationship` recognizes that the ``account_id`` column is "remote".',
            'relationship() recognizes that the account_id column is "remote".',
        ),
        (
            "the id column is applied as the :paramref:`_orm.relationship.remote_side` of the"
            " parent :func:`_orm.relationship`",
            "the id column is applied as the relationship.remote_side of the parent relationship()",
        ),
        (
            "Функция :func:`~sqlalchemy.orm.aliased` создаёт псевдоним сущности.",
            "Функция sqlalchemy.orm.aliased() создаёт псевдоним сущности.",
        ),
    ],
)
def test_clean_claim_reads_rst_and_markdown_markup(raw: str, claim: str) -> None:
    assert clean_claim(raw) == claim


@pytest.mark.parametrize(
    "kept",
    [
        "Use C++ a::b scopes.",
        "Le ratio est 2:1 dans ce cas.",
        "Das Verhältnis ist 3:2 hier.",
        "Время: 10:30 по Москве.",
        "The key is :attr and `x` is a name.",  # a colon word and inline code: no Sphinx role
    ],
)
def test_clean_claim_keeps_colons_that_are_no_markup_or_role(kept: str) -> None:
    assert clean_claim(kept) == kept.replace("`", "")  # inline code loses only its backticks


def test_a_path_or_url_in_a_line_is_no_breadcrumb() -> None:
    text = (
        "The application reads a separate config file whose path the variable\n"
        "``APP_SETTINGS=/path/to/config.py`` names when it starts. However there are other\n"
        "ways, see <https://example.org/a/b/c/d> for them.\n"
    )
    found = claims_of(text)
    assert any(c.endswith("names when it starts.") for c in found)
    crumbs = "Home / Docs / Guide / Install"
    assert claims_of(crumbs) == []
    link = "Reach the reporters on Twitter at http://twitter.com/a/b and http://twitter.com/c/d"
    assert claims_of(link) == []
    autolink = (
        "Because of that Flask configures the `Jinja\n"
        "<https://palletsprojects.com/p/jinja/>`_ template engine for you automatically.\n"
    )
    found = claims_of(autolink)
    assert found == [
        "Because of that Flask configures the Jinja template engine for you automatically."
    ]


def test_a_code_blocks_lead_in_stays_with_it_across_chunks() -> None:
    prose = "Flask keeps the application object explicit for good reasons. " * 14
    text = f"{prose.strip()}\n\nSo how do you register that blueprint? Like this::\n\n"
    text += "    app.register_blueprint(simple_page)\n" * 12
    spans = chunk_spans(text, max_chars=900, overlap=100)
    lead = text.index("So how")
    code = text.index("    app.register")
    holder = next(s for s in spans if s[0] <= code < s[1])
    assert holder[0] <= lead  # the lead-in sentence opens the code's chunk


def test_ingested_readme_cites_the_files_own_text(service: MemoryService, tmp_path: Path) -> None:
    path = tmp_path / "files" / "cobra" / "README.md"
    path.parent.mkdir(parents=True)
    path.write_text(README, encoding="utf-8")
    result = service.ingest(IngestRequest(source=str(path)))
    assert result.atoms_new > 0 and result.title == "Cobra"
    with service.db.connection() as conn:
        rows = conn.execute(
            "SELECT a.claim, c.locator, c.quoted_text FROM pm_citation c "
            "JOIN pm_atom a ON a.id = c.atom_id ORDER BY c.id"
        ).fetchall()
    assert rows
    normalised = normalise(README, "markdown")[0]
    for row in rows:
        claim, locator, quote = str(row["claim"]), str(row["locator"]), str(row["quoted_text"])
        assert "<" not in claim and "](" not in claim and "badge" not in claim
        position = int(locator.rsplit("char ", 1)[1])
        assert normalised[position : position + len(quote)] == quote


API_RST = """API
===

.. currentmodule:: flask

Application Globals
-------------------

.. data:: g

    A proxy to a namespace object used to store data during a single request.

.. function:: url_for(endpoint, **values)

    Generate a URL to the given endpoint with the given values.

Ordinary prose follows the section and stays in it when no directive is open.
"""


def test_object_descriptions_name_their_object_in_the_heading_path(tmp_path: Path) -> None:
    parsed = parse_file(tmp_path, "docs/api.rst", API_RST)
    paths = {s.heading_path[-1]: s.heading_path for s in parsed.sections}
    assert paths["flask.g"] == ("API", "Application Globals", "flask.g")
    assert paths["flask.url_for"] == ("API", "Application Globals", "flask.url_for")
    g_section = next(s for s in parsed.sections if s.heading_path[-1] == "flask.g")
    assert "A proxy to a namespace object" in g_section.text
    assert "data::" not in g_section.text and "currentmodule" not in parsed.sections[0].text


def test_a_note_directive_is_no_object_heading(tmp_path: Path) -> None:
    text = "Guide\n=====\n\n.. note::\n\n    Notes are ordinary text of the section they are in.\n"
    parsed = parse_file(tmp_path, "docs/guide.rst", text)
    assert [s.heading_path for s in parsed.sections] == [("Guide",)]


POINTERS = [
    "Read about it in the Shell Completions page.",
    "Please refer to Bash Completions for details.",
    "For complete details on using the Cobra library, please read The Cobra User Guide.",
    "Head over to the official Jinja Template Documentation for more information.",
    "Обратитесь к документации библиотеки за подробностями.",
    "Читайте об этом в руководстве пользователя.",
    "Lesen Sie dazu die Dokumentation der Bibliothek.",
]
NOT_POINTERS = [
    "Read the file into memory before parsing it, or the parser fails on large inputs.",
    "See how the parser returns a tree of nodes that the server walks in order.",
    "Смотрите, как сервер отвечает на каждый запрос за десять миллисекунд.",
    "Siehe, der Server antwortet in zehn Millisekunden auf jede einzelne Anfrage.",
    "For details on the protocol the server keeps a log of every request it answers.",
    "Visit the old museum in Paris.",
    "Visit the museum's information desk for tickets.",
]


@pytest.mark.parametrize("sentence", POINTERS)
def test_a_sentence_that_only_points_elsewhere_is_dropped(sentence: str) -> None:
    atoms, dropped = OfflineDistiller().distill_counted(sentence, ChunkContext())
    assert atoms == [] and dropped == {"pointer": 1}


@pytest.mark.parametrize("sentence", NOT_POINTERS)
def test_a_sentence_with_a_reading_verb_that_says_something_is_kept(sentence: str) -> None:
    atoms, dropped = OfflineDistiller().distill_counted(sentence, ChunkContext())
    assert [a.quote for a in atoms] == [sentence] and "pointer" not in dropped


def test_rst_titles_are_no_atoms(tmp_path: Path) -> None:
    found = claims(parse_file(tmp_path, "docs/design.rst", RST))
    for title in ("Design Decisions in Flask", "The Explicit Application Object", "Nested Details"):
        assert not any(c.startswith(title) for c in found), title


def test_rst_backtick_underlines_and_auto_numbered_lists(tmp_path: Path) -> None:
    text = (
        "Error Handlers\n``````````````\n\n"
        "The above examples would not be an improvement on the default exceptions.\n\n"
        "When a request is handled, these steps run:\n\n"
        "#. The URL is matched against every rule the application registered.\n"
        "#. The view function the rule names is called with its arguments.\n"
    )
    parsed = parse_file(tmp_path, "docs/errors.rst", text)
    assert [s.heading_path for s in parsed.sections] == [("Error Handlers",)]
    found = claims(parsed)
    assert "The above examples would not be an improvement on the default exceptions." in found
    assert (
        "When a request is handled, these steps run: The URL is matched against every rule the "
        "application registered." in found
    )
    assert not any("#." in c or "``" in c for c in found)


def test_a_wrapped_line_that_starts_like_a_menu_goes_on_with_its_sentence() -> None:
    text = (
        "The name of the session cookie. It can be changed in case you already have a\n"
        "cookie with the same name.\n\n"
        "Prices of houses in the city grew by five percent last year.\n"
        "Share this\n"
    )
    found = claims_of(text)
    assert any(c.endswith("in case you already have a cookie with the same name.") for c in found)
    assert not any("Share" in c for c in found)  # after a finished sentence: still a menu line


@pytest.mark.parametrize("marker", ["[!IMPORTANT]", "[!IMPORTANT]\\", "[!note] \\"])
def test_a_github_alert_marker_with_a_hard_break_is_blanked(marker: str) -> None:
    """`> [!IMPORTANT]\\` (a markdown hard line break after the marker) is the same callout: its
    marker never reaches a claim; the sentence under it stays, at its place."""
    text = f"# Gson\n\n> {marker}\n> Gson's main focus is on Java.\n"
    out = normalise(text, "markdown")[0]
    assert len(out) == len(text)
    assert "[!" not in out and "\\" not in out
    assert out.index("Gson's main focus") == text.index("Gson's main focus")


def test_an_alert_word_in_running_text_is_kept() -> None:
    text = "# Notes\n\nThe [!IMPORTANT]\\ marker opens a GitHub alert.\n"
    assert "[!IMPORTANT]" in normalise(text, "markdown")[0]
