"""Whether every referring word of a claim finds what it refers to inside the claim (pure).

A claim stands alone only when a reader who sees it, the title and the heading knows what each
of its pronouns and demonstratives stands for. This is read the same way in every kind of
document, from the grammar of the two languages rather than from a sample's wording:

- **A personal pronoun of the third person** ("it", "they", "its", "он", "они", "их") needs a
  word before it in the claim that it can stand for: in English any content word for "it"
  (words of grammar only: "If we do it ..." has none), a plural-looking one for "they"; in
  Russian a noun that agrees with it in gender and number (pymorphy3), or a name in Latin
  letters or code. A possessive may point forward inside its own claim ("Despite its
  simplicity, the Counter ..."): any candidate in the claim will do. Expletive "it" ("it is
  known that ...", "it can be shown that ...") refers to nothing.
- **A demonstrative** ("this", "these", "those", a claim-initial "that", "этот", "такой",
  "данный", a subject "это") points at something said before, unless it names the document
  itself ("this paper", "в этой главе": the title says which), points forward ("those who
  ...", "то, что ...", "такой, как ...", "тот же", "these steps run: ..."), names again a
  noun said before it in the claim ("engines ... each of those engines"), or is the copula of
  a definition ("X — это Y"). "Such" / "такой" without "as" / "как" points at a kind
  described before; "such" before an adjective only ("such different roles") intensifies.
- **"Otherwise", "Иначе"** opening the claim: the condition it negates was set before.
- **"Another", "the latter", "the former"** as what the claim is about ("Another is that ...",
  "Another reason is ...") continue a list of the text before.
The rule is strict on purpose: what it keeps out stays in its passage, which search returns and
cites (docs/decisions/0006), so a claim that needs its context is not lost, only not an atom.
A word in brackets is an aside and is not read. Carry (`distill.carry`) puts the section's
subject in front of a claim ("Subject: it ..."), and join (`distill.units`) the sentence before
it: both give the pronoun its antecedent, so the rule reads the first sentence of the claim
after them, and the promote stage does not run it on a carried claim.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru
import pegas_memory.distill.morph_en as morph_en
import pegas_memory.distill.morph_ru as morph

# A token: a code span (one name), a word with inner apostrophes or hyphens, or a dash.
_TOKEN = re.compile(r"`[^`]+`|[^\W_]+(?:[-'’][^\W_]+)*|—|–|-{1,2}(?=\s)|[,:;]")

_OTHERWISE = en.OTHERWISE | ru.OTHERWISE
_EN_IT = en.IT
_EN_THEY = en.THEY
_EN_PERSON = en.PERSON
_EN_POSSESSIVE = en.REFERENCE_POSSESSIVE
_EN_DEMONSTRATIVE = en.REFERENCE_DEMONSTRATIVE
_EN_ANOTHER = en.ANOTHER
_EN_GRAMMAR = en.GRAMMAR
_EN_DOCUMENT = en.DOCUMENT
_EN_FORWARD = en.FORWARD
_EN_EXPLETIVE_VERB = en.EXPLETIVE_VERB
_EN_EXPLETIVE_TAIL = en.EXPLETIVE_TAIL
_EN_SINGULAR_S = en.SINGULAR_S

_RU_PERSONAL = ru.PERSONAL
_RU_DEMONSTRATIVE = ru.REFERENCE_DEMONSTRATIVE
_RU_DOCUMENT = re.compile(
    r"^(?:стать|глав|раздел|работ|книг|лекци|урок|учебник|документ|пособи|курс|текст|част"
    r"|параграф|слайд|презентаци|пост|заметк|руководств|диссертаци|доклад|библиотек|пакет|модул"
    r"|проект|утилит|инструмент|плагин|фреймворк|расширени)\w*$"
)
# Nouns of a situation or a step of the text: "in this case", "at this point", "в этом случае".
_EN_SITUATION = re.compile(
    r"^(?:case|cases|way|point|situation|scenario|example|moment|time|step|stage|approach"
    r"|setting|setup|context|instance)$"
)
_RU_SITUATION = re.compile(
    r"^(?:случа|ситуаци|пример|момент|раз|шаг|этап|подход|способ|контекст|сценари|вариант)\w*$"
)
_RU_FORWARD = ru.FORWARD
_RU_DASH = frozenset({"—", "–", "-", "--"})
# Connectives made of a demonstrative that refer to no thing: "таким образом", "при этом".
_RU_IDIOMS = frozenset(
    {("таким", "образом"), ("при", "этом"), ("данный", "момент"), ("данное", "время")}
)
_RU_ANOTHER = ru.ANOTHER


@dataclass(frozen=True)
class Unresolved:
    """A referring word of a claim whose referent the claim does not hold."""

    word: str
    position: int


def unresolved(claim: str, language: str | None, *, personal: bool = True) -> Unresolved | None:
    """The first referring word of `claim` that finds nothing to refer to in it (module
    docstring), or None when every one does. With `personal` False only a demonstrative before
    a noun of a situation is read: a subject carried onto the claim is what its "it", "он" or
    "this town" stands for, but not what "in this case" or "в данном случае" points at."""
    tokens = _TOKEN.findall(_without_asides(_first_sentence(claim)))
    if tokens and tokens[0].casefold() in _OTHERWISE:
        return Unresolved(tokens[0], 0)  # "Otherwise ...", "Иначе ...": the condition before
    if language == "ru":
        return _unresolved_ru(tokens, personal)
    return _unresolved_en(tokens, personal)


# Where a joined claim's second sentence starts: its references may stand for the first's words.
_SENTENCE_END = re.compile(r"[.!?…]\s+(?=[\"“«(]?[A-ZА-ЯЁ])")


def _first_sentence(claim: str) -> str:
    """The claim up to its first sentence's end: join (`distill.units`) put the sentence a
    reference leans on before it, so only the first sentence must resolve on its own."""
    end = _SENTENCE_END.search(claim)
    return claim if end is None else claim[: end.start() + 1]


_ASIDE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")


def _without_asides(text: str) -> str:
    """The text without what brackets hold: an aside's "это" or "it" leaves the claim whole
    ("(сейчас это Миякодзима — ...)")."""
    while True:
        stripped = _ASIDE.sub(" ", text)
        if stripped == text:
            return text
        text = stripped


def _unresolved_en(tokens: list[str], personal: bool) -> Unresolved | None:
    words = [t.casefold() for t in tokens]
    for i, word in enumerate(words):
        if word in _EN_IT or word in _EN_THEY or word in _EN_PERSON:
            if not personal:
                continue
            if word == "it" and _expletive_it(words, i):
                continue
            if word in _EN_POSSESSIVE and _any_candidate_en(tokens, skip=i):
                continue  # "Despite its simplicity, the Counter ..."
            plural = word in _EN_THEY
            if not _candidate_before_en(tokens, i, plural=plural):
                return Unresolved(tokens[i], i)
        elif word in _EN_DEMONSTRATIVE or (word == "that" and i == 0):
            if ":" in words[i + 1 :] and word in ("these", "this"):
                continue  # "these steps run: The URL is matched ...": what follows the colon
            if _clause_before(tokens, i, _content_en):
                continue  # "X synthesize Y, but the relevance of this response ..."
            if not personal:
                if _situation(words, i, _EN_SITUATION):
                    return Unresolved(tokens[i], i)
                continue
            if not _demonstrative_resolved_en(words, i):
                return Unresolved(tokens[i], i)
        elif not personal:
            continue
        elif word == "such":
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            if "as" not in words[i + 1 :] and not morph_en.adjective_only(nxt):
                return Unresolved(tokens[i], i)  # "such a change"; not "such different roles"
        elif word in _EN_ANOTHER and ((word == "another" and i == 0) or _after_the(words, i)):
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            if word != "another" and (nxt[:1].isupper() or morph_en.noun_or_adjective(nxt)):
                continue  # "the former GDR": an adjective
            return Unresolved(tokens[i], i)
    return None


_CLAUSE_WORDS = 4  # content words a clause before the demonstrative holds at least
_SEPARATORS = frozenset({",", ":", ";", "—", "–"})


def _clause_before(tokens: list[str], i: int, content: Callable[[str], bool]) -> bool:
    """Whether a clause of the claim before the demonstrative can hold what it points at: a
    separator stands between them and four content words or more come before it ("Cells ...
    synthesize triacylglycerols and generate lipid droplets, but ... this response"; "ВРС
    отмечал своё 125-летие: по этому случаю"). "When the function is over, those values" has
    two: the referent is in the text before."""
    separator = max((j for j in range(i) if tokens[j] in _SEPARATORS), default=-1)
    if separator < 0:
        return False
    return sum(1 for t in tokens[:separator] if content(t)) >= _CLAUSE_WORDS


def _content_ru(token: str) -> bool:
    if token.startswith("`"):
        return True
    word = token.casefold()
    return word[:1].isalnum() and not word.isdigit() and not morph.function_word(word)


def _situation(words: list[str], i: int, nouns: re.Pattern[str]) -> bool:
    """ "in this case", "в данном случае": a demonstrative before a noun of the situation the
    text before described, which no subject carried onto the claim resolves."""
    nxt = words[i + 1] if i + 1 < len(words) else ""
    return nouns.match(nxt) is not None


def _after_the(words: list[str], i: int) -> bool:
    return i > 0 and words[i - 1] == "the"


def _expletive_it(words: list[str], i: int) -> bool:
    """ "It is known that ...", "it can be shown that ...", "makes it possible to ..."."""
    after = words[i + 1 : i + 8]
    if i > 0 and words[i - 1] in ("makes", "make", "made", "making"):
        return True
    if not after or after[0] not in _EN_EXPLETIVE_VERB:
        return False
    return any(w in _EN_EXPLETIVE_TAIL for w in after[1:])


def _content_en(token: str) -> bool:
    if token.startswith("`"):
        return True
    word = token.casefold()
    return token[:1].isalnum() and word not in _EN_GRAMMAR and not word.isdigit()


def _plural_en(token: str, before: list[str]) -> bool:
    """A plural-looking candidate: a code span, a capitalised name (a product or a group),
    "-s" that is not a singular ending, or any word when an "and" joined two."""
    if token.startswith("`") or "and" in before:
        return True
    word = token.casefold()
    if word in _EN_SINGULAR_S or word.endswith(("ss", "us", "is")):
        return False
    return word.endswith("s") or word.endswith(("men", "ren", "ia", "ata")) or token.isupper()


def _candidate_before_en(tokens: list[str], i: int, *, plural: bool) -> bool:
    before = [t.casefold() for t in tokens[:i]]
    if plural and sum(1 for t in tokens[:i] if _content_en(t)) >= _CLAUSE_WORDS - 1:
        return True  # "a new technique with an established one ... whether they agree"
    # the word right before the pronoun governs it ("call it", "with them"): no antecedent
    for j in range(i - 1):
        token = tokens[j]
        if not _content_en(token):
            continue
        if not plural or _plural_en(token, before):
            return True
    return False


def _any_candidate_en(tokens: list[str], skip: int) -> bool:
    return any(_content_en(t) for j, t in enumerate(tokens) if j != skip)


def _demonstrative_resolved_en(words: list[str], i: int) -> bool:
    nxt = words[i + 1] if i + 1 < len(words) else ""
    if i > 0 and words[i - 1] in ("like", "as") and words[i] == "this":
        return True  # "a text like this": the one the reader has before them
    nxt = nxt.removesuffix("'s").removesuffix("’s")
    if nxt in _EN_DOCUMENT:
        return True  # "this paper", "this chapter": the title says which
    if nxt[:1].isalpha() and morph_en.noun_lemma(nxt) in {
        morph_en.noun_lemma(w) for w in words[:i]
    }:
        return True  # "Template engines are like ... each of those engines": named before
    if words[i] == "those" and nxt in _EN_FORWARD:
        return True  # "those who ...", "those of ..."
    if words[i] in ("these", "those") and not morph_en.noun_or_adjective(nxt):
        # a pronoun, not a determiner: "older than those without", "only those."
        return _candidate_before_en(words, i, plural=True)
    if words[i] == "that" and nxt in (",", "is", "means"):
        return False  # "That is why ...", "That means ..."
    return False


def _unresolved_ru(tokens: list[str], personal: bool) -> Unresolved | None:
    words = [t.casefold() for t in tokens]
    for i, word in enumerate(words):
        if not word[:1].isalpha():
            continue
        if (word, words[i + 1] if i + 1 < len(words) else "") in _RU_IDIOMS or (
            i > 0 and (words[i - 1], word) in _RU_IDIOMS
        ):
            continue
        lemmas = morph.pronoun_lemmas(word)
        demonstrative = word == "это" or bool(lemmas & _RU_DEMONSTRATIVE)
        if demonstrative and _clause_before(tokens, i, _content_ru):
            continue  # "ВРС отмечал своё 125-летие: по этому случаю ..."
        if not personal:
            if lemmas & _RU_DEMONSTRATIVE and _situation(words, i, _RU_SITUATION):
                return Unresolved(tokens[i], i)
            continue
        if word == "это":
            if not _eto_resolved(tokens, words, i):
                return Unresolved(tokens[i], i)
            continue
        if lemmas & _RU_PERSONAL:
            if not _personal_resolved_ru(tokens, words, i):
                return Unresolved(tokens[i], i)
        elif lemmas & _RU_DEMONSTRATIVE:
            if ":" in words[i + 1 :]:
                continue  # "выполняются такие шаги: ...": what follows the colon
            if not _demonstrative_resolved_ru(words, i, lemmas):
                return Unresolved(tokens[i], i)
        elif i == 0 and word in _RU_ANOTHER and i + 1 < len(words) and morph.noun(words[1]):
            continue  # "Последний элемент массива ...": an attribute, not a list's next item
    return None


def _eto_resolved(tokens: list[str], words: list[str], i: int) -> bool:
    """ "X — это Y" (the copula of a definition), "это" after a noun and a dash or comma; a
    subject "Это позволяет ..." or a determiner "это свойство" points back."""
    if i > 0 and words[i - 1] in _RU_DASH:
        return True
    if i > 1 and words[i - 1] == "," and morph.noun(words[i - 2]):
        return False
    nxt = words[i + 1] if i + 1 < len(words) else ""
    return bool(nxt) and _RU_DOCUMENT.match(nxt) is not None


def _personal_resolved_ru(tokens: list[str], words: list[str], i: int) -> bool:
    """A noun before the pronoun agrees with one of its readings; a name in Latin letters or
    code agrees with any. A possessive ("их сын", "его значение") may point forward in the
    claim: any noun of the claim will do."""
    agreements = morph.pronoun_agreements(words[i])
    nxt = words[i + 1] if i + 1 < len(words) else ""
    possessive = (
        words[i] in ("его", "её", "ее", "их")
        and nxt[:1].isalpha()
        and (morph.noun(nxt) or morph.adjective(nxt))
    )
    span = range(len(words)) if possessive else range(i)
    for j in span:
        if j == i:
            continue
        token = tokens[j]
        if token.startswith("`") or re.fullmatch(r"[A-Za-z][\w.]*", token):
            return True
        if possessive and morph.noun(words[j]):
            return True
        if morph.noun_agreements(words[j]) & agreements:
            return True
    return False


def _demonstrative_resolved_ru(words: list[str], i: int, lemmas: frozenset[str]) -> bool:
    nxt = words[i + 1] if i + 1 < len(words) else ""
    if _RU_DOCUMENT.match(nxt):
        return True  # "в этой статье": the title says which
    if nxt[:1].isalpha() and morph.lemma(nxt) in {morph.lemma(w) for w in words[:i]}:
        return True  # "бойни 1819 года, в конце этого года": named before
    if nxt in _RU_FORWARD or (nxt == "," and i + 2 < len(words) and words[i + 2] in _RU_FORWARD):
        return True  # "тот, кто ...", "такой же", "такие, как ..."
    if "такой" in lemmas:
        return "как" in words[i + 1 :]  # "такие методы, как push": named by what follows
    if lemmas == {"данный"}:
        return not morph.noun(nxt)  # "в данном случае" points back; "данные" is data
    return False
