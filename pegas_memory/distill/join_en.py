"""English sentences that lean on the one before past their first words (pure logic).

`distill.context.leans_back` joins a sentence whose first words hold a pronoun or "this X".
An English sentence also leans back when the word that shows it comes later, or is no pronoun:

1. **A demonstrative with its noun anywhere** ("... of these cells in culture", "did not
   influence those parameters", "call attention to this subject"), or alone after a
   preposition ("A good example for this is ...", "Due to this, ..."), unless the noun is named
   earlier in the same sentence ("Template engines ... each of those engines"), the noun is the
   document or a moment ("this study", "at this point"), or "those" introduces its own
   description ("than those receiving placebo", "those with diabetes").
2. **A determiner that presupposes a set told before**: "both/either/neither + noun" without
   its own "and/or/nor" ("received both medications"; "both men and women" names them), "such
   + noun" ("such patients"; "such as" and "such diseases as" right after the noun phrase
   introduce examples, a later "as" does not: "such use-cases by marking classes as final"),
   "the latter/former", "the same" without a comparison ("the same as ...").
3. **A connector of consequence inside the clause**: "is therefore controversial", "we thus
   propose" (after "and", or before a participle, "..., thus reducing", it links two clauses of
   the same sentence).
4. **A connector at the start**: "In particular", "In contrast", "Instead", "Otherwise",
   "Similarly", "As a result" lean back whatever follows; "But", "However", "Yet", "Still",
   "So", "And", "Also", "Then", "Now" do when a pronoun or demonstrative is the next word ("But
   they have to ...", "But that's about where similarities end.").
5. **A subject pronoun after an opening phrase without a comma** ("On the surface they all
   work the same") when no plural noun before it can be what "they" stands for ("When
   patients arrive they ..." names them).
6. **An instruction whose object is "it"/"them"** ("If you want to apply a middleware, just
   wrap it ...", "Use it to ..."): what to wrap was named before.
7. **A definite description that repeats the sentence before** ("... the success rate for
   producing live offspring remains below 5%. The low success rate is believed ..."): "The" and
   up to four words before the verb, whose last word (the head noun) is in the sentence before,
   and no "of ..." after it to say whose; or a noun of the same word family ("... failed to
   ... The failure ...": the stem left after its suffix, 4 letters at least).
8. **An additive connector before a definite or bare singular noun phrase** ("Additionally,
   response to therapy differs by subtype", "Furthermore, the expression ratio ...") with no
   name, acronym or number in its clause: it adds to what the sentence before said of that
   subject. A bare plural names a kind and stands ("Moreover, plant formins show ...").

9. **A definite category noun for a thing named otherwise before** ("Kulldorff's spatial scan
   statistic ... is widely used. However, two issues make using the method ..."): "the" right
   before a noun that names a kind of means (method, technique, approach, model, drug,
   treatment, ...) in the first clause, when the sentence does not introduce it ("a new method
   ... the method"), and nothing after it says which ("the method of moments", "the method
   SaTScan", "the model that ...", "the approach described in ..."). Rule 7 needs the same
   word; here the sentence before names the thing by its own name.
10. **A pointer at what the page shows** ("the account_id column here is on both sides", "the
   example above", "shown below,"): "here" (not "Here is ..." that introduces what follows),
   and "above"/"below" as adverbs (before a verb, a conjunction, punctuation or the end; "below
   5%", "above the threshold" are prepositions). What "here" points at (a code block, a figure)
   is most often introduced by the sentence before: the group holds both.

11. **A definite event or result noun as the subject, with no complement** ("... matched the
   time course of the appearance of pattern B. The transformation was complete in 90 min.",
   "The increase was significant"): a nominalisation (-tion, -ment, -ance, -ence) or a result
   noun (effect, change, increase, challenge ...; "the findings", "the results" are the whole
   study's: `distill.subject_en` carries its title onto them) right after "the" (one modifier
   at most), and its verb next, not "of ..."/"between ..." to say what changed: what it names
   is told before, even in other words. Checked with rule 7 (the sentence before exists: a
   paragraph's first sentence joins nothing).
12. **A predicative comparative with nothing to compare with** ("The Ca2+-independent PKC delta
   was much less sensitive to inhibition.", "Associations with adult disease indicators were
   not so clear-cut.", "The effect was smaller."): a copula, then "more/less/so/equally/
   similarly/as + adjective" or an "-er" comparative, and no "than", "as ...", "compared with",
   "versus", "relative to" after it in the sentence, nor a group or condition it holds for
   ("higher in women", "more common among smokers", "more likely to ..."): what it is more or
   less than is told before. "X was more effective than Y" states its own comparison.

The rules read the cleaned sentence (and the sentence before, for rule 7); they are grammar and
document structure, not words seen in one sample.
"""

