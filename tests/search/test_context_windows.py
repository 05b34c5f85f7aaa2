"""memory_get_context shows the text around the evidence itself: an atom's window is cut around
its quote, a long passage around the sentence that answers, a passage's neighbours at the edges
that touch it (`search.context.focus`, `best_sentence`, `windows_for`)."""

from __future__ import annotations

from pegas_memory.app.requests import ContextRequest, IngestRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.search.context import best_sentence, focus, joined

FILLER = "The committee met again and discussed the budget of the year in detail. "


def test_a_text_that_fits_is_shown_whole() -> None:
    assert focus("One sentence. Two sentences.", 0, 3, limit=100) == "One sentence. Two sentences."


def test_the_span_is_kept_when_the_text_is_cut_around_it() -> None:
    text = FILLER * 40 + "The river Orva floods every spring. " + FILLER * 40
    start = text.index("The river Orva")
    shown = focus(text, start, start + 36, limit=400)
    assert "The river Orva floods every spring." in shown
    assert len(shown) <= 404
    assert shown.startswith("… ") and shown.endswith(" …")


def test_a_cut_falls_between_sentences_not_inside_one() -> None:
    text = FILLER * 40 + "The river Orva floods every spring. " + FILLER * 40
    start = text.index("The river Orva")
    body = focus(text, start, start + 36, limit=400).removeprefix("… ").removesuffix(" …")
    assert body.startswith("The committee") and body.endswith("in detail.")


def test_a_span_at_the_end_shows_the_text_before_it() -> None:
    text = FILLER * 40 + "Last words here."
    shown = focus(text, len(text), len(text), limit=300)
    assert shown.endswith("Last words here.") and shown.startswith("… The committee")


def test_a_span_at_the_start_shows_the_text_after_it() -> None:
    text = "First words here. " + FILLER * 40
    shown = focus(text, 0, 0, limit=300)
    assert shown.startswith("First words here.") and shown.endswith(" …")


def test_the_sentence_sharing_most_words_with_the_question_is_found() -> None:
    text = "Rivers run to the sea. The Orva floods every spring near Kell. Bridges cross it."
    start, end = best_sentence(text, "When does the Orva flood?")
    assert text[start:end] == "The Orva floods every spring near Kell."


def test_russian_words_match_across_their_endings() -> None:
    text = "Реки текут к морю. Весной Орва разливается у Келля. Мосты пересекают её."
    start, end = best_sentence(text, "Когда разливалась река Орва?")
    assert text[start:end] == "Весной Орва разливается у Келля."


def test_a_name_is_matched_across_scripts() -> None:
    text = "Изобретатель жил в Нью-Йорке. Тесла получил патент на двигатель. Потом он уехал."
    start, end = best_sentence(text, "Which patent did Tesla receive?")
    assert text[start:end] == "Тесла получил патент на двигатель."


def test_no_shared_word_gives_the_start() -> None:
    assert best_sentence("Rivers run to the sea. Bridges cross it.", "квантовая механика") == (0, 0)


FACT = "The Orva river floods the town of Kell every spring since 1911."
AFTER = "The water reaches the market square by May."


def test_what_neighbouring_chunks_share_is_shown_once() -> None:
    first = "Alpha starts the section here. Beta is the sentence both chunks hold at their edge."
    second = "Beta is the sentence both chunks hold at their edge. Gamma ends the section."
    text, start, end = joined([first, second], 1)
    assert text.count("Beta is the sentence") == 1
    assert text[start:end] == second


def test_chunks_that_share_nothing_are_joined_by_a_line_break() -> None:
    text, start, end = joined(["One part.", "Another part entirely, with no text shared."], 1)
    assert text == "One part.\nAnother part entirely, with no text shared."
    assert text[start:end] == "Another part entirely, with no text shared."


def long_report() -> str:
    """A document of several chunks; the third part's long paragraph ends in FACT and the
    sentence after it, more than 1,500 characters into its chunk."""
    parts = [f"## Part {n}\n\n" + FILLER * 25 for n in range(1, 3)]
    parts.append(f"## Part 3\n\n{FILLER * 22}{FACT} {AFTER} {FILLER * 2}")
    parts.append("## Part 4\n\n" + FILLER * 25)
    return "# Annual report\n\n" + "\n\n".join(parts) + "\n"


def test_evidence_deep_in_a_long_document_comes_with_the_sentence_after_it(
    memory: MemoryService,
) -> None:
    memory.ingest(IngestRequest(source=long_report(), kind="markdown", title="Report"))
    memory.runtime.worker().drain()
    for store in ("both", "atoms", "passages"):
        context = memory.get_context(
            ContextRequest(question="Since when does the Orva flood Kell?", store=store)
        )
        first = context.items[0]
        assert "1911" in first.claim + first.context, (store, first)
        # the window is cut around the evidence, not from the start of the chunk before it
        assert AFTER in first.claim + first.context, (store, first)
