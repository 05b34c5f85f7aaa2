"""Java calls real repositories resolved wrong (issue 29, javapoet): a call with more arguments
than any overload takes binds to the varargs overload, not to the one-argument one; a
statically imported method resolves; ``new X(..)`` is a call of X's constructor."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from pegas_memory.code_memory.graph import Dependency
from tests.code_fixtures import call_edges, resolved


def java_files(*sources: str) -> dict[str, str]:
    """Each source at the path Java asks of it: under src/, its package's folders and its first
    type's name (``package com.ex.io; ... class Writer`` is src/com/ex/io/Writer.java)."""
    files = {}
    for source in sources:
        package = re.search(r"^\s*package ([\w.]+);", source, re.M)
        first = re.search(r"\b(?:class|interface|enum) (\w+)", source)
        assert package and first, source
        files[f"src/{package[1].replace('.', '/')}/{first[1]}.java"] = source
    return files


def line_of(source: str, text: str) -> int:
    """The line (from 1, as the indexer counts them) of `source` that holds `text`."""
    lines = textwrap.dedent(source).lstrip("\n").splitlines()
    return next(n for n, code in enumerate(lines, 1) if text in code)


def reached_from(deps: list[Dependency], caller: str, line: int) -> set[str | None]:
    """What the calls `caller` makes on `line` reach."""
    return {d.dst for d in deps if d.src == caller and d.line == line and d.kind == "calls"}


CODE_BLOCK = """
    package com.ex;

    import static com.ex.Util.checkArgument;

    /** Блок кода / a block of code. */
    public final class CodeBlock {
      private final String text;

      private CodeBlock(Builder builder) {
        this.text = builder.text;
      }

      public static Builder builder() {
        return new Builder();
      }

      public static final class Builder {
        String text = "";

        public Builder add(String s) {
          checkArgument(s != null);
          return this;
        }

        public Builder get(Class<?> c) { return this; }
        public Builder get(String fmt, Object... args) { return this; }

        public CodeBlock build() {
          get("x", 1, 2);
          get(String.class);
          return new CodeBlock(this);
        }
      }
    }
    """
UTIL = """
    package com.ex;

    final class Util {
      static void checkArgument(boolean ok) {
        if (!ok) throw new IllegalArgumentException();
      }
    }
    """


def test_varargs_static_imports_and_constructors(tmp_path: Path) -> None:
    calls = call_edges(resolved(tmp_path, java_files(CODE_BLOCK, UTIL)))
    build = "com.ex.CodeBlock.Builder.build"
    assert (build, "com.ex.CodeBlock.Builder.get#2") in calls  # three arguments: varargs
    assert (build, "com.ex.CodeBlock.Builder.get#1") in calls  # get(String.class)
    assert ("com.ex.CodeBlock.Builder.add", "com.ex.Util.checkArgument") in calls
    assert (build, "com.ex.CodeBlock.CodeBlock") in calls  # the constructor, not the class
    assert (build, "com.ex.CodeBlock") not in calls
    assert ("com.ex.CodeBlock.builder", "com.ex.CodeBlock.Builder") in calls  # no constructor


STYLE = """
    package com.ex.help;

    public final class TextStyle {
      public static Builder builder() { return new Builder(); }

      public static final class Builder {
        public TextStyle get() { return new TextStyle(); }
      }
    }
    """
FORMATTER = """
    package com.ex.help;

    public class HelpFormatter {
      /** Строитель форматтера / the formatter's own builder. */
      public static class Builder {
        public HelpFormatter get() { return new HelpFormatter(); }
      }

      private final TextStyle.Builder style = TextStyle.builder();

      TextStyle table() {
        final TextStyle.Builder builder = TextStyle.builder();
        builder.get();
        return style.get();
      }
    }
    """


def test_a_local_or_field_of_a_nested_type_is_not_the_enclosing_builder(tmp_path: Path) -> None:
    calls = call_edges(resolved(tmp_path, java_files(STYLE, FORMATTER)))
    table = "com.ex.help.HelpFormatter.table"
    assert (table, "com.ex.help.TextStyle.Builder.get") in calls
    assert (table, "com.ex.help.HelpFormatter.Builder.get") not in calls


TYPE_SPEC = """
    package com.ex;

    public final class TypeSpec {
      final String name;

      private TypeSpec(Builder builder) {
        this.name = builder.name;
      }

      public static Builder classBuilder(String name) {
        return new Builder(name);
      }

      public boolean isAnnotated() { return false; }

      /** Строитель типа / the type's builder. */
      public static final class Builder {
        final String name;
        private final CodeBlock.Builder javadoc = CodeBlock.builder();

        private Builder(String name) {
          this.name = name;
        }

        public Builder add(String s) { return this; }

        public Builder addJavadoc(String s) {
          javadoc.add(s);
          javadoc.add(s).add(s);
          return this;
        }

        public Builder addMethod(String m) { return this; }

        public TypeSpec build() { return new TypeSpec(this); }
      }
    }
    """