from __future__ import annotations

import re

import pegas_memory.distill.continues_en as continues_en
import pegas_memory.distill.lean_en as lean_en
import pegas_memory.distill.lexicon_en as en

_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_WORD_OR_MARK = re.compile(_WORD.pattern + r"|[,;:.!?()\[\]\"“”]")
# "that's", "they're", "it'll": the pronoun and its verb.
_CONTRACTION = re.compile(r"^([a-z]+)['’](?:s|re|ll|d|ve|m)$")


_DEMONSTRATIVES = en.JOIN_DEMONSTRATIVES
_DEICTIC_NOUNS = en.DEICTIC_NOUNS
_NOT_A_NOUN = en.NOT_A_NOUN
_OBJECT_OF = en.OBJECT_OF
_THOSE_OWN = en.THOSE_OWN
_COORDINATED = {"both": "and", "either": "or", "neither": "nor"}
_CONSEQUENCE = en.CONSEQUENCE
_CLAUSE_LINK = en.CLAUSE_LINK
# Connectors that lean on the sentence before whatever follows them.
_ELABORATIVE = re.compile(
    r"^\W*(?:in particular|in contrast|by contrast|on the contrary|instead|otherwise|similarly"
    r"|likewise|conversely|specifically|as a result|as a consequence|for this reason|in this case"
    r"|in that case|in turn|in addition to (?:this|these|that)|despite (?:this|these|that))\b"
    r"(?!\s+(?:to|with|of|from)\b)",  # "In contrast to X", "Instead of X": named here
    re.IGNORECASE,
)
_CONNECTORS = en.CONNECTORS
_PRONOUNS = en.JOIN_PRONOUNS
_SUBJECT_PRONOUNS = en.SUBJECT_PRONOUNS
_OPENERS = en.JOIN_OPENERS
_NOT_PLURAL = en.NOT_PLURAL
_VERBISH = en.VERBISH
_THE_COMPLEMENT = en.THE_COMPLEMENT
_MAX_NP = 4  # words of a definite description before its verb


def _tokens(text: str, marks: bool = False) -> list[str]:
    """The sentence's words, lowered, contractions split; with `marks` its punctuation too."""
    out: list[str] = []
    for m in (_WORD_OR_MARK if marks else _WORD).finditer(text):
        w = m[0].casefold()
        c = _CONTRACTION.match(w)
        out.extend([c[1], "is"] if c and c[1] in _PRONOUNS else [w])
    return out


def leans_on_before(sentence: str, before: str | None = None) -> bool:
    """Whether an English sentence leans on the one before by rules 1-11 (module docstring);
    `before` is the sentence before it, for rules 7, 9 and 11 (a first sentence has none)."""
    words = _tokens(sentence)
    if not words:
        return False
    return (
        _demonstrative_noun(_tokens(sentence, marks=True))
        or _presupposing(words)
        or _consequence(words)
        or _connector(words, sentence)
        or _late_subject(words, sentence)
        or _imperative_object(sentence)
        or (before is not None and _repeated_description(words, _tokens(before)))
        or (before is not None and _told_event(words))
        or _additive_bare(sentence)
        or (before is not None and _category_description(words))
        or _points_at_display(_tokens(sentence, marks=True))
        or (before is not None and _bare_comparative(_tokens(sentence, marks=True)))
        or continues_en.continues_before(sentence, before)  # enumerations, counted sets
        or lean_en.leans(sentence, before)  # "You can achieve this ...", asides, "I thought it"
        or (before is not None and _opened_description(sentence, before))
    )


