"""Which files an analyzer indexes again after a change (code_memory.analyzer_slice): the changed
files and what depends on them, read from the previous documents and the Python imports; the
whole project when that is not known or not worth it. Pure logic over in-memory documents."""

from __future__ import annotations

from pegas_memory.code_memory.analyzer_slice import (
    Snapshot,
    dependents,
    depends_on,
    plan_slice,
    python_target,
    splice,
)
from pegas_memory.code_memory.model import FileIndex
from pegas_memory.code_memory.scip import ROLE_DEFINITION, Document, Occurrence
from pegas_memory.code_memory.symbols import extract_file

_PKG = "scip-typescript npm app 0 "


def _doc(path: str, defines: list[str], uses: list[str]) -> Document:
    occ = [Occurrence(0, 0, 0, 1, _PKG + s, ROLE_DEFINITION) for s in defines]
    occ += [Occurrence(1, 0, 1, 1, _PKG + s, 8) for s in uses]
    return Document(path, "typescript", tuple(occ))


def _ts(path: str) -> FileIndex:
    return extract_file(path, b"export function f() { return 1 }\n")


TS_DOCS = {
    "src/a.ts": _doc("src/a.ts", ["src/`a.ts`/make()."], []),
    "src/b.ts": _doc("src/b.ts", ["src/`b.ts`/measure()."], ["src/`a.ts`/make()."]),
    "src/c.ts": _doc("src/c.ts", ["src/`c.ts`/twice()."], ["src/`b.ts`/measure()."]),
    "lib/d.ts": _doc("lib/d.ts", ["lib/`d.ts`/other()."], []),
    "lib/e.ts": _doc("lib/e.ts", ["lib/`e.ts`/more()."], ["lib/`d.ts`/other()."]),
}
TS_FILES = [_ts(p) for p in sorted(TS_DOCS)] + [_ts("lib/f.ts"), _ts("lib/g.ts")]


def _snapshot(docs: dict[str, Document], files: list[FileIndex]) -> Snapshot:
    return Snapshot("t", "1", "file:///r", {f.path: "h0" for f in files}, {}, docs)


def test_a_file_depends_on_the_files_defining_what_it_names_and_dependents_are_transitive() -> None:
    graph = depends_on(TS_DOCS, TS_FILES, {})
    assert graph["src/b.ts"] == {"src/a.ts"} and graph["src/c.ts"] == {"src/b.ts"}
    assert dependents(graph, {"src/a.ts"}) == {"src/a.ts", "src/b.ts", "src/c.ts"}
    assert dependents(graph, {"lib/e.ts"}) == {"lib/e.ts"}


def test_a_change_is_indexed_again_with_its_dependents_and_nothing_else() -> None:
    snapshot = _snapshot(TS_DOCS, TS_FILES)
    digests = {f.path: "h0" for f in TS_FILES} | {"src/a.ts": "h1"}
    plan = plan_slice(snapshot, TS_FILES, digests, python=False)
    assert plan.paths == {"src/a.ts", "src/b.ts", "src/c.ts"}
    assert plan.changed == {"src/a.ts"}
    unchanged = plan_slice(snapshot, TS_FILES, {f.path: "h0" for f in TS_FILES}, python=False)
    assert unchanged.paths == frozenset() and not unchanged.changed


def test_the_whole_project_is_indexed_without_a_snapshot_past_the_share_or_on_a_new_ts_file() -> (
    None
):
    digests = {f.path: "h0" for f in TS_FILES}
    assert plan_slice(None, TS_FILES, digests, python=False).paths is None
    snapshot = _snapshot(TS_DOCS, TS_FILES)
    # lib/d.ts moves lib/e.ts only: 2 of 7 files. Both lib files and all of src: past half.
    assert plan_slice(snapshot, TS_FILES, digests | {"lib/d.ts": "h1"}, python=False).paths == {
        "lib/d.ts",
        "lib/e.ts",
    }
    busy = digests | {"lib/d.ts": "h1", "src/a.ts": "h1"}
    assert plan_slice(snapshot, TS_FILES, busy, python=False).paths is None
    added = [*TS_FILES, _ts("src/new.ts")]
    assert plan_slice(snapshot, added, digests | {"src/new.ts": "h1"}, python=False).paths is None


def _py(path: str, source: str) -> FileIndex:
    return extract_file(path, source.encode())


def test_a_new_python_module_moves_the_files_that_import_it_by_name() -> None:
    files = [
        _py("pkg/__init__.py", ""),
        _py("pkg/user.py", "from pkg.helpers import f\n\ndef g():\n    return f()\n"),
        *(_py(f"oth/other{n}.py", "def h():\n    return 1\n") for n in range(4)),
    ]
    snapshot = Snapshot(
        "t", "1", "", {f.path: "h0" for f in files}, {f.path: f.module for f in files}, {}
    )
    new = _py("pkg/helpers.py", "def f():\n    return 1\n")
    digests = {f.path: "h0" for f in files} | {new.path: "h1"}
    plan = plan_slice(snapshot, [*files, new], digests, python=True)
    assert plan.paths == {"pkg/helpers.py", "pkg/user.py"} and plan.changed == {"pkg/helpers.py"}
    # The module removed again: its importers move, and its document goes with it.
    after = Snapshot("t", "1", "", digests, {f.path: f.module for f in [*files, new]}, {})
    gone = plan_slice(after, files, digests, python=True)
    assert gone.paths == {"pkg/helpers.py", "pkg/user.py"} and gone.changed == {"pkg/helpers.py"}


def test_scip_python_gets_one_target_and_the_slice_is_spliced_into_the_snapshot() -> None:
    assert python_target({"a/b/c.py"}) == "a/b/c.py"
    assert python_target({"a/b/c.py", "a/b/d/e.py"}) == "a/b"
    assert python_target({"a/x.py", "b/y.py"}) is None
    snapshot = _snapshot(TS_DOCS, TS_FILES)
    fresh = {
        "src/a.ts": _doc("src/a.ts", ["src/`a.ts`/made()."], []),
        "lib/d.ts": TS_DOCS["src/c.ts"],
    }
    out = splice(snapshot, fresh, frozenset({"src/a.ts", "src/b.ts"}))
    assert out["src/a.ts"] is fresh["src/a.ts"]  # taken from the run
    assert "src/b.ts" not in out  # in the slice, but the run wrote no document for it
    assert out["lib/d.ts"] is TS_DOCS["lib/d.ts"]  # outside the slice: kept
