"""Identity decorators and call sites with many candidates (issue 29).

jinja's ``@internalcode`` (``def internalcode(f: F) -> F: ...; return f``) merged every function
it wraps: the parameter's annotation counted as a reassignment, so the decorator was not seen
passing its argument through, and ``env.get_template(...)`` resolved to all 25 wrapped functions.
A call site still left with many targets is kept as ``may_call`` candidates, not as calls."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.code_memory.model import MAX_CALL_TARGETS
from tests.code_fixtures import call_edges, resolved

JINJA_LIKE = {
    "pkg/__init__.py": "",
    "pkg/utils.py": '''
        import typing as t
        F = t.TypeVar("F", bound=t.Callable[..., t.Any])
        internal_code: set = set()

        def internalcode(f: F) -> F:
            """Marks the function as internally used / помечает функцию."""
            internal_code.add(f.__code__)
            return f

        def pass_context(f: F) -> F:
            f.jinja_pass_arg = 1  # type: ignore
            return f
        ''',
    "pkg/environment.py": """
        from pkg.utils import internalcode, pass_context

        class Environment:
            @internalcode
            def parse(self, source):
                return source

            @internalcode
            def compile(self, source):
                return self.parse(source)

            @internalcode
            def get_template(self, name):
                return self.compile(name)

            @internalcode
            def select_template(self, names):
                return names

        @pass_context
        def do_upper(ctx, s):
            return s

        @pass_context
        def do_lower(ctx, s):
            return s

        def render(env: Environment):
            env.get_template("index.html")
            return do_upper(None, "x")
        """,
}


def test_identity_decorator_with_annotations_keeps_each_function_apart(tmp_path: Path) -> None:
    deps = resolved(tmp_path, JINJA_LIKE)
    calls = call_edges(deps)
    env = "pkg.environment"
    assert (f"{env}.render", f"{env}.Environment.get_template") in calls
    assert (f"{env}.render", f"{env}.do_upper") in calls
    # one target per site: not every function the decorator wraps
    render = {dst for src, dst in calls if src == f"{env}.render"}
    assert render == {f"{env}.Environment.get_template", f"{env}.do_upper"}
    callers_of_parse = {src for src, dst in calls if dst == f"{env}.Environment.parse"}
    assert callers_of_parse == {f"{env}.Environment.compile"}
    assert all(d.kind != "may_call" for d in deps)
    edge = next(d for d in deps if d.dst == f"{env}.Environment.get_template")
    assert (edge.provenance, edge.candidates, edge.confidence) == ("heuristic", 1, 1.0)


def test_call_site_with_many_targets_is_kept_as_candidates(tmp_path: Path) -> None:
    n = MAX_CALL_TARGETS + 2
    handlers = "".join(f"def handler_{i}(x):\n    return x\n\n" for i in range(n))
    table = ", ".join(f"handler_{i}" for i in range(n))
    code = (
        f"{handlers}HANDLERS = [{table}]\n\n"
        "def dispatch(x):\n    for h in HANDLERS:\n        h(x)\n\n"
        "def direct(x):\n    return handler_0(x)\n"
    )
    deps = resolved(tmp_path, {"dispatch.py": code})
    candidates = [d for d in deps if d.kind == "may_call"]
    assert {d.dst for d in candidates} == {f"dispatch.handler_{i}" for i in range(n)}
    assert {d.src for d in candidates} == {"dispatch.dispatch"}
    assert all(d.candidates == n and d.confidence == round(1 / n, 3) for d in candidates)
    assert ("dispatch.direct", "dispatch.handler_0") in call_edges(deps)
    assert not any(src == "dispatch.dispatch" for src, _ in call_edges(deps))
