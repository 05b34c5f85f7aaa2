"""What an import statement of Go, Java, Rust, JavaScript or TypeScript imports and binds.

Pure functions of tree-sitter nodes. The walker turns the answer into ``imports`` references
(the edges of the import graph) and the file's import table (local name -> what it names),
which resolution follows (see ``FileIndex.imports``). Python's imports are read by its own
walker (:mod:`code_memory.python`), which makes relative imports absolute.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter as ts

import pegas_memory.code_memory.lang_rust as lang_rust
from pegas_memory.code_memory.syntax import descendants, node_text


@dataclass(frozen=True, slots=True)
class ImportStatement:
    """``targets``: what the statement imports, one ``imports`` edge each; ``bindings``: the
    local names it binds, (alias, target) with ``module#name`` for a JavaScript named import."""

    targets: tuple[str, ...]
    bindings: tuple[tuple[str, str], ...]


def read_import(node: ts.Node, language: str) -> ImportStatement:
    """An ``import_declaration`` (Go, Java), ``use_declaration`` (Rust) or ``import_statement``
    (JavaScript, TypeScript)."""
    targets: list[str] = []
    bindings: list[tuple[str, str]] = []
    if language == "go":
        for spec in descendants(node, "import_spec"):
            target = node_text(spec.child_by_field_name("path")).strip('"`')
            alias = node_text(spec.child_by_field_name("name")) or go_package_name(target)
            targets.append(target)
            bindings.append((alias, target))
    elif language == "java":
        target = node_text(node.named_children[-1]) if node.named_child_count else ""
        if any(c.type == "asterisk" for c in node.named_children):
            target = node_text(next(c for c in node.named_children if c.type != "asterisk")) + ".*"
        targets.append(target)
        bindings.append((target.rsplit(".", 1)[-1], target))
    elif language == "rust":
        for alias, target in lang_rust.use_pairs(node.child_by_field_name("argument"), ""):
            targets.append(target)
            bindings.append((alias, target))
    else:
        source = node_text(node.child_by_field_name("source")).strip("'\"`")
        targets.append(source)
        for spec in descendants(node, "import_specifier"):
            name = node_text(spec.child_by_field_name("name"))
            alias = node_text(spec.child_by_field_name("alias")) or name
            bindings.append((alias, f"{source}#{name}"))
        for clause in descendants(node, "import_clause"):
            for c in clause.named_children:
                if c.type == "identifier":
                    bindings.append((node_text(c), f"{source}#default"))
                elif c.type == "namespace_import" and c.named_child_count:
                    bindings.append((node_text(c.named_children[0]), source))
    return ImportStatement(tuple(targets), tuple(bindings))


def go_package_name(path: str) -> str:
    """The name an import without an alias binds, by the toolchain's convention: the last
    element, without a major-version suffix (``github.com/urfave/cli/v3`` -> ``cli``,
    ``gopkg.in/yaml.v3`` -> ``yaml``)."""
    parts = path.split("/")
    if len(parts) > 1 and re.fullmatch(r"v\d+", parts[-1]):
        parts.pop()
    return re.sub(r"\.v\d+$", "", parts[-1])
