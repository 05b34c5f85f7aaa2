"""The context stage's labelled cases (`cases/context.toml`): each row runs the rule it names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pegas_memory.distill.agree_ru import subject_form, verb_disagrees
from pegas_memory.distill.anchor_ru import entry
from pegas_memory.distill.bare_ru import (
    bare_subject,
    ordinal_bare,
    ownerless,
    parts_absent,
    temporal,
)
from pegas_memory.distill.carry import agrees, carried_claim, carry, mentions, self_reference
from pegas_memory.distill.context import leans_back, refers_back
from pegas_memory.distill.head_ru import head_missing, head_reference
from pegas_memory.distill.lean_en import bare_this, contrasts, leans, speaker_it, unresolved
from pegas_memory.distill.lean_ru import sequel
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.patterns import words_of
from pegas_memory.distill.standalone import needs_context
from pegas_memory.distill.title_ru import family_reference, has_verb, label_value, listed_thing
from pegas_memory.distill.types import ChunkContext, DraftAtom
from pegas_memory.distill.verbfirst_ru import (
    named_obliquely,
    numbered_name,
    opens_on_verb,
    participle_form,
    time_number,
)
from pegas_memory.distill.words_ru import agent_after
from tests.distill.cases import Case, load_cases
from tests.distill.offline_chunk import claims


def carries_heading(text: str, heading: str, language: str | None) -> bool:
    """Whether the one claim of `text` under a section `heading` carries it ("heading: ...")."""
    (claim,) = claims(text, None, (heading,), language)
    return claim.startswith(f"{heading}: ")


def bare_this_and_leans(sentence: str, before: str) -> bool:
    """Whether `sentence` holds a bare "this" and, for it, leans on the sentence `before`."""
    return bool(bare_this(sentence)) and bool(leans(sentence, before))


def bare_subject_and_leans_back(sentence: str, before: str) -> bool:
    """Whether the Russian `sentence` has a bare noun as its subject and leans on `before`."""
    return bool(bare_subject(sentence, before)) and bool(leans_back(sentence, "ru", before))


def temporal_and_leans_back(sentence: str, before: str) -> bool:
    """Whether the Russian `sentence` opens on a temporal anaphor and leans on `before`."""
    return bool(temporal(sentence)) and bool(leans_back(sentence, "ru", before))


def ordinal_bare_and_leans_back(sentence: str, before: str) -> bool:
    """Whether the Russian `sentence` has an ordinal with a bare noun and leans on `before`."""
    return bool(ordinal_bare(sentence)) and bool(leans_back(sentence, "ru", before))


def has_ownerless(claim: str) -> bool:
    """Whether the claim holds a relational noun with no owner (`ownerless` finds one)."""
    return ownerless(claim) is not None


def ownerless_and_head_noun(claim: str, subject: str) -> list[str | None]:
    """The relational noun `ownerless` finds in the claim, and the word of the claim's head
    reference to the section's `subject` (None where there is none)."""
    found = ownerless(claim)
    reference = head_reference(claim, subject)
    return [found[0] if found else None, reference.word if reference else None]


def claims_under_heading(text: str, heading: str, language: str | None) -> list[str]:
    """The claims of `text` under a section `heading` (no title)."""
    return claims(text, None, (heading,), language)


def time_number_and_numbered_name(word: str) -> list[bool]:
    """Whether the word with digits reads as a time ("1930-х") and whether as a name ("Ан-22")."""
    return [bool(time_number(word)), bool(numbered_name(word))]


def participle_form_of(word: str) -> list[str]:
    """The (number, gender) of a Russian short participle, as a list; asked only of participles."""
    form = participle_form(word)
    assert form is not None, word
    return list(form)


def has_participle_form(word: str) -> bool:
    """Whether the word reads as a short participle at all (`participle_form` gives a form)."""
    return participle_form(word) is not None


def carry_fact(claim: str, subject: str) -> str:
    """The claim of a Russian fact after the carry of the section's `subject`."""
    atom = DraftAtom("fact", claim, claim, 0.7, claim, 0, len(claim), "ru")
    return carry(atom, subject).claim


