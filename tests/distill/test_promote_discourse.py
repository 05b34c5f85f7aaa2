"""The promote stage keeps pointers, narration and fragments in their passage
(`distill.promote`, `distill.discourse`), in English and Russian, and promotes what states
something behind a pointer or says what a step is for; a model's drafts pass the same stage. The
labelled sentences of the pointer, narration, reference and predicate rules are in
`cases/promote.toml`; what stays here reads a sentence's place in its chunk or a whole chunk."""

from __future__ import annotations

from pegas_memory.distill.discourse import cut_off, fragment
from pegas_memory.distill.promote import promote
from pegas_memory.distill.types import ChunkContext, DraftAtom


def test_a_sentence_started_inside_another_is_a_fragment() -> None:
    text = "and the results improve on every set we tried. Graphs are sparse."
    assert fragment(text, text[:46], 0, text[:46], "en")
    later = "Graphs are sparse."
    assert not fragment(text, later, text.index(later), later, "en")
    name = "globset implements globs with regular expressions."
    assert not fragment(name, name, 0, name, "en")
    ru = "которые были отправлены в архив в 1990 году."
    assert fragment(ru, ru, 0, ru, "ru")


def test_a_sentence_the_chunks_end_cut_off_is_a_fragment() -> None:
    text = "A comment starts with two slashes. The syntax continues until the end of the"
    quote = "The syntax continues until the end of the"
    assert cut_off(text, quote, len(text))
    assert cut_off(text + "\n", quote, len(text))  # a wrapped line: no sentence ends on "the"
    line = "The syntax continues until the end of each line"
    assert not cut_off(line + "\n", line, len(line))  # a line that may end so
    item = "Features:\n* fast routing for every method and path"
    assert not cut_off(item, "fast routing for every method and path", len(item))


def test_a_models_drafts_pass_the_same_stage_and_are_counted() -> None:
    text = (
        "Smith, J., Brown, K. (2019). Deep graphs. Journal of ML, 20(4): 1–35.\n\n"
        "Section 4 will extend this rule.\n\n"
        "Graph neural networks pass messages along edges."
    )

    def draft(quote: str, kind: str = "fact") -> DraftAtom:
        start = text.index(quote)
        meta = {"distiller": "ollama"}
        return DraftAtom(kind, quote, quote, 0.8, quote, start, start + len(quote), "en", meta)  # type: ignore[arg-type]

    drafts = [
        draft("Smith, J., Brown, K. (2019). Deep graphs. Journal of ML, 20(4): 1–35."),
        draft("Section 4 will extend this rule."),
        draft("Graph neural networks pass messages along edges."),
    ]
    kept, counted = promote(drafts, text, ChunkContext(language="en"))
    assert [a.claim for a in kept] == ["Graph neural networks pass messages along edges."]
    assert kept[0].metadata["promoted_by"] == "stands alone: fact"
    assert counted == {"reference list entry": 1, "pointer": 1}
