"""Markup documents (README.md, reStructuredText) read as text a distiller can trust (pure).

A README or a Sphinx page holds much that is no prose: badges, HTML wrappers (`<div
align="center">`, `<img>`), link-only lines, tables of contents, front matter, rst directives
(`.. autoclass::`, `.. toctree::`, `.. image::`), their options, and the adornment lines of rst
headings. Read as plain text, each became an atom ("See [LICENSE.txt](LICENSE.txt)", ".. autoclass::
Request :members:"). `normalise` blanks that markup **without moving any character**: every line
keeps its length and its place (markup becomes spaces, an admonition's body is dedented by moving
its indentation to the line's end), so offsets into the normalised text are offsets into the
file, and a quote is still the file's text at its locator, up to the blanked markup.

What stays and how it is read:
- rst headings (any adornment character, with or without an overline): the adornment lines become
  `=`/`-` setext lines and `rst_levels` gives each heading its real level, by the order in which
  the adornment styles first appear (the rst rule);
- code (`.. code-block::`, `.. sourcecode::`, a paragraph ending in `::`): the directive line
  becomes `::`, so the indented block after it is read as code (`distill.offline`);
- admonitions (`.. note::`, `.. warning::`, `.. versionadded:: 2.0`, `> **Note**`, `> [!NOTE]`):
  their marker goes and their body becomes ordinary text, its first line too when it starts on
  the marker's line (".. tip:: In the example above ...", where a role is a body line, no
  option);
- the document's title (`document_title`): the heading that opens the document, or the front
  matter's `title:`; a README or index page that opens with no heading is titled by its
  directory (the project), spelled as the text spells it ("cobra/README.md" -> "Cobra").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Literal

Flavour = Literal["markdown", "rst"]

# --- reStructuredText -----------------------------------------------------------------------------

_ADORNMENT = re.compile(r"^([=\-~^\"#*+_<>`])\1{2,}[ \t]*$")
_DIRECTIVE = re.compile(r"^([ \t]*)\.\.[ \t]+([\w:.+-]+)::(.*)$")
_COMMENT = re.compile(r"^([ \t]*)\.\.(?:[ \t]+|$)")
_OPTION = re.compile(r"^[ \t]+:[\w -]+:")
_CODE_DIRECTIVES = frozenset(["code-block", "code", "sourcecode", "parsed-literal"])
# `.. seealso::` is not among them: Sphinx renders its body as a "See also" box of references
# (":ref:`examples_adjacencylist` - working example", "This section details ...; see the
# section ..."), navigation with no knowledge of its own, so it is blanked like a toctree.
# The body of these is ordinary text once its marker is gone.
_TEXT_DIRECTIVES = frozenset(
    [
        "note",
        "warning",
        "tip",
        "hint",
        "important",
        "caution",
        "danger",
        "attention",
        "error",
        "admonition",
        "versionadded",
        "versionchanged",
        "deprecated",
        "versionremoved",
        "topic",
        "sidebar",
        "container",
        "tabs",
        "tab",
        "group-tab",
        "code-tab",
        "only",
        "rst-class",
        "class",
        "function",
        "method",
        "attribute",
        "data",
        "exception",
        "decorator",
        "module",
    ]
)


# Sphinx object descriptions: the body describes the object the directive names ("..
# data:: g" / "A proxy to a namespace object ..."), so the directive line becomes a heading
# naming it, one level below its section, and a claim without a subject can carry it.
_OBJECT_DIRECTIVES = frozenset(
    ["function", "method", "attribute", "data", "exception", "decorator", "class"]
)
_MODULE_DIRECTIVES = frozenset(["module", "currentmodule"])
# Admonitions whose body may start on the marker's line: that line is the body's first.
_ADMONITIONS = frozenset(
    ["note", "warning", "tip", "hint", "important", "caution", "danger", "attention", "error"]
)
_OBJECT_NAME = re.compile(r"[A-Za-z_][\w.]*")


def _blank(line: str) -> str:
    return " " * len(line)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _block_end(lines: Sequence[str], i: int, indent: int) -> int:
    """The end of the block opened at line i: the lines after it that are blank or indented
    deeper than `indent`, trailing blank lines excluded."""
    j = i + 1
    last = i
    while j < len(lines):
        if lines[j].strip():
            if _indent(lines[j]) <= indent:
                break
            last = j
        j += 1
    return last + 1


def _dedent(lines: list[str], start: int, end: int, indent: int, frozen: set[int]) -> None:
    """Lines [start, end) shifted left to `indent`, the indentation moved to their ends; code
    lines (`frozen`) keep theirs, so they stay an indented block after their `::`."""
    body = [n for n in range(start, end) if lines[n].strip() and n not in frozen]
    if not body:
        return
    cut = min(_indent(lines[n]) for n in body) - indent
    if cut <= 0:
        return
    for n in body:
        line = lines[n]
        lines[n] = line[:indent] + line[indent + cut :] + " " * cut


def _rst_pass(
    lines: list[str], start: int, end: int, frozen: set[int], objects: dict[int, str]
) -> None:
    """Directives, comments and link targets of lines [start, end), nested bodies included;
    the lines of code blocks are added to `frozen`, the names object descriptions give (with
    the current module's) to `objects` by line. `objects[-1]` holds the current module."""
    i = start
    while i < end:
        line = lines[i]
        m = _DIRECTIVE.match(line)
        comment = None if m else _COMMENT.match(line)
        if m is None and comment is None:
            if line.rstrip().endswith("::"):  # a literal block follows
                stop = min(_block_end(lines, i, _indent(line)), end)
                frozen.update(range(i + 1, stop))
                i = stop
                continue
            i += 1
            continue
        indent = len((m or comment)[1])  # type: ignore[index]
        stop = min(_block_end(lines, i, indent), end)
        name = m[2].split(":")[-1].lower() if m else ""
        if m is not None and name in _MODULE_DIRECTIVES:
            objects[-1] = m[3].strip()
        if m is None or name not in _CODE_DIRECTIVES | _TEXT_DIRECTIVES:
            # Comments, link targets, toctrees, images, autodoc, includes: no prose of their own.
            for n in range(i, stop):
                lines[n] = _blank(lines[n])
            i = stop
            continue
        body = i + 1
        inline = m[3].strip() if name in _ADMONITIONS else ""  # ".. tip:: In the example ..."
        while body < stop and not inline and _OPTION.match(lines[body]):  # (then no options)
            lines[body] = _blank(lines[body])
            body += 1
        if name in _CODE_DIRECTIVES:
            lines[i] = line[:indent] + "::" + " " * (len(line) - indent - 2)
            frozen.update(range(body, stop))
            i = stop
            continue
        named = _OBJECT_NAME.match(m[3].strip())
        if name in _OBJECT_DIRECTIVES and named is not None:
            module = objects.get(-1, "")
            qualified = named[0]
            if module and "." not in qualified:
                qualified = f"{module}.{qualified}"
            objects[i] = qualified if len(qualified) + 2 <= len(line) else named[0]
        lines[i] = (line[:indent] + inline).ljust(len(line)) if inline else _blank(line)
        _rst_pass(lines, body, stop, frozen, objects)
        _dedent(lines, body, stop, indent, frozen)
        i = stop


def _rst_headings(lines: list[str]) -> dict[int, tuple[int, int]]:
    """{title line: (level, lines used)} of the rst headings; adornment lines rewritten."""
    styles: list[tuple[str, bool]] = []
    found: dict[int, tuple[int, int]] = {}
    i = 0
    while i + 1 < len(lines):
        over = _ADORNMENT.match(lines[i])
        if over and i + 2 < len(lines) and lines[i + 1].strip():
            under = _ADORNMENT.match(lines[i + 2])
            if under and under[1] == over[1] and (i == 0 or not lines[i - 1].strip()):
                style = (over[1], True)
                title = i + 1
                lines[i] = _blank(lines[i])
                adorn = i + 2
            else:
                i += 1
                continue
        else:
            under = _ADORNMENT.match(lines[i + 1])
            text = lines[i]
            if (
                under is None
                or not text.strip()
                or _indent(text) > 0
                or _ADORNMENT.match(text)
                or (i > 0 and lines[i - 1].strip())
                or len(under[0].rstrip()) < min(len(text.rstrip()), 3)
            ):
                i += 1
                continue
            style, title, adorn = (under[1], False), i, i + 1
        if style not in styles:
            styles.append(style)
        level = styles.index(style) + 1
        width = len(lines[adorn])
        lines[adorn] = ("=" if level == 1 else "-") * len(lines[adorn].rstrip())
        lines[adorn] += " " * (width - len(lines[adorn]))
        found[title] = (level, 2)
        i = adorn + 1
    return found


def _object_headings(
    lines: list[str],
    objects: dict[int, str],
    headings: dict[int, tuple[int, int]],
    starts: list[int],
) -> dict[int, int]:
    """The object descriptions' lines rewritten as "# name" headings one level below the rst
    section they are in: {line start offset: level}."""
    levels: dict[int, int] = {}
    for n, name in sorted(objects.items()):
        if n < 0 or len(name) + 2 > len(lines[n]):
            continue
        above = [level for k, (level, _) in headings.items() if k < n]
        level = min(6, (above[-1] if above else 0) + 1)
        lines[n] = f"# {name}".ljust(len(lines[n]))
        levels[starts[n]] = level
    return levels


def _one_line_headings(lines: list[str], headings: dict[int, tuple[int, int]]) -> list[str]:
    """Each title line and its underline as one "# Title" line of the same length (the line
    break goes into the padding): a distiller reading lines sees a heading, never a title
    line that reads like a sentence ("The App and Request Context"). Offsets after the heading
    stay the file's; the title itself moves two characters right."""
    out: list[str] = []
    skip = False
    for n, line in enumerate(lines):
        if skip:
            skip = False
            continue
        if n in headings and n + 1 < len(lines):
            out.append(f"# {line.strip()}".ljust(len(line) + 1 + len(lines[n + 1])))
            skip = True
            continue
        out.append(line)
    return out


_HTML_H_OPEN = re.compile(r"^ {0,3}<h([1-6])(?:\s[^<>]*)?>", re.IGNORECASE)


def _html_headings(lines: list[str]) -> list[str]:
    """Each HTML heading of a markdown file ("<h3 name="config">" / "Does ripgrep support
    configuration files?" / "</h3>", ripgrep's FAQ) as one "### Title" line of the same length
    (the line breaks go into the padding, as `_one_line_headings` does for rst): a heading,
    with the question in the section path, never a question stored as a claim or glued onto
    its answer. Tags inside the title are dropped; a heading of only tags (a centred logo) is
    left to the HTML blanking. Up to 4 lines, outside fences."""
    out: list[str] = []
    fence: str | None = None
    n = 0
    while n < len(lines):
        line = lines[n]
        m = _FENCE.match(line)
        if fence is not None or m:
            if fence is None:
                fence = m[1] if m else None
            elif m and m[1][0] == fence[0] and len(m[1]) >= len(fence):
                fence = None
            out.append(line)
            n += 1
            continue
        opened = _HTML_H_OPEN.match(line)
        close = re.compile(rf"</h{opened[1]}\s*>", re.IGNORECASE) if opened else None
        end = next(
            (k for k in range(n, min(n + 4, len(lines))) if close and close.search(lines[k])), None
        )
        if opened is None or end is None:
            out.append(line)
            n += 1
            continue
        span = "\n".join(lines[n : end + 1])
        title = " ".join(re.sub(r"<[^<>]*>", " ", span).split())
        if not title:
            out.append(line)
            n += 1
            continue
        width = len(span)
        out.append(f"{'#' * int(opened[1])} {title}"[:width].ljust(width))
        n = end + 1
    return out


def _rst_transitions(lines: list[str]) -> None:
    """A lone adornment line between blank lines (a transition) is no heading: blanked."""
    for n, line in enumerate(lines):
        before = n == 0 or not lines[n - 1].strip()
        after = n + 1 == len(lines) or not lines[n + 1].strip()
        if _ADORNMENT.match(line) and before and after:
            lines[n] = _blank(line)


_AUTO_ITEM = re.compile(r"^([ \t]*)#\.([ \t])")  # "#. item": an auto-numbered list item
_TABLE_BORDER = re.compile(r"^[ \t]*[=-]{2,}(?:[ \t]+[=-]{2,})+[ \t]*$")


def _rst_tables(lines: list[str]) -> None:
    """rst simple tables ("=====  =====" borders) rewritten in place as pipe tables: a "|" in
    each column gap, the header's border a "---|---" separator, the outer borders blanked."""
    i = 0
    while i < len(lines):
        if not _TABLE_BORDER.match(lines[i]):
            i += 1
            continue
        gaps = [m.start() for m in re.finditer(r"(?<=[=-])[ \t]+(?=[=-])", lines[i])]
        j, borders = i + 1, [i]
        while j < len(lines) and lines[j].strip():
            if _TABLE_BORDER.match(lines[j]):
                borders.append(j)
            j += 1
        if len(borders) < 2 or borders[-1] != j - 1:
            i = j
            continue
        for n in range(i, j):
            if n in (borders[0], borders[-1]):
                lines[n] = _blank(lines[n])
                continue
            row = list(lines[n].ljust(len(lines[i])))
            if n in borders:
                row = ["-" if c in "=-" else c for c in row]
            for g in gaps:
                if g < len(row) and row[g] in " \t":
                    row[g] = "|"
            lines[n] = "".join(row)[: len(lines[n])]
        i = j


# --- markdown -------------------------------------------------------------------------------------

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HTML_TAGS = (
    r"a|img|div|p|br|hr|sup|sub|span|b|i|em|strong|kbd|details|summary|picture|source|center|u"
    r"|small|big|section|h[1-6]|table|thead|tbody|tr|td|th|ul|ol|li|video|figure|figcaption"
    r"|abbr|mark|ins|del|cite|dfn|var|samp|time"
)
_HTML_TAG = re.compile(rf"</?(?:{_HTML_TAGS})(?:\s[^<>]*)?/?>", re.IGNORECASE)
_ANCHOR_LINE = re.compile(r"^\s*<a\s[^<>]*>[^<]*</a>\W*$", re.IGNORECASE)  # a link, no text
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# MDX comments and expressions holding only a comment: {/* ... */}.
_MDX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.DOTALL)
# Attribute lists of mkdocs (attr_list), Pandoc and MDX headings: "{ #anchor }", "{#id .cls}",
# "{: .note }". Never a sentence's words.
_ATTR_LIST = re.compile(r"\{:?[ \t]*[#.][\w\-:.]+(?:[ \t]+[#.]?[\w\-]+(?:=[^{}\s]+)?)*[ \t]*\}")
# mkdocs abbreviation definitions: "*[HTML]: Hyper Text Markup Language" (a glossary line).
_ABBR_DEF = re.compile(r"^ {0,3}\*\[[^\]\n]+\]:.*$")
# LaTeX in prose: references and labels are dropped, text formatting keeps its words.
_LATEX_REF = re.compile(r"\\(?:label|cite[pt]?|ref|eqref|autoref|cref|index|footnote)\{[^{}\n]*\}")
_LATEX_FORMAT = re.compile(r"\\(?:textbf|textit|emph|texttt|textsc|underline)\{([^{}\n]*)\}")
_IMAGE = re.compile(r"\[!\[[^\]\n]*\]\([^)\n]*\)\]\([^)\n]*\)|!\[[^\]\n]*\]\([^)\n]*\)")
_LINK = re.compile(r"\[[^\]\n]+\]\([^)\n]*\)")
_REF_DEF = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s+\S+.*$")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_SHORTCODE = re.compile(r"\{\{[<%].*?[>%]\}\}")
_QUOTE_MARK = re.compile(r"^( {0,3})> ?")
_CALLOUT = re.compile(r"^\s*\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*\\?\s*$", re.IGNORECASE)
_QUOTE_TITLE = re.compile(r"^\s*(\*\*|__)[^*_\n]{1,30}\1\s*:?\s*$")
_TOC_TITLE = re.compile(
    r"^\s*#{1,6}\s+\W*(?:table of contents|contents|toc|содержание|оглавление|inhalt"
    r"(?:sverzeichnis)?)\W*$",
    re.IGNORECASE,
)
_POINTER_WORD = re.compile(r"^\W*(?:see(?: also)?|cf\.|см\.(?: также)?|siehe(?: auch)?)\b", re.I)
_ATX = re.compile(r"^ {0,3}#{1,6}\s")
_FRONT_TITLE = re.compile(r"^title:\s*[\"']?(.+?)[\"']?\s*$")


