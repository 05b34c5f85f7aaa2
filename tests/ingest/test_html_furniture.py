"""Page furniture that trafilatura keeps never becomes an atom (issue 15, HTML junk): a block of
teasers after a "related" heading, an image caption repeating the image's alt text, a call to
action / notification bar / subscribe box / author bio box. Each class in English and Russian
(German for the boxes), through the file ingest of an HTML page and once through
`memory_ingest` of a URL on loopback; and the other side: an article whose wrapper or heading
carries such a word, or a short paragraph after an image that is not its alt text, is kept.

Every furniture case first checks its premise: with the pruning switched off the furniture
does become an atom, so each case shows what the pruning changes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.config import load_settings
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext
from pegas_memory.ingest.chunking import ParsedSource, chunk_source
from pegas_memory.ingest.furniture import _FURNITURE_TOKENS, prune_furniture
from pegas_memory.ingest.sources import parse_source, read_source
from tests.conftest import offline_memory
from tests.loopback import Replies, serve

BODY = {
    "en": [
        "The Volga is the longest river in Europe, with a length of 3,530 kilometres.",
        "Its basin covers about 1.36 million square kilometres of the Russian plain.",
        "The river flows into the Caspian Sea through a delta near Astrakhan.",
        "Eleven of the twenty largest cities of Russia lie in the Volga basin.",
    ],
    "ru": [
        "Волга является самой длинной рекой Европы, её длина составляет 3530 километров.",
        "Площадь её бассейна составляет около 1,36 миллиона квадратных километров.",
        "Река впадает в Каспийское море, образуя дельту возле Астрахани.",
        "Одиннадцать из двадцати крупнейших городов России расположены в бассейне Волги.",
    ],
    "de": [
        "Die Wolga ist mit einer Länge von 3530 Kilometern der längste Fluss Europas.",
        "Ihr Einzugsgebiet umfasst etwa 1,36 Millionen Quadratkilometer der Russischen Ebene.",
        "Der Fluss mündet bei Astrachan mit einem großen Delta in das Kaspische Meer.",
        "Elf der zwanzig größten Städte Russlands liegen im Einzugsgebiet der Wolga.",
    ],
}
TITLE = {"en": "The Volga river", "ru": "Река Волга", "de": "Der Fluss Wolga"}

# Furniture sentences read like prose, so only their place in the page tells them apart.
TEASERS = {
    "en": [
        "The Danube crosses ten countries before it reaches the Black Sea in Romania.",
        "The Rhine carries more freight than any other river of Western Europe today.",
    ],
    "ru": [
        "Дунай протекает через десять стран и впадает в Чёрное море на территории Румынии.",
        "По Рейну перевозят больше грузов, чем по любой другой реке Западной Европы.",
    ],
}
CAPTION = {
    "en": "A cargo ship passes the Volga embankment in Nizhny Novgorod",
    "ru": "Грузовое судно проходит мимо набережной Волги в Нижнем Новгороде",
}
BOXES = {
    "en": "Our weekly letter brings the best river stories of the month to 40,000 readers.",
    "ru": "Каждую пятницу редакция рассылает 40 000 читателям лучшие статьи о реках.",
    "de": "Unser wöchentlicher Brief bringt die besten Flussgeschichten an 40.000 Leser.",
}
BIO = {
    "en": "Anna Petrova has covered Russian rivers for The River Journal since 2009.",
    "ru": "Анна Петрова пишет о российских реках для журнала «Реки» с 2009 года.",
}


def page(lang: str, inside: str = "", after: str = "", *, wrapper: str = "") -> str:
    """An article of four body paragraphs; `inside` goes into the article after the second
    paragraph, `after` after the article; `wrapper` is a class put on a div around it all."""
    paras = [f"<p>{s} {s}</p>" for s in BODY[lang]]
    article = "".join(paras[:2]) + inside + "".join(paras[2:])
    html = (
        f'<!DOCTYPE html><html lang="{lang}"><head><title>{TITLE[lang]}</title></head><body>'
        '<nav><a href="/">Home</a> <a href="/rivers">Rivers</a></nav>'
        f"<main><article><h1>{TITLE[lang]}</h1>{article}</article>{after}</main>"
        "<footer><p>© 2024 Example</p></footer></body></html>"
    )
    if wrapper:
        html = html.replace("<main>", f'<main><div class="{wrapper}">').replace(
            "</main>", "</div></main>"
        )
    return html


def parsed_of(tmp_path: Path, html: str) -> ParsedSource:
    """An HTML file parsed as `memory_ingest` parses it."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "page.html"
    path.write_text(html, encoding="utf-8")
    settings = load_settings(ingest_roots=[str(tmp_path)], data_dir=tmp_path / "data")
    return parse_source(read_source(str(path), settings), settings)


