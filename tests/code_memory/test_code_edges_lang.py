"""Edges the labelled samples of issue 16 (bench/labels) showed wrong or missing, one typed-in
fixture each: Python ``from . import submodule``, JavaScript bare names, ``this`` in assigned
functions, the repository root required as ``'../../'``, objects of the file; Rust associated
items and field calls; Go ``var x = &T{}``. Pure: no engines needed."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.code_memory.graph import resolve
from tests.code_fixtures import external_edges, indexed_files, internal_edges, resolved


def test_from_package_import_submodule_depends_on_the_submodule_not_the_package(
    tmp_path: Path,
) -> None:
    deps = resolved(
        tmp_path,
        {
            "pkg/__init__.py": "from .core import run\nfrom .types import T\n",
            "pkg/types.py": "class T:\n    pass\n",
            "pkg/core.py": "from . import types\n\ndef run():\n    return types.T()\n",
            "pkg/util.py": "from . import run\n",
        },
    )
    imports = internal_edges(deps, "imports")
    assert ("pkg.core", "pkg.types") in imports
    assert ("pkg.core", "pkg") not in imports  # the package would join core to all it imports
    # A name the package itself defines (re-exports) still depends on the package.
    assert ("pkg.util", "pkg") in imports


def test_js_bare_call_is_the_import_not_a_same_named_method(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "lib/request.js": """
                var accepts = require('accepts');
                var req = exports = module.exports = {};
                req.accepts = function () { return accepts(this).types(); };
                req.acceptsEncodings = function () { return accepts(this); };
            """,
        },
    )
    assert not {d for d in deps if d.dst == "lib/request.req.accepts"}
    assert ("lib/request.req.acceptsEncodings", "accepts") in external_edges(deps, None)


def test_js_this_in_an_assigned_function_is_the_object(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "lib/response.js": """
                var res = Object.create(null);
                module.exports = res;
                res.cookie = function (name, value) { return this; };
                res.clearCookie = function (name) { return this.cookie(name, ''); };
            """,
            "lib/view.js": """
                function View(name) { this.path = this.lookup(name); }
                View.prototype.lookup = function (name) { return this.resolve(name); };
                View.prototype.resolve = function (name) { return name; };
                module.exports = View;
            """,
        },
    )
    calls = internal_edges(deps)
    assert ("lib/response.res.clearCookie", "lib/response.res.cookie") in calls
    assert ("lib/view.View.lookup", "lib/view.View.resolve") in calls


def test_js_require_of_the_repository_root_and_objects_of_the_file(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "index.js": "module.exports = require('./lib/express');\n",
            "lib/express.js": """
                exports = module.exports = createApplication;
                function createApplication() { return {}; }
            """,
            "examples/map/index.js": """
                var express = require('../../');
                var app = module.exports = express();
                app.map = function (a) { return a; };
                app.map({});
            """,
        },
    )
    calls = internal_edges(deps)
    assert ("examples/map/index", "lib/express.createApplication") in calls
    assert ("examples/map/index", "examples/map/index.app.map") in calls


def test_rust_associated_type_is_not_a_callable_name_and_field_calls_stay_unresolved(
    tmp_path: Path,
) -> None:
    files = indexed_files(
        tmp_path,
        {
            "src/lib.rs": """
                pub struct Format;
                pub struct Error;
                impl std::str::FromStr for Format {
                    type Err = Error;
                    fn from_str(s: &str) -> Result<Format, Error> {
                        if s.is_empty() { return Err(Error); }
                        Ok(Format)
                    }
                }
                pub enum Match { None, Ignore }
                impl Match {
                    pub fn invert(self) -> Match { self }
                }
                pub struct Incremental { mat: Match }
                impl Incremental {
                    pub fn invert(self) -> Match { self.mat.invert() }
                }
            """,
        },
    )
    names = {s.qualified_name for f in files for s in f.symbols}
    assert "src/lib.Format.Err" in names and "src/lib.Err" not in names
    deps = resolve(files)
    assert not {d for d in deps if d.dst == "src/lib.Format.Err"}
    assert ("src/lib.Incremental.invert", "src/lib.Incremental.invert") not in internal_edges(deps)


def test_go_var_declared_from_a_composite_literal_has_its_type(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "go.mod": "module example.com/cobra\n",
            "command.go": """
                package cobra
                type Command struct{}
                func (c *Command) Commands() []*Command { return nil }
                func Walk() {
                    var root = &Command{}
                    root.Commands()
                }
            """,
        },
    )
    assert ("cobra.Walk", "cobra.Command.Commands") in internal_edges(deps)


def test_rust_receivers_typed_by_parameters_lets_fields_and_return_types(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "src/lib.rs": "pub mod search;\npub mod flags;\n",
            "src/search.rs": """
                pub struct Searcher;
                impl Searcher {
                    pub fn run(&self) -> bool { true }
                }
                pub struct SearcherBuilder;
                impl SearcherBuilder {
                    pub fn new() -> SearcherBuilder { SearcherBuilder }
                    pub fn build(&self) -> Searcher { Searcher }
                    pub fn open(p: &str) -> Result<SearcherBuilder, ()> { Ok(SearcherBuilder) }
                }
            """,
            "src/flags.rs": """
                use crate::search::{Searcher, SearcherBuilder};
                pub struct FlagMap;
                impl FlagMap {
                    pub fn find(&self) -> bool { true }
                }
                pub struct Parser { map: FlagMap }
                impl Parser {
                    fn find_long(&self) -> bool { self.map.find() }
                }
                fn by_param(s: &Searcher) -> bool { s.run() }
                fn by_let() -> bool {
                    let builder = SearcherBuilder::new();
                    builder.build().run()
                }
                fn by_chain() -> bool { SearcherBuilder::new().build().run() }
                fn by_unwrap() -> bool { SearcherBuilder::open("x").unwrap().build().run() }
                fn unknown(x: Vec<u8>) -> bool { x.is_empty() }
            """,
        },
    )
    calls = internal_edges(deps)
    assert ("src/flags.Parser.find_long", "src/flags.FlagMap.find") in calls
    assert ("src/flags.by_param", "src/search.Searcher.run") in calls
    assert ("src/flags.by_let", "src/search.SearcherBuilder.build") in calls
    assert ("src/flags.by_let", "src/search.Searcher.run") in calls
    assert ("src/flags.by_chain", "src/search.Searcher.run") in calls
    assert ("src/flags.by_unwrap", "src/search.Searcher.run") in calls
    assert not {dst for src, dst in calls if src == "src/flags.unknown"}


def test_rust_match_arm_bindings_and_integration_test_crates(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "m/src/lib.rs": """
                pub struct Standard;
                impl Standard {
                    pub fn get_mut(&mut self) -> u8 { 0 }
                }
                pub struct Summary;
                impl Summary {
                    pub fn get_mut(&mut self) -> u8 { 1 }
                }
                pub enum Printer { Standard(Standard), Summary(Summary) }
                impl Printer {
                    pub fn get_mut(&mut self) -> u8 {
                        match *self {
                            Printer::Standard(ref mut p) => p.get_mut(),
                            Printer::Summary(ref mut p) => p.get_mut(),
                        }
                    }
                }
            """,
            "m/tests/util.rs": """
                pub struct Matcher;
                impl Matcher {
                    pub fn new_captures(&self) -> Result<Caps, ()> { Ok(Caps) }
                }
                pub struct Caps;
                impl Caps {
                    pub fn get(&self, i: usize) -> usize { i }
                }
            """,
            "m/tests/test_matcher.rs": """
                mod util;
                use crate::util::Matcher;
                fn matcher() -> Matcher { Matcher }
                fn captures() -> usize {
                    let matcher = matcher();
                    let caps = matcher.new_captures().unwrap();
                    caps.get(1)
                }
            """,
        },
    )
    calls = internal_edges(deps)
    assert ("m/src/lib.Printer.get_mut", "m/src/lib.Standard.get_mut") in calls
    assert ("m/src/lib.Printer.get_mut", "m/src/lib.Summary.get_mut") in calls
    assert ("m/tests/test_matcher.captures", "m/tests/util.Matcher.new_captures") in calls
    assert ("m/tests/test_matcher.captures", "m/tests/util.Caps.get") in calls


def test_js_factory_result_carries_the_members_it_mixed_in(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "lib/application.js": """
                var app = exports = module.exports = {};
                app.use = function use(fn) { return this; };
            """,
            "lib/express.js": """
                var mixin = require('merge-descriptors');
                var proto = require('./application');
                exports = module.exports = createApplication;
                function createApplication() {
                    var app = function (req, res) {};
                    mixin(app, proto, false);
                    return app;
                }
            """,
            "examples/index.js": """
                var express = require('../lib/express');
                var app = module.exports = express();
                app.use(function () {});
                function boot(app) { app.use(); }
            """,
        },
    )
    calls = internal_edges(deps)
    assert ("examples/index", "lib/application.app.use") in calls
    # ``app`` in boot is its parameter, not the module's app.
    assert ("examples/index.boot", "lib/application.app.use") not in calls


def test_js_property_of_a_required_default_export_and_locals_made_with_new(
    tmp_path: Path,
) -> None:
    deps = resolved(
        tmp_path,
        {
            "user.js": """
                function User(name) { this.name = name; }
                User.count = function (fn) { fn(null, 1); };
                module.exports = User;
            """,
            "index.js": """
                var User = require('./user');
                User.count(function () {});
            """,
            "ky.ts": """
                export class Ky {
                    static create(input: string) {
                        const ky = new Ky();
                        return ky.#data(input);
                    }
                    #data(input: string) { return input; }
                }
            """,
        },
    )
    calls = internal_edges(deps)
    assert ("index", "user.User.count") in calls
    assert ("ky.Ky.create", "ky.Ky.#data") in calls


def test_java_fields_chains_and_overloads_by_argument_types(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "src/com/ex/TypeToken.java": "package com.ex;\npublic class TypeToken {}\n",
            "src/com/ex/Gson.java": """
                package com.ex;
                import java.lang.reflect.Type;
                public class Gson {
                  public Object fromJson(String json, Class<?> c) { return null; }
                  public Object fromJson(String json, Type t) { return null; }
                  public Object fromJson(String json, TypeToken t) { return null; }
                  public String toJson(Object o) { return ""; }
                }
            """,
            "src/com/ex/GsonBuilder.java": """
                package com.ex;
                public class GsonBuilder {
                  public GsonBuilder serializeNulls() { return this; }
                  public Gson create() { return new Gson(); }
                }
            """,
            "src/com/ex/UseTest.java": """
                package com.ex;
                public class UseTest {
                  private Gson gson;
                  void setUp() {
                    gson = new GsonBuilder().serializeNulls().create();
                  }
                  void field() {
                    gson.toJson(1);
                  }
                  void overloads(TypeToken token) {
                    gson.fromJson("x", token);
                    gson.fromJson("x", String.class);
                  }
                }
            """,
        },
    )
    calls = internal_edges(deps)
    assert ("com.ex.UseTest.setUp", "com.ex.GsonBuilder.serializeNulls") in calls
    assert ("com.ex.UseTest.setUp", "com.ex.GsonBuilder.create") in calls
    assert ("com.ex.UseTest.field", "com.ex.Gson.toJson") in calls
    picked = {(d.line, d.dst) for d in deps if d.src == "com.ex.UseTest.overloads" and d.dst}
    lines = sorted(picked)
    assert lines[0][1] == "com.ex.Gson.fromJson#2@6"  # (String, TypeToken)
    assert lines[1][1] == "com.ex.Gson.fromJson#2"  # (String, Class)


MERGED_TS = {
    "src/core.ts": """
        export interface $constructor<T> {
          new (def: unknown): T;
          init(inst: T, def: unknown): void;
        }

        export function $constructor<T>(name: string): $constructor<T> {
          return null as unknown as $constructor<T>;
        }

        export type Check = (value: unknown) => boolean;
        export const Check = (value: unknown): boolean => value !== null;
    """,
    "src/schemas.ts": """
        import * as core from './core.js';
        import { $constructor } from './core.js';

        export const A = core.$constructor('A');
        export const B = $constructor('B');
        export const ok = core.Check(B);
        export function local() {
          return make();
        }
        interface make { x: number }
        function make() { return 1; }
    """,
}


def test_ts_call_of_a_merged_interface_and_function_is_the_function(tmp_path: Path) -> None:
    # TypeScript merges an interface and a function of one name (declaration merging); a call
    # can only run the value, never the type.
    deps = resolved(tmp_path, MERGED_TS)
    calls = internal_edges(deps)
    assert ("src/schemas", "src/core.$constructor@6") in calls
    assert ("src/schemas", "src/core.$constructor") not in calls
    assert ("src/schemas", "src/core.Check@11") in calls  # a type alias and an arrow const
    assert ("src/schemas", "src/core.Check") not in calls
    assert ("src/schemas.local", "src/schemas.make@11") in calls
    assert ("src/schemas.local", "src/schemas.make") not in calls


def test_ts_receiver_typed_by_its_annotation(tmp_path: Path) -> None:
    # ``doc: Doc`` fixes what ``doc.write`` calls, however the value was made; a type that is
    # more than a name (a union, a generic) types nothing.
    deps = resolved(
        tmp_path,
        {
            "src/doc.ts": """
                export class Doc {
                  write(line: string): void {}
                }
                export class Page {
                  write(line: string): void {}
                }
            """,
            "src/compile.ts": """
                import { Doc, Page } from './doc.js';

                export function emit(doc: Doc, other?: Page) {
                  doc.write('a');
                  other?.write('b');
                }
                export function later(open: () => unknown) {
                  let page: Page;
                  page = open() as Page;
                  page.write('c');
                  const either: Doc | Page = open() as Doc;
                  either.write('d');
                }
            """,
        },
    )
    calls = internal_edges(deps)
    assert ("src/compile.emit", "src/doc.Doc.write") in calls
    assert ("src/compile.emit", "src/doc.Page.write") in calls
    assert ("src/compile.later", "src/doc.Page.write") in calls
    assert ("src/compile.later", "src/doc.Doc.write") not in calls
