"""A book chapter in XHTML keeps its sections: chunks carry its headings and citations name
them, not bare character positions."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import cited_claims, files_memory, ingest_text

CHAPTER = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="en">
<head><title>Chapter 3. Graphs</title></head>
<body><section epub:type="chapter" id="ch3">
<h1 class="chapter-title">Chapter 3. Graphs</h1>
<p>A graph is a set of vertices joined by edges. Graphs model networks of many kinds, from
roads to proteins.</p>
<h2 id="s31">3.1 Trees</h2>
<p>A tree is a connected graph without cycles. Every tree with n vertices has exactly n minus
one edges.</p>
<h2 id="s32">3.2 Cycles</h2>
<p>A graph is bipartite exactly when it has no cycle of odd length.</p>
</section></body></html>
"""


def test_an_xhtml_chapters_citations_name_its_sections(database_url: str, tmp_path: Path) -> None:
    with files_memory(database_url, tmp_path, dim=64) as svc:
        ingest_text(svc, tmp_path / "files" / "ch3.xhtml", CHAPTER)
        locator = dict(cited_claims(svc))
    tree = next(v for k, v in locator.items() if k.startswith("A tree is"))
    assert "3.1 Trees" in tree
    bipartite = next(v for k, v in locator.items() if "bipartite" in k)
    assert "3.2 Cycles" in bipartite