def atoms_of(tmp_path: Path, html: str) -> list[str]:
    """The quotes of the offline atoms of an HTML file, parsed as `memory_ingest` parses it."""
    parsed = parsed_of(tmp_path, html)
    quotes: list[str] = []
    for chunk in chunk_source(parsed):
        context = ChunkContext(parsed.title, chunk.heading_path, chunk.language)
        quotes += [a.quote for a in OfflineDistiller().distill(chunk.text, context)]
    return quotes


def unpruned(tmp_path: Path, html: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The atoms' quotes with the pruning switched off: the premise of each furniture case is
    that trafilatura and the distiller alone let the furniture through."""
    import pegas_memory.ingest.html as html_mod

    with monkeypatch.context() as patch:
        patch.setattr(html_mod, "prune_furniture", lambda root: 0)
        return "\n".join(atoms_of(tmp_path / "unpruned", html))


def assert_clean(quotes: list[str], lang: str, furniture: list[str]) -> None:
    joined = "\n".join(quotes)
    for sentence in BODY[lang]:
        assert sentence in joined, (sentence, quotes)
    for text in furniture:
        assert not any(text[:40] in q for q in quotes), (text, quotes)


def teaser_block(lang: str) -> str:
    items = "".join(
        f'<article class="post"><h4><a href="/p{i}">Story {i}</a></h4><p>{t}</p></article>'
        for i, t in enumerate(TEASERS[lang])
    )
    heading = {"en": "You may also like", "ru": "Читайте также"}[lang]
    return f'<h3 class="relatedpoststitle">{heading}</h3>{items}'


def caption_figure(lang: str) -> str:
    return (
        f'<div class="article-img"><img src="/ship.jpg" alt="{CAPTION[lang]}"></div><br>'
        f'<span class="small gray">{CAPTION[lang]}</span>'
    )


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_teaser_block_after_a_related_heading_is_no_atom(
    tmp_path: Path, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    html = page(lang, inside=teaser_block(lang))
    assert TEASERS[lang][0] in unpruned(tmp_path, html, monkeypatch)
    assert_clean(atoms_of(tmp_path, html), lang, TEASERS[lang])


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_caption_repeating_the_image_alt_is_no_atom(
    tmp_path: Path, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    html = page(lang, inside=caption_figure(lang))
    assert CAPTION[lang] in unpruned(tmp_path, html, monkeypatch)
    assert_clean(atoms_of(tmp_path, html), lang, [CAPTION[lang]])


@pytest.mark.parametrize(
    ("lang", "box"),
    [
        ("en", '<div class="nrplus-cta--content"><p>{}</p></div>'),
        ("ru", '<div id="wpfront-notification-bar"><p>{}</p></div>'),
        ("de", '<div class="signupForm"><p>{}</p></div>'),
        ("en", '<div class="subscribe-box"><p>{}</p></div>'),
    ],
)
def test_call_to_action_and_notification_boxes_are_no_atoms(
    tmp_path: Path, lang: str, box: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    html = page(lang, inside=box.format(BOXES[lang]))
    assert BOXES[lang][:40] in unpruned(tmp_path, html, monkeypatch)
    assert_clean(atoms_of(tmp_path, html), lang, [BOXES[lang]])


@pytest.mark.parametrize("token", sorted(_FURNITURE_TOKENS))
def test_every_furniture_word_prunes_a_box_trafilatura_keeps(
    tmp_path: Path, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    html = page("en", inside=f'<div class="site-{token}-box"><p>{BOXES["en"]}</p></div>')
    assert BOXES["en"][:40] in unpruned(tmp_path, html, monkeypatch)
    assert_clean(atoms_of(tmp_path, html), "en", [BOXES["en"]])


@pytest.mark.parametrize(("lang", "box"), [("en", "post-bio"), ("ru", "biography")])
def test_an_author_bio_box_is_no_atom(
    tmp_path: Path, lang: str, box: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    html = page(lang, inside=f'<div class="{box}"><p>{BIO[lang]}</p></div>')
    assert BIO[lang][:40] in unpruned(tmp_path, html, monkeypatch)
    assert_clean(atoms_of(tmp_path, html), lang, [BIO[lang]])


def link_line(lang: str) -> str:
    links = (f'<a href="/t{i}">{t}</a>' for i, t in enumerate(TEASERS[lang]))
    return "<p>" + " | ".join(links) + "</p>"


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_paragraph_of_teaser_links_is_no_atom(
    tmp_path: Path, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    html = page(lang, inside=link_line(lang))
    assert TEASERS[lang][0][:40] in unpruned(tmp_path, html, monkeypatch)
    assert_clean(atoms_of(tmp_path, html), lang, TEASERS[lang])


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_sentence_with_two_links_in_it_is_kept(tmp_path: Path, lang: str) -> None:
    # Two links, but most of the paragraph's text is outside them: running text, not a link line.
    a, b = TEASERS[lang][0].split(" ", 1)
    sentence = f'<p><a href="/x">{a}</a> {b} <a href="/y">.</a></p>'.replace(". <a", " <a")
    quotes = atoms_of(tmp_path, page(lang, inside=sentence))
    assert_clean(quotes, lang, [])
    assert any(b.rstrip(".")[:30] in q for q in quotes), quotes


# --- the other side: what looks like furniture by a word but holds the article ------------------


@pytest.mark.parametrize("lang", ["en", "ru", "de"])
def test_a_wrapper_named_like_furniture_keeps_the_article(tmp_path: Path, lang: str) -> None:
    # "promo-page" carries the word "promo", but the div holds the whole article: it is kept and
    # found as the main text (not only by the all-visible-text fallback, which warns).
    html = page(lang, wrapper="promo-page layout")
    assert parsed_of(tmp_path / "p", html).warnings == ()
    assert_clean(atoms_of(tmp_path, html), lang, [])


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_related_heading_over_the_article_itself_keeps_it(tmp_path: Path, lang: str) -> None:
    # The heading is classed "related" and the article's paragraphs after it sit in divs (so
    # they look like cards), but they are nearly all of the page's text.
    html = page(lang).replace("<h1>", '<h1 class="related-title">')
    html = html.replace("<p>", "<div><p>").replace("</p>", "</p></div>")
    assert parsed_of(tmp_path / "p", html).warnings == ()
    assert_clean(atoms_of(tmp_path, html), lang, [])


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_paragraph_after_an_image_that_is_not_its_alt_is_kept(tmp_path: Path, lang: str) -> None:
    figure = f'<img src="/ship.jpg" alt="{CAPTION[lang]}"><p>{TEASERS[lang][0]}</p>'
    quotes = atoms_of(tmp_path, page(lang, inside=figure))
    assert_clean(quotes, lang, [])
    assert any(TEASERS[lang][0] in q for q in quotes)


def test_prune_furniture_counts_what_it_removed() -> None:
    import lxml.html

    root = lxml.html.document_fromstring(
        page("en", inside=caption_figure("en") + teaser_block("en"))
    )
    # the caption span, and the related heading with its two teaser articles
    assert prune_furniture(root) == 4
    text = root.text_content()
    assert CAPTION["en"] not in text.replace(f'alt="{CAPTION["en"]}"', "")
    assert TEASERS["en"][0] not in text and BODY["en"][3] in text
    assert prune_furniture(lxml.html.document_fromstring(page("en"))) == 0


# --- through memory_ingest of a URL --------------------------------------------------------------


class _Pages(Replies):
    def do_GET(self) -> None:
        lang = self.path.strip("/")
        inside = teaser_block(lang) + caption_figure(lang)
        inside += f'<div class="post-bio"><p>{BIO[lang]}</p></div>'
        self.reply(200, page(lang, inside=inside).encode())


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with offline_memory(
        database_url, tmp_path / "data", dim=64, url_allowlist=["127.0.0.1"]
    ) as svc:
        yield svc


def test_memory_ingest_of_a_page_stores_its_body_not_its_furniture(service: MemoryService) -> None:
    with serve(_Pages) as base:
        for lang in ("en", "ru"):
            result = service.ingest(IngestRequest(source=f"{base}/{lang}"))
            assert result.kind == "web" and result.atoms_new >= 4
    with service.db.connection() as conn:
        rows = conn.execute("SELECT quoted_text AS q FROM pm_citation").fetchall()
    quotes = [r["q"] for r in rows]
    for lang in ("en", "ru"):
        assert_clean(quotes, lang, [*TEASERS[lang], CAPTION[lang], BIO[lang]])
