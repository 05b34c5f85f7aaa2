"""Page furniture removed from a web page's DOM before trafilatura looks for its main text.

trafilatura already drops the furniture its own class/id vocabulary names (share bars, "related"
boxes, comment lists). What still leaked into atoms on real pages was furniture told by its
*structure*, not by a name trafilatura knows:

- a heading whose class or id says it opens a block of teasers ("related", "recommended",
  "more stories", "popular"): the heading and the cards after it (containers and links, up to
  the first paragraph or heading, where the article may go on) are other pages' excerpts;
- an image caption with no caption markup: a short element right after an image whose text
  repeats the image's alt text;
- a paragraph or list that is nothing but two or more links (a line of teasers);
- banners and calls to action whose class/id uses generic furniture words trafilatura does not
  list (a notification bar, a "cta", a subscribe or sign-up box, an author bio box).

Every cut is refused when it would take a large share of the page's text (a page wrapper whose
class happens to carry one of the words), so a misnamed container never costs the article. The
vocabulary is generic web-furniture wording, in class/id tokens, not text of any page.
"""

from __future__ import annotations

import re
from typing import Any

# Class/id tokens (split at "-", "_", spaces and case changes) of blocks that are never the
# article: a notification or cookie bar, a call to action, sign-up and subscribe boxes, an author
# bio box, teaser lists. (Words trafilatura's own lists already catch, such as "newsletter", are
# not repeated here.)
_FURNITURE_TOKENS = frozenset(
    {
        "notification", "cta", "subscribe", "subscription", "signup", "paywall", "promo",
        "promotion", "bio", "biography", "recirc", "recirculation", "popular", "trending",
        "recommended", "recommendations",
    }
)  # fmt: skip
# Tokens of a heading that opens a block of teasers: the heading and what follows it go.
_TEASER_HEADING_TOKENS = frozenset(
    {"related", "relatedposts", "recommended", "popular", "trending", "more", "teaser"}
)
_TEASER_SUBSTRINGS = ("related", "recommended", "youmaylike", "morestories")
_HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# What the cards of a teaser block are made of; anything else ends the block.
_CARD_TAGS = frozenset(
    {"article", "div", "section", "aside", "ul", "ol", "li", "figure", "a", "nav"}
)
_KEEP_TAGS = frozenset({"html", "body", "main"})
_SPLIT = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPACES = re.compile(r"\s+")
# A cut may take at most this share of the page's visible text; a teaser block after its heading
# may take more (on a short post the excerpts of other posts outweigh it), never nearly all.
_MAX_SHARE = 0.25
_MAX_TEASER_SHARE = 0.67
# A link line: at least this share of its text (spaces aside) is link text.
_LINK_SHARE = 0.95
# A caption repeating an image's alt is short.
_CAPTION_WORDS = 30


def _tokens(el: Any) -> set[str]:
    names = f"{el.get('class', '')} {el.get('id', '')}"
    return {t for t in _SPLIT.split(_CAMEL.sub("-", names).lower()) if t}


def _squashed(el: Any) -> str:
    return _SPLIT.sub("", f"{el.get('class', '')}{el.get('id', '')}".lower())


def _text(el: Any) -> str:
    return _SPACES.sub(" ", el.text_content()).strip()


def _tag(el: Any) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def _drop(el: Any) -> None:
    """Remove an element but keep its tail text in the parent."""
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail
    if tail and tail.strip():
        previous = el.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)


def _is_teaser_heading(el: Any) -> bool:
    if _tag(el) not in _HEADING_TAGS:
        return False
    return bool(_tokens(el) & _TEASER_HEADING_TOKENS) or any(
        s in _squashed(el) for s in _TEASER_SUBSTRINGS
    )


def _teaser_cards(heading: Any) -> list[Any]:
    """The siblings after a teaser heading up to the first one that is running text (a
    paragraph, a heading, a quote, a table): the cards of a teaser block are containers or
    links, and the article may go on after them."""
    cards: list[Any] = []
    for sibling in heading.itersiblings():
        if _tag(sibling) not in _CARD_TAGS:
            break
        cards.append(sibling)
    return cards


def _images_before(el: Any) -> list[Any]:
    """The images just before an element: in its preceding siblings back to the first one with
    text of its own (line breaks and textless wrappers, such as a linked image, in between)."""
    images: list[Any] = []
    for previous in el.itersiblings(preceding=True):
        tag = _tag(previous)
        if tag == "img":
            images.append(previous)
        elif tag:
            images.extend(previous.iter("img"))
            if _text(previous):
                break
        if (previous.tail or "").strip():
            break
    return images


def _image_caption(el: Any) -> bool:
    """A short element right after an image that is its caption without caption markup: its text
    repeats the image's alt text. (A short italic paragraph after an image is not enough: on a
    Russian diet page it was the article's own line.)"""
    if _tag(el) in _HEADING_TAGS or ((el.text or "").strip() == "" and len(el) == 0):
        return False
    images = _images_before(el)
    if not images:
        return False
    text = _text(el)
    if not text or len(text.split()) > _CAPTION_WORDS:
        return False
    alts = {_SPACES.sub(" ", img.get("alt") or "").strip() for img in images}
    return text in alts


def _link_line(el: Any) -> bool:
    """A paragraph or list whose text is all link text in two links or more: a line of teasers."""
    tag = _tag(el)
    if tag not in ("p", "ul", "ol"):
        return False
    links = list(el.iter("a"))
    if len(links) < 2:
        return False
    text = len(_SPACES.sub("", el.text_content()))
    linked = sum(len(_SPACES.sub("", a.text_content())) for a in links)
    return text > 0 and linked >= _LINK_SHARE * text


def prune_furniture(root: Any) -> int:
    """Remove page furniture from an lxml HTML tree in place; return how many elements went.

    Refuses any cut that would take more than a quarter of the page's visible text."""
    body = root.find(".//body")
    total = len(_text(body if body is not None else root)) or 1
    doomed: list[Any] = []
    for el in root.iter():
        tag = _tag(el)
        if not tag or tag in _KEEP_TAGS:
            continue
        if _is_teaser_heading(el):
            block = [el, *_teaser_cards(el)]
            if sum(len(_text(e)) for e in block) <= _MAX_TEASER_SHARE * total:
                doomed.extend(block)
        elif (_tokens(el) & _FURNITURE_TOKENS or _image_caption(el) or _link_line(el)) and len(
            _text(el)
        ) <= _MAX_SHARE * total:
            doomed.append(el)
    removed = 0
    marked = {id(el) for el in doomed}
    for el in doomed:
        if el.getparent() is not None and not any(id(a) in marked for a in el.iterancestors()):
            _drop(el)
            removed += 1
    return removed