NAMED = """
    package com.ex;

    import static com.ex.Util.*;

    public class Named extends Base {
      private final String name;

      public Named() {
        this("x");
      }

      public Named(String name) {
        super(name, 0);
        checkArgument(name != null);
        this.name = name;
      }

      @Override public boolean isAnnotated() {
        return super.isAnnotated() || name.isEmpty();
      }

      static TypeSpec make() {
        Base.get("com.ex", "Named");
        Base.take(Base.get(String.class));
        TypeSpec.Builder b = TypeSpec.classBuilder("X");
        b.addMethod("m").addJavadoc("d").build();
        return TypeSpec.classBuilder("X").addMethod("m").addJavadoc("d").build();
      }

      static Named named() {
        return new Named();
      }
    }
    """
BASE = """
    package com.ex;

    public class Base {
      protected Base(String name, int n) {}

      public boolean isAnnotated() { return true; }

      public static Base get(Class<?> c) { return null; }
      public static Base get(String pkg, String simple, String... names) { return null; }

      public static void take(String name) {}
      public static void take(Base base) {}
    }
    """


def test_builder_chains_fields_and_constructor_delegation(tmp_path: Path) -> None:
    """``TypeSpec.classBuilder("X").addMethod(m).build()``: each link typed by the declared
    return type of the one before (``Builder`` inside ``TypeSpec`` is ``TypeSpec.Builder``),
    also from a typed local; a field typed ``CodeBlock.Builder`` inside ``TypeSpec.Builder``
    calls ``CodeBlock.Builder.add``, not the enclosing builder's ``add``; ``this(..)`` and
    ``super(..)`` call the constructors they delegate to, ``super.m()`` the super class's m."""
    deps = resolved(tmp_path, java_files(TYPE_SPEC, CODE_BLOCK, UTIL, NAMED, BASE))
    calls = call_edges(deps)
    make, builder = "com.ex.Named.make", "com.ex.TypeSpec.Builder"

    def at(source: str, text: str) -> set[str | None]:
        """What the calls of ``make`` on the line of ``source`` holding ``text`` reach."""
        return reached_from(deps, make, line_of(source, text))

    assert at(NAMED, 'Base.get("com.ex", "Named")') == {"com.ex.Base.get#3"}  # varargs
    # ``take(Base.get(..))``: a static factory of Base taken to give a Base: take(Base)
    take = (
        textwrap.dedent(BASE)
        .lstrip("\n")
        .splitlines()
        .index("  public static void take(Base base) {}")
    )
    assert at(NAMED, "Base.take(") == {"com.ex.Base.get#1", f"com.ex.Base.take#1@{take + 1}"}
    assert (make, "com.ex.TypeSpec.classBuilder") in calls
    assert (make, f"{builder}.addMethod") in calls
    assert (make, f"{builder}.addJavadoc") in calls
    assert (make, f"{builder}.build") in calls
    javadoc = f"{builder}.addJavadoc"
    assert (javadoc, "com.ex.CodeBlock.Builder.add") in calls
    assert (javadoc, f"{builder}.add") not in calls  # no false self-edge to the enclosing builder
    assert (f"{builder}.build", "com.ex.TypeSpec.TypeSpec") in calls
    assert ("com.ex.TypeSpec.classBuilder", f"{builder}.Builder") in calls  # new X(..)
    assert ("com.ex.Named.Named#0", "com.ex.Named.Named#1") in calls  # this("x")
    assert ("com.ex.Named.Named#1", "com.ex.Base.Base") in calls  # super(name, 0)
    assert ("com.ex.Named.Named#1", "com.ex.Util.checkArgument") in calls  # import static ..*
    assert ("com.ex.Named.named", "com.ex.Named.Named#0") in calls  # new Named()
    assert ("com.ex.Named.isAnnotated", "com.ex.Base.isAnnotated") in calls
    assert ("com.ex.Named.isAnnotated", "com.ex.Named.isAnnotated") not in calls


OPTIONS = """
    package com.ex.cli;

    import java.util.List;

    public final class CommandLine {
      private final List<Option> options;
      private final Option[] defaults;
      private final TypeSpec.Builder spec;

      CommandLine(Builder builder) {
        this.options = builder.options;
        this.defaults = builder.defaults;
        this.spec = builder.spec;
        builder.spec.add("x");
      }

      int loop(Option wanted) {
        int n = 0;
        for (Option o : options) {
          if (o.matches(wanted)) n++;
        }
        return n;
      }

      void loopVar(Option wanted) {
        for (var d : defaults) {
          d.matches(wanted);
        }
      }

      void each(Option wanted) {
        options.forEach(o -> o.matches(wanted));
      }

      void spec() {
        this.spec.add("y");
      }

      /** Строитель / the command line's builder: its fields are read by the constructor. */
      static final class Builder {
        List<Option> options;
        Option[] defaults;
        TypeSpec.Builder spec;
      }
    }
    """
