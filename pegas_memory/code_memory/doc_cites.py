"""A repository's documentation ingested with citations of the code it names.

`memory_store_code docs=true` indexes the code, then ingests the repository's README and its
`docs/` (or `doc/`) Markdown and reStructuredText through the ordinary ingest pipeline, and
cites, on each atom distilled from them, the code symbols the text names: backticked names
(`` `flask.Flask.run` ``, `` `Flask` ``, `` `url_for()` ``, reST's double backticks) in the atom's
claim, content or quote, and the calls written in the code blocks of the atom's chunk
(``app.run(debug=True)``). The citation is an ordinary `pm_citation` row with `code_symbol_id`,
so a re-index that removes or renames the symbol marks the atom stale with the reason, exactly
as for `memory_store(cite_code=...)`.

A name is cited only when it picks one symbol of the repository: its exact qualified name, or
the only symbol whose qualified name ends with it (`Flask.run` -> `flask.app.Flask.run`), or, for
a bare name, the only symbol of that name. An ambiguous or unknown name is reported, never
guessed (a guess would make atoms go stale for code they never named). Mention extraction is
pure; `link_document` reads and writes through the code family's SQL.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from pegas_memory.code_memory.queries import Q
from pegas_memory.db.pool import Conn
from pegas_memory.db.repo import add_citation

DOC_SUFFIXES = (".md", ".markdown", ".rst")
DOC_DIRS = ("docs", "doc")
MAX_DOC_FILES = 200
MAX_DOC_BYTES = 1_000_000
MAX_REPORTED = 20

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_BACKTICKED = re.compile(r"(?<!`)``?([^`\n]{1,200}?)``?(?!`)")
_NAME = re.compile(rf"^(?:[:~]?\w+:)?[~.]?({_IDENT}(?:\.{_IDENT})*)(\([^()]*\))?$")
_FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1", re.S | re.M)
_RST_BLOCK = re.compile(r"::[ \t]*\n[ \t]*\n((?:[ \t]+[^\n]*\n|[ \t]*\n)+)")
_CALL = re.compile(rf"(?<![\w.])({_IDENT}(?:\.{_IDENT})*)\s*\(")
_NOT_NAMES = frozenset(
    {"True", "False", "None", "self", "cls", "print", "len", "str", "int", "dict", "list", "set"}
)


@dataclass(frozen=True, slots=True)
class Mention:
    """A name as the documentation writes it (`dotted` or a call), without call parentheses."""

    name: str
    called: bool


class RepoDocsOut(BaseModel):
    """What memory_store_code docs=true did with the repository's documentation."""

    files: list[str] = Field(description="documentation files ingested, relative to the root")
    document_ids: list[int] = Field(description="their documents (memory_ingest's ids)")
    atoms: int = Field(description="atoms distilled from them (new or already known)")
    code_citations: int = Field(description="code citations added to those atoms")
    cited_symbols: list[str] = Field(
        default_factory=list, description="qualified names cited (the first 20)"
    )
    unresolved: list[str] = Field(
        default_factory=list,
        description="names the docs write that pick no single symbol (unknown or ambiguous; the "
        "first 20)",
    )
    warnings: list[str] = Field(default_factory=list)


# --------------------------------------------------------------------------- files
def repo_doc_files(root: Path) -> list[Path]:
    """README.* at the root, then the Markdown and reST under docs/ or doc/, sorted, without
    symlinks, hidden folders or files over `MAX_DOC_BYTES`; at most `MAX_DOC_FILES`."""
    found = [p for p in sorted(root.iterdir()) if p.name.lower().startswith("readme")]
    found = [p for p in found if p.suffix.lower() in (*DOC_SUFFIXES, ".txt", "")]
    for folder in DOC_DIRS:
        base = root / folder
        if base.is_dir() and not base.is_symlink():
            found += sorted(
                p
                for p in base.rglob("*")
                if p.suffix.lower() in DOC_SUFFIXES
                and not any(part.startswith(".") for part in p.relative_to(root).parts)
            )
    out = []
    for path in found:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_DOC_BYTES:
            continue
        out.append(path)
        if len(out) >= MAX_DOC_FILES:
            break
    return out


# --------------------------------------------------------------------------- mentions (pure)
def text_mentions(text: str) -> list[Mention]:
    """Backticked names: `a.b.c`, `f()`, `f(x)`, reST roles such as :func:`a.f` and ``a.f``."""
    out: list[Mention] = []
    for match in _BACKTICKED.finditer(text):
        found = _NAME.match(match.group(1).strip())
        if found and found.group(1) not in _NOT_NAMES:
            out.append(Mention(found.group(1), bool(found.group(2))))
    return _unique(out)


