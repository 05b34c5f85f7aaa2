"""The code pages over HTTP on loopback, on a really indexed repository: the repositories and
the symbol search (what memory_code_read op=repos and memory_search_code return), a file's
symbols, and a symbol with its source as the file reads, its callers and callees linked to
their own pages (the same ends memory_code_graph gives) and the claims citing it."""

from __future__ import annotations

import re

from pegas_memory.app.requests import CodeGraphRequest, CodeSearchRequest
from pegas_memory.code_memory.requests import CodeReadRequest
from tests.ui.conftest import Seeded


def get(seeded: Seeded, url: str, **params: str) -> str:
    with seeded.client(token=False) as http:
        page = http.get(url, params=params)
    assert page.status_code == 200, page.text
    return page.text


def test_the_code_page_lists_repositories_and_finds_symbols(graph_seeded: Seeded) -> None:
    [g] = graph_seeded.symbols("pkg.b.g")
    html = get(graph_seeded, "/code")
    assert '<a href="/code?repo=proj">proj</a>' in html
    row = re.search(r"<a href=\"/code\?repo=proj\">proj</a>.*?</tr>", html, re.S)
    (repo,) = graph_seeded.service.code_read(CodeReadRequest(op="repos")).repos or []
    assert row is not None and (repo.files, repo.symbols) == (4, 7)  # __init__, a, b, c
    numbers = [repo.files, repo.symbols, repo.dependencies, repo.unresolved, repo.derived]
    assert re.findall(r'<td class="num">(\d+)</td>', row[0]) == [str(n) for n in numbers]
    found = get(graph_seeded, "/code", q="g", repo="proj", kind="function")
    expected = graph_seeded.service.search_code(
        CodeSearchRequest(query="g", repo="proj", kinds=("function",), limit=30)
    )
    assert f'<a href="/code/symbol/{g}">pkg.b.g</a>' in found
    assert f"{expected.total} symbols match" in found
    for hit in expected.hits:
        assert f'href="/code/symbol/{hit.id}"' in found


def test_a_symbol_page_shows_its_source_callers_callees_and_citing_claims(
    graph_seeded: Seeded,
) -> None:
    f, g, h = graph_seeded.symbols("pkg.a.f", "pkg.b.g", "pkg.c.h")
    html = get(graph_seeded, f"/code/symbol/{g}")
    assert '<code id="symbol-name">pkg.b.g</code>' in html
    assert '<span class="ln">4</span>def g():' in html  # lines numbered as in the file
    assert '<span class="ln">6</span>    return 2 * h()' in html
    callers = html.split("<h2>Callers</h2>")[1].split("<h2>Callees</h2>")[0]
    callees = html.split("<h2>Callees</h2>")[1].split("<h2>Claims citing it")[0]
    assert f'<a href="/code/symbol/{f}">pkg.a.f</a>' in callers
    assert f'<a href="/code/symbol/{h}">pkg.c.h</a>' in callees
    for relation, part in (("callers", callers), ("callees", callees)):
        walk = graph_seeded.service.code_graph(
            CodeGraphRequest(repo="proj", symbol_id=g, relation=relation)  # type: ignore[arg-type]
        )
        assert {p.end.id for p in walk.paths} == {
            int(i) for i in re.findall(r'<a href="/code/symbol/(\d+)">', part)
        }
    assert f'<a href="/atom/{graph_seeded.extra["citing"]}"' in html
    assert f'href="/graph?node=symbol:{g}"' in html
    # The follow-on page: h is called, calls nothing.
    leaf = get(graph_seeded, f"/code/symbol/{h}")
    assert "It calls nothing inside the repository." in leaf
    assert "No claim cites this symbol." in leaf


def test_a_file_page_lists_its_symbols_in_line_order(graph_seeded: Seeded) -> None:
    [g] = graph_seeded.symbols("pkg.b.g")
    html = get(graph_seeded, "/code/file", repo="proj", path="pkg/b.py")
    names = re.findall(r'<a href="/code/symbol/\d+">([^<]+)</a>', html)
    assert names == ["pkg.b", "pkg.b.g"]
    assert f'href="/code/symbol/{g}"' in html


def test_a_symbol_whose_file_went_away_still_shows_what_the_index_knows(
    graph_seeded: Seeded,
) -> None:
    [g] = graph_seeded.symbols("pkg.b.g")
    (graph_seeded.extra["root"] / "pkg" / "b.py").unlink()
    html = get(graph_seeded, f"/code/symbol/{g}")
    assert "is no longer in" in html and "re-index the repository" in html
    [f] = graph_seeded.symbols("pkg.a.f")
    assert f'<a href="/code/symbol/{f}">pkg.a.f</a>' in html


def test_unknown_symbols_files_and_repositories_are_404_pages(graph_seeded: Seeded) -> None:
    with graph_seeded.client(token=False) as http:
        assert http.get("/code/symbol/99999999").status_code == 404
        assert http.get("/code/file", params={"repo": "proj", "path": "nope.py"}).status_code == 404
        assert http.get("/code/file", params={"repo": "nope", "path": "a.py"}).status_code == 404
