"""Seed 13131's Sphinx-page junk (issue 15): a sentence that only says where something is ("See
core-signals-list for a list of all built-in signals.", "Note the limitations described in
signals-sending ...", "Список ... см. в разделе X.") is a pointer, and a code block whose first
line says nothing ("incoming", "<dependency>", "├── cmd") is claimed by the lines up to one
that does, under its section heading. A bare `:ref:`label`` into the same document reads as
the title of the section after its target, as Sphinx renders it.
Every rule is tested firing and not firing, en and ru."""

from __future__ import annotations

from pathlib import Path

import pytest

from pegas_memory.distill.code_claim import code_claim, says_nothing, telling_line
from pegas_memory.distill.types import DraftAtom
from pegas_memory.distill.xrefs import labels_of, resolve_labels
from pegas_memory.ingest.markup import rst_labels
from tests.conftest import files_memory, ingest_text
from tests.parsed_documents import distil_document, parse_file

# --- sentences that only say where something is ---------------------------------------------------


SIGNALS = """Signals
=======

Signals notify subscribers when something happens in the core framework. See
:ref:`core-signals-list` for a list of all built-in signals.

Context Signals
---------------

Signals are sent synchronously by the thread that handles the request. Note the limitations
described in :ref:`signals-sending` and the :data:`~flask.request_tearing_down` signal.

Deprecated Signals
------------------

The old signal is deprecated in version 2.3 and is removed in 3.0; see :ref:`signals-sending`.
"""


def test_sphinx_pointers_are_dropped_and_counted_and_a_statement_is_kept(tmp_path: Path) -> None:
    atoms, dropped, _ = distil_document(parse_file(tmp_path, "signals.rst", SIGNALS))
    claims = [a.claim for a in atoms]
    assert not any("for a list of all built-in signals" in c for c in claims), claims
    assert not any(c.startswith("Note the limitations") for c in claims), claims
    assert dropped.get("pointer") == 2, dropped
    assert any("is deprecated in version 2.3" in c for c in claims), claims
    assert any(c.startswith("Signals are sent synchronously") for c in claims), claims


SIGNALS_RU = """Сигналы
=======

Сигналы оповещают подписчиков о событиях внутри фреймворка. Список всех встроенных сигналов
см. в разделе Core Signals.

Отправка
--------

Сигналы отправляются синхронно тем потоком, который обрабатывает запрос. Старый сигнал
устарел в версии 2.3, см. раздел Core Signals.
"""


def test_russian_pointer_dropped_and_a_statement_kept(tmp_path: Path) -> None:
    atoms, dropped, _ = distil_document(parse_file(tmp_path, "signals-ru.md", SIGNALS_RU))
    claims = [a.claim for a in atoms]
    assert not any(c.startswith("Список всех встроенных сигналов") for c in claims), claims
    assert dropped.get("pointer") == 1, dropped
    assert any("устарел в версии 2.3" in c for c in claims), claims


# --- code claims that say something -------------------------------------------------------------

DIAGRAM = """Sessions
========

Using Thread-Local Scope with Web Applications
----------------------------------------------

The sequence diagram below illustrates this flow:

.. sourcecode:: text

    incoming
    web request    ->   web request     ->   # The registry is *optionally*
                        starts               # called upon explicitly

Using Custom Created Scopes
---------------------------

A scope keeps one session per request, so the request ends with it closed::

    templates = []
    templates.append(template)
"""


def test_a_code_block_whose_first_line_is_a_lone_word_is_claimed_under_its_heading(
    tmp_path: Path,
) -> None:
    atoms, _, _ = distil_document(parse_file(tmp_path, "contextual.rst", DIAGRAM))
    codes = [a.claim for a in atoms if a.type == "code"]
    assert (
        'Code under "Using Thread-Local Scope with Web Applications": incoming web request ->'
        " web request -> # The registry is *optionally*"
    ) in codes, codes
    assert "Code: incoming" not in codes
    # a first line with code in it ("x = []") reads: the claim stays as it was
    assert "Code: templates = []" in codes, codes


@pytest.mark.parametrize(
    ("code", "line", "placed"),
    [
        ("incoming\nweb request -> starts\n", "incoming web request -> starts", True),
        (
            "<dependency>\n  <groupId>com.google.code.gson</groupId>\n",
            "<dependency> <groupId>com.google.code.gson</groupId>",
            True,
        ),
        (
            "dependencies {\n  implementation 'gson:2.14'\n}\n",
            "dependencies { implementation 'gson:2.14'",
            True,
        ),
        ("├── cmd\n│   ├── root.go\n", "├── cmd │ ├── root.go", True),
        ("#\n# the registry is created here\n", "# # the registry is created here", True),
        # lines that say something, as they are
        ("templates = []\n", "templates = []", False),
        ("mvn clean verify\n", "mvn clean verify", False),
        ("$ cobra-cli help\n", "$ cobra-cli help", False),
        ("f()\n", "f()", False),
    ],
)
def test_telling_line(code: str, line: str, placed: bool) -> None:
    assert telling_line(code) == (line, placed)


