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
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Rule 1: openers that add members to a set told before ("the rest of" reads as "rest").
_ENUMERATION = re.compile(
    r"^\W*(?:another|others?|further|additional|a\s+further|the\s+other|the\s+remaining"
    r"|the\s+rest\s+of)\b(?![,;:])\s*(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_CARDINALS = _words("two three four five six seven eight nine ten eleven twelve")
# What after the opener is no noun: "Other than X", "Another, ...", "Further to ...".
_NO_NOUN = _words(
    "than to of and or but is are was were be been has have had can could will would may might"
    " should must that which who the a an this these those it they"
)
# "Further/Additional" is more work, not more members, when the work is still to come
# ("Further studies are needed", "... may be warranted") or reports its own finding ("Further
# ontology analysis revealed that ..."): the sentence says what it is about.
_FUTURE = re.compile(
    r"\b(?:needed|warranted|required|necessary|should|will|would|may|might|could"
    r"|(?:revealed|showed|shown|demonstrated|indicated|confirmed|suggested|found|identified)"
    r"\s+(?:that|a|an|the)|(?:reveal|show|demonstrate|indicate|confirm|suggest)s?\s+that)\b",
    re.IGNORECASE,
)
_FUTURE_OPENERS = _words("further additional")

# Rule 2: what a counted noun may be that is no set of the text's: time, measure, a share.
_UNITS = _words(
    "second seconds minute minutes hour hours day days week weeks month months year years"
    " decade decades century centuries time times percent mg kg ml g cm mm km h min s"
    " points point"
)
# Words after "the two" that end its noun phrase: "between the two.", "the two and ...".
_ENDS_PHRASE = _words(
    "and or but is are was were did do does had have has in at on for with by from showed"
    " differed did not"
)

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


def continues_before(sentence: str, before: str | None) -> bool:
    """Whether the sentence goes on with the set or comparison of `before` (rules 1-3); a
    sentence with nothing before it (a paragraph's first) continues nothing. Nor does one after
    a sentence whose subject names nothing ("The most common diagnosis (52% of cases) was a
    MELAS mutation."): that one carries the document's title (`distill.subject_en`), and a
    continuation joined to it ("Other genetic mitochondrial diagnoses ...") would read as
    naming the title's subject and lose the carry."""
    if before is None or not before.strip() or _names_nothing(before):
        return False
    return _enumeration(sentence) or _counted_set(sentence) or _pronoun_standard(sentence)


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
_DETERMINERS = _words("the a an this these that those such")
_VERBS = _words(
    "is are was were has have had can could will would may might should must does do did"
    " remains remain seems seem appears appear"
)
_ASIDE = re.compile(r"\([^()]*\)")
_MAX_SUBJECT = 6


def _names_nothing(before: str) -> bool:
    """Whether the sentence before opens on a subject naming nothing ("The most common diagnosis
    (52% of cases) was ..."), which carries the document's title (the guard above)."""
    words = _WORD.findall(_ASIDE.sub(" ", before))
    if len(words) < 3 or words[0].casefold() not in _DETERMINERS:
        return False
    for w in words[1 : 1 + _MAX_SUBJECT + 1]:
        if w.casefold() in _VERBS or w.endswith("ed"):
            return True
        if w[:1].isupper() or any(c.isdigit() for c in w):
            return False
    return False
