"""The tree-sitter layer of code extraction: languages, grammar loading, parsing, node helpers.

Grammars come from the per-language wheels (tree-sitter-python, -javascript, -typescript, -go,
-rust, -java), which work offline; nothing is downloaded at run time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import tree_sitter as ts

_EXTENSIONS = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
}
LANGUAGES = frozenset(_EXTENSIONS.values())

WS = re.compile(r"\s+")
COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
_COMMENT_MARKS = re.compile(r"^\s*(/\*\*?|\*/|\*|///?|//!)?\s?", re.MULTILINE)


def language_for(path: str | Path) -> str | None:
    """The language name of a source file from its extension, or None when it is not indexed."""
    return _EXTENSIONS.get(Path(path).suffix.lower())


@cache
def _language(name: str) -> ts.Language:
    # Imported lazily: a process that indexes only Python never loads the other grammars.
    if name == "python":
        import tree_sitter_python as grammar

        return ts.Language(grammar.language())
    if name == "javascript":
        import tree_sitter_javascript as grammar_js

        return ts.Language(grammar_js.language())
    if name in ("typescript", "tsx"):
        import tree_sitter_typescript as grammar_ts

        fn = grammar_ts.language_tsx if name == "tsx" else grammar_ts.language_typescript
        return ts.Language(fn())
    if name == "go":
        import tree_sitter_go as grammar_go

        return ts.Language(grammar_go.language())
    if name == "rust":
        import tree_sitter_rust as grammar_rs

        return ts.Language(grammar_rs.language())
    if name == "java":
        import tree_sitter_java as grammar_java

        return ts.Language(grammar_java.language())
    raise ValueError(f"no tree-sitter grammar for {name!r}; known: {sorted(LANGUAGES)}")


def parse(language: str, source: bytes) -> ts.Tree:
    """Parse ``source`` with the grammar of ``language`` (a value of :data:`LANGUAGES`).

    Raises ValueError for a language outside :data:`LANGUAGES`.
    """
    # A Parser is cheap to build and not safe to share between threads: one per call.
    return ts.Parser(_language(language)).parse(source)


def node_text(node: ts.Node | None) -> str:
    """The node's source text ("" for a missing node); invalid UTF-8 is replaced, not raised."""
    text = node.text if node is not None else None  # each .text access copies the bytes
    return text.decode("utf-8", "replace") if text is not None else ""


def node_line(node: ts.Node) -> int:
    """The node's first line, 1-based."""
    return node.start_point[0] + 1


def decl_head(source: bytes, node: ts.Node, body: ts.Node | None, limit: int = 300) -> str:
    """The declaration text before its body, whitespace collapsed: a readable signature."""
    end = body.start_byte if body is not None else node.end_byte
    decl = source[node.start_byte : end].decode("utf-8", "replace")
    if body is None:
        decl = decl.split("\n", 1)[0]
    return WS.sub(" ", decl).strip().rstrip(":{ ").strip()[:limit]


def descendants(node: ts.Node, node_type: str) -> Iterator[ts.Node]:
    """The named nodes of type `node_type` under `node` (itself included), in source order."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == node_type:
            yield n
        stack.extend(reversed(n.named_children))


def arity(params: ts.Node | None) -> int:
    """Parameters of a declaration or arguments of a call (comments are not counted)."""
    if params is None:
        return 0
    return sum(1 for c in params.named_children if c.type not in COMMENTS)


def leading_comment(node: ts.Node) -> str | None:
    """The comments right above a declaration (``//``, ``///``, ``/** */``), markers stripped:
    the C-family grammars' docstring. An ``export``, a Go ``type``/``const`` group or a decorator
    around the declaration is looked past."""
    anchor = node
    while anchor.parent is not None and anchor.parent.type in (
        "export_statement",
        "type_declaration",
        "const_declaration",
        "decorated_definition",
    ):
        anchor = anchor.parent
    lines: list[str] = []
    prev, expected = anchor.prev_named_sibling, anchor.start_point[0]
    while prev is not None and prev.type in COMMENTS and prev.end_point[0] >= expected - 1:
        lines.insert(0, node_text(prev))
        expected = prev.start_point[0]
        prev = prev.prev_named_sibling
    if not lines:
        return None
    text = _COMMENT_MARKS.sub("", "\n".join(lines)).strip()
    return text.removesuffix("*/").strip() or None
