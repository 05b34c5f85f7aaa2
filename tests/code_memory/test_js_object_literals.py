"""JavaScript/TypeScript object literals real repositories showed wrong (issue 29): koa's
``module.exports = { m() { this.n() } }`` left every ``this.n()`` unresolved; zod's
``const api = { parse() {..} }`` methods took module-level names and received the calls of a
module function of the same name. JSDoc is a docstring; ``in``/``out`` variance is tolerated."""

from __future__ import annotations

from pathlib import Path

from tests.code_fixtures import call_edges, indexed_files, resolved

REQUEST_JS = """
    'use strict';

    /**
     * Return request header.
     * Возвращает заголовок запроса.
     */
    function helper(field) {
      return field;
    }

    module.exports = {
      /**
       * Check if the request is idempotent / идемпотентен ли запрос.
       */
      idempotent() {
        return this.is('GET');
      },

      is(type) {
        return helper(type);
      },
    };
    """

SCHEMA_TS = """
    export interface Out<out T> { value: T }
    export class Box<in out T> {
      get(): T { return this.make(); }
      make(): T { return null as any; }
    }
    export const api = {
      parse(x: string) { return x; },
      run() { return this.parse('a'); },
    };
    export function parse(x: number) { return x; }
    export function main() { return parse(1); }
    """


def test_this_calls_inside_an_exported_object_literal_resolve(tmp_path: Path) -> None:
    files = indexed_files(tmp_path, {"lib/request.js": REQUEST_JS})
    docs = {s.qualified_name: s.docstring for f in files for s in f.symbols}
    assert "Возвращает заголовок запроса." in (docs["lib/request.helper"] or "")
    assert "идемпотентен" in (docs["lib/request.idempotent"] or "")
    calls = call_edges(resolved(tmp_path, {}))
    assert ("lib/request.idempotent", "lib/request.is") in calls
    assert ("lib/request.is", "lib/request.helper") in calls


def test_object_literal_methods_are_named_by_their_object(tmp_path: Path) -> None:
    files = indexed_files(tmp_path, {"src/schema.ts": SCHEMA_TS})
    names = {s.qualified_name for f in files for s in f.symbols}
    assert {"src/schema.api.parse", "src/schema.api.run", "src/schema.parse"} <= names
    assert {"src/schema.Box.get", "src/schema.Box.make"} <= names  # variance tolerated
    calls = call_edges(resolved(tmp_path, {}))
    assert ("src/schema.api.run", "src/schema.api.parse") in calls
    assert ("src/schema.main", "src/schema.parse") in calls
    assert ("src/schema.main", "src/schema.api.parse") not in calls
    assert ("src/schema.Box.get", "src/schema.Box.make") in calls


def test_function_call_and_apply_are_calls_of_the_function(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "session/store.js": """
                /** Абстрактное хранилище / an abstract store. */
                function Store () {}
                module.exports = Store;
                """,
            "session/memory.js": """
                var Store = require('./store');
                function MemoryStore() {
                  Store.call(this);
                }
                function helper() { return 1; }
                function run(args) { return helper.apply(null, args); }
                module.exports = MemoryStore;
                """,
        },
    )
    calls = call_edges(deps)
    assert ("session/memory.MemoryStore", "session/store.Store") in calls
    assert ("session/memory.run", "session/memory.helper") in calls
