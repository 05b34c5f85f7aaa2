"""The pages, read over real HTTP on loopback from a real PostgreSQL memory."""

from __future__ import annotations

import re

from markupsafe import escape

from tests.ui.conftest import Seeded


def test_overview_shows_counts_documents_gaps_outbox_and_slices(seeded: Seeded) -> None:
    with seeded.client(token=False) as http:
        page = http.get("/")
    assert page.status_code == 200
    html = page.text
    stats = seeded.service.stats()
    assert f"Atoms: {stats.atoms_total}" in html
    assert re.search(rf'id="outbox-pending">{stats.outbox_pending}<', html)
    assert "Telescopes" in html and "Реки Европы" in html
    assert f'href="/document/{seeded.ru_doc}"' in html
    assert "resolving power of the Yerkes refractor" in html
    assert "No code repository indexed." in html
    for s in stats.slices:
        assert s.name in html


def test_search_shows_each_hits_store_arms_status_and_score(seeded: Seeded) -> None:
    with seeded.client(token=False) as http:
        page = http.get("/search", params={"q": "objective lens refractor"})
    assert page.status_code == 200
    html = page.text
    assert f'href="/atom/{seeded.en_atom}"' in html
    assert re.search(r'<span class="store">atom</span>', html)
    assert re.search(r"found by [a-z_]+ #\d", html)
    assert '<span class="status candidate">candidate</span>' in html
    assert re.search(r"score \d\.\d{4}", html)


def test_search_lists_the_atoms_folded_into_a_hit_of_their_passage(seeded: Seeded) -> None:
    with seeded.client(token=False) as http:
        html = http.get("/search", params={"q": "Волга длина река Европа километров"}).text
    folded = re.search(
        r'<div class="small folded">also matched in the same passage: (.*?)</div>', html
    )
    assert folded is not None
    shown = {int(i) for i in re.findall(r'<a href="/atom/(\d+)">atom \d+</a>', folded.group(1))}
    assert shown and shown < set(seeded.ru_doc_atoms)


def test_search_filters_by_store_and_status(seeded: Seeded) -> None:
    with seeded.client(token=False) as http:
        passages = http.get("/search", params={"q": "Волга река", "store": "passages"}).text
        verified = http.get(
            "/search", params={"q": "objective lens refractor", "status": "verified"}
        ).text
    assert '<span class="store">passage</span>' in passages
    assert '<span class="store">atom</span>' not in passages
    assert "Nothing found" in verified  # nothing is verified yet


def test_claim_page_marks_the_quoted_words_inside_their_passage(seeded: Seeded) -> None:
    atom_id = seeded.ru_doc_atoms[0]
    cite = seeded.row(
        "SELECT c.quoted_text, k.content FROM pm_citation c"
        " JOIN pm_chunk k ON k.id = c.chunk_id WHERE c.atom_id = %s",
        atom_id,
    )
    assert cite["quoted_text"]
    with seeded.client(token=False) as http:
        html = http.get(f"/atom/{atom_id}").text
    marked = re.search(
        r'<mark title="cited by atom [\d, ]+"><a href="/atom/\d+">(.*?)</a></mark>', html, re.S
    )
    assert marked is not None and marked.group(1) == cite["quoted_text"]
    assert 'class="passage" lang="ru"' in html
    assert "Реки Европы" in html  # the citation names its document


def test_claim_page_names_the_rules_that_typed_and_promoted_a_distilled_atom(
    seeded: Seeded,
) -> None:
    atom_id = seeded.ru_doc_atoms[0]
    meta = seeded.row("SELECT metadata FROM pm_atom WHERE id = %s", atom_id)["metadata"]
    with seeded.client(token=False) as http:
        html = http.get(f"/atom/{atom_id}").text
        by_hand = http.get(f"/atom/{seeded.en_atom}").text
    row = re.search(r'<td id="atom-rules">(.*?)</td>', html, re.S)
    assert row is not None and row.group(1).startswith("offline")
    assert f"typed by <q>{escape(meta['typed_by'])}</q>" in row.group(1)
    assert f"promoted by <q>{escape(meta['promoted_by'])}</q>" in row.group(1)
    assert 'id="atom-rules"' not in by_hand  # stored by the agent: no distiller decided


def test_claim_page_shows_status_history_with_reasons_and_links(seeded: Seeded) -> None:
    seeded.service.forget(mode="retract", atom_ids=[seeded.en_atom], reason="a bad source")
    with seeded.client(token=False) as http:
        html = http.get(f"/atom/{seeded.en_atom}").text
    assert "(stored)" in html
    assert "retracted: a bad source" in html
    assert '<span class="status stale" id="atom-status">stale</span>' in html
    assert "a 36-inch objective lens" in html  # the quote, its passage being the source alone


def test_document_page_shows_versions_types_and_marked_cited_spans(seeded: Seeded) -> None:
    with seeded.client(token=False) as http:
        html = http.get(f"/document/{seeded.en_doc}").text
    assert "Versions" in html and "(current)" in html
    assert "Atoms by type" in html
    marks = re.findall(r'<mark title="cited by atom ([\d, ]+)">', html)
    cited = {int(a) for m in marks for a in m.split(", ")}
    assert cited and cited <= set(seeded.en_doc_atoms)
    assert 'class="passage" lang="en"' in html
    assert "Yerkes Observatory refractor" in html


def test_russian_and_english_render_side_by_side_with_their_languages(seeded: Seeded) -> None:
    with seeded.client(token=False) as http:
        page = http.get("/search", params={"q": "observatory озеро"})
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    html = page.text
    assert 'lang="ru">Байкал — самое глубокое озеро на Земле.<' in html
    assert re.search(r'lang="en">[^<]*refractor', html)


def test_a_claim_holding_a_script_renders_as_text(seeded: Seeded) -> None:
    with seeded.client(token=False) as http:
        atom_page = http.get(f"/atom/{seeded.script_atom}")
        search_page = http.get("/search", params={"q": "Beware stored claims"})
    for page in (atom_page, search_page):
        assert "<script>" not in page.text
        assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in page.text
        csp = page.headers["content-security-policy"]
        assert "script-src 'self';" in csp and "unsafe" not in csp  # only the package's file
    assert "&amp; quotes" in atom_page.text


def test_unknown_atom_and_document_are_404_pages(seeded: Seeded) -> None:
    with seeded.client(token=False) as http:
        assert http.get("/atom/999999").status_code == 404
        assert http.get("/document/999999").status_code == 404
