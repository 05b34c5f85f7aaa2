"""HTML headings in markdown (ripgrep's FAQ writes its questions as <h3> blocks): one heading
line of the same length, so the question is the section's heading and never a claim."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.app.service import MemoryService
from pegas_memory.ingest.markup import normalise
from tests.conftest import cited_claims, ingest_text

FAQ = (
    "# FAQ\n\n"
    '<h3 name="config">\nDoes the tool support configuration files?\n</h3>\n\n'
    "Yes. The tool reads a configuration file named in the TOOL_CONFIG environment variable.\n\n"
    "<h3>Why is the tool <em>slower</em> with backtracking regexes?</h3>\n\n"
    "Backtracking engines take exponential time on some patterns, so the tool is slower with "
    "them.\n\n"
    "```html\n<h3>\nNot a heading inside a fence\n</h3>\n```\n"
)


def test_an_html_heading_becomes_one_heading_line_of_the_same_length() -> None:
    out, _, _ = normalise(FAQ, "markdown")
    assert len(out) == len(FAQ)
    lines = out.split("\n")
    assert "### Does the tool support configuration files?" in [ln.rstrip() for ln in lines]
    assert "### Why is the tool slower with backtracking regexes?" in [ln.rstrip() for ln in lines]
    # the answer keeps its offset in the file
    answer = "Yes. The tool reads"
    assert out.index(answer) == FAQ.index(answer)
    # inside a fence nothing changes; a heading of only tags (a logo) is not made a heading
    assert "<h3>\nNot a heading inside a fence\n</h3>" in out
    logo, _, _ = normalise('<h1 align="center"><img src="logo.png"></h1>\n\nText.\n', "markdown")
    assert not logo.lstrip().startswith("#")


def test_the_question_is_the_answers_section_not_a_claim(
    service: MemoryService, tmp_path: Path
) -> None:
    path = tmp_path / "files" / "FAQ.md"
    ingest_text(service, path, FAQ)
    claims = dict(cited_claims(service))
    prose = [c for c in claims if not c.startswith("Code")]
    assert prose and not any(c.startswith(("Does ", "Why ")) or "?" in c for c in prose), claims
    config = next(loc for claim, loc in claims.items() if "TOOL_CONFIG" in claim)
    assert "Does the tool support configuration files?" in config
