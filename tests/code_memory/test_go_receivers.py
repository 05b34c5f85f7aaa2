"""Go definitions real repositories named wrong (issue 29, urfave/cli): methods of a generic
receiver are named after the type, not its last type parameter, and every file's ``init()``
keeps a name of its own."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from tests.code_fixtures import call_edges, code_memory, indexed_files, resolved

GENERIC = {
    "go.mod": "module example.com/cli\n",
    "cli/args.go": """
        package cli

        // ArgumentBase держит значение аргумента / holds an argument's value.
        type ArgumentBase[T any, C any, VC any] struct {
            Name  string
            value *T
        }

        // Get returns the value.
        func (a *ArgumentBase[T, C, VC]) Get() T {
            return *a.value
        }

        func (a *ArgumentBase[T, C, VC]) Usage() string {
            a.Get()
            return a.Name
        }

        type ArgumentsBase[T any, C any, VC any] struct{}

        func (a *ArgumentsBase[T, C, VC]) Get() []T {
            return nil
        }

        func init() {
            register()
        }

        func register() {}
        """,
    "cli/other.go": """
        package cli

        func init() {
            setup()
        }

        func setup() {}
        """,
}


def test_generic_receiver_methods_are_named_after_their_type(tmp_path: Path) -> None:
    files = indexed_files(tmp_path, GENERIC)
    names = {s.qualified_name for f in files for s in f.symbols}
    assert {"cli.ArgumentBase.Get", "cli.ArgumentBase.Usage", "cli.ArgumentsBase.Get"} <= names
    assert not any(".VC." in n for n in names)
    deps = resolved(tmp_path, {})
    assert ("cli.ArgumentBase.Usage", "cli.ArgumentBase.Get") in call_edges(deps)


FIELDS = {
    "go.mod": "module example.com/lru\n",
    "internal/list.go": """
        package internal

        type LruList[K comparable, V any] struct{ len int }

        func (l *LruList[K, V]) Back() int { return l.len }
        """,
    "simplelru/lru.go": """
        package simplelru

        import "example.com/lru/internal"

        type LRU[K comparable, V any] struct {
            evictList *internal.LruList[K, V]
        }

        // Cap возвращает ёмкость / returns the capacity.
        func (c *LRU[K, V]) Cap() int { return c.evictList.Back() }
        """,
    "cache.go": """
        package lru

        import "example.com/lru/simplelru"

        type Cache[K comparable, V any] struct {
            lru *simplelru.LRU[K, V]
        }

        func (c *Cache[K, V]) Cap() int {
            return c.lru.Cap()
        }
        """,
}


def test_calls_through_typed_fields_reach_the_field_type(tmp_path: Path) -> None:
    calls = call_edges(resolved(tmp_path, FIELDS))
    assert ("lru.Cache.Cap", "simplelru.LRU.Cap") in calls  # another package's type
    assert ("simplelru.LRU.Cap", "internal.LruList.Back") in calls
    assert ("lru.Cache.Cap", "lru.Cache.Cap") not in calls  # not the enclosing type


def test_each_file_init_keeps_its_own_name_and_edges(tmp_path: Path) -> None:
    deps = resolved(tmp_path, GENERIC)
    calls = call_edges(deps)
    assert ("cli.init@args.go", "cli.register") in calls
    assert ("cli.init@other.go", "cli.setup") in calls
    assert ("cli.init@args.go", "cli.setup") not in calls


TWO_INITS = """
    package cli

    func init() {
        register()
    }

    func init() {
        setup()
    }

    func register() {}

    func setup() {}
    """


def test_two_inits_of_one_file_keep_their_names_and_edges_across_edits(tmp_path: Path) -> None:
    """Two ``init()`` in one file are told apart by their order, not their line: lines added
    above them, or the file renamed, leave each edge on its own ``init``."""
    first = call_edges(resolved(tmp_path / "a", {"go.mod": "module x\n", "cli/a.go": TWO_INITS}))
    assert first == {("cli.init@a.go", "cli.register"), ("cli.init@a.go#2", "cli.setup")}
    edited = TWO_INITS.replace("package cli\n", "package cli\n\n// Пакет / the package.\n\n")
    again = call_edges(resolved(tmp_path / "b", {"go.mod": "module x\n", "cli/a.go": edited}))
    assert again == first
    renamed = call_edges(resolved(tmp_path / "c", {"go.mod": "module x\n", "cli/z.go": edited}))
    assert renamed == {("cli.init@z.go", "cli.register"), ("cli.init@z.go#2", "cli.setup")}


def _stored_calls(code: Any) -> set[tuple[int, str, str]]:
    sql = (
        "SELECT s.id, s.qualified_name AS src, t.qualified_name AS dst "
        "FROM pm_code_dependency d JOIN pm_code_symbol s ON s.id = d.src_symbol_id "
        "JOIN pm_code_symbol t ON t.id = d.dst_symbol_id WHERE d.kind = 'calls'"
    )
    with code.db.connection() as conn:
        return {(r["id"], r["src"], r["dst"]) for r in conn.execute(sql.encode()).fetchall()}


def test_reindex_after_an_edit_and_a_rename_keeps_each_init_edge(
    database_url: str, tmp_path: Path
) -> None:
    """Stored and re-indexed incrementally: lines added above two ``init()`` keep their symbols
    (same ids) and edges; renaming another file's ``init`` moves nothing of this file's."""
    root = tmp_path / "src" / "cli"
    indexed_files(
        root, {"go.mod": "module x\n", "cli/a.go": TWO_INITS, "cli/b.go": GENERIC["cli/other.go"]}
    )
    with code_memory(database_url, tmp_path) as code:
        code.store_code(str(root))
        before = _stored_calls(code)
        assert {(s, d) for _, s, d in before} == {
            ("cli.init@a.go", "cli.register"),
            ("cli.init@a.go#2", "cli.setup"),
            ("cli.init@b.go", "cli.setup"),
        }
        edited = TWO_INITS.replace("package cli\n", "package cli\n\n// Пакет / the package.\n\n")
        (root / "cli" / "a.go").write_text(textwrap.dedent(edited).lstrip("\n"))
        (root / "cli" / "b.go").rename(root / "cli" / "c.go")
        code.store_code(str(root))
        after = _stored_calls(code)
        kept = {e for e in before if e[1].startswith("cli.init@a.go")}
        assert kept <= after  # same symbol ids, same edges
        assert {(s, d) for _, s, d in after - kept} == {("cli.init@c.go", "cli.setup")}


def test_a_hand_written_string_go_file_is_indexed(tmp_path: Path) -> None:
    """``flag_string.go`` (urfave/cli: ``Command.String``) is source; stringer's output is
    known by its "Code generated ... DO NOT EDIT." header, not by the ``_string.go`` name."""
    files = indexed_files(
        tmp_path,
        {
            "go.mod": "module example.com/cli\n",
            "cli/flag_string.go": """
                package cli

                type Command struct{}

                // String looks a flag up / ищет флаг.
                func (cmd *Command) String(name string) string { return name }
                """,
            "cli/kind_string.go": """
                // Code generated by "stringer -type=Kind"; DO NOT EDIT.

                package cli

                func (i Kind) String() string { return "" }
                """,
        },
    )
    assert [f.path for f in files] == ["cli/flag_string.go"]
    assert "cli.Command.String" in {s.qualified_name for f in files for s in f.symbols}


def test_a_generic_function_called_with_a_type_argument(tmp_path: Path) -> None:
    """``arg[float32](name, c)``: tree-sitter reads an index expression; with a type inside
    the brackets it is the generic function ``arg``; ``fs[0](x)`` stays an element's call."""
    deps = resolved(
        tmp_path,
        {
            "go.mod": "module example.com/cli\n",
            "cli/args.go": """
                    package cli

                    func arg[T any](name string, n int) T {
                        var zero T
                        return zero
                    }

                    func fs(x int) {}

                    func Float32Arg(name string) float32 {
                        handlers := []func(int){fs}
                        handlers[0](1)
                        _ = arg[[]uint](name, 2)
                        return arg[float32](name, 1)
                    }
                    """,
        },
    )
    lines = {d.line for d in deps if d.src == "cli.Float32Arg" and d.dst == "cli.arg"}
    assert lines == {13, 14}  # ``arg[[]uint](..)`` and ``arg[float32](..)``
    assert ("cli.Float32Arg", "cli.fs") not in call_edges(deps)