def _opened_description(sentence: str, before: str) -> bool:
    """Rule 7 after a leading adverbial ("In women with NP, the decrease ...": `continues_en`)."""
    rest = continues_en.after_opening_phrase(sentence)
    return rest is not None and _repeated_description(_tokens(rest), _tokens(before))


_COPULAS = en.COPULAS
_DEGREE = en.DEGREE
_COMPARING = en.COMPARING
_NOT_COMPARATIVE = en.NOT_COMPARATIVE
_OWN_STANDARD = en.OWN_STANDARD


_SUBORDINATORS = en.SUBORDINATORS


def _comparative(word: str) -> bool:
    if word in ("better", "worse"):
        return True
    long_er = len(word) >= 5 and word.endswith("er") and word.isalpha()
    return long_er and word not in _NOT_COMPARATIVE


def _bare_comparative(words: list[str]) -> bool:
    """Rule 12 (module docstring); `words` are the sentence's tokens with its punctuation."""
    for i, w in enumerate(words):
        if w in _SUBORDINATORS:
            return False  # "... will not handle X because the X handler is more specific"
        if w not in _COPULAS:
            continue
        j = i + 1
        while j < len(words) and (
            words[j] in _DEGREE or (words[j] == "a" and words[j + 1 : j + 2] in (["lot"], ["bit"]))
        ):
            j += 1  # "was much less", "were not so", "is a lot more" ("is a faster X": no)
        if j >= len(words):
            return False
        head = words[j]
        if head in _COMPARING:
            adjective = words[j + 1] if j + 1 < len(words) else ""
            if not adjective[:1].isalpha() or adjective in _NOT_A_NOUN or adjective in _VERBISH:
                return False  # "was more than ...", "is so." : no adjective compared
            if adjective in ("likely", "unlikely", "able"):
                return False  # "were more likely to report pain": the rest of the group
            if head == "so" and "that" in words[j + 2 :]:
                return False  # "so large that ...": a result clause, no comparison
            rest = words[j + 2 :]
        elif _comparative(head) and not (head == "longer" and words[j - 1] in ("no", "any")):
            rest = words[j + 1 :]  # "are no longer an issue": a time, no comparison
        else:
            return False
        if any(r in ("than", "as", "compared", "versus", "vs") for r in rest):
            return False
        nxt = rest[0] if rest else ""
        return nxt not in _OWN_STANDARD and not nxt.endswith("ed")
    return False


_CATEGORY_HEADS = en.CATEGORY_HEADS
_WHICH_ONE = en.WHICH_ONE
_INTRODUCING = en.INTRODUCING
_CLAUSE_WORDS = 10  # "the" this far into the sentence is still in its first clause


def _category_description(words: list[str]) -> bool:
    """Rule 9 (module docstring): "the" + a category noun in the first clause, not introduced
    in the sentence itself and not told which by what follows."""
    for i, w in enumerate(words[:_CLAUSE_WORDS]):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w != "the" or nxt not in _CATEGORY_HEADS:
            continue
        after = words[i + 2] if i + 2 < len(words) else ""
        if after in _WHICH_ONE or after.isdigit():
            continue
        stem = nxt[:-1] if nxt.endswith("s") and nxt[:-1] in _CATEGORY_HEADS else nxt
        introduced = any(
            words[k] in (stem, stem + "s") and words[k - 1] in _INTRODUCING for k in range(1, i)
        )
        if not introduced:
            return True
    return False


_AFTER_ADVERB = en.AFTER_ADVERB
_FIRST_PERSON = en.FIRST_PERSON


def _after_noun(word: str) -> bool:
    """Whether "here" after `word` follows a noun: no verb, participle, mark or function word."""
    return (
        word[:1].isalnum()
        and not word.endswith(("ed", "en"))
        and word not in _VERBISH
        and word not in _NOT_A_NOUN
        and word not in _OPENERS
    )


