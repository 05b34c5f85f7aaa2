"""The search page's filters (document, topic, language, store, with type and status) go to
memory_search's own filter: the page lists exactly the hits the service answers with the same
filter, and every hit obeys it."""

from __future__ import annotations

import re

import httpx

from pegas_memory.app.requests import SearchRequest, StoreRequest
from pegas_memory.search.filters import SearchFilter
from tests.ui.conftest import Seeded

HIT = re.compile(
    r'<li class="hit (atom|passage)">\s*<div class="meta">\s*<span class="store">'
    r'\w+</span>\s*<a href="[^"]+">(?:atom|passage) (\d+)</a>'
)


def page_hits(seeded: Seeded, **params: object) -> tuple[set[tuple[str, int]], str]:
    with seeded.client(token=False) as http:
        answer = http.get("/search", params=httpx.QueryParams(params))  # type: ignore[arg-type]
    assert answer.status_code == 200, answer.text
    return {(store, int(i)) for store, i in HIT.findall(answer.text)}, answer.text


def service_hits(seeded: Seeded, query: str, flt: SearchFilter, store: str = "both") -> list:
    result = seeded.service.search(
        SearchRequest(query=query, limit=30, flt=flt, store=store)  # type: ignore[arg-type]
    )
    return result.hits


def test_a_document_filter_keeps_to_that_documents_atoms_and_passages(seeded: Seeded) -> None:
    query = "objective lens refractor"
    everything, _ = page_hits(seeded, q=query)
    shown, html = page_hits(seeded, q=query, doc=seeded.en_doc)
    hits = service_hits(seeded, query, SearchFilter(doc_ids=(seeded.en_doc,)))
    assert shown == {(h.store, h.id) for h in hits} and shown
    assert ("atom", seeded.en_atom) in everything - shown  # stored by hand: no document
    for h in hits:
        docs = {h.document_id} if h.store == "passage" else {c.document_id for c in h.citations}
        assert seeded.en_doc in docs, h
    assert f'name="doc" value="{seeded.en_doc}" checked' in html
    assert ">Telescopes</a>" in html  # the chosen document named on the form

    other, _ = page_hits(seeded, q=query, doc=seeded.ru_doc)
    assert not other & {("atom", a) for a in seeded.en_doc_atoms}


def test_a_language_filter_keeps_to_that_language(seeded: Seeded) -> None:
    query = "самое длинная река озеро Волга Байкал lens"
    shown, html = page_hits(seeded, q=query, lang="ru")
    hits = service_hits(seeded, query, SearchFilter(languages=("ru",)))
    assert shown == {(h.store, h.id) for h in hits}
    assert {h.language for h in hits} == {"ru"}
    assert ("atom", seeded.ru_atom) in shown
    assert 'name="lang" value="ru" checked' in html and 'name="lang" value="en">' in html


def test_a_topic_filter_keeps_to_atoms_of_that_topic(seeded: Seeded) -> None:
    keck = seeded.service.store(
        StoreRequest(
            claim="The Keck telescopes have segmented mirrors of ten meters.", topic="astronomy"
        )
    ).id
    seeded.service.store(StoreRequest(claim="Segmented mirrors of ten meters are hard to polish."))
    query = "segmented mirrors ten meters"
    shown, html = page_hits(seeded, q=query, topic="astronomy")
    assert shown == {("atom", keck)}
    hits = service_hits(seeded, query, SearchFilter(topics=("astronomy",)))
    assert [(h.store, h.id) for h in hits] == [("atom", keck)]
    assert '<option value="astronomy">' in html  # offered on the form


def test_the_store_and_a_filter_combine(seeded: Seeded) -> None:
    query = "Волга река"
    shown, _ = page_hits(seeded, q=query, store="passages", lang="ru", doc=seeded.ru_doc)
    hits = service_hits(
        seeded, query, SearchFilter(doc_ids=(seeded.ru_doc,), languages=("ru",)), "passages"
    )
    assert shown == {(h.store, h.id) for h in hits} and shown
    assert {store for store, _ in shown} == {"passage"}


def test_malformed_filter_values_are_left_out_not_run(seeded: Seeded) -> None:
    plain, _ = page_hits(seeded, q="objective lens")
    odd, html = page_hits(
        seeded, q="objective lens", doc="abc", lang="<script>x</script>", type="nonsense"
    )
    assert odd == plain
    assert "<script>x</script>" not in html
