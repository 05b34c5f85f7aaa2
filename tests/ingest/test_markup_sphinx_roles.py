"""Markup-document junk from the seed 9191 graded sample (issue 15): Sphinx roles read as Sphinx
renders them, a line that is only a cross-reference and a page speaking of itself are pointers,
`.. seealso::` bodies are references only, footnote marks leave the claim (never the quote), and
encyclopedia footers (reference lists, "See also", category links) are no atoms. Every rule is
tested firing and not firing, in en and ru (and de where it applies)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pegas_memory.distill.pointers import is_pointer, is_self_reference
from pegas_memory.distill.xrefs import drop_footnote_marks, is_reference_only, role_text
from pegas_memory.ingest.markup import blank_footers
from tests.both_sides import both_sides
from tests.parsed_documents import distil_document, parse_file

# --- Sphinx roles ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "content", "shown"),
    [
        ("func", "_orm.relationship", "relationship()"),  # private alias prefix, "()" added
        ("func", "sqlalchemy.orm.relationship", "sqlalchemy.orm.relationship()"),  # kept whole
        ("class", ".Foo", "Foo"),  # "." only says where to look
        ("meth", "~flask.Flask.wsgi_app", "flask.Flask.wsgi_app()"),  # "~": the name stays whole
        ("attr", "~.Query.statement", "Query.statement"),
        ("meth", "foo()", "foo()"),  # parentheses not doubled
        ("py:func", "!target", "target()"),  # "!" suppresses the link, not the text
        ("ref", "working example <examples_adjacencylist>", "working example"),  # title wins
        ("meth", "the route decorator <flask.Flask.route>", "the route decorator"),  # no "()"
        ("paramref", "_orm.relationship.remote_side", "relationship.remote_side"),
        ("doc", "/orm/queryguide/index", "queryguide"),
        ("doc", "request context </appcontext>", "request context"),
        ("data", ".current_app", "current_app"),
    ],
)
def test_a_role_reads_as_sphinx_renders_it(role: str, content: str, shown: str) -> None:
    assert role_text(role, content) == shown


@pytest.mark.parametrize(
    ("raw", "holds"),
    both_sides(
        # a line that is only a cross reference is a pointer
        holds=[
            ":ref:`examples_adjacencylist` - working example, updated for SQLAlchemy 2.0",
            ":doc:`/orm/queryguide/index`",
            ":ref:`Пример со списком смежности <examples_adjacencylist>` — рабочий пример",
            ":ref:`beispiel` – das vollständige Beispiel",
        ],
        # a sentence with a cross reference that says something is no pointer
        fails=[
            # a role to an object is the subject of a claim, not a link to elsewhere
            ":func:`_orm.relationship` - configures a relationship between two mapped classes",
            # the reference starts a real sentence
            ":ref:`examples_adjacencylist` explains why the cache must be cleared before every"
            " single import of the module runs.",
            "Функция :ref:`aliased` создаёт псевдоним сущности ORM.",
        ],
    ),
)
def test_a_line_that_is_only_a_cross_reference_is_a_pointer_and_one_that_says_something_is_not(
    raw: str, holds: bool
) -> None:
    assert bool(is_reference_only(raw)) is holds


SPHINX_PAGE = """Adjacency List Relationships
============================

The adjacency list pattern is a common relational pattern whereby a table
contains a foreign key reference to itself.

.. seealso::

    This section details the single-table version of a self-referential
    relationship. For a self-referential relationship that uses a second table
    as an association table, see the section
    :ref:`self_referential_many_to_many`.

.. note::

    The remote side is the column that points at the parent row of the tree.

Above, :func:`_orm.relationship` recognizes that the ``account_id`` column
is on both sides of the join condition.

:ref:`examples_adjacencylist` - working example, updated for SQLAlchemy 2.0

Composite Adjacency Lists
~~~~~~~~~~~~~~~~~~~~~~~~~