def test_code_claim_in_russian_and_with_names() -> None:
    assert (
        code_claim("Код", "определяет", [], "incoming\nweb request -> starts", "Схема", "ru")
        == "Код в разделе «Схема»: incoming web request -> starts"
    )
    assert code_claim("Code", "defines", ["main"], "incoming\n", "Example", "en") == (
        "Code defines main"
    )
    assert code_claim("Code (json)", "defines", [], "{\n", "Parsing `JSON` fails", "en") == (
        'Code (json) under "Parsing JSON fails": {'
    )
    # no heading to say where: the lines as they are
    assert code_claim("Code", "defines", [], "incoming\nweb request -> starts", "", "en") == (
        "Code: incoming web request -> starts"
    )


OUTPUT = """# Hooks

Run it:

```go
rootCmd.Execute()
```

Output:
```
Inside rootCmd PersistentPreRun with args: []
```
"""


def test_a_block_of_one_lone_word_is_no_atom(tmp_path: Path) -> None:
    assert says_nothing("Output:\n") and says_nothing("  {\n\n")
    assert not says_nothing("templates = []\n") and not says_nothing("incoming\nweb -> x\n")
    atoms, _, _ = distil_document(parse_file(tmp_path, "hooks.md", OUTPUT))
    codes = [a.claim for a in atoms if a.type == "code"]
    assert not any(c.endswith("Output:") for c in codes), codes
    assert "Code (go): rootCmd.Execute()" in codes, codes


# --- a bare :ref: read as the title of its section ---------------------------------------------

CONTEXTUAL = """.. _unitofwork_contextual:

Contextual Sessions
===================

Please read :ref:`unitofwork_contextual_threadlocal` and :ref:`Session_Lifespan` below before
you scope a session, and :ref:`session_faq_whentocreate` for the concept of session scopes.

.. _unitofwork_contextual_threadlocal:

Thread-Local Scope
------------------

A thread-local registry returns the same session object for every call made in one thread.

.. _session_lifespan:
.. _web_scope:

========================
Using Thread-Local Scope
========================

.. _figure_label:

A registry can be scoped to the web request instead of the thread that handles it.
"""


def test_rst_labels_name_the_heading_after_their_target() -> None:
    assert rst_labels(CONTEXTUAL) == {
        "unitofwork_contextual": "Contextual Sessions",
        "unitofwork_contextual_threadlocal": "Thread-Local Scope",
        "session_lifespan": "Using Thread-Local Scope",  # an overline, a target between
        "web_scope": "Using Thread-Local Scope",
    }  # "figure_label" stands before a paragraph: no title
    assert rst_labels("Plain text with no targets.\n") == {}


def test_a_bare_ref_into_the_document_reads_as_its_title_and_others_stay(tmp_path: Path) -> None:
    parsed = parse_file(tmp_path, "contextual.rst", CONTEXTUAL)
    labels = labels_of(parsed.metadata)
    atoms, _, _ = distil_document(parsed)
    claims = [a.claim for a in resolve_labels(atoms, labels)]
    read = next(c for c in claims if c.startswith("Please read"))
    assert read.startswith(
        "Please read Thread-Local Scope and Using Thread-Local Scope below before you scope"
    ), read
    # a label of another document stays: its title is not known here
    assert "session_faq_whentocreate" in read
    # without labels nothing changes, and a titled :ref: keeps its own title
    assert resolve_labels(atoms, ()) == atoms
    quote = "The :ref:`registry <web_scope>` of :ref:`web_scope` keeps a session per request."
    shown = "The registry of web_scope keeps a session per request."
    titled = DraftAtom("fact", shown, shown, 0.8, quote, 0, len(quote), "en")
    [done] = resolve_labels([titled], [("web_scope", "Scope")])
    assert done.claim == done.content == "The registry of Scope keeps a session per request."


def test_ingest_stores_the_resolved_claim(database_url: str, tmp_path: Path) -> None:
    with files_memory(database_url, tmp_path) as service:
        path = tmp_path / "files" / "contextual.rst"
        ingest_text(service, path, CONTEXTUAL)
        with service.db.connection() as conn:
            rows = conn.execute(
                "SELECT a.claim, c.quoted_text AS quote FROM pm_atom a"
                " JOIN pm_citation c ON c.atom_id = a.id"
            ).fetchall()
    read = [r for r in rows if str(r["claim"]).startswith("Please read")]
    assert read and str(read[0]["claim"]).startswith("Please read Thread-Local Scope and"), read
    assert ":ref:`unitofwork_contextual_threadlocal`" in str(read[0]["quote"])  # quote verbatim
