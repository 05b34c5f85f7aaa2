"""The promote stage reads references and predicates (`distill.reference`,
`distill.predicate`): a claim whose pronoun or demonstrative finds nothing to stand for in it,
or that has no verb, stays in its passage; one that names its referent, points forward or
states its predicate is promoted. English and Russian."""

from __future__ import annotations

from pegas_memory.distill.discourse import cut_off, pointer, question
from pegas_memory.distill.layout import glyph_debris
from pegas_memory.distill.reference import unresolved


def test_a_carried_subject_resolves_it_but_not_in_this_case() -> None:
    assert unresolved("It was founded in 1300.", "en", personal=False) is None
    assert unresolved("This town was founded in 1300.", "en", personal=False) is None
    assert unresolved("In this case the server restarts.", "en", personal=False) is not None
    assert unresolved("В данном случае замены не произойдёт.", "ru", personal=False) is not None


def test_short_and_tag_questions_ask_nothing_but_a_named_question_is_kept() -> None:
    assert question("Почему? Причина проста: ключи не перечисляются.")
    assert question("Отлично выглядит, не правда ли? И очень просто.")
    assert question("Что такое AutoML?")
    assert not question("Why do identical feed-forward loops play different dynamical roles?")
    assert not question("Hormisdas (? – 523) was Pope from 514 to 523.")


def test_a_sentence_the_chunks_end_cut_off_is_a_fragment() -> None:
    text = "A comment starts with two slashes. The syntax continues until the end of the"
    quote = "The syntax continues until the end of the"
    assert cut_off(text, quote, len(text))
    assert cut_off(text + "\n", quote, len(text))  # a wrapped line: no sentence ends on "the"
    line = "The syntax continues until the end of each line"
    assert not cut_off(line + "\n", line, len(line))  # a line that may end so
    item = "Features:\n* fast routing for every method and path"
    assert not cut_off(item, "fast routing for every method and path", len(item))


def test_pointers_behind_a_lead_and_the_authors_next_steps() -> None:
    assert pointer("As an example, Figure 1 depicts a replica and its payload.", "en")
    assert pointer("We then discuss the API that clients use.", "en")
    assert pointer("Listing 4 shows an example of a function that returns a value.", "en")
    assert not pointer("Figure 2 shows that latency grows linearly with load.", "en")
    assert not pointer("This section describes the composite case, which needs a key.", "en")


def test_code_torn_out_of_its_block_is_debris_but_a_set_in_prose_is_not() -> None:
    assert glyph_debris("// deny access try { delete user._password; } catch(e) { alert(e); }")
    assert not glyph_debris("The set {1, 2} has two elements; its power set has four.")
    assert not glyph_debris("The arrow function x => x + 1 returns its argument plus one.")


def test_a_fenced_admonition_is_prose_without_its_fence_lines() -> None:
    from pegas_memory.distill.offline import OfflineDistiller
    from pegas_memory.distill.types import ChunkContext

    text = (
        '````smart header="Функция сравнения"\n'
        "Функция сравнения может вернуть любое число.\n"
        "````\n\n"
        "Прокси — это особый объект, который оборачивает другой объект.\n"
    )
    atoms = OfflineDistiller().distill(text, ChunkContext(language="ru"))
    claims = [a.claim for a in atoms]
    assert "Функция сравнения может вернуть любое число." in claims
    assert any(c.startswith("Прокси — это особый объект") for c in claims)  # not swallowed
    assert all("header" not in c and "`" not in c for c in claims)
    assert all(a.type != "code" for a in atoms)