This section describes the composite case, which needs the account_id column on both sides.
"""


def test_a_sphinx_page_gives_no_pointer_atoms_and_keeps_its_quotes(tmp_path: Path) -> None:
    parsed = parse_file(tmp_path, "orm/self_referential.rst", SPHINX_PAGE)
    atoms, dropped, texts = distil_document(parsed)
    claims = [a.claim for a in atoms]
    joined = "\n".join(claims)
    # the seealso box is references only; the ref-only line is a pointer, counted
    assert "This section details" not in joined
    assert "self_referential_many_to_many" not in joined
    assert "examples_adjacencylist" not in joined
    assert dropped.get("pointer", 0) >= 1
    # a note is text; a self-reference that also states a fact is kept
    assert any("The remote side is the column" in c for c in claims)
    assert any(c.startswith("This section describes the composite case, which") for c in claims)
    # the role reads as rendered, while the quote is still the file's text at its offsets
    role = next(a for a in atoms if "recognizes" in a.claim)
    assert "relationship() recognizes" in role.claim and "_orm" not in role.claim
    text = texts[atoms.index(role)]
    assert ":func:`_orm.relationship`" in role.quote
    assert text[role.quote_start : role.quote_end] == role.quote


# --- a page speaking of itself --------------------------------------------------------------------

SELF_REFERENCES = [
    "This section details the single-table version of a self-referential relationship.",
    "The following example shows a Node class mapped to a tree.",
    "This page covers the configuration of the session.",
    "In this section, we describe the loader options.",
    "This section only gives a very quick introduction into how Jinja is integrated into Flask.",
    "Этот раздел описывает настройку кэша.",
    "В этом разделе описывается настройка кэша.",
    "В данном разделе мы рассмотрим загрузку связанных объектов.",
    "Dieser Abschnitt beschreibt den Cache.",
    "In diesem Abschnitt wird der Cache beschrieben.",
]

NOT_SELF_REFERENCES = [
    # a clause that states something of the subject itself
    "This section describes the cache, which is cleared on every restart.",
    "The following example shows that process id 6847 is using port 5000.",
    "Этот раздел описывает кэш, который очищается при каждом перезапуске.",
    "Dieser Abschnitt beschreibt den Cache, der bei jedem Neustart geleert wird.",
    # "section" of something else
    "This section of the river is navigable in summer.",
    "The section details were lost in the fire.",
    "В этом разделе реки водится форель.",
    "Этот раздел реки судоходен летом.",
    "Im folgenden Abschnitt des Flusses leben Forellen.",
    # a second sentence says what the first promised
    "This example shows how to use a GlobBuilder. In this example, wildcards never match"
    " path separators.",
]


@pytest.mark.parametrize("sentence", SELF_REFERENCES)
def test_a_page_speaking_of_itself_is_a_pointer(sentence: str) -> None:
    assert is_self_reference(sentence)
    assert is_pointer(sentence)


@pytest.mark.parametrize("sentence", NOT_SELF_REFERENCES)
def test_a_sentence_about_its_subject_is_no_self_reference(sentence: str) -> None:
    assert not is_self_reference(sentence)
    assert not is_pointer(sentence)


# --- footnote marks -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "claim"),
    [
        ("Общая площадь — 312,31 км²[2].", "Общая площадь — 312,31 км²."),
        (
            "После нескольких переносов[67], игра вышла на Xbox 360[68].",
            "После нескольких переносов, игра вышла на Xbox 360.",
        ),
        ("власти[2][3].", "власти."),
        ("It was tested in mice[3] and rats[4].", "It was tested in mice and rats."),
        ("Die Stadt hat 5000 Einwohner[1].", "Die Stadt hat 5000 Einwohner."),
        ("the session and g [#]_ objects", "the session and g objects"),
    ],
)
def test_a_footnote_mark_leaves_the_claim(raw: str, claim: str) -> None:
    assert drop_footnote_marks(raw) == claim


@pytest.mark.parametrize(
    "kept",
    [
        "The value x_i[2] is the second one.",  # an identifier with an underscore: code
        "Use `args[1]` for the name.",  # inline code: the mark is followed by its backtick
        "The list starts at arr[0].",  # footnotes count from 1
        "As shown in [1], the method converges.",  # a citation in running text, not glued
        "Элемент [2] списка пуст.",
    ],
)
def test_brackets_that_are_no_footnote_mark_are_kept(kept: str) -> None:
    assert drop_footnote_marks(kept) == kept


WIKI = """# Пышлицкое

Пышлицкое — сельское поселение в Шатурском районе Московской области.

Общая площадь — 312,31 км²[2]. Население в 2010 году составляло 5000 человек[3][4].

Категория:Сельские поселения Московской области Категория:Шатурский район

Примечания

↑ Закон Московской области № 123/2004-ОЗ «О статусе и границах». — 2004.

См. также

Список населённых пунктов Шатурского района

# Другое поселение

Другое поселение расположено на берегу реки Поля.
"""


def test_wikipedia_furniture_is_no_atom_and_marks_stay_in_the_quote(tmp_path: Path) -> None:
    atoms, dropped, texts = distil_document(parse_file(tmp_path, "wiki.md", WIKI))
    claims = [a.claim for a in atoms]
    joined = "\n".join(claims)
    for furniture in ("Категория", "Закон Московской области", "Список населённых", "["):
        assert furniture not in joined, furniture
    assert dropped.get("pointer", 0) >= 1  # the category line, counted
    area = next(a for a in atoms if "312,31" in a.claim)
    assert area.claim.endswith("312,31 км².")
    assert area.quote.endswith("км²[2].")  # the quote is the file's text, mark and all
    text = texts[atoms.index(area)]
    assert text[area.quote_start : area.quote_end] == area.quote
    # the next article after the footer is read again
    assert any("берегу реки Поля" in c for c in claims)


@pytest.mark.parametrize("title", ["Примечания", "## See also", "External links", "Weblinks"])
def test_a_footer_title_blanks_its_section_to_the_next_heading(title: str) -> None:
    text = f"Body sentence.\n\n{title}\n\n* Other article\n\n## Next\n\nMore text."
    out = blank_footers(text)
    assert len(out) == len(text) and out.count("\n") == text.count("\n")
    assert "Other article" not in out and title.strip("# ") not in out
    assert out.startswith("Body sentence.") and out.endswith("## Next\n\nMore text.")


@pytest.mark.parametrize(
    "text",
    [
        "Смотрите также на карту: она висит в холле.\n\nПримечания к договору хранит нотариус.",
        "See also the notes below, which explain the cache.\n\nReferences are counted twice.",
        "Er schrieb:\nSiehe auch\ndas Kapitel davor.",  # a title inside a paragraph: no footer
    ],
)
def test_footer_words_in_prose_are_no_footer(text: str) -> None:
    assert blank_footers(text) == text
