"""Dependency resolution: Python points-to cases, then resolution by name for other languages."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.code_memory.graph import resolve
from tests.code_fixtures import (
    external_edges,
    indexed_files,
    internal_edges,
    resolved,
    unresolved_edges,
)

# --- Python ------------------------------------------------------------------------------------


def test_python_imports_aliases_and_relative(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "src/shop/__init__.py": "from .cart import Cart\n",
            "src/shop/util.py": """
                def total(items):
                    return sum(items)

                def fmt(x):
                    return str(x)
                """,
            "src/shop/cart.py": """
                from . import util
                from .util import fmt as show
                import shop.util as u

                class Cart:
                    def __init__(self):
                        self.items = []

                    def price(self):
                        return show(util.total(self.items)) + u.fmt(0)
                """,
            "src/shop/sub/checkout.py": """
                from .. import Cart
                from ..util import total

                def run():
                    cart = Cart()
                    return cart.price(), total([])
                """,
        },
    )
    calls = internal_edges(deps)
    assert ("shop.cart.Cart.price", "shop.util.fmt") in calls  # from-import alias
    assert ("shop.cart.Cart.price", "shop.util.total") in calls  # module from ``from . import``
    assert ("shop.sub.checkout.run", "shop.cart.Cart.__init__") in calls  # re-exported class
    assert ("shop.sub.checkout.run", "shop.cart.Cart.price") in calls  # instance method
    assert ("shop.sub.checkout.run", "shop.util.total") in calls  # ``..util``
    assert ("shop.util.total", None) not in calls
    assert ("shop.util.total", "builtins.sum") in external_edges(deps)
    imports = internal_edges(deps, "imports")
    assert ("shop.cart", "shop.util") in imports
    assert ("shop.cart", "shop.util.fmt") in imports
    assert ("shop.sub.checkout", "shop.cart.Cart") in imports  # through shop/__init__.py


def test_python_self_inheritance_and_super(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "base.py": """
                class Base:
                    def run(self):
                        return self.step()

                    def step(self):
                        return 1

                    def helper(self):
                        return 0
                """,
            "child.py": """
                from base import Base

                class Child(Base):
                    def step(self):
                        return super().step() + self.helper()

                def main():
                    Child().run()
                """,
        },
    )
    calls = internal_edges(deps)
    # Only a Child ever runs Base.run, so its self.step() is Child.step, not Base.step.
    assert ("base.Base.run", "child.Child.step") in calls
    assert ("base.Base.run", "base.Base.step") not in calls
    assert ("child.Child.step", "base.Base.step") in calls  # super()
    assert ("child.Child.step", "base.Base.helper") in calls  # inherited through self
    assert ("child.main", "base.Base.run") in calls  # inherited through the instance
    assert internal_edges(deps, "inherits") == {("child.Child", "base.Base")}


def test_python_unresolved_and_external_are_kept(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "m.py": """
                import requests
                from collections import OrderedDict

                class Thing(OrderedDict):
                    pass

                def f(callback):
                    requests.get("x").json()
                    callback()
                    mystery.run()
                """,
        },
    )
    external = external_edges(deps)
    assert ("m.f", "requests.get") in external
    unresolved = unresolved_edges(deps)
    assert ("m.f", "callback") in unresolved
    assert ("m.f", "mystery.run") in unresolved
    assert ("m", "requests") in external_edges(deps, "imports")
    assert ("m", "collections.OrderedDict") in external_edges(deps, "imports")
    assert ("m.Thing", "collections.OrderedDict") in external_edges(deps, "inherits")
    assert all(d.dst_name for d in deps)


def test_python_annotations_decorators_and_no_name_guess(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "core.py": """
                import functools
                import typing as t

                class Context:
                    def invoke(self):
                        return 1

                    def close(self):
                        pass

                def make() -> "Context":
                    return build()

                def handler(ctx: t.Optional[Context]) -> None:
                    ctx.invoke()

                @functools.lru_cache()
                def cached():
                    return 1

                def user(thing):
                    make().close()
                    cached()
                    thing.invoke()
                """,
        },
    )
    calls = internal_edges(deps)
    assert ("core.handler", "core.Context.invoke") in calls  # parameter annotation
    assert ("core.user", "core.Context.close") in calls  # return annotation
    assert ("core.user", "core.cached") in calls  # external decorator returns the function
    # An unknown receiver is not guessed from "the only method of that name": kept unresolved.
    assert ("core.user", "core.Context.invoke") not in calls
    unresolved = unresolved_edges(deps)
    assert ("core.user", "thing.invoke") in unresolved


def test_python_methods_nobody_calls_still_resolve_self(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "api.py": """
                class Api:
                    def entry(self):
                        return self._work()

                    def _work(self):
                        return 1

                    @classmethod
                    def build(cls):
                        return cls._create()

                    @classmethod
                    def _create(cls):
                        return cls()
                """,
        },
    )
    calls = internal_edges(deps)
    assert ("api.Api.entry", "api.Api._work") in calls
    assert ("api.Api.build", "api.Api._create") in calls


def test_resolve_is_sorted_deduplicated_and_deterministic(tmp_path: Path) -> None:
    files = indexed_files(
        tmp_path,
        {
            "a.py": "def f():\n    g()\n    g()\n\ndef g():\n    pass\n",
            "b.py": "from a import f\n\nf()\nf()\n",
        },
    )
    deps = resolve(files)
    assert deps == resolve(list(reversed(files)))
    assert len(deps) == len(set(deps))
    keys = [(d.src, d.line, d.kind, d.dst_name) for d in deps]
    assert keys == sorted(keys)


# --- other languages ---------------------------------------------------------------------------


def test_typescript_relative_imports(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "web/lib/math.ts": "export function add(a: number, b: number) { return a + b; }\n",
            "web/lib/index.ts": "export function zero() { return 0; }\n",
            "web/app/util.js": "export default function fmt(x) { return String(x); }\n",
            "web/app/main.ts": """
                import { add as plus } from '../lib/math';
                import * as lib from '../lib';
                import fmt from './util.js';
                import { render } from 'react-dom';

                export function run() {
                  render(fmt(plus(1, lib.zero())));
                }
                """,
        },
    )
    calls = internal_edges(deps)
    assert ("web/app/main.run", "web/lib/math.add") in calls
    assert ("web/app/main.run", "web/lib/index.zero") in calls
    imports = internal_edges(deps, "imports")
    assert ("web/app/main", "web/lib/math") in imports
    assert ("web/app/main", "web/lib/index") in imports
    assert ("web/app/main", "web/app/util") in imports
    assert ("web/app/main", "react-dom") in external_edges(deps, "imports")
    assert ("web/app/main.run", "render") in external_edges(deps)


def test_javascript_this_and_inherited_methods(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "shapes.js": """
                class Shape {
                  scale(k) { return k; }
                }
                class Square extends Shape {
                  area() { return this.scale(2) * this.side(); }
                  side() { return 1; }
                }
                """,
        },
    )
    calls = internal_edges(deps)
    assert ("shapes.Square.area", "shapes.Shape.scale") in calls
    assert ("shapes.Square.area", "shapes.Square.side") in calls
    assert internal_edges(deps, "inherits") == {("shapes.Square", "shapes.Shape")}


def test_go_receivers_packages_and_embedding(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "geo/named.go": (
                "package geo\n\ntype Named struct{}\n\n"
                'func (n Named) Label() string { return "" }\n'
            ),
            "geo/square.go": """
                package geo

                import "fmt"

                type Square struct {
                \tNamed
                }

                func (s *Square) Area() int { return s.side() + len(s.Label()) }

                func (s *Square) side() int { fmt.Println(helper()); return 1 }
                """,
            "geo/helpers.go": "package geo\n\nfunc helper() int { return 2 }\n",
            "cmd/main.go": """
                package main

                import "example.com/proj/geo"

                func main() { geo.helper() }
                """,
        },
    )
    calls = internal_edges(deps)
    assert ("geo.Square.Area", "geo.Square.side") in calls
    assert ("geo.Square.Area", "geo.Named.Label") in calls  # through the embedded struct
    assert ("geo.Square.side", "geo.helper") in calls  # same package, another file
    assert ("cmd.main", "geo.helper") in calls  # package import by module path
    assert ("geo.Square.side", "fmt.Println") in external_edges(deps)
    assert internal_edges(deps, "inherits") == {("geo.Square", "geo.Named")}


def test_rust_self_calls_and_paths(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "src/util.rs": "pub fn helper() {}\n",
            "src/lib.rs": """
                use crate::util::helper;

                pub struct Point {}

                impl Point {
                    pub fn new() -> Self { helper(); Point {} }
                    fn show(&self) -> String { self.fmt(); String::new() }
                    fn fmt(&self) {}
                }
                """,
        },
    )
    calls = internal_edges(deps)
    assert ("src/lib.Point.new", "src/util.helper") in calls
    assert ("src/lib.Point.show", "src/lib.Point.fmt") in calls
    assert ("src/lib.Point.show", "String::new") in external_edges(deps)
    assert ("src/lib", "src/util.helper") in internal_edges(deps, "imports")


def test_java_packages_and_unqualified_calls(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "src/com/ex/Base.java": """
                package com.ex;
                public class Base { protected int twice(int k) { return 2 * k; } }
                """,
            "src/com/ex/app/Square.java": """
                package com.ex.app;
                import com.ex.Base;
                import java.util.List;
                public class Square extends Base {
                    int area() { return twice(side()) + Math.abs(1); }
                    int side() { return 1; }
                }
                """,
        },
    )
    calls = internal_edges(deps)
    assert ("com.ex.app.Square.area", "com.ex.Base.twice") in calls
    assert ("com.ex.app.Square.area", "com.ex.app.Square.side") in calls
    assert ("com.ex.app.Square.area", "Math.abs") in external_edges(deps)
    assert internal_edges(deps, "inherits") == {("com.ex.app.Square", "com.ex.Base")}
    assert ("src/com/ex/app/Square", "com.ex.Base") in internal_edges(deps, "imports")
    assert ("src/com/ex/app/Square", "java.util.List") in external_edges(deps, "imports")


def test_python_base_known_only_later_reaches_cached_mro(tmp_path: Path) -> None:
    # Child's method resolution order is first computed while ``B`` is still empty; the edge to
    # Base.hello appears only if that cached order is dropped once ``B`` learns its value.
    deps = resolved(
        tmp_path,
        {
            "late.py": """
                def get_base():
                    return Base

                B = get_base()

                class Child(B):
                    def go(self):
                        self.hello()

                Child().go()

                class Base:
                    def hello(self):
                        pass

                class Other:  # a second hello(): the unique-name fallback cannot help
                    def hello(self):
                        pass
                """,
        },
    )
    calls = internal_edges(deps)
    assert ("late", "late.Child.go") in calls
    assert ("late.Child.go", "late.Base.hello") in calls
    assert ("late.Child.go", "late.Other.hello") not in calls
    assert ("late.Child", "late.Base") in internal_edges(deps, "inherits")


def test_python_value_sets_are_bounded(tmp_path: Path) -> None:
    # 600 classes reach one parameter: past MAX_SLOT_VALUES the slot is saturated and the call
    # through it is kept unresolved, not fanned out to 600 guesses; a slot fed 100 external
    # names keeps at most MAX_PER_TAG["x"] of them.
    from pegas_memory.code_memory.flow_bounds import (
        MAX_PER_TAG,
        MAX_SLOT_VALUES,
        UNKNOWN,
        bounded_update,
    )

    classes = "".join(f"class C{n}:\n    def method(self):\n        pass\n" for n in range(600))
    calls = "".join(f"sink(C{n}())\n" for n in range(600))
    small = "def one(x):\n    return x.method()\n\none(C1())\n"
    deps = resolved(
        tmp_path,
        {"m.py": f"def sink(x):\n    return x.method()\n\n{classes}{calls}{small}"},
    )
    sink = [d for d in deps if d.src == "m.sink" and d.kind == "calls"]
    assert [(d.dst_name, d.target_kind) for d in sink] == [("x.method", "unresolved")]
    assert ("m.one", "m.C1.method") in internal_edges(deps)  # a small slot still resolves

    slot: set[str] = set()
    counts = None
    for n in range(100):
        _, counts = bounded_update(slot, [f"x:ext.name{n}"], counts)
    assert len(slot) == MAX_PER_TAG["x"]
    for n in range(MAX_SLOT_VALUES + 10):
        _, counts = bounded_update(slot, [f"i:m.C{n}"], counts)
    assert UNKNOWN in slot and len(slot) <= MAX_SLOT_VALUES + 1
    assert bounded_update(slot, ["i:m.Other"], counts)[0] is False  # saturated: grows no more


def test_java_local_variable_and_parameter_types(tmp_path: Path) -> None:
    # ``Gson g = new Gson(); g.toJson()``: the declared type of a local or parameter names the
    # receiver, so the call lands on that type's method (here across packages, via the import).
    deps = resolved(
        tmp_path,
        {
            "src/com/ex/Gson.java": """
                package com.ex;
                public class Gson { public String toJson(Object o) { return ""; } }
                """,
            "src/com/ex/app/Use.java": """
                package com.ex.app;
                import com.ex.Gson;
                import java.util.List;
                public class Use {
                    String local() { Gson g = new Gson(); return g.toJson(1); }
                    String inferred() { var g = new Gson(); return g.toJson(2); }
                    String param(Gson p, List<String> xs) { xs.add("a"); return p.toJson(3); }
                }
                """,
        },
    )
    calls = internal_edges(deps)
    for method in ("local", "inferred", "param"):
        assert (f"com.ex.app.Use.{method}", "com.ex.Gson.toJson") in calls, method
    assert not any(dst and "add" in dst for _, dst in calls)  # List.add is not internal


def test_go_local_variable_and_parameter_types(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "cmd.go": """
                package cobra
                type Command struct{}
                func (c *Command) Flags() int { return 1 }
                """,
            "use_test.go": """
                package cobra
                func TestX() {
                    root := &Command{}
                    root.Flags()
                }
                func helper(cmd *Command) { cmd.Flags() }
                """,
        },
    )
    calls = internal_edges(deps)
    assert ("cobra.TestX", "cobra.Command.Flags") in calls
    assert ("cobra.helper", "cobra.Command.Flags") in calls
