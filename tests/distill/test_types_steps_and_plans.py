"""Types by grammar: steps, plans and scopes (issue 15, the type errors of graded sample 16161 and
the open ones of 13131 to 15151): a step opened by a verb with its particle ("Type in color in
cmd.exe ...") is an instruction; a plan or scope told in the passive ("... will be summarized", "X
are discussed") or a focus ("A particular focus lies on ...") and "In this document we present ..."
are text; a clause before a dash of apposition ("Матерью Ашоки была Субхадранги — дочь ...")
defines nothing; an "X — это Y" definition is not carried for a category noun in its genus; "как
если бы" is no counterfactual; a Russian norm after a statement, in brackets or in an order leaves
the statement; the short participles in "-т", "может", "возник", "шли" are finite verbs; "у X Y"
states a property; a Russian claim with no subject and no verb states what it says of the subject
carried onto it; seed 17171: "X is a fatal disease, primarily due to ..." defines nothing. Each
rule on both sides.

The labelled sentences of these rules are rows of `cases/type.toml` (run by
`test_type_rules.py`); what stays here distils whole chunks or asserts more than one answer.
"""

from __future__ import annotations

from pegas_memory.distill.fact_rules import is_fact
from pegas_memory.distill.leads import lead_carry
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.patterns import match_definition
from pegas_memory.distill.predicate_ru import possessive, predicate_of
from pegas_memory.distill.types import ChunkContext, DraftAtom


def atoms(text: str, language: str, heading: str | None = None) -> list[DraftAtom]:
    context = ChunkContext("Doc", (heading,) if heading else (), language)
    return OfflineDistiller().distill(text, context)


# --- a verb with its particle opens a step ---


def test_a_statement_after_unless_stays_a_fact() -> None:
    assert is_fact("Unless the flag is set, ripgrep skips hidden files.", "en")


# --- a clause before a dash of apposition defines nothing ---


def test_a_finite_verb_before_the_dash_is_no_term() -> None:
    sentence = "Матерью Ашоки была Субхадранги — дочь бедного брамина по имени Чампаканагар."
    assert match_definition(sentence) is None
    assert [a.type for a in atoms(sentence, "ru", "Ашока")] == ["fact"]


# --- "X — это Y" is not carried for a category noun in its genus ---


def test_a_definition_whose_genus_holds_a_category_noun_keeps_its_type() -> None:
    text = "Строительство — это процесс сооружения здания или инфраструктуры."
    (atom,) = atoms(text, "ru", "Construction")
    assert (atom.type, atom.term, atom.claim) == ("definition", "Строительство", text)


def test_a_definition_whose_term_is_a_category_noun_is_still_carried() -> None:
    (atom,) = atoms("Главное здание — это памятник архитектуры XIX века.", "ru", "Университет")
    assert atom.claim.startswith("Университет: ")


def test_a_lead_carry_leaves_other_definitions_to_carry() -> None:
    draft = DraftAtom(
        "definition", "Столица — город Ораньестад.", "город Ораньестад", 0.7,
        "Столица — город Ораньестад.", 0, 27, "ru",
        {"term": "Столица", "pattern": "dash"}, "Столица",
    )  # fmt: skip
    carried = lead_carry(draft, "Аруба")
    assert carried.type != "definition" and carried.claim.startswith("Аруба: ")


# --- Russian: "как если бы", "должен", finite verbs, possession ---


def test_as_if_is_no_counterfactual() -> None:
    sentence = (
        "Аутоиммунитет возникает из-за гиперактивности иммунной системы, атакующей нормальные"
        " ткани, как если бы они были чужеродными организмами."
    )
    assert is_fact(sentence, "ru")
    assert not is_fact("Если бы он остался, война бы не началась.", "ru")


def test_possession_states_a_property() -> None:
    assert possessive("Подобно другим ночным видам, у жабы-ага горизонтальные зрачки.")
    assert is_fact("Подобно другим ночным видам, у жабы-ага горизонтальные зрачки.", "ru")
    assert not possessive("У меня к вам просьба.")
    assert not possessive("Проект придерживается требований зонирования.")


# --- a claim with no subject and no verb says something of the carried subject ---


def test_a_headline_or_an_aim_is_no_predicate() -> None:
    assert not predicate_of("Зарождение и развитие каталонского национализма.")
    assert predicate_of("Автор мемуаров «Воспоминания».")
    found = atoms("Зарождение и развитие каталонского национализма.", "ru", "История Каталонии")
    assert [a.type for a in found] in ([], ["text"])


# --- seed 17171: a genus with its reason ---


def test_a_genus_with_its_reason_is_no_definition() -> None:
    sentence = (
        "Hepatocellular carcinoma (HCC) is a fatal disease, primarily due to the limited effective"
        " therapies available for patients with advanced or recurrent stages of the disease."
    )
    assert match_definition(sentence) is None
    assert is_fact(sentence, "en")
    found = match_definition("Tuberculosis is an infectious disease caused by Mycobacterium.")
    assert found is not None and found[0] == "Tuberculosis"
