"""Cross-references inside a claim read as a reader of the rendered page reads them (pure).

A Sphinx page writes its links as roles (":func:`_orm.relationship`", ":class:`.Foo`",
":ref:`text <label>`"), a Wikipedia text leaves footnote marks ("312,31 км²[2].") glued to its
words. In the file both belong where they are, so a quote keeps them; in a claim they are noise
the reader never saw ("_orm.relationship recognizes ...", "... Red Dead Revolver[66]."). Only the
claim changes: the quote and its locator stay the file's text.

How a role reads (Sphinx's own rule, `sphinx.roles.XRefRole` and the Python domain's
`process_link`):
- an explicit title wins: ":ref:`working example <examples_adjacencylist>`" -> "working example";
- a leading "!" (no link) and a leading "." (where to look) are not shown;
- a leading "~" shows only the last component on the page (":meth:`~flask.Flask.wsgi_app`" ->
  "wsgi_app()"), where the page around it names the owner. A claim is read alone, without that
  page, so here "~" keeps the qualified name: "flask.Flask.wsgi_app()";
- :func: and :meth: (any domain prefix) add "()" unless it is already there
  (`add_function_parentheses`, on by default);
- a leading component with an underscore ("_orm.", "_sa.") is a private alias a docs build maps
  to the public module (SQLAlchemy's pages render ":func:`_orm.relationship`" as
  "relationship()"): no reader sees it, so it goes;
- :doc: without a title shows the document's title, which the claim cannot know: its last path
  part other than "index" stands in for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pegas_memory.distill.types import DraftAtom

_ROLE = re.compile(r"(?<![\w:]):((?:[a-z][\w.+-]*:)?[a-z][\w.+-]*):`([^`\n]+)`(?!`)")
_TITLED = re.compile(r"^(.+?)\s*<([^<>\n]+)>$", re.DOTALL)
_CALLABLE_ROLES = frozenset(["func", "meth", "cfunc", "cmeth"])
_PRIVATE_PREFIX = re.compile(r"^(?:_[A-Za-z]\w*\.)+(?=[A-Za-z_])")

# A footnote mark ("[2]", "[12][13]") glued to the word or sign before it and followed by a
# space, punctuation or the end: a Wikipedia reference, never the text's own words. "[0]" is
# no footnote (they count from 1); inline code ("`args[1]`") is followed by its backtick, and an
# identifier with an underscore before it ("x_i[2]") is code too.
_FOOTNOTE = re.compile(r"(?<=[^\s\[\]_(=])((?:\[[1-9]\d{0,2}\])+)(?=[\s.,;:!?)»\"”’]|$)")
_CODE_BEFORE = re.compile(r"\w*$")


def role_text(role: str, content: str) -> str:
    """How Sphinx shows the role `role` (":func:" without its colons) with `content`."""
    name = role.rsplit(":", 1)[-1]
    titled = _TITLED.match(content)
    if titled:
        return titled[1]
    text = content.lstrip("!").lstrip(".")
    text = text.lstrip("~").lstrip(".")  # "~": the qualified name stays (module docstring)
    if name == "doc":
        parts = [p for p in text.split("/") if p and p != "index"]
        return parts[-1] if parts else text
    text = _PRIVATE_PREFIX.sub("", text)
    if name in _CALLABLE_ROLES and not text.endswith(")"):
        text += "()"
    return text


def render_roles(text: str) -> str:
    """The text with every Sphinx role replaced by what the rendered page shows."""
    return _ROLE.sub(lambda m: role_text(m[1], m[2]), text)


def _footnote(m: re.Match[str]) -> str:
    before = m.string[: m.start()]
    word = _CODE_BEFORE.search(before)
    return m[0] if word is not None and "_" in word[0] else ""


# rst's own footnote references ("session and g [#]_ objects", "as shown [1]_", "[#note]_").
_RST_FOOTNOTE = re.compile(r"[ \t]?\[(?:#[\w-]*|\d{1,3}|\*)\]_(?!\w)")


def drop_footnote_marks(text: str) -> str:
    """The text without footnote marks glued to its words ("км²[2]." -> "км².") and without
    rst footnote references ("g [#]_ objects" -> "g objects")."""
    return _FOOTNOTE.sub(_footnote, _RST_FOOTNOTE.sub("", text))


def is_reference_only(raw: str) -> bool:
    """Whether a (raw) sentence is nothing but a cross-reference to another page, with at most a
    short gloss after a dash or colon (":ref:`examples_adjacencylist` - working example, updated
    for SQLAlchemy 2.0", ":doc:`/orm/queryguide`"): a seealso entry, a pointer."""
    m = _ROLE.match(raw.strip())
    if m is None or m[1].rsplit(":", 1)[-1] not in ("ref", "doc"):
        return False
    rest = raw.strip()[m.end() :].strip()
    if not rest:
        return True
    gloss = re.match(r"^[-–—:]\s*(.*)$", rest, re.DOTALL)
    return gloss is not None and len(gloss[1].split()) <= 12


def labels_of(metadata: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """A parsed document's rst section labels (`ingest.markup.rst_labels`, kept in its
    metadata as "rst_labels") as the pairs a `ChunkContext` carries."""
    return tuple(sorted(dict(metadata.get("rst_labels") or {}).items()))


def resolve_labels(
    atoms: Sequence[DraftAtom], labels: Sequence[tuple[str, str]]
) -> list[DraftAtom]:
    """The atoms with every bare `:ref:`label`` of their quote that points into this document
    read as Sphinx renders it, the title of the section after the label's target ("Please read
    unitofwork_contextual_threadlocal ..." -> "Please read Thread-Local Scope ..."). A label of
    another document stays as it is: the claim cannot know that title."""
    titles = dict(labels)
    if not titles:
        return list(atoms)
    out: list[DraftAtom] = []
    for atom in atoms:
        claim, content = atom.claim, atom.content
        for m in _ROLE.finditer(atom.quote):
            title = titles.get(m[2].strip().lower())
            if m[1].rsplit(":", 1)[-1] != "ref" or title is None or _TITLED.match(m[2]):
                continue
            shown = re.compile(rf"(?<![\w-]){re.escape(role_text(m[1], m[2]))}(?![\w-])")
            literal = title.replace("\\", "\\\\")  # a replacement template: no group refs
            claim = shown.sub(literal, claim, count=1)
            content = shown.sub(literal, content, count=1)
        changed = claim != atom.claim or content != atom.content
        out.append(replace(atom, claim=claim, content=content) if changed else atom)
    return out