def carry_prefixes_subject(claim: str, subject: str) -> bool:
    """Whether the carry puts the section's `subject` before the claim ("subject: ...")."""
    return carry_fact(claim, subject).startswith(f"{subject}: ")


def family_reference_and_carry_prefix(claim: str, head: str, subject: str) -> bool:
    """Whether the claim holds a bare noun of the family of the title's `head` and the carry
    puts the title's `subject` before it."""
    return family_reference(claim, head) is not None and carry_prefixes_subject(claim, subject)


def has_family_reference(claim: str, head: str) -> bool:
    """Whether the claim holds a bare noun of the family of the title's `head`."""
    return family_reference(claim, head) is not None


def has_label_value(claim: str) -> bool:
    """Whether the claim is a label and its values ("Основные порты: Роттердам, ...")."""
    return label_value(claim) is not None


def label_value_and_carried_claim(claim: str, subject: str) -> list[object]:
    """Whether the claim is a label and its values, and its claim after the carry."""
    return [has_label_value(claim), carry_fact(claim, subject)]


def title_has_verb(title: str) -> bool:
    """Whether a title's words hold a verb (a headline) rather than only a name."""
    return bool(has_verb(words_of(title)))


def first_claim_carries(text: str, heading_path: list[str], language: str, subject: str) -> bool:
    """Whether the first claim of `text` (which gives one at least) under that heading path, the
    path's first heading as the title, carries `subject` ("subject: ...")."""
    context = ChunkContext(heading_path[0], tuple(heading_path), language)
    atoms = OfflineDistiller().distill(text, context)
    assert atoms, text
    return atoms[0].claim.startswith(f"{subject}: ")


def leans_back_only_with_before(sentence: str, language: str, before: str) -> bool:
    """Whether `sentence` leans on `before`; one that does must not lean with nothing before it
    (a first sentence has nothing to lean on)."""
    leaned = leans_back(sentence, language, before)
    if leaned:
        assert not leans_back(sentence, language, None), sentence
    return leaned


def bare_head_carries_subject(claim: str, subject: str) -> bool:
    """Whether the claim, not mentioning `subject`, is carried as "subject: " + the claim."""
    carried = carry_fact(claim, subject)
    return (
        not mentions(claim, subject)
        and carried.startswith(f"{subject}: ")
        and carried.endswith(claim[1:])
    )


def mentions_and_keeps_claim(claim: str, subject: str) -> list[bool]:
    """Whether the claim mentions `subject`, and whether the carry leaves the claim as it is."""
    return [mentions(claim, subject), carry_fact(claim, subject) == claim]


def has_head_reference(claim: str, subject: str) -> bool:
    """Whether the claim holds the bare head noun of `subject` (a category reference)."""
    return head_reference(claim, subject) is not None


def reference_kind(sentence: str, language: str) -> str | None:
    """The kind of the reference back `refers_back` finds ("subjectless", "category",
    "anaphor"), None for none."""
    found = refers_back(sentence, language)
    return found.kind if found is not None else None


def stands_alone(sentence: str, language: str) -> bool:
    """Whether the sentence neither refers back nor leans on (an absent) sentence before."""
    return refers_back(sentence, language) is None and not leans_back(sentence, language)


def claims_of(text: str, title: str, heading_path: list[str], language: str) -> list[str]:
    """The claims of `text` under that title and heading path."""
    return claims(text, title, tuple(heading_path), language)


def only_claim_starts_with(
    text: str, title: str, heading_path: list[str], language: str, prefix: str
) -> bool:
    """Whether the one claim of `text` under that title and heading path opens on `prefix`."""
    (claim,) = claims_of(text, title, heading_path, language)
    return claim.startswith(prefix)


def one_claim_carries_heading_or_none_does(text: str, heading: str, language: str) -> bool:
    """True when `text` under a section `heading` gives one claim and it carries the heading,
    False when none of its claims (however many) carries it; anything else fails the row."""
    carried = [c.startswith(f"{heading}: ") for c in claims(text, None, (heading,), language)]
    if carried == [True]:
        return True
    assert not any(carried), carried
    return False


