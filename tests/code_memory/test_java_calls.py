"""Java calls real repositories resolved wrong (issue 29, javapoet): a call with more arguments
than any overload takes binds to the varargs overload, not to the one-argument one; a
statically imported method resolves; ``new X(..)`` is a call of X's constructor."""

from __future__ import annotations

from pathlib import Path

from tests.code_fixtures import call_edges, resolved

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
    calls = call_edges(
        resolved(tmp_path, {"src/com/ex/CodeBlock.java": CODE_BLOCK, "src/com/ex/Util.java": UTIL})
    )
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
    calls = call_edges(
        resolved(
            tmp_path,
            {
                "src/com/ex/help/TextStyle.java": STYLE,
                "src/com/ex/help/HelpFormatter.java": FORMATTER,
            },
        )
    )
    table = "com.ex.help.HelpFormatter.table"
    assert (table, "com.ex.help.TextStyle.Builder.get") in calls
    assert (table, "com.ex.help.HelpFormatter.Builder.get") not in calls