def _points_at_display(words: list[str]) -> bool:
    """Rule 10 (module docstring); `words` are the sentence's tokens with its punctuation. In a
    paper "here" is the paper ("Here, we show", "we demonstrate here", "the approach introduced
    here"): only "here" right after a noun, in a sentence that does not speak for its authors,
    points at what the page shows ("the account_id column here")."""
    first_person = any(w in _FIRST_PERSON for w in words)
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w == "here" and i and _after_noun(words[i - 1]):  # not "Hello, here is ..."
            return not first_person and words[i + 1 : i + 3] != ["and", "there"]
        adverb = not nxt or not nxt[:1].isalnum() or nxt in _AFTER_ADVERB
        if w in ("above", "below") and i and adverb:
            return True
    return False


# An additive connector: the sentence adds to what the one before said about its subject.
_ADDITIVE = re.compile(
    r"^\W*(?:additionally|furthermore|moreover|in addition),?\s+(?P<rest>[^,;:]*)", re.IGNORECASE
)
_OWN_SUBJECT = en.OWN_SUBJECT


def _additive_bare(sentence: str) -> bool:
    """Rule 8: "Additionally, response to aggressive therapy differs by subtype ...": an additive
    connector, then a bare or definite noun phrase ("the mice", "response to ...") and no name,
    acronym or number in its clause: what it adds to is the subject of the sentence before."""
    m = _ADDITIVE.match(sentence)
    if m is None:
        return False
    raw = _WORD.findall(m["rest"])
    if len(raw) < 3 or raw[0].casefold() in _OWN_SUBJECT:
        return False
    if any(w[:1].isupper() or any(c.isdigit() for c in w) for w in raw[1:]):
        return False  # "Additionally, Proneural tumours ...", "PD-L1", "40 patients": named
    if raw[0].casefold() == "the":
        return True  # "Furthermore, the expression ratio ...": the one told before
    # A bare plural names a kind ("Moreover, plant formins show ...", "patients with diabetes");
    # a bare singular is a relation whose owner is elsewhere ("response to therapy differs").
    head: list[str] = []
    for w in raw[:2]:
        if w.casefold() in _NOT_A_NOUN or w.casefold() in _VERBISH:
            break
        head.append(w)
    return raw[0].islower() and not any(_plural(w.casefold()) for w in head)


def _demonstrative_noun(words: list[str]) -> bool:
    for i, w in enumerate(words[:-1]):
        nxt = words[i + 1]
        alone = nxt in _VERBISH or not nxt[:1].isalnum()  # "for this is", "due to this,"
        if w in ("this", "these") and i and words[i - 1] in _OBJECT_OF and alone:
            return True  # "A good example for this is ...": the pronoun is the sentence before
        if w not in _DEMONSTRATIVES or nxt in _NOT_A_NOUN or nxt.isdigit():
            continue
        if i and words[i - 1] in ("like", "as"):
            continue  # "a text like this gives ...": a pronoun, its referent named before it
        if w == "those" and (nxt in _THOSE_OWN or nxt.endswith(("ing", "ed"))):
            continue
        if nxt in _DEICTIC_NOUNS and w == "this":
            continue
        head = _noun_after(words, i + 1)
        if head in words[:i]:
            continue  # "engines ... each of those engines": the referent is in the sentence
        return True
    return False


def _noun_after(words: list[str], i: int) -> str:
    """The head of the noun phrase starting at words[i]: its last word before a function word
    (at most three words: "these recovered sites")."""
    return words[_noun_end(words, i)]


def _noun_end(words: list[str], i: int) -> int:
    """The index of the head of the noun phrase starting at words[i] (`_noun_after`)."""
    j = i
    while j + 1 < len(words) and j - i < 2 and words[j + 1] not in _NOT_A_NOUN:
        j += 1
    return j


def _presupposing(words: list[str]) -> bool:
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w in _COORDINATED:
            # "both men and women", "either A or B": the set is named here
            if w == "both" and not coordinates_both(words, i):
                return True
            if w != "both" and _COORDINATED[w] not in words[i + 2 :]:
                return True
        elif w == "such" and nxt and nxt not in ("as", "that") and (i == 0 or words[i - 1] != "as"):
            # "such diseases as diabetes": named right after its noun phrase; an "as" further
            # on ("such use-cases by marking classes as final") belongs to another phrase
            end = _noun_end(words, i + 1)
            if words[end + 1 : end + 2] != ["as"]:
                return True
        elif w == "the" and nxt in ("latter", "former"):
            return True
        elif w == "the" and nxt == "same" and i + 2 < len(words):
            rest = words[i + 2 :]
            if "as" not in rest and rest[0] not in ("time", "way"):
                return True
    return False