OPTION = """
    package com.ex.cli;

    public final class Option {
      boolean matches(Option other) { return this == other; }
    }
    """
SPEC = """
    package com.ex.cli;

    public final class TypeSpec {
      public static final class Builder {
        public Builder add(String s) { return this; }
      }
      /** Not the spec's builder: a call on a field typed TypeSpec.Builder never lands here. */
      public Builder add(String s) { return null; }
    }
    """


def test_loop_variables_and_fields_of_other_objects_are_typed(tmp_path: Path) -> None:
    calls = call_edges(resolved(tmp_path, java_files(OPTIONS, OPTION, SPEC)))
    cls = "com.ex.cli.CommandLine"
    # ``for (Option o : options)``, ``for (var d : defaults)`` over ``Option[]`` and
    # ``options.forEach(o -> ..)`` over a ``List<Option>`` field.
    for method in ("loop", "loopVar", "each"):
        assert (f"{cls}.{method}", "com.ex.cli.Option.matches") in calls
    # ``this.spec.add(..)`` and ``builder.spec.add(..)`` (a field of the file's other class):
    # the field's declared type, not the enclosing class nor a same-named method elsewhere.
    for caller in (f"{cls}.spec", f"{cls}.CommandLine"):
        assert (caller, "com.ex.cli.TypeSpec.Builder.add") in calls
        assert (caller, "com.ex.cli.TypeSpec.add") not in calls


WRITER = """
    package com.ex.io;

    public class Writer {
      public Writer value(String s) { return this; }
      public Writer value(boolean b) { return this; }
      public Writer value(Boolean b) { return this; }
      public Writer value(double d) { return this; }
      public Writer value(long n) { return this; }
      public Writer value(Number n) { return this; }
      public String show(Object o) { return ""; }
      public String show(Writer w) { return ""; }
    }
    """
FIELDS = """
    package com.ex.io;

    final class Fields {
      private int count;

      Writer name(Writer out, String s) { return out; }

      void write(Writer out, int[] bits, Integer boxed, char c) {
        for (int i = 0; i < bits.length; i++) {
          name(out, "bits").value(bits[i]);
        }
        out.value(count);
        out.value(1.5f);
        out.value(10L);
        out.value(boxed);
        out.value(c);
        out.value(true);
        out.show(null);
      }
    }
    """


def test_overloads_follow_java_widening_boxing_and_the_most_specific_rule(
    tmp_path: Path,
) -> None:
    """Among same-arity overloads Java takes those applicable by widening alone before those
    needing boxing, then the most specific: an ``int`` (an indexed ``int[]``, a primitive
    field) is ``value(long)``, a ``float`` literal ``value(double)``, an ``Integer``
    ``value(Number)`` (a subtype, not unboxed), a ``char`` ``value(long)``, ``null`` the
    ``show(Writer)`` over ``show(Object)``; not the first overload written."""
    deps = resolved(tmp_path, java_files(WRITER, FIELDS))
    writer = textwrap.dedent(WRITER).lstrip("\n").splitlines()
    code_name = re.compile(r"(\w+)\(")

    def overload(param: str) -> str:
        """The qualified name the walker gives the overload declared with ``param``: the
        first of a name and arity is ``name#1``, a later one ``name#1@line``."""
        line = next(n for n, code in enumerate(writer, 1) if f"({param})" in code)
        name = code_name.search(writer[line - 1]).group(1)  # type: ignore[union-attr]
        first = next(n for n, code in enumerate(writer, 1) if f" {name}(" in code)
        return f"com.ex.io.Writer.{name}#1" + ("" if line == first else f"@{line}")

    def at(text: str) -> set[str | None]:
        return reached_from(deps, "com.ex.io.Fields.write", line_of(FIELDS, text))

    assert at(".value(bits[i])") == {"com.ex.io.Fields.name", overload("long n")}
    assert at("out.value(count)") == {overload("long n")}
    assert at("out.value(1.5f)") == {overload("double d")}
    assert at("out.value(10L)") == {overload("long n")}
    assert at("out.value(boxed)") == {overload("Number n")}
    assert at("out.value(c)") == {overload("long n")}
    assert at("out.value(true)") == {overload("boolean b")}
    assert at("out.show(null)") == {overload("Writer w")}


NAME = """
    package com.ex.types;

    import java.lang.reflect.Type;
    import javax.lang.model.type.TypeMirror;

    public class Name {
      public static Name get(TypeMirror mirror) { return null; }
      public static Name get(Type type) { return null; }
    }
    """
