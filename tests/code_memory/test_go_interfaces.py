"""Go calls through interfaces and the module's own import paths (issue 29, golang-lru and
urfave/cli): a call on an interface-typed field binds to the interface's method, and to its
implementations with a confidence below 1; a package imported by its go.mod path (with a
``/v2`` suffix) is the repository's own."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.code_memory.graph import Dependency, resolve
from pegas_memory.code_memory.repo_files import workspace_roots
from tests.code_fixtures import indexed_files

LRU = {
    "go.mod": "module github.com/ex/lru/v2\n\ngo 1.21\n",
    "simplelru/lru.go": """
        package simplelru

        // LRUCache — кэш / the cache every implementation satisfies.
        type LRUCache[K comparable, V any] interface {
        \tAdd(key K, value V) bool
        \tLen() int
        }

        type LRU[K comparable, V any] struct{ n int }

        func NewLRU[K comparable, V any](size int) (*LRU[K, V], error) {
        \treturn &LRU[K, V]{n: size}, nil
        }

        func (c *LRU[K, V]) Add(key K, value V) bool { c.n++; return true }
        func (c *LRU[K, V]) Len() int                { return c.n }
        """,
    "expirable/lru.go": """
        package expirable

        type LRU[K comparable, V any] struct{ n int }

        func (c *LRU[K, V]) Add(key K, value V) bool { return false }
        func (c *LRU[K, V]) Len() int                { return c.n }
        """,
    "twoq.go": """
        package lru

        import "github.com/ex/lru/v2/simplelru"

        type TwoQueue[K comparable, V any] struct {
        \trecent simplelru.LRUCache[K, V]
        }

        type Loose[K comparable, V any] struct {
        \tany simplelru.LRUCache[K, V]
        }

        func NewTwoQueue[K comparable, V any](size int) (*TwoQueue[K, V], error) {
        \trecent, err := simplelru.NewLRU[K, V](size)
        \tif err != nil {
        \t\treturn nil, err
        \t}
        \treturn &TwoQueue[K, V]{recent: recent}, nil
        }

        func (c *TwoQueue[K, V]) Len() int { return c.recent.Len() }

        func (l *Loose[K, V]) Len() int { return l.any.Len() }

        func Count[K comparable, V any](cache simplelru.LRUCache[K, V]) int {
        \treturn cache.Len()
        }
        """,
    "cmd/main.go": """
        package main

        import "github.com/ex/lru/v2"

        func run(c *lru.TwoQueue[int, int]) int {
        \treturn c.Len()
        }
        """,
}


def _deps(tmp_path: Path) -> list[Dependency]:
    files = indexed_files(tmp_path, LRU)
    return resolve(files, crates=workspace_roots(tmp_path, [f.path for f in files]))


def _edges(deps: list[Dependency], src: str) -> dict[str, tuple[str, float]]:
    return {d.dst: (d.kind, d.confidence) for d in deps if d.src == src and d.dst}


def test_a_call_through_an_interface_binds_to_its_method_and_implementations(
    tmp_path: Path,
) -> None:
    deps = _deps(tmp_path)
    # The field is filled by simplelru.NewLRU, whose result is *LRU: that type's Len runs.
    assert _edges(deps, "lru.TwoQueue.Len") == {
        "simplelru.LRUCache.Len": ("calls", 1.0),
        "simplelru.LRU.Len": ("calls", 0.5),
    }
    # Nothing says what fills the field: both implementations are candidates, not calls.
    assert _edges(deps, "lru.Loose.Len") == {
        "simplelru.LRUCache.Len": ("calls", 1.0),
        "simplelru.LRU.Len": ("may_call", 0.333),
        "expirable.LRU.Len": ("may_call", 0.333),
    }
    assert _edges(deps, "lru.Count")["simplelru.LRUCache.Len"] == ("calls", 1.0)


def test_an_import_by_the_go_mod_path_is_the_repository_package(tmp_path: Path) -> None:
    deps = _deps(tmp_path)
    # ``github.com/ex/lru/v2`` is the root package ``lru`` (the /v2 suffix is no name).
    assert _edges(deps, "cmd.run") == {"lru.TwoQueue.Len": ("calls", 1.0)}
    imports = {(d.src, d.dst) for d in deps if d.kind == "imports"}
    assert ("cmd/main", "lru") in imports


MAP_SOURCE = {
    "go.mod": "module github.com/ex/cli/v3\n",
    "source.go": """
        package cli

        import "fmt"

        type MapSource interface {
        \tfmt.GoStringer
        \tLookup(string) (any, bool)
        }

        type mapSource struct{ name string }

        func (ms *mapSource) GoString() string                { return ms.name }
        func (ms *mapSource) Lookup(name string) (any, bool) { return nil, false }

        type valueSource struct{ ms MapSource }

        func (vs *valueSource) GoString() string       { return vs.ms.GoString() }
        func (vs *valueSource) Lookup() (string, bool) { return "", false }
        """,
}


def test_a_method_of_a_library_interface_embedded_in_one_of_the_repository(
    tmp_path: Path,
) -> None:
    files = indexed_files(tmp_path, MAP_SOURCE)
    deps = resolve(files, crates=workspace_roots(tmp_path, [f.path for f in files]))
    # valueSource has a GoString too, but its Lookup takes no argument: no MapSource.
    assert _edges(deps, "cli.valueSource.GoString") == {"cli.mapSource.GoString": ("calls", 0.5)}