def coordinates_both(words: list[str], i: int) -> bool:
    """Whether "both" at words[i] coordinates what it names ("both men and women"): its "and"
    right after the first member, or, when "both" opens a prepositional phrase ("both in the
    review of published work and in new analyses"), after a longer one; `words` lowered. Else
    "both" is the pair told before ("received both medications")."""
    nxt = words[i + 1] if i + 1 < len(words) else ""
    reach = 12 if nxt in _OBJECT_OF or nxt in ("in", "at", "among") else 6
    return "and" in words[i + 2 : i + reach]


def _consequence(words: list[str]) -> bool:
    for i, w in enumerate(words):
        if w not in _CONSEQUENCE or (w == "thus" and words[i + 1 : i + 2] == ["far"]):
            continue
        if i == 0:
            return True
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if words[i - 1] in _CLAUSE_LINK or nxt.endswith("ing"):
            continue  # "... and thus reduces", ", thus reducing": two clauses of one sentence
        return True
    return False


def _connector(words: list[str], sentence: str) -> bool:
    if _ELABORATIVE.match(sentence):
        return True
    if len(words) < 2 or words[0] not in _CONNECTORS or words[1] not in _PRONOUNS:
        return False
    if words[1] == "that" and words[0] in ("now", "so"):
        return False  # "Now that you have ...": a conjunction
    # "However, this study ...": the document, not the sentence before
    return not (words[1] == "this" and len(words) > 2 and words[2] in _DEICTIC_NOUNS)


def _late_subject(words: list[str], sentence: str) -> bool:
    """ "On the surface they all work ...": a subject pronoun in the first clause, no comma
    before it, and no plural noun before it ("When patients arrive they ..." names them)."""
    clause = re.split(r"[,;:]", sentence, maxsplit=1)[0]
    first = _tokens(clause)[:8]
    for i, w in enumerate(first[1:], 1):
        if w not in _SUBJECT_PRONOUNS:
            continue
        earlier = first[:i]
        if w == "they" and any(_plural(e) for e in earlier):
            return False
        # "When Alice woke she ...", "Heyward said that he ...": the name is before it
        raw = _WORD.findall(clause)[:i]
        named = any(
            e[:1].isupper() and (k or e.casefold() not in _OPENERS) for k, e in enumerate(raw)
        )
        return not (w in ("he", "she") and named)
    return False


def _imperative_object(sentence: str) -> bool:
    """Rule 6: an instruction whose object is "it"/"them" ("..., just wrap it and you're done",
    "Use it to ..."): the thing to wrap was named before. A clause that starts with a verb
    (after a comma, "just", "simply", "then") and its pronoun object; "..., making it possible"
    and "..., and it ..." are no instruction."""
    for clause in re.split(r"[,;:]\s*", sentence):
        words = _tokens(clause)
        while words and words[0] in _INSTRUCTION_ADVERBS:
            words = words[1:]
        if len(words) < 2 or words[1] not in ("it", "them"):
            continue
        verb = words[0]
        no_verb = _NOT_A_NOUN | _CONNECTORS | _OPENERS | _PRONOUNS | _NO_VERB
        if verb.isalpha() and verb not in no_verb and not verb.endswith(("ing", "ed", "s", "ly")):
            return True
    return False


_INSTRUCTION_ADVERBS = en.INSTRUCTION_ADVERBS
_NO_VERB = en.NO_VERB


def _plural(word: str) -> bool:
    if word in ("people", "children", "men", "women", "mice", "data"):
        return True
    return len(word) > 3 and word.endswith("s") and word not in _NOT_PLURAL