def subject_form_of(subject: str) -> list[str]:
    """The (number, gender) a Russian verb must agree with to carry `subject`, as a list."""
    return list(subject_form(subject))


def has_self_reference(claim: str) -> bool:
    """Whether the claim speaks of the document itself ("this crate", "эта библиотека")."""
    return self_reference(claim) is not None


def claims_under_heading_include(text: str, heading: str, language: str, claim: str) -> bool:
    """Whether `claim` is one of the claims of `text` under a section `heading` (no title)."""
    return claim in claims_under_heading(text, heading, language)


def some_claim_under_heading_starts_with(
    text: str, heading: str, language: str, prefix: str
) -> bool:
    """Whether a claim of `text` under a section `heading` (no title) opens on `prefix`."""
    return any(c.startswith(prefix) for c in claims_under_heading(text, heading, language))


def some_claim_starts_with(
    text: str, title: str, heading_path: list[str], language: str, prefix: str
) -> bool:
    """Whether a claim of `text` under that title and heading path opens on `prefix`."""
    return any(c.startswith(prefix) for c in claims_of(text, title, heading_path, language))


CHECKS: dict[str, Callable[..., Any]] = {
    "agent_after": agent_after,
    "agrees": agrees,
    "bare_subject": bare_subject,
    "bare_subject_and_leans_back": bare_subject_and_leans_back,
    "bare_this": bare_this,
    "bare_this_and_leans": bare_this_and_leans,
    "carries_heading": carries_heading,
    "contrasts": contrasts,
    "bare_head_carries_subject": bare_head_carries_subject,
    "carried_claim": carried_claim,
    "carry_fact": carry_fact,
    "carry_prefixes_subject": carry_prefixes_subject,
    "claims": claims_of,
    "claims_under_heading": claims_under_heading,
    "claims_under_heading_include": claims_under_heading_include,
    "entry": entry,
    "family_reference": has_family_reference,
    "family_reference_and_carry_prefix": family_reference_and_carry_prefix,
    "has_participle_form": has_participle_form,
    "head_missing": head_missing,
    "head_reference": has_head_reference,
    "label_value": has_label_value,
    "label_value_and_carried_claim": label_value_and_carried_claim,
    "first_claim_carries": first_claim_carries,
    "leans_back": leans_back,
    "leans_back_only_with_before": leans_back_only_with_before,
    "listed_thing": listed_thing,
    "mentions": mentions,
    "mentions_and_keeps_claim": mentions_and_keeps_claim,
    "named_obliquely": named_obliquely,
    "needs_context": needs_context,
    "one_claim_carries_heading_or_none_does": one_claim_carries_heading_or_none_does,
    "only_claim_starts_with": only_claim_starts_with,
    "opens_on_verb": opens_on_verb,
    "ordinal_bare": ordinal_bare,
    "ordinal_bare_and_leans_back": ordinal_bare_and_leans_back,
    "ownerless": has_ownerless,
    "ownerless_and_head_noun": ownerless_and_head_noun,
    "participle_form": participle_form_of,
    "parts_absent": parts_absent,
    "reference_kind": reference_kind,
    "self_reference": has_self_reference,
    "sequel": sequel,
    "some_claim_starts_with": some_claim_starts_with,
    "some_claim_under_heading_starts_with": some_claim_under_heading_starts_with,
    "speaker_it": speaker_it,
    "stands_alone": stands_alone,
    "subject_form": subject_form_of,
    "temporal": temporal,
    "temporal_and_leans_back": temporal_and_leans_back,
    "title_has_verb": title_has_verb,
    "time_number_and_numbered_name": time_number_and_numbered_name,
    "unresolved": unresolved,
    "verb_disagrees": verb_disagrees,
}


@pytest.mark.parametrize("case", load_cases("context"))
def test_context_rule(case: Case) -> None:
    case.assert_answered(CHECKS)
