"""The type stage writes which rule typed each atom (`metadata["typed_by"]`), as the promote stage
writes which rule promoted it: a definition its pattern, a fact or a text the rule of
`fact_rules.fact_verdict` that decided, a block its kind."""

from __future__ import annotations

import pytest

from pegas_memory.distill.fact_rules import NO_PREDICATE, RULES, fact_verdict, is_fact
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import TYPED_BY, ChunkContext

CHUNK_EN = (
    "Entropy is defined as the expected information content of a random variable.\n\n"
    "The survey covered 1,204 households in 2019.\n\n"
    "```python\ndef entropy(p):\n    return -sum(x * log(x) for x in p)\n```\n\n"
    "| symbol | probability |\n|---|---|\n| a | 0.5 |\n| b | 0.5 |\n"
)
CHUNK_RU = (
    "Энтропия — мера неопределённости случайной величины.\n\nВолга впадает в Каспийское море.\n"
)


def _traces(text: str, language: str) -> dict[str, tuple[str, str]]:
    atoms = OfflineDistiller().distill(text, ChunkContext("Notes", (), language))
    return {a.claim: (str(a.type), a.metadata[TYPED_BY]) for a in atoms}


def test_every_offline_atom_names_the_rule_that_typed_it() -> None:
    en = _traces(CHUNK_EN, "en")
    by_type = {t: rule for t, rule in en.values()}
    assert by_type["definition"] == "definition pattern: defined"
    assert by_type["code"] == "code block"
    assert by_type["table"] == "table block"
    survey = next(v for c, v in en.items() if c.startswith("The survey covered"))
    assert survey == ("fact", "a number, an acronym or a symbol")
    ru = _traces(CHUNK_RU, "ru")
    assert ru["Энтропия — мера неопределённости случайной величины."][1].startswith(
        "definition pattern: "
    )
    assert ru["Волга впадает в Каспийское море."] == ("fact", "a dash predicate or a finite verb")


@pytest.mark.parametrize(
    ("sentence", "language", "verdict"),
    [
        ("How does entropy relate to compression?", "en", (False, "question or research gap")),
        ("The aim of this study was to assess the effect of X.", "en", (False, "aim")),
        ("Fully POSIX-compliant flags and options.", "en", (False, "no verb")),
        ("The sender is the application.", "en", (True, "a finite verb")),
        ("Тип ветвления моноподиальный.", "ru", (True, "a predicate adjective or possession")),
    ],
)
def test_fact_verdict_names_the_first_rule_with_a_verdict(
    sentence: str, language: str, verdict: tuple[bool, str]
) -> None:
    assert fact_verdict(sentence, language) == verdict
    assert is_fact(sentence, language) is verdict[0]


def test_the_fact_rules_are_one_ordered_list_of_named_rules() -> None:
    names = [name for name, _ in RULES]
    assert len(names) == len(set(names)) and NO_PREDICATE not in names
    # a question holding a number: the question rule comes first, so it is text
    asked = "Did the survey cover 1,204 households in 2019?"
    assert fact_verdict(asked, "en") == (False, "question or research gap")
    assert names.index("question or research gap") < names.index("a number, an acronym or a symbol")
    stated = "The survey covered 1,204 households in 2019."
    assert fact_verdict(stated, "en") == (
        True,
        "a number, an acronym or a symbol",
    )


def test_a_sentence_no_rule_takes_is_text_with_no_predicate_found() -> None:
    assert fact_verdict("Фантастическая проза и поэзия.", "ru") == (False, NO_PREDICATE)
