"""What a Java name in a class body refers to, by Java's rules (issue 29, jsoup): ``new X(..)``
calls X's declared constructor however X is spelled (imported, ``Outer.Inner``); a field of a
class in another file, or a static field read through its class, has its declared type; a bare
call inside a nested class searches the classes around it, outward."""

from __future__ import annotations

from pathlib import Path

from tests.code_fixtures import call_edges, resolved

TOKEN_QUEUE = """
    package com.ex.parser;

    public class TokenQueue {
      public TokenQueue(String data) {}
      public TokenQueue(String data, int at) {}
      public String remainder() { return ""; }
    }
    """
EVALUATOR = """
    package com.ex.select;

    public abstract class Evaluator {
      public static final class AttributeWithValue extends Evaluator {
        public AttributeWithValue(String key, String value) {}
      }
      public static final class AllElements extends Evaluator {}
    }
    """
QUERY_PARSER = """
    package com.ex.select;

    import com.ex.parser.TokenQueue;
    import com.ex.select.Evaluator.AttributeWithValue;

    /** Разбор запроса / parses a query. */
    final class QueryParser {
      Evaluator byAttribute(String key, String rest) {
        TokenQueue cq = new TokenQueue(rest);
        new AttributeWithValue(key, "imported nested");
        new Evaluator.AllElements();
        return new Evaluator.AttributeWithValue(key, cq.remainder());
      }
    }
    """


def _query_parser_calls(tmp_path: Path) -> set[tuple[str, str]]:
    return call_edges(
        resolved(
            tmp_path,
            {
                "src/com/ex/parser/TokenQueue.java": TOKEN_QUEUE,
                "src/com/ex/select/Evaluator.java": EVALUATOR,
                "src/com/ex/select/QueryParser.java": QUERY_PARSER,
            },
        )
    )


def test_new_of_an_imported_class_calls_its_declared_constructor(tmp_path: Path) -> None:
    calls = _query_parser_calls(tmp_path)
    caller = "com.ex.select.QueryParser.byAttribute"
    assert (caller, "com.ex.parser.TokenQueue.TokenQueue#1") in calls  # one argument
    assert (caller, "com.ex.parser.TokenQueue") not in calls


def test_new_of_a_qualified_nested_class_calls_its_declared_constructor(tmp_path: Path) -> None:
    calls = _query_parser_calls(tmp_path)
    caller = "com.ex.select.QueryParser.byAttribute"
    with_value = "com.ex.select.Evaluator.AttributeWithValue"
    assert (caller, f"{with_value}.AttributeWithValue") in calls  # ``Outer.Inner``, imported
    assert (caller, with_value) not in calls
    # A class that declares no constructor: its implicit one is no symbol, the class stands.
    assert (caller, "com.ex.select.Evaluator.AllElements") in calls


TOKEN = """
    package com.ex.parser;

    abstract class Token {
      abstract static class Tag extends Token {
        Tag appendTagName(String name) { return this; }
      }
    }
    """
TOKEN_DATA = """
    package com.ex.parser;

    final class TokenData {
      void append(String s) {}
    }
    """
BASE_TOKENISER = """
    package com.ex.parser;

    abstract class BaseTokeniser {
      final TokenData dataBuffer = new TokenData();
    }
    """
TOKENISER = """
    package com.ex.parser;

    final class Tokeniser extends BaseTokeniser {
      Token.Tag tagPending;
      Tokeniser self;
    }
    """
STATE = """
    package com.ex.parser;

    final class TokeniserState {
      void read(Tokeniser t) {
        t.tagPending.appendTagName("a");  // a field of a class in another file
        t.dataBuffer.append("b");  // inherited from its super class, in a third file
        t.self.tagPending.appendTagName("c");  // field after field
      }
    }
    """
AUTH = """
    package com.ex.helper;

    class AuthenticationHandler {
      static AuthShim handler;

      interface AuthShim {
        void remove();
      }
    }
    """
CONNECTION = """
    package com.ex.helper;

    import java.util.ArrayList;

    final class HttpConnection {
      static ArrayList<String> names;

      void execute() {
        AuthenticationHandler.handler.remove();  // a static field read through its class
        HttpConnection.names.size();  // a library type: external
      }
    }
    """


def test_fields_of_classes_in_other_files_have_their_declared_type(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            "src/com/ex/parser/Token.java": TOKEN,
            "src/com/ex/parser/TokenData.java": TOKEN_DATA,
            "src/com/ex/parser/BaseTokeniser.java": BASE_TOKENISER,
            "src/com/ex/parser/Tokeniser.java": TOKENISER,
            "src/com/ex/parser/TokeniserState.java": STATE,
            "src/com/ex/helper/AuthenticationHandler.java": AUTH,
            "src/com/ex/helper/HttpConnection.java": CONNECTION,
        },
    )
    calls = call_edges(deps)
    read = "com.ex.parser.TokeniserState.read"
    assert (read, "com.ex.parser.Token.Tag.appendTagName") in calls
    assert (read, "com.ex.parser.TokenData.append") in calls
    execute = "com.ex.helper.HttpConnection.execute"
    assert (execute, "com.ex.helper.AuthenticationHandler.AuthShim.remove") in calls
    size = [d for d in deps if d.src == execute and d.dst_name.endswith("size")]
    assert [(d.dst, d.target_kind) for d in size] == [(None, "external")]


ATTRIBUTES = """
    package com.ex.nodes;

    import java.util.AbstractMap;

    public class Attributes {
      static String dataKey(String key) { return "data-" + key; }
      void remove(String key) {}
      int size() { return 0; }

      private static class Dataset extends AbstractMap<String, String> {
        String put(String key, String value) {
          return dataKey(key);  // no method of Dataset: the enclosing class's
        }
      }

      class Iter {
        void remove() {}

        void next() {
          remove();  // Iter's own: the innermost class with a method of that name
          Attributes.this.remove("x");  // the enclosing instance's
          new Local().run();
        }

        class Local {
          void run() { dataKey("k"); }  // two classes out
        }
      }
    }
    """