def code_block_mentions(text: str) -> list[Mention]:
    """The calls written in the fenced (Markdown) or literal (reST `::`) code blocks of a text."""
    blocks = [m.group(2) for m in _FENCE.finditer(text)]
    blocks += [m.group(1) for m in _RST_BLOCK.finditer(text)]
    out = [
        Mention(m.group(1), True)
        for block in blocks
        for m in _CALL.finditer(block)
        if m.group(1) not in _NOT_NAMES
    ]
    return _unique(out)


def _unique(items: Iterable[Mention]) -> list[Mention]:
    return list(dict.fromkeys(items))


def _bare(qualified_name: str) -> str:
    """A qualified name without the overload marks (`f#2`, `f@40`)."""
    return qualified_name.partition("#")[0].partition("@")[0]


def pick_symbol(name: str, candidates: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The one symbol `name` names among symbols whose name is its last part (see the module
    doc), or None when it names none or several."""
    exact = [c for c in candidates if _bare(c["qualified_name"]) == name]
    if len(exact) == 1:
        return exact[0]
    if exact:
        return None
    if "." in name:
        ending = [c for c in candidates if _bare(c["qualified_name"]).endswith("." + name)]
    else:
        ending = [c for c in candidates if c["kind"] != "module"]
    return ending[0] if len(ending) == 1 else None


# --------------------------------------------------------------------------- linking
@dataclass
class _Tally:
    atoms: set[int]
    citations: int
    cited: list[str]
    unresolved: list[str]


def link_document(conn: Conn, repo: str, doc_id: int, tally: _Tally) -> None:
    """Cite, on every atom of document version `doc_id`, the symbols of `repo` its text names."""
    rows = conn.execute(Q.document_atoms_text, (doc_id,)).fetchall()
    wanted: dict[int, list[Mention]] = {}
    for r in rows:
        atom_id = int(r["atom_id"])
        tally.atoms.add(atom_id)
        own = " ".join(str(r[k] or "") for k in ("claim", "content", "quoted_text"))
        found = text_mentions(own) + code_block_mentions(str(r["chunk"] or ""))
        wanted.setdefault(atom_id, []).extend(found)
    names = {m.name for ms in wanted.values() for m in ms}
    last_parts = sorted({n.rsplit(".", 1)[-1] for n in names})
    by_last: dict[str, list[dict[str, Any]]] = {}
    for s in conn.execute(Q.symbols_named, (repo, last_parts)).fetchall():
        by_last.setdefault(s["name"], []).append(dict(s))
    chosen = {n: pick_symbol(n, by_last.get(n.rsplit(".", 1)[-1], [])) for n in names}
    for atom_id, mentions in wanted.items():
        for m in _unique(mentions):
            symbol = chosen[m.name]
            if symbol is None:
                if m.name not in tally.unresolved:
                    tally.unresolved.append(m.name)
                continue
            locator = f"{symbol['path']}:{symbol['start_line']}-{symbol['end_line']}"
            quote = m.name + ("()" if m.called else "")
            if add_citation(
                conn, atom_id, code_symbol_id=int(symbol["id"]), locator=locator, quote=quote
            ):
                tally.citations += 1
            if symbol["qualified_name"] not in tally.cited:
                tally.cited.append(symbol["qualified_name"])


def ingest_repo_docs(
    connect: Callable[[], Any],
    repo: str,
    root: Path,
    ingest: Callable[[Path], tuple[int | None, int | None, list[str]]],
    say: Callable[[float, float, str], None],
) -> RepoDocsOut:
    """Ingest each documentation file of `root` (`ingest` returns its document version id, its
    stable document id and warnings) and cite the code it names; `connect()` gives a
    transaction for each document's citations. A file that cannot be ingested is a warning,
    not a failure of the index."""
    files = repo_doc_files(root)
    tally = _Tally(set(), 0, [], [])
    done: list[str] = []
    documents: list[int] = []
    warnings: list[str] = []
    for n, path in enumerate(files):
        rel = path.relative_to(root).as_posix()
        say(n, len(files), f"ingesting docs: {rel} ({n + 1} of {len(files)})")
        doc_id, stable_id, notes = ingest(path)
        warnings += [f"{rel}: {note}" for note in notes]
        if doc_id is None:
            continue
        done.append(rel)
        documents.append(stable_id or doc_id)
        with connect() as conn:
            link_document(conn, repo, doc_id, tally)
    if not files:
        warnings.append(f"no README or {'/'.join(DOC_DIRS)}/*.md|rst under {root}")
    return RepoDocsOut(
        files=done,
        document_ids=documents,
        atoms=len(tally.atoms),
        code_citations=tally.citations,
        cited_symbols=tally.cited[:MAX_REPORTED],
        unresolved=tally.unresolved[:MAX_REPORTED],
        warnings=warnings,
    )
