"""Express-style handler parameters (``function (req, res, next)``) typed by the package's
export objects (``module.exports = res; res.send = function``), and where that rule must not
fire: a lone ``res`` parameter, a rebound one, a file never loaded with the package, two
objects of one name, a member the object lacks (code_memory.js_handlers); a ``require`` inside
an expression is an import. Pure: no engines."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.code_memory.graph import Dependency, resolve
from tests.code_fixtures import indexed_files, resolved

_LIB = {
    "lib/response.js": """
        var http = require('http');
        var res = Object.create(http.ServerResponse.prototype);
        module.exports = res;
        res.send = function send(body) { return this; };
        res.contentType =
        res.type = function contentType(type) { return this.send(type); };
    """,
    "lib/request.js": """
        var req = Object.create(require('http').IncomingMessage.prototype);
        module.exports = req;
        req.get = function header(name) { return name; };
    """,
    "lib/express.js": """
        var req = require('./request');
        var res = require('./response');
        exports = module.exports = function createApplication() { return {}; };
        exports.request = req;
        exports.response = res;
    """,
}


def _calls(deps: list[Dependency]) -> dict[tuple[str, int], str | None]:
    """(caller, line) -> the resolved callee (None: unresolved or external)."""
    return {(d.src, d.line): d.dst for d in deps if d.kind == "calls"}


def test_handler_parameters_resolve_to_the_packages_request_and_response(tmp_path: Path) -> None:
    files = indexed_files(
        tmp_path,
        {
            **_LIB,
            "app/index.js": """
                var express = require('../lib/express');
                var routes = require('./routes');
                var app = express();
                app.get('/', function (req, res) {
                    res.send('hi');
                    req.get('Host');
                });
                app.use(function (err, req, res, next) {
                    load(function (e) {
                        res.type('html');
                    });
                });
                function load(cb) { cb(null); }
            """,
            # Never requires the package itself, but app/index.js loads it with it.
            "app/routes.js": """
                exports.view = function (req, res) {
                    res.send('user');
                };
            """,
        },
    )
    calls = _calls(resolve(files))
    assert calls[("app/index", 5)] == "lib/response.res.send"
    assert calls[("app/index", 6)] == "lib/request.req.get"
    # A closure inside the handler sees the handler's ``res``; ``res.type`` is the second name
    # of ``res.contentType = res.type = function``.
    assert calls[("app/index", 10)] == "lib/response.res.type"
    assert calls[("app/routes.view", 2)] == "lib/response.res.send"


def test_chained_assignment_gives_every_name_a_symbol(tmp_path: Path) -> None:
    files = indexed_files(tmp_path, _LIB)
    response = next(f for f in files if f.path == "lib/response.js")
    names = {s.qualified_name for s in response.symbols}
    assert {"lib/response.res.contentType", "lib/response.res.type"} <= names
    # The body's calls are the first name's (``this.send`` inside contentType).
    calls = _calls(resolve(files))
    assert calls[("lib/response.res.contentType", 6)] == "lib/response.res.send"


def test_rule_does_not_fire_on_parameters_of_unrelated_functions(tmp_path: Path) -> None:
    files = indexed_files(
        tmp_path,
        {
            **_LIB,
            "app/index.js": """
                var express = require('../lib/express');
                function sendfile(res, file) {
                    res.send(file);
                }
                function handler(req, res) {
                    res = wrap(res);
                    res.send('x');
                }
                function plain(req, res) {
                    res.end();
                }
                function wrap(r) { return r; }
            """,
            # TypeScript parameters with declared types are typed by them, not by their names.
            "app/typed.ts": """
                import express from '../lib/express';
                import { IncomingMessage, ServerResponse } from 'http';
                export function typed(req: IncomingMessage, res: ServerResponse) {
                    res.send('x');
                }
                export function untyped(req, res) {
                    res.send('y');
                }
            """,
            # A server of its own that never meets lib/ in one program.
            "other/server.js": """
                var http = require('http');
                http.createServer(function (req, res) {
                    res.send('not express');
                });
            """,
        },
    )
    calls = _calls(resolve(files))
    assert calls[("app/index.sendfile", 3)] is None  # one parameter: not handler-shaped
    assert calls[("app/index.handler", 7)] is None  # ``res`` rebound in the function
    assert calls[("app/index.plain", 10)] is None  # the object has no ``end``
    assert calls[("other/server", 3)] is None  # not loaded with the package
    assert calls[("app/typed.typed", 4)] is None  # declared ServerResponse, not express's res
    assert calls[("app/typed.untyped", 7)] == "lib/response.res.send"


def test_two_export_objects_of_one_name_leave_the_call_unresolved(tmp_path: Path) -> None:
    files = indexed_files(
        tmp_path,
        {
            **_LIB,
            "mock/response.js": """
                var res = {};
                module.exports = res;
                res.send = function () {};
            """,
            "app/index.js": """
                var express = require('../lib/express');
                var mock = require('../mock/response');
                express().get('/', function (req, res) {
                    res.send('which one?');
                });
            """,
            "app/solo.js": """
                var express = require('../lib/express');
                express().get('/', function (req, res) {
                    res.send('only lib');
                });
            """,
        },
    )
    calls = _calls(resolve(files))
    assert calls[("app/index", 4)] is None
    assert calls[("app/solo", 3)] == "lib/response.res.send"


def test_require_inside_an_expression_is_an_import_that_joins_the_handler(tmp_path: Path) -> None:
    deps = resolved(
        tmp_path,
        {
            **_LIB,
            "app/index.js": """
                var app = require('../lib/express')();
                app.use(require('./routes'));
            """,
            "app/routes.js": """
                module.exports = function (req, res) {
                    res.send('joined by the inline require');
                };
            """,
        },
    )
    imports = {(d.src, d.dst) for d in deps if d.kind == "imports" and d.dst}
    assert ("app/index", "app/routes") in imports
    assert ("app/index", "lib/express") in imports
    assert not [d for d in deps if d.kind == "calls" and d.dst_name == "require"]
    assert _calls(deps)[("app/routes.exports", 2)] == "lib/response.res.send"