def test_a_bare_call_in_a_nested_class_searches_the_classes_around_it(tmp_path: Path) -> None:
    calls = call_edges(resolved(tmp_path, {"src/com/ex/nodes/Attributes.java": ATTRIBUTES}))
    cls = "com.ex.nodes.Attributes"
    assert (f"{cls}.Dataset.put", f"{cls}.dataKey") in calls
    assert (f"{cls}.Iter.next", f"{cls}.Iter.remove") in calls
    assert (f"{cls}.Iter.next", f"{cls}.remove") in calls  # ``Attributes.this.remove``
    assert (f"{cls}.Iter.Local.run", f"{cls}.dataKey") in calls


CONNECTION_API = """
    package com.ex;

    public interface Connection {
      enum Method {
        GET, POST;

        public boolean hasBody() { return this == POST; }
      }
    }
    """
HTTP_CONNECTION = """
    package com.ex.helper;

    import com.ex.Connection;

    public class HttpConnection implements Connection {
      Method method = Method.GET;  // a member type inherited from Connection
    }
    """
EXECUTOR = """
    package com.ex.helper;

    final class Executor {
      boolean send(HttpConnection conn) {
        return conn.method.hasBody();
      }
    }
    """


def test_a_field_typed_by_an_inherited_member_type(tmp_path: Path) -> None:
    files = {
        "src/com/ex/Connection.java": CONNECTION_API,
        "src/com/ex/helper/HttpConnection.java": HTTP_CONNECTION,
        "src/com/ex/helper/Executor.java": EXECUTOR,
    }
    calls = call_edges(resolved(tmp_path, files))
    assert ("com.ex.helper.Executor.send", "com.ex.Connection.Method.hasBody") in calls


TREE_BUILDER = """
    package com.ex.parser;

    abstract class TreeBuilder {
      Tokeniser tokeniser;
    }
    """
TOKENISER_WITH_TRANSITION = """
    package com.ex.parser;

    final class Tokeniser {
      void transition(int state) {}
    }
    """
HTML_TREE_BUILDER = """
    package com.ex.parser;

    import java.util.function.Consumer;

    final class HtmlTreeBuilder extends TreeBuilder {
      private Tokeniser pending;

      void process() {
        tokeniser.transition(1);  // a field inherited from TreeBuilder, in another file
      }

      <T> void shadowed(T tokeniser, Consumer<Object> pending) {
        tokeniser.transition(2);  // a parameter of unknown type, not the field
        pending.transition(3);
      }

      final class Step {
        void run() {
          tokeniser.transition(4);  // a field of the class around, inherited there
        }
      }
    }
    """


STATE_ENUM = """
    package com.ex.parser;

    enum State {
      Data {
        void read() {
          tokeniser.transition(5);  // inside a constant's body: the enum's field
        }
      },
      Rcdata {
        void read() {}
      };

      static Tokeniser tokeniser;

      abstract void read();

      void reset() {
        tokeniser.transition(6);
      }
    }
    """


def test_a_bare_field_is_one_the_class_inherits_or_one_of_a_class_around_it(
    tmp_path: Path,
) -> None:
    files = {
        "src/com/ex/parser/TreeBuilder.java": TREE_BUILDER,
        "src/com/ex/parser/Tokeniser.java": TOKENISER_WITH_TRANSITION,
        "src/com/ex/parser/HtmlTreeBuilder.java": HTML_TREE_BUILDER,
        "src/com/ex/parser/State.java": STATE_ENUM,
    }
    calls = call_edges(resolved(tmp_path, files))
    cls, transition = "com.ex.parser.HtmlTreeBuilder", "com.ex.parser.Tokeniser.transition"
    assert (f"{cls}.process", transition) in calls
    assert (f"{cls}.Step.run", transition) in calls
    assert (f"{cls}.shadowed", transition) not in calls
    assert ("com.ex.parser.State.reset", transition) in calls  # a member of an enum
    read = {src for src, dst in calls if dst == transition and ".State." in src}
    assert read - {"com.ex.parser.State.reset"}  # and inside a constant's body


CONNECTION_WITH_REQUEST = """
    package com.ex;

    public interface Connection {
      interface Request {
        default boolean followRedirects() { return true; }
      }
    }
    """
HTTP_REQUEST = """
    package com.ex.helper;

    import com.ex.Connection;
    import java.util.Map;

    public class HttpConnection implements Connection {
      public static class Request implements Connection.Request {
        boolean follow() {
          return followRedirects();  // Connection.Request's, not a method of this class
        }
      }

      static final class Entry implements Map.Entry<String, String> {}
    }
    """


def test_a_qualified_super_type_is_the_type_that_path_names(tmp_path: Path) -> None:
    files = {
        "src/com/ex/Connection.java": CONNECTION_WITH_REQUEST,
        "src/com/ex/helper/HttpConnection.java": HTTP_REQUEST,
    }
    deps = resolved(tmp_path, files)
    bases = {(d.src, d.dst) for d in deps if d.kind == "inherits"}
    request = "com.ex.helper.HttpConnection.Request"
    assert (request, "com.ex.Connection.Request") in bases
    assert (request, request) not in bases  # not itself, though it is named ``Request`` too
    entry = "com.ex.helper.HttpConnection.Entry"
    assert (entry, None) in bases  # ``Map.Entry``: the library's, not this file's ``Entry``
    calls = call_edges(deps)
    assert (f"{request}.follow", "com.ex.Connection.Request.followRedirects") in calls
