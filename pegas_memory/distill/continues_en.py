"""English sentences that go on with an enumeration or a comparison of the sentence before (pure).

`distill.join_en.leans_on_before` asks these rules when the sentence before exists (a
paragraph's first sentence joins nothing: an "Other kinds of values ..." that opens a section
speaks of the section before, which no join may reach). Each is grammar, not a word list of
one sample:

1. **An enumeration goes on** ("... for 8/50 loci (...). Another 16 loci were defined by ...",
   "Other kinds of values or counters can be used ..."): the sentence opens with "Another",
   "Other", "Others", "Further", "Additional", "A further", "The other", "The remaining", "The
   rest of" (a number may follow: "Another 16 loci"), then its noun: more members of a set the
   sentence before began, which alone names neither the set nor what it is other than. Not
   "Other than X, ...", "Further, ..." (an additive connector, `join_en` rule 8), nor "Further
   studies are needed ..." (research still to come stands alone: a modal, "needed",
   "warranted").
2. **A counted set told before** ("There was no significant difference in CIMT between the 2
   groups.", "the three arms", "between the two"): "the" and a cardinal (a digit or "two" ...
   "twelve"), then a plural noun or nothing: the definite article says the reader knows which
   two; they are told before. Not a unit of time or measure ("the 12 months", "the 2 mg"), nor a
   noun the sentence names earlier ("randomised into two groups; the two groups ..."). "both /
   either groups" are `join_en` rule 2.
3. **A comparison whose standard is a pronoun** ("... decreased to values similar to those
   obtained in NN", "higher than that of ...", "the same as those ..."): "similar/comparable/
   identical/equal/close to", "than", "as", "compared with/to" and then "those"/"that" with no
   noun: whose values "those" are, and who NN are, the sentence before says.
4. **A leading adverbial before a definite description** ("... sympathetic activity decreased
   ... In women with NP, the decrease in sympathetic output occurred ..."): `join_en` rule 7
   reads a definite description only at the start; `after_opening_phrase` gives it the clause
   after a leading prepositional phrase and its comma, so "the decrease" meets "decreased".
5. **A definite ordinal description as the subject** ("To subscribe to a signal, use its
   connect() method. The first argument is the function ...", "The next step is ...", "The last
   option ..."): "the", at most one modifier ("the optional second argument"), an ordinal
   (first ... fifth, next, last, final, previous, former, latter) and its noun, then the verb:
   a member of a series the sentence before introduced. Not when the noun says whose series it
   is ("The first argument of connect() is ...", "the first step in ...", "the first study to
   ..."), nor a moment ("The first time ...", "the last decade"): those stand alone.
6. **A word of the sentence before, glossed "here"** ("... which has the effect of releasing
   any connection resources ... \"Releasing\" here means that connections are returned ..."):
   a quoted or code word right before "here", or "here means / refers to / denotes": the word as
   the sentence before used it.
7. **A condition on the sentence before** ("If not, you have to tweak ...", "If so, ...",
   "Else ...", "At this point, ..."): the condition or the step it names is the sentence
   before's. ("Otherwise", "In this case" are `join_en` rule 4.)
8. **A definite description in a leading condition** ("... the row in “q” must exist; ... If
   the row does not exist, for most DBAPI drivers ..., the ORM will fail to detect an updated
   row ..."): "If/When/Unless/Once/Whenever the N ...", or with a gerund before it ("If accessing
   the single columns is important ..."), and N (its head, singular or plural) is a word of the
   sentence before: the definite article says which N, and the sentence before
   told it. Not when words after N say whose it is before the verb ("If the row of table p
   is ...": N must be right before its verb) or N is a moment ("When the time comes"). Rule 4
   reads a prepositional opener, `join_en` rule 7 a sentence's own subject: this one reads the
   subject of its condition.
"""

from __future__ import annotations

import re

import pegas_memory.distill.lexicon_en as en

_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")