RETURNED = {
    "go.mod": "module example.com/lru\n",
    "internal/list.go": """
        package internal

        // Entry — элемент списка / a list element.
        type Entry[K comparable] struct{ prev *Entry[K] }

        func (e *Entry[K]) PrevEntry() *Entry[K] { return e.prev }

        type LruList[K comparable] struct{ root Entry[K] }

        func (l *LruList[K]) Back() *Entry[K] { return l.root.prev }
        """,
    "cache.go": """
        package lru

        import "example.com/lru/internal"

        type Cache[K comparable] struct{ evictList *internal.LruList[K] }

        func (c *Cache[K]) Root() *Cache[K] { return c }

        func (c *Cache[K]) Oldest() int {
            n := 0
            for ent := c.evictList.Back(); ent != nil; ent = ent.PrevEntry() {
                n++
            }
            return n + c.Root().Size()
        }

        func (c *Cache[K]) Size() int { return 0 }
        """,
}


def test_calls_on_what_a_method_returned(tmp_path: Path) -> None:
    """``ent := c.evictList.Back(); ent.PrevEntry()`` and ``c.Root().Size()``: typed by the
    declared result of the method that made the value."""
    calls = call_edges(resolved(tmp_path, RETURNED))
    assert ("lru.Cache.Oldest", "internal.LruList.Back") in calls
    assert ("lru.Cache.Oldest", "internal.Entry.PrevEntry") in calls
    assert ("lru.Cache.Oldest", "lru.Cache.Root") in calls
    assert ("lru.Cache.Oldest", "lru.Cache.Size") in calls
