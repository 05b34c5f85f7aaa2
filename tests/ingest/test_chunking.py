"""The structure-aware chunker: sections, blocks kept whole, overlap, Russian sentences."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegas_memory.errors import InvalidInput, LimitExceeded
from pegas_memory.ingest.chunking import (
    CHUNK_CHARS,
    ParsedSource,
    Section,
    chunk_source,
    chunk_spans,
    split_markdown_sections,
)
from pegas_memory.text import content_hash


def source(*sections: Section, language: str | None = None) -> ParsedSource:
    return ParsedSource(
        kind="text",
        uri="text:test",
        title=None,
        author=None,
        language=language,
        published_at=None,
        canonical_url=None,
        sections=sections,
        raw_hash="0" * 64,
    )


MARKDOWN = """Preface before any heading.

# Guide

## Install

Run the installer. Then restart.

## Use

### Search

Search finds atoms.
"""


def test_a_paragraph_of_an_ordinary_abstract_stays_one_chunk() -> None:
    """A paragraph of 1,300-1,900 characters (a paper's abstract) is one chunk at the default
    limit, which the settings' default follows; a longer one is cut."""
    from pegas_memory.config import Settings

    assert Settings.model_fields["chunk_chars"].default == CHUNK_CHARS
    sentence = "The treatment reduced the relapse rate in the second year of the trial. "
    paragraph = (sentence * 26).strip()  # 1,897 characters
    assert 1_800 < len(paragraph) <= CHUNK_CHARS
    assert chunk_spans(paragraph) == [(0, len(paragraph))]
    assert len(chunk_spans(paragraph + " " + paragraph)) == 2


def test_markdown_sections_follow_headings_and_keep_heading_lines() -> None:
    sections = split_markdown_sections(MARKDOWN)
    assert [s.heading_path for s in sections] == [
        (),
        ("Guide", "Install"),
        ("Guide", "Use", "Search"),
    ]
    assert sections[0].text == "Preface before any heading."
    # A heading with no body of its own stays at the top of the next section.
    assert sections[1].text.startswith("# Guide\n\n## Install")
    assert sections[2].locator == "Guide > Use > Search"
    assert "### Search" in sections[2].text


def test_headings_inside_code_fences_are_not_sections() -> None:
    text = "# Real\n\nIntro.\n\n```bash\n# not a heading\necho hi\n```\n\nAfter.\n"
    sections = split_markdown_sections(text)
    assert [s.heading_path for s in sections] == [("Real",)]
    assert "# not a heading" in sections[0].text


def test_setext_headings() -> None:
    text = "Title\n=====\n\nBody one.\n\nSub\n---\n\nBody two.\n"
    assert [s.heading_path for s in split_markdown_sections(text)] == [
        ("Title",),
        ("Title", "Sub"),
    ]


def test_code_block_and_table_are_never_split_when_they_fit() -> None:
    prose = " ".join(f"Sentence number {i} talks about the system." for i in range(12))
    code = "```python\n" + "\n".join(f"x{i} = compute({i})" for i in range(12)) + "\n```"
    table = "| name | value |\n|---|---|\n" + "\n".join(f"| k{i} | {i} |" for i in range(10))
    text = f"{prose}\n\n{code}\n\n{prose}\n\n{table}\n\n{prose}"
    assert len(code) < 300 and len(table) < 300
    spans = chunk_spans(text, max_chars=300, overlap=60)
    chunks = [text[a:b] for a, b in spans]
    assert sum(code in c for c in chunks) >= 1
    assert sum(table in c for c in chunks) >= 1
    assert all(len(c) <= 300 for c in chunks)


def test_oversize_code_block_is_cut_at_line_ends() -> None:
    code = "```\n" + "\n".join(f"line_{i:03d} = {i}" for i in range(100)) + "\n```"
    spans = chunk_spans(code, max_chars=200, overlap=0)
    assert len(spans) > 5
    for a, b in spans:
        piece = code[a:b]
        assert len(piece) <= 200
        # Each piece starts at a line start and ends at a line end.
        assert a == 0 or code[a - 1] == "\n"
        assert b == len(code) or code[b] == "\n"


def test_neighbouring_chunks_of_a_long_section_overlap_by_whole_sentences() -> None:
    text = " ".join(f"Fact {i} is stated here in full." for i in range(60))
    spans = chunk_spans(text, max_chars=200, overlap=80)
    assert len(spans) > 5
    for (_a1, b1), (a2, b2) in itertools.pairwise(spans):
        assert a2 < b1, "the next chunk starts inside the previous one"
        assert b1 - a2 <= 80
        assert text[a2:].startswith("Fact "), "overlap starts at a sentence start"
        assert b2 > b1


def test_no_overlap_when_disabled() -> None:
    text = " ".join(f"Fact {i} is stated here in full." for i in range(60))
    spans = chunk_spans(text, max_chars=200, overlap=0)
    assert all(a2 >= b1 for (_, b1), (a2, _) in itertools.pairwise(spans))


RUSSIAN = (
    "Проф. Иванов, т. е. автор книги, писал об этом в 1999 г. подробно. "
    "Он сказал: «Память агента важна. Без неё нет исследований». "
    "См. с. 5 и т. д., где приведены примеры. "
    "Ст. н. с. Петрова согласилась с ним в целом. "
)


def test_russian_abbreviations_and_quotes_are_not_sentence_boundaries() -> None:
    text = RUSSIAN * 8
    spans = chunk_spans(text, max_chars=160, overlap=0)
    chunks = [text[a:b] for a, b in spans]
    for chunk in chunks:
        assert chunk[-1] in ".»", chunk
        # No chunk starts inside "т. е.", "1999 г.", "и т. д." or the quote.
        assert not re.match(r"^(е\.|г\.|д\.|с\. 5|Без неё)", chunk), chunk
    assert sum("«Память агента важна. Без неё нет исследований»." in c for c in chunks) == 8


def test_chunk_source_numbers_chunks_and_locates_them() -> None:
    long = " ".join(f"Sentence {i} about topic." for i in range(100))
    parsed = source(Section("Short page.", "p. 1"), Section(long, "p. 2", ("Chapter",)))
    chunks = chunk_source(parsed, max_chars=300, overlap=50)
    assert [c.ord for c in chunks] == list(range(len(chunks)))
    assert chunks[0].locator == "p. 1, char 0"
    assert chunks[1].locator == "p. 2, char 0"
    assert chunks[2].locator == f"p. 2, char {chunks[2].char_start}"
    assert chunks[2].heading_path == ("Chapter",)
    for chunk in chunks[1:]:
        assert chunk.text == long[chunk.char_start : chunk.char_end]
        assert chunk.content_hash == content_hash(chunk.text)


def test_language_is_detected_per_chunk_in_a_mixed_document() -> None:
    english = "The memory stores typed knowledge atoms with citations and provenance. " * 3
    russian = "Память хранит типизированные атомы знаний вместе с цитатами и источниками. " * 3
    parsed = source(Section(english, "A"), Section(russian, "B"), language="en")
    chunks = chunk_source(parsed)
    assert [c.language for c in chunks] == ["en", "ru"]


def test_short_chunk_falls_back_to_the_document_language() -> None:
    chunks = chunk_source(source(Section("42", "p. 1"), language="ru"))
    assert chunks[0].language == "ru"


def test_limits_and_arguments() -> None:
    text = " ".join(f"Sentence {i} here." for i in range(200))
    with pytest.raises(LimitExceeded, match="max_chunks=3"):
        chunk_source(source(Section(text, "")), max_chars=100, overlap=0, max_chunks=3)
    with pytest.raises(InvalidInput):
        chunk_source(source(Section(text, "")), max_chars=10)
    with pytest.raises(InvalidInput):
        chunk_source(source(Section(text, "")), max_chars=100, overlap=60)


_pieces = st.sampled_from(
    [
        "# Title\n",
        "## Sub heading\n",
        "Plain sentence one. Another sentence follows!",
        "Проф. Иванов, т. е. автор, сказал: «Да. Нет». ",
        "```\ncode line\nmore code\n```",
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "word " * 80,
        "x" * 300,
        "\n\n",
        "\n",
        "- item one\n- item two\n",
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    parts=st.lists(_pieces, min_size=1, max_size=25),
    max_chars=st.integers(min_value=50, max_value=600),
    overlap_share=st.floats(min_value=0, max_value=0.45),
)
def test_chunks_are_exact_bounded_ordered_and_cover_the_text(
    parts: list[str], max_chars: int, overlap_share: float
) -> None:
    text = "".join(parts)
    overlap = int(max_chars * overlap_share)
    spans = chunk_spans(text, max_chars=max_chars, overlap=overlap)
    covered = [False] * len(text)
    previous = (-1, -1)
    for a, b in spans:
        assert 0 <= a < b <= len(text)
        assert b - a <= max_chars
        assert a > previous[0] and b > previous[1], "chunks advance"
        assert text[a:b] == text[a:b].strip()
        for i in range(a, b):
            covered[i] = True
        previous = (a, b)
    missing = [c for c, seen in zip(text, covered, strict=True) if not seen and not c.isspace()]
    assert missing == []