def _repeated_description(words: list[str], before: list[str]) -> bool:
    """Rule 7: "The low success rate is ..." after a sentence about the success rate."""
    i = 0
    while i < 2 and i < len(words) and words[i] in _CONNECTORS:
        i += 1  # "But the ...", "However, the ..."
    if i >= len(words) or words[i] != "the":
        return False
    np: list[str] = []
    for w in words[i + 1 : i + 1 + _MAX_NP + 1]:
        if w in _VERBISH or w in _NOT_A_NOUN:
            break
        np.append(w)
    if not np or len(np) > _MAX_NP:
        return False
    after = words[i + 1 + len(np)] if i + 1 + len(np) < len(words) else ""
    head = np[-1]
    if after in _THE_COMPLEMENT or len(head) < 4 or head.isdigit():
        return False  # "The role of monocytes ...": the complement says whose
    return head in before or _same_family(head, before)


# Rule 7's word families: a noun made from a word of the sentence before ("... fails to ...
# The failure ...", "... transformed ... The transformation ..."): the same referent under
# another part of speech. Suffixes are cut longest first; the stem left keeps 4 letters.
_FAMILY_SUFFIXES = (
    "ations", "ation", "itions", "ition", "ments", "ment", "ings", "ing", "ures", "ure", "ions",
    "ion", "ances", "ance", "ences", "ence", "ers", "er", "es", "ed", "s", "e",
)  # fmt: skip
_FAMILY_STEM = 4


def _stem(word: str) -> str:
    for suffix in _FAMILY_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _FAMILY_STEM:
            return word[: -len(suffix)]
    return word


def _same_family(head: str, before: list[str]) -> bool:
    """Whether a word of the sentence before shares the head's stem ("failure" / "failed",
    "findings" / "found" does not: an irregular verb is no family by its letters)."""
    stem = _stem(head)
    return len(stem) >= _FAMILY_STEM and any(
        len(w) >= _FAMILY_STEM and _stem(w) == stem for w in before
    )


# Rule 11: a definite noun of an event or a result ("The transformation was complete in 90
# min.", "The increase was significant") as the subject, with no
# complement after it to say of what: what transformed, what was found, is told before, even
# when by other words ("the disappearance of pattern F matched the appearance of pattern B").
# "The findings", "the results" are the study's, all of them, not the sentence before's: they
# stand, and carry the document's title (`distill.subject_en`).
_EVENT_SUFFIXES = ("tion", "tions", "sion", "sions", "ment", "ments", "ance", "ence")
_RESULT_NOUNS = en.RESULT_NOUNS


def _event_noun(word: str) -> bool:
    return word in _RESULT_NOUNS or (len(word) > 6 and word.endswith(_EVENT_SUFFIXES))


def _told_event(words: list[str]) -> bool:
    """Rule 11 (module docstring): "the", at most one modifier, an event or result noun, and
    next no complement ("The transformation was ...", not "The transformation of ... was", nor
    "The development and ..."): a described thing ("the marked transient hyperglycemic
    response") is left alone, and so is "the result is X" the document states of its subject
    when it opens a paragraph (rule 7's caller passes no sentence before then)."""
    i = 0
    while i < 2 and i < len(words) and words[i] in _CONNECTORS:
        i += 1  # "But the ...", "However, the ..."
    if words[i : i + 1] != ["the"]:
        return False
    for j in (i + 1, i + 2):
        if j + 1 >= len(words):
            return False
        w, after = words[j], words[j + 1]
        if _event_noun(w):  # next its verb: "was", "took", "typically ..." ("the generated
            # completion script": "completion" is a modifier, "script" the head)
            return after in _VERBISH or after.endswith(("ed", "ly"))
        if w in _NOT_A_NOUN or w in _VERBISH:
            return False
    return False


def repeats_description(sentence: str, before: str) -> bool:
    """Rule 7 alone: the sentence's definite description repeats a word of `before`."""
    return _repeated_description(_tokens(sentence), _tokens(before))


def opens_with_connector(sentence: str) -> bool:
    """Rule 4 alone: "But that's ...", "In particular ...", "Instead, ...": what a paragraph's
    first sentence needs to join the paragraph before (a bare "He ..." or "These ..." opening a
    paragraph most often starts a new point: carried, or marked anaphoric)."""
    return _connector(_tokens(sentence), sentence) or lean_en.bare_this(sentence, opening=True)