ARRAY_NAME = """
    package com.ex.types;

    import java.lang.reflect.GenericArrayType;

    public final class ArrayName extends Name {
      public static ArrayName get(GenericArrayType type) { return null; }
    }
    """
BLOCK = """
    package com.ex.types;

    import java.util.function.Supplier;

    public final class Block {
      public Block add(Block block) { return this; }
      public Block add(String format, Object... args) { return this; }
      public <T> T option(char c, Supplier<T> fallback) { return null; }
      public <T> T option(char c, T fallback) { return null; }
    }
    """
USE = """
    package com.ex.types;

    final class Use {
      void run(Block block, Integer thing) {
        ArrayName.get(Object.class);
        Name.get(String.class);
        block.add("x");
        block.option('c', thing);
      }
    }
    """


def test_inherited_overloads_final_types_varargs_and_type_variables(tmp_path: Path) -> None:
    """``ArrayName.get(Object.class)``: no ``get`` of ArrayName takes a Class, so the inherited
    static ``Name.get(Type)`` (Class is final and a Type, never a TypeMirror); ``add("x")``:
    a String is no Block, so the varargs ``add(String, Object...)`` (phase 3); an Integer
    ``fallback`` is the type variable's ``option(char, T)``, not ``Supplier<T>``."""
    deps = resolved(tmp_path, java_files(NAME, ARRAY_NAME, BLOCK, USE))

    def at(text: str) -> set[str | None]:
        return reached_from(deps, "com.ex.types.Use.run", line_of(USE, text))

    by_type = f"com.ex.types.Name.get#1@{line_of(NAME, 'get(Type type)')}"
    assert at("ArrayName.get(Object.class)") == {by_type}
    assert at("Name.get(String.class)") == {by_type}
    assert at('block.add("x")') == {"com.ex.types.Block.add#2"}
    t_version = f"com.ex.types.Block.option#2@{line_of(BLOCK, 'T fallback)')}"
    assert at("block.option('c', thing)") == {t_version}


LABEL = """
    package com.ex.fs;

    final class Label {}
    """
REGISTRY = """
    package com.ex.fs;

    final class Registry {
      Label label;

      Route route(Label label) { return null; }

      <T> T any(Label label) { return null; }
    }
    """
ROUTE = """
    package com.ex.fs;

    import java.nio.file.Path;
    import java.util.function.Function;

    final class Route implements Path {
      private final Registry registry;
      private Function<String, ?> lookup;

      Route(Registry registry) { this.registry = registry; }

      Route join(Label label) {
        return join(registry.route(label));
      }

      public Route join(Path other) { return this; }

      public Route join(String other) { return this; }

      void accept(Path path) {}

      void accept(Route route) {}

      void take(Label label) {}

      void take(Object value) {}

      void run(Route route, String name) {
        join(registry.label);
        join("a".repeat(2));
        join(name.trim());
        accept(route);
        accept(registry.route(registry.label));
        join(lookup.apply(name));
        join(registry.any(registry.label));
        take(lookup);
      }
    }
    """


def test_an_argument_is_typed_by_the_declared_return_or_field_type(tmp_path: Path) -> None:
    """``join(registry.route(label))`` in ``join(Label)``: ``route`` declares it returns a
    ``Route``, which implements the library's ``Path`` and is no ``Label``, so the call is
    ``join(Path)``, not the method itself; ``registry.label`` is a ``Label`` field; a String
    method on a String literal or local returns a String (a JDK fact); a ``Route`` argument
    takes ``accept(Route)`` over ``accept(Path)`` (the most specific); a library type
    (``Function``) is never a repository class (``take(Object)``, not ``take(Label)``)."""
    deps = resolved(tmp_path, java_files(LABEL, REGISTRY, ROUTE))

    def overload(name: str, param: str) -> str:
        first = line_of(ROUTE, f" {name}(")
        line = line_of(ROUTE, f"{name}({param}")
        return f"com.ex.fs.Route.{name}#1" + ("" if line == first else f"@{line}")

    join = reached_from(deps, "com.ex.fs.Route.join#1", line_of(ROUTE, "join(registry.route"))
    assert join == {"com.ex.fs.Registry.route", overload("join", "Path other")}

    def at(text: str) -> set[str | None]:  # the library's calls (``trim``) left out
        return reached_from(deps, "com.ex.fs.Route.run", line_of(ROUTE, text)) - {None}

    assert at("join(registry.label)") == {overload("join", "Label label")}
    assert at('join("a".repeat(2))') == {overload("join", "String other")}
    assert at("join(name.trim())") == {overload("join", "String other")}
    assert at("accept(route)") == {overload("accept", "Route route")}
    assert at("accept(registry.route(") == {
        "com.ex.fs.Registry.route",
        overload("accept", "Route route"),
    }
    assert at("take(lookup)") == {overload("take", "Object value")}
