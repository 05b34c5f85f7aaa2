"""Runtime SQL lives in `.sql` files beside the code that runs it, in named blocks.

A file holds blocks like procrastinate's ``sql/queries.sql``::

    -- name: insert_atom
    -- What it does, in one or more comment lines.
    INSERT INTO pm_atom ...

`load_queries` reads such a file once, at import, into a frozen dataclass whose fields name the
blocks, so a call site reads ``REPO_SQL.insert_atom`` and mypy knows every name. A field without
a block, a block without a field, or a repeated name fails at import: a typo cannot wait for the
one call that uses it. Statements that need dynamic identifiers are written with ``{}``
placeholders and composed through `psycopg.sql` (`compose`), never by string formatting.
"""

from __future__ import annotations

import dataclasses
import re
from importlib import resources
from typing import Any, LiteralString, TypeVar, cast

from psycopg import sql

T = TypeVar("T")

_NAME = re.compile(r"^--\s*name:\s*([a-z_][a-z0-9_]*)\s*$")


def parse_blocks(text: str, *, origin: str = "<sql>") -> dict[str, str]:
    """The named blocks of a `.sql` text: name -> statement (leading comments dropped)."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        match = _NAME.match(line)
        if match:
            name = match[1]
            if name in blocks:
                raise ValueError(f"{origin}:{lineno}: block {name!r} is defined twice")
            current = blocks[name] = []
            continue
        if current is None:
            if line.strip() and not line.lstrip().startswith("--"):
                raise ValueError(f"{origin}:{lineno}: SQL before the first '-- name:' line")
            continue
        if not current and line.lstrip().startswith("--"):
            continue  # the block's description
        current.append(line)
    out = {}
    for name, lines in blocks.items():
        body = "\n".join(lines).strip()
        if not body:
            raise ValueError(f"{origin}: block {name!r} is empty")
        out[name] = body
    return out


def load_queries(cls: type[T], package: str, filename: str) -> T:
    """Read `filename` of `package` into an instance of the dataclass `cls`, one field a block."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} must be a dataclass")
    origin = f"{package.replace('.', '/')}/{filename}"
    blocks = parse_blocks(
        resources.files(package).joinpath(filename).read_text("utf-8"), origin=origin
    )
    fields = {f.name for f in dataclasses.fields(cls)}
    missing, unused = fields - blocks.keys(), blocks.keys() - fields
    if missing or unused:
        raise ValueError(
            f"{origin} does not match {cls.__name__}: "
            f"no block for {sorted(missing)}; no field for {sorted(unused)}"
        )
    values: dict[str, Any] = {name: cast(LiteralString, blocks[name]) for name in fields}
    return cls(**values)


def compose(statement: LiteralString, **identifiers: str) -> sql.Composed:
    """`statement` with its ``{name}`` placeholders filled by quoted identifiers."""
    return sql.SQL(statement).format(**{k: sql.Identifier(v) for k, v in identifiers.items()})