def _spaces(m: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", m[0])


def _kept_words(m: re.Match[str]) -> str:
    """A LaTeX formatting command's words in place, the command and braces blanked."""
    head = m[0].index("{") + 1
    return " " * head + m[1] + " "


def _link_only(line: str) -> bool:
    """A line (or list item) that is nothing but links, or "See <link>": a pointer or a list
    of links."""
    rest = _POINTER_WORD.sub("", _LINK.sub("", _LIST_MARK.sub("", line, count=1)))
    return bool(_LINK.search(line)) and not re.search(r"[^\W_]", rest)


_OPEN_END = re.compile(r"[^\W_][*_`)]*[ \t]*$")  # a line that stops on a word, mid-sentence


def _goes_on(lines: Sequence[str], n: int) -> bool:
    """Whether the link-only line n is inside a sentence, not a line of links: the line before
    is prose that stops on a word ("Installation is done using the" above "[`npm install`
    command](...):"), or the line after goes on in lower case ("[Flask](...)" above "is a
    framework."). Its text is the sentence's words: blanking it cut the claim short."""
    if _LIST_MARK.match(lines[n]):
        return False
    before = lines[n - 1] if n else ""
    prose = bool(before.strip()) and not _ATX.match(before) and not _FENCE.match(before)
    if prose and _OPEN_END.search(before) and not _link_only(before):
        return True
    after = lines[n + 1].lstrip() if n + 1 < len(lines) else ""
    return after[:1].islower() and not _LIST_MARK.match(lines[n + 1])


def _front_matter(lines: list[str]) -> str | None:
    """Hugo/Jekyll front matter ("---" ... "---" at the top) blanked; its title."""
    if not lines or lines[0].strip() not in ("---", "+++"):
        return None
    mark = lines[0].strip()
    for n in range(1, min(len(lines), 60)):
        if lines[n].strip() == mark:
            title = None
            for k in range(n + 1):
                m = _FRONT_TITLE.match(lines[k].strip())
                if m and title is None:
                    title = m[1].strip()
                lines[k] = _blank(lines[k])
            return title
    return None


def _markdown_pass(lines: list[str]) -> None:
    fence: str | None = None
    toc = False
    for n, line in enumerate(lines):
        m = _FENCE.match(line)
        if fence is not None:
            if m and m[1][0] == fence[0] and len(m[1]) >= len(fence):
                fence = None
            continue
        if m:
            fence = m[1]
            toc = False
            continue
        if _TOC_TITLE.match(line):
            lines[n], toc = _blank(line), True
            continue
        if toc and (_ATX.match(line) or (line.strip() and not _LIST_MARK.match(line))):
            toc = False
        if toc:
            lines[n] = _blank(line)
            continue
        quoted = _QUOTE_MARK.match(line)
        opens_quote = quoted is not None and (n == 0 or not _QUOTE_MARK.match(lines[n - 1]))
        if quoted:
            line = quoted[1] + " " * (len(quoted[0]) - len(quoted[1])) + line[quoted.end() :]
        if opens_quote and _QUOTE_TITLE.match(line):  # "> **Note**": an admonition's title
            line = _blank(line)
        if _CALLOUT.match(line) or _REF_DEF.match(line):
            line = _blank(line)
        if _ANCHOR_LINE.match(line) or _ABBR_DEF.match(line):
            line = _blank(line)
        line = _ATTR_LIST.sub(_spaces, line)
        line = _LATEX_REF.sub(_spaces, line)
        line = _LATEX_FORMAT.sub(_kept_words, line)
        line = _IMAGE.sub(_spaces, line)
        tagged = _HTML_TAG.sub(_spaces, _SHORTCODE.sub(_spaces, line))
        if tagged != line:  # text inside HTML: its indentation is the HTML's, not code's
            stripped = tagged.lstrip()
            tagged = stripped + " " * (len(tagged) - len(stripped))
        line = tagged
        if _link_only(line) and not _goes_on(lines, n):
            line = _blank(line)
        lines[n] = line if line.strip() else _blank(line)


# --- page furniture of encyclopedia text ---------------------------------------------------------

# The closing sections of a Wikipedia article (and of pages built like one): reference lists,
# "see also" and link lists. Their lines are citations ("↑ Закон Московской области № 123 ...")
# and titles of other articles ("Список населённых пунктов ..."), never the article's knowledge.
_FOOTER_TITLE = re.compile(
    r"^ {0,3}(?:#{1,6}[ \t]+)?(?:примечания|ссылки|см\. также|смотрите также|литература"
    r"|источники|сноски|references|see also|external links|further reading|bibliography"
    r"|footnotes|notes and references|einzelnachweise|weblinks|siehe auch|anmerkungen)"
    r"[ \t]*:?[ \t]*$",
    re.IGNORECASE,
)


def blank_footers(text: str) -> str:
    """The text with every footer section blanked in place (same length, same line breaks):
    from a line that is only a footer title ("Примечания", "## See also", "Weblinks") to the
    next heading that is none, or the end. A footer title must stand alone after a blank line,
    so "See also" inside a paragraph is untouched."""
    lines = text.split("\n")
    footer = False
    for n, line in enumerate(lines):
        alone = n == 0 or not lines[n - 1].strip()
        if _FOOTER_TITLE.match(line) and (alone or footer):
            footer = True
        elif footer and _ATX.match(line):
            footer = False
        if footer:
            lines[n] = _blank(line)
    return "\n".join(lines)


_TARGET = re.compile(r"^\.\.[ \t]+_([^:`\n]+):[ \t]*$")


def rst_labels(text: str) -> dict[str, str]:
    """{label: section title} of the `.. _label:` targets that stand right before a heading
    (blank lines and other targets between them): what Sphinx shows for a bare `:ref:`label``
    pointing into this document. Labels are matched case-insensitively, as Sphinx does; a
    target before anything else (a paragraph, a figure) names no title and is left out."""
    lines = text.replace("\r\n", "\n").split("\n")
    labels: dict[str, str] = {}
    for n, line in enumerate(lines):
        target = _TARGET.match(line)
        if target is None:
            continue
        j = n + 1
        while j < len(lines) and (not lines[j].strip() or _TARGET.match(lines[j])):
            j += 1
        if j < len(lines) and _ADORNMENT.match(lines[j]):  # an overline
            j += 1
        title = lines[j].strip() if j < len(lines) else ""
        under = lines[j + 1] if j + 1 < len(lines) else ""
        if title and not _ADORNMENT.match(title) and _ADORNMENT.match(under):
            labels.setdefault(target[1].strip().lower(), title)
    return labels


# --- the document ---------------------------------------------------------------------------------


def normalise(text: str, flavour: Flavour) -> tuple[str, dict[int, int], str | None]:
    """(the normalised text: same length and line breaks, markup blanked; {line start offset:
    heading level} for rst; the front matter's title)."""
    text = _HTML_COMMENT.sub(_spaces, text)
    if flavour != "rst":
        text = _MDX_COMMENT.sub(_spaces, text)
    lines = text.split("\n")
    levels: dict[int, int] = {}
    front = _front_matter(lines)
    if flavour == "rst":
        objects: dict[int, str] = {-1: ""}
        _rst_pass(lines, 0, len(lines), set(), objects)
        _rst_tables(lines)
        lines[:] = [_AUTO_ITEM.sub(r"\g<1>1.\2", line) for line in lines]
        headings = _rst_headings(lines)
        _rst_transitions(lines)
        starts = [0]
        for line in lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        levels = {starts[n]: level for n, (level, _) in headings.items()}
        levels.update(_object_headings(lines, objects, headings, starts))
        lines = _one_line_headings(lines, headings)
    else:
        lines = _html_headings(lines)
        _markdown_pass(lines)
    out = "\n".join(lines)
    assert len(out) == len(text)
    return out, levels, front


def flavour_of(file_name: str) -> Flavour | None:
    """The markup a file's name says it holds (None: plain text, read as it is)."""
    suffix = file_name.rsplit(".", 1)[-1].lower() if "." in file_name else ""
    if suffix == "rst":
        return "rst"
    if suffix in ("md", "markdown", "mdx"):
        return "markdown"
    return None


def document_title(
    text: str,
    heading: tuple[int, str] | None,
    *,
    file_name: str = "",
    directory: str = "",
) -> str | None:
    """The title of a normalised markup document (module docstring), or None; `heading` is
    (offset, title) of the document's first top-level heading."""
    if heading is not None and not text[: heading[0]].strip():
        return heading[1]
    stem = file_name.rsplit(".", 1)[0].lower()
    if stem in ("readme", "index", "_index") and directory:
        spelled = Counter(re.findall(rf"\b{re.escape(directory)}\b", text, re.IGNORECASE))
        if spelled:
            return spelled.most_common(1)[0][0]
    return None