# Rule 1: openers that add members to a set told before ("the rest of" reads as "rest").
_ENUMERATION = re.compile(
    r"^\W*(?:another|others?|further|additional|a\s+further|the\s+other|the\s+remaining"
    r"|the\s+rest\s+of)\b(?![,;:])\s*(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_CARDINALS = en.CARDINALS
_NO_NOUN = en.NO_NOUN
# "Further/Additional" is more work, not more members, when the work is still to come
# ("Further studies are needed", "... may be warranted") or reports its own finding ("Further
# ontology analysis revealed that ..."): the sentence says what it is about.
_FUTURE = re.compile(
    r"\b(?:needed|warranted|required|necessary|should|will|would|may|might|could"
    r"|(?:revealed|showed|shown|demonstrated|indicated|confirmed|suggested|found|identified)"
    r"\s+(?:that|a|an|the)|(?:reveal|show|demonstrate|indicate|confirm|suggest)s?\s+that)\b",
    re.IGNORECASE,
)
_FUTURE_OPENERS = en.FUTURE_OPENERS

_UNITS = en.UNITS
_ENDS_PHRASE = en.ENDS_PHRASE

# Rule 3: a comparison word, then "those"/"that" standing for a noun of the sentence before,
# and the description after it up to a clause's end ("obtained in NN").
_PRONOUN_STANDARD = re.compile(
    r"\b(?:(?:similar|comparable|identical|equal|equivalent|close|superior|inferior)\s+to"
    r"|the\s+same\s+as|than|compared\s+(?:with|to)|relative\s+to)\s+(?:those|that)\b"
    r"(?!\s+(?:is|was|are|were|the|a|an|it|they|we|this|these)\b)(?P<tail>[^,;:.]*)",
    re.IGNORECASE,
)
# An abbreviation used bare: two or more capitals ("NN", "PIH"), not defined in brackets here.
_ACRONYM = re.compile(r"(?<![\w(])([A-Z][A-Z0-9]{1,5})(?![\w)])")

# Rule 4: a leading prepositional phrase and its comma ("In women with NP, ...").
_OPENING_PHRASE = re.compile(
    r"^\W*(?:in|among|for|after|before|during|at|on|under|with|without|within|across|from"
    r"|following|throughout|by)\s+[^,;:.]{1,80},\s+(?P<rest>\S.*)$",
    re.IGNORECASE | re.DOTALL,
)

# Rule 8: a leading condition on a definite noun phrase: up to two modifiers, then its head and
# the word after it.
# The head is the noun right before the condition's verb (an auxiliary, or a verb in "-s" or
# "-ed"): "If the row does not exist" reads "row", "When the application object is deleted"
# reads "object", not its modifier "application".
_CONDITIONAL_THE = re.compile(
    r"^\W*(?:if|when|whenever|unless|once|until)\s+(?:[a-z]{3,}ing\s+)?the\s+"
    r"(?P<np>(?:[a-z][\w-]*\s+){0,2}?)"
    r"(?P<head>[a-z]{3,})\s+(?P<after>(?:not\s+)?(?:is|are|was|were|has|have|had|does|do|did"
    r"|can|cannot|could|will|would|may|might|must|should|[a-z]+(?<!s)s|[a-z]+ed))\b",
    re.IGNORECASE,
)
_NOT_HEAD = en.NOT_HEAD


# Rule 5: an ordinal description opening the sentence, one modifier allowed before the ordinal
# (a lowercase ordinal: "The First Amendment" is a name).
_ORDINAL_SUBJECT = re.compile(
    r"^\W*the\s+(?:[a-z]+\s+)?(?-i:first|second|third|fourth|fifth|next|last|final|previous"
    r"|preceding|former|latter)\s+(?P<noun>[a-z]+)(?P<after>\s+[a-z]+)?",
    re.IGNORECASE,
)
_OWN_SERIES = en.OWN_SERIES
_MOMENTS = en.MOMENTS
# Rule 6: a quoted or code word right before "here", or "here" glossing a word.
_GLOSSED_HERE = re.compile(
    r"[\"”’'`*]\s*here\b|\bhere\s+(?:means|meant|refers\s+to|denotes|stands\s+for|implies)\b",
    re.IGNORECASE,
)
# Rule 7: a condition or a step opening the sentence that the sentence before states.
_CONDITION_BEFORE = re.compile(
    r"^\W*(?:if\s+(?:not|so)\b\s*,|else\b(?!\s+(?:than|to|of)\b)|at\s+(?:this|that)\s+point\s*,"
    r"|failing\s+that\b)",
    re.IGNORECASE,
)


def continues_before(sentence: str, before: str | None) -> bool:
    """Whether the sentence goes on with the set or comparison of `before` (rules 1-3), or leans on
    it by an ordinal, a glossed "here" or a condition (rules 5-8); a sentence with nothing
    before it (a paragraph's first) continues nothing. Nor does a rule 1-3 one after
    a sentence whose subject names nothing ("The most common diagnosis (52% of cases) was a
    MELAS mutation."): that one carries the document's title (`distill.subject_en`), and a
    continuation joined to it ("Other genetic mitochondrial diagnoses ...") would read as
    naming the title's subject and lose the carry."""
    if before is None or not before.strip():
        return False
    if ordinal_subject(sentence) or _GLOSSED_HERE.search(sentence) is not None:
        return True  # rules 5-7 name nothing of their own: joined even to a title-carrying one
    if _CONDITION_BEFORE.match(sentence) is not None or conditional_description(sentence, before):
        return True  # rule 8's noun is the one the sentence before names, told there
    if _names_nothing(before):
        return False
    return _enumeration(sentence) or _counted_set(sentence) or _pronoun_standard(sentence)


def conditional_description(sentence: str, before: str) -> bool:
    """Rule 8 (module docstring): "If the row does not exist, ..." after a sentence about the
    row."""
    m = _CONDITIONAL_THE.match(sentence)
    if m is None:
        return False
    head, after = m["head"].casefold(), m["after"].casefold()
    nxt = (_WORD.findall(sentence[m.end() :]) or [""])[0].casefold()
    if after.endswith("s") and nxt in _VERBS:
        head = after  # "If accessing the single columns is ...": a plural noun, then the verb
    if head in _NOT_HEAD or head in _MOMENTS:
        return False
    told = {w.casefold() for w in _WORD.findall(before)}
    forms = {head, head + "s", head[:-1] if head.endswith("s") else head}
    return bool(forms & told)


def ordinal_subject(text: str) -> bool:
    """Rule 5 (module docstring): the text opens on "the (modifier) ordinal noun" and nothing
    after the noun says whose series it is; `distill.definition_rules` reads such a subject as no
    defined term either ("The first argument is the function ..." defines no "first argument")."""
    m = _ORDINAL_SUBJECT.match(text)
    if m is None or m["noun"].casefold() in _MOMENTS or m["noun"].casefold() in _NO_NOUN:
        return m is not None and m["noun"].casefold() in ("is", "are", "was", "were")
    after = (m["after"] or "").strip().casefold()
    return after not in _OWN_SERIES


def after_opening_phrase(sentence: str) -> str | None:
    """Rule 4: the clause after a leading prepositional phrase and its comma, when it opens on
    "the" (a definite description `join_en` rule 7 may read), else None."""
    m = _OPENING_PHRASE.match(sentence)
    if m is None or m["rest"][:4].casefold() != "the ":
        return None
    return m["rest"]


def _enumeration(sentence: str) -> bool:
    """Rule 1 (module docstring)."""
    m = _ENUMERATION.match(sentence)
    if m is None:
        return False
    words = [w.casefold() for w in _WORD.findall(m["rest"])]
    if words[:1] == ["the"]:
        words = words[1:]  # "The rest of the loci"
    if words and (words[0].isdigit() or words[0] in _CARDINALS):
        words = words[1:]  # "Another 16 loci", "The remaining three patients"
    if not words or words[0] in _NO_NOUN:
        return False
    opener = _WORD.findall(sentence)[0].casefold()
    return not (opener in _FUTURE_OPENERS and _FUTURE.search(sentence))


def _counted_set(sentence: str) -> bool:
    """Rule 2 (module docstring)."""
    words = [w.casefold() for w in _WORD.findall(sentence)]
    for i, w in enumerate(words[:-1]):
        number = words[i + 1]
        if w != "the" or not (number in _CARDINALS or (number.isdigit() and len(number) <= 2)):
            continue
        noun = words[i + 2] if i + 2 < len(words) else ""
        if not noun or noun in _ENDS_PHRASE:
            return True  # "between the two.", "the two did not differ"
        if noun in _UNITS or not _plural(noun):
            continue  # "the 12 months", "the 2 mg dose", "the two-step ..."
        singular = noun[:-1] if noun.endswith("s") else noun
        if any(e in (noun, singular) for e in words[:i]):
            continue  # "randomised into two groups; the two groups ...": named here
        return True
    return False


def _plural(word: str) -> bool:
    if word in ("people", "children", "men", "women", "mice", "data", "sexes"):
        return True
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _pronoun_standard(sentence: str) -> bool:
    """Rule 3 (module docstring): the pronoun with nothing after it ("similar to those."), or
    described only by an abbreviation the sentence does not define ("those obtained in NN"); a
    standard with its own words ("similar to that of human embryonic stem cells", "than those
    receiving placebo") is compared here."""
    for m in _PRONOUN_STANDARD.finditer(sentence):
        tail = m["tail"].strip()
        if not tail:
            return True
        for acronym in _ACRONYM.findall(tail):
            if f"({acronym})" not in sentence:
                return True
    return False


# What `distill.subject_en` reads as a subject that names nothing: a determiner, common nouns
# (no capital after the first word, no acronym, no digit; brackets are asides) up to the verb.
_DETERMINERS = en.CONTINUES_DETERMINERS
_VERBS = en.VERBS
_ASIDE = re.compile(r"\([^()]*\)")
_MAX_SUBJECT = 6
_CODE_NAME = re.compile(r"[^\W_][_.][^\W_]|\w\(|`")


def _names_nothing(before: str) -> bool:
    """Whether the sentence before opens on a subject naming nothing ("The most common diagnosis
    (52% of cases) was ..."), which carries the document's title (the guard above)."""
    tokens = _ASIDE.sub(" ", before).split()
    if len(tokens) < 3 or tokens[0].strip("\"'“”`*").casefold() not in _DETERMINERS:
        return False
    for token in tokens[1 : 1 + _MAX_SUBJECT + 1]:
        if _CODE_NAME.search(token):
            return False  # "The scoped_session.remove() method ...": a code name names a thing
        for w in _WORD.findall(token):
            if w.casefold() in _VERBS or w.endswith("ed"):
                return True
            if w[:1].isupper() or any(c.isdigit() for c in w):
                return False
    return False
