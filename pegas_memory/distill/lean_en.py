"""English sentences that lean back by a word `distill.join_en` does not read (pure logic).

`distill.context.leans_back` joins a sentence with the one before it when its first words hold
a pronoun or "this X", and `distill.join_en` reads the later and subtler shapes. These lean back
too, and were stored alone (the graded sample of seed 16161: "You can achieve this with the
--sort path flag.", "I thought it was slightly awkward to type, ..."):

1. **A bare "this"** (`bare_this`): the demonstrative as a pronoun, with no noun of its own
   ("You can achieve this with ...", "The most obvious way to achieve this is ...",
   "Currently, this will disable ...", "When this is the case, ..."), in the sentence's first
   clause (its first seven words, no ";" or conjunction before it): what "this" is, the
   sentence before says. Not "like this", "as this" (what follows or what it is compared
   with), "at this" (a moment), nor "this:" (what follows it); a "this" after a conjunction
   ("..., however this has not been verified") stands for the clause before it, in the same
   sentence; "this" first ("This is ...") is `distill.units`' own rule.
2. **An aside** (`aside`): a sentence wholly in brackets ("(On smaller repositories, you might
   not notice much of a performance difference!)") comments on the sentence before it; joined,
   the sentence after it that leans back reaches past it.
3. **"It" after the speaker's own verb** (`speaker_it`): "I thought it was slightly awkward to
   type", "Soon after, I renamed it to xrep": "I/we/you", up to two more words, then "it"/"them"
   in the first clause, with no name or noun before it that could be what "it" is (an opening
   phrase of at most three lower-case words may come first: "Soon after,"). "When I started
   writing ripgrep, I called it rep" names it, and so does "We call it the core ..." ("call,
   name, consider, find, make it X"). Alone, "I think it is important to ..." is an expletive
   and kept.
4. **A definite collective of a kind the sentence before named** (`collective`): "the group of
   columns" after "Sets of columns can be associated ...": "the group/set/pair/collection/... of
   N" is the set told before when N is a word of the sentence before.
5. **A contrast with nothing to contrast** (`contrasts`): "However, for PCRE2, things are much
   worse.": a contrast connector first, and a comparative after a copula with no standard ("than
   ...", "for ...", "in ..."): worse than what the text before said. Unlike `distill.join_en`'s
   rule 12 it leans back even as a paragraph's first sentence, which joins nothing: it stays
   marked anaphoric, and `distill.standalone` drops what still leans so after join and carry
   (`unresolved`, with rules 1 and 3).
6. **An example** ("For example, `foo\\sbar` will match `foo\\nbar`."): "For example," "For
   instance," "E.g.," illustrate the sentence before; joined, a sentence after the example that
   leans back ("The most obvious way to achieve this is ...") reaches past it, or stays marked.
   Not an example that only leads in the code after it ("For example, you can find ...:").
"""

from __future__ import annotations

import re

import pegas_memory.distill.lexicon_en as en

_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_WORD_OR_MARK = re.compile(_WORD.pattern + r"|[,;:.!?()\[\]\"“”]")


# Rule 1: what after "this" shows it has no noun: a function word, an auxiliary or a verb of its
# own (`lexicon_en`), or punctuation (but ":", which points at what follows).
_NO_NOUN_AFTER = en.NO_NOUN_AFTER | frozenset(',.;!?)]"”')
_NOT_BEFORE_THIS = en.NOT_BEFORE_THIS
_CLAUSE_BREAK = en.CLAUSE_BREAK
_FIRST_CLAUSE = 7  # "this" among the sentence's first words
_OPENERS = en.LEAN_OPENERS


def _tokens(text: str) -> list[str]:
    return [m[0].casefold() for m in _WORD_OR_MARK.finditer(text)]


def _verb_after(tokens: list[str], k: int) -> bool:
    """Whether tokens[k] after "this" is its verb, not its noun: a third-person "-s" form ("This
    tells ...", "this enables ..."; no noun after a singular "this" ends so but "-ss", "-us",
    "-is": "this process", "this status", "this analysis"), after an "-ly" adverb too ("This
    generally means ...")."""
    word = tokens[k] if k < len(tokens) else ""
    if word.endswith("ly") and len(word) > 4 and k + 1 < len(tokens):
        word = tokens[k + 1]
    plain = word.isalpha() and len(word) > 3
    return plain and word.endswith("s") and not word.endswith(("ss", "us", "is", "ics", "ies"))


def bare_this(sentence: str, *, opening: bool = False) -> bool:
    """Rule 1 (module docstring): a pronoun "this" in the first clause; with `opening`, first
    too ("This can be done with ...")."""
    tokens = _tokens(sentence)
    words = 0
    for i, t in enumerate(tokens):
        if t in (";", ":"):
            return False  # "-S/--smart-case: This is similar to ...": the label names it
        if not t[:1].isalnum():
            continue
        if t == "this" and (i or opening):
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            before = tokens[i - 1] if i else ""
            # "When this is the case", "If you do this, ...": a subordinator opening the
            # sentence is no clause break
            after_break = any(w in _CLAUSE_BREAK for w in tokens[1:i])
            if (not nxt or nxt in _NO_NOUN_AFTER or _verb_after(tokens, i + 1)) and (
                before not in _NOT_BEFORE_THIS
            ):
                return not after_break
        words += 1
        if words >= _FIRST_CLAUSE:
            return False
    return False


_ASIDE = re.compile(r"^\s*\((?P<body>[^()]*(?:\([^()]*\)[^()]*)*)\)\W*$")
_MIN_ASIDE_WORDS = 3


def aside(sentence: str) -> bool:
    """Rule 2 (module docstring): the whole sentence in one pair of brackets, a few words at
    least ("(1999)" is no aside)."""
    m = _ASIDE.match(sentence)
    return m is not None and len(_WORD.findall(m["body"])) >= _MIN_ASIDE_WORDS


# Rule 3: the speaker, and the short phrase that may open the sentence before it.
_SPEAKER = re.compile(
    r"^\W*(?:(?P<opener>(?:[a-z]+\s+){0,2}[a-z]+),\s+)?(?:i|we|you)\s+"
    r"(?P<between>(?:[a-z’']+\s+){0,2}?)(?:it|them)\b(?!['’]s)",
    re.IGNORECASE,
)
_NOT_NOUN = en.NOT_NOUN


_NAMING = en.NAMING
# "I think it is important to note ...": an expletive "it", no reference (kept when alone).
_EXPLETIVE = re.compile(
    r"\bit\s+(?:is|was|would be|will be|seems|seemed)\s+(?:\w+\s+){0,2}?(?:to|that)\b", re.I
)


def speaker_it(sentence: str) -> bool:
    """Rule 3 (module docstring)."""
    m = _SPEAKER.match(sentence)
    if m is None:
        return False
    opener = (m["opener"] or "").split()
    if opener and (opener[0].casefold() in _OPENERS or any(w[:1].isupper() for w in opener[1:])):
        return False  # "If I ..., I ...", "In Python, you use it": a clause, or a name
    between = [w.casefold() for w in m["between"].split()]
    if any(w in _NAMING for w in between):
        return False  # "We call it the core of the framework": it names what "it" is
    # one verb, and only auxiliaries or adverbs around it ("I kind of thought it" is two)
    return sum(w not in _NOT_NOUN for w in between) <= 1


_COLLECTIVES = en.COLLECTIVES
_COLLECTIVE = re.compile(r"\bthe\s+(?P<noun>[a-z]+)\s+of\s+(?P<member>[a-z][\w-]*)", re.IGNORECASE)


def collective(sentence: str, before: str) -> bool:
    """Rule 4 (module docstring): "the group of columns" after a sentence about columns."""
    told = {w.casefold() for w in _WORD.findall(before)}
    for m in _COLLECTIVE.finditer(sentence):
        if m["noun"].casefold() not in _COLLECTIVES:
            continue
        member = m["member"].casefold()
        forms = {member, member + "s", member[:-1] if member.endswith("s") else member}
        if member not in ("all", "the", "a", "an") and forms & told:
            return True
    return False


# Rule 5: a contrast connector first, then a copula or "get/become" and a comparative with no
# standard after it ("things are much worse", "it gets slower"; "is worse than X" compares).
_CONTRAST = re.compile(
    r"^\W*(?:however|but|yet|still|by contrast|in contrast|on the other hand|unfortunately)\b",
    re.IGNORECASE,
)
_COMPARATIVE = re.compile(
    r"\b(?:is|are|was|were|be|been|gets?|got|becomes?|became)\s+(?:not\s+)?"
    r"(?:(?:much|even|far|still|a\s+lot|a\s+bit|slightly|considerably|significantly)\s+)?"
    r"(?:worse|better|slower|faster|harder|easier|larger|smaller|higher|lower|bigger|weaker"
    r"|stronger|(?:more|less)\s+[a-z]{3,})\b(?P<rest>[^.;!?]*)",
    re.IGNORECASE,
)
_STANDARD = re.compile(r"\b(?:than|as|compared|versus|vs|relative|to|for|with|in|among)\b", re.I)


def contrasts(sentence: str) -> bool:
    """Rule 5 (module docstring): "However, for PCRE2, things are much worse."."""
    if _CONTRAST.match(sentence) is None:
        return False
    m = _COMPARATIVE.search(sentence)
    return m is not None and _STANDARD.search(m["rest"]) is None


_EXAMPLE = re.compile(r"^\W*(?:for example|for instance|e\.\s?g\.)\s*,", re.IGNORECASE)


def leans(sentence: str, before: str | None) -> bool:
    """Whether the sentence leans on the one before by rules 1-6 (module docstring); `before` is
    the sentence before it (a paragraph's first sentence has none: rules 2, 4 and 6 need one)."""
    if sentence.rstrip().endswith(":"):
        return False  # a lead-in: `distill.units` drops it alone, joined it glues on
    if bare_this(sentence) or speaker_it(sentence) or contrasts(sentence):
        return True
    example = _EXAMPLE.match(sentence) is not None and not sentence.rstrip().endswith(":")
    return before is not None and (aside(sentence) or collective(sentence, before) or example)


_FIRST_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


# "Following from this, ...", "Because of this, ...": a connector, the clause after it its own;
# so after a concession ("While this is fine for small applications, ...").
_CONNECTOR_THIS = re.compile(
    r"^\W*(?:(?:[a-z]+\s+){0,2}(?:from|of|to|despite|given|after|before|besides|beyond)\s+this"
    r"|(?:while|although|though|whereas)\s+this\b[^,;]*)\s*,",
    re.IGNORECASE,
)


def unresolved(claim: str) -> bool:
    """Whether a draft that still leans back after join and carry does so by rule 1, 3 or 5 in
    its first sentence: no antecedent in the claim, and none the reader can name
    (`distill.standalone`'s "needs context"). A "this" in an opening connector ("Following from
    this, when the ORM gets rows back ...") or concession ("While this is fine for small
    applications, ...") leaves a clause that stands: joined when it can be, kept when not."""
    first = first_sentence(claim)
    this = bare_this(first) and _CONNECTOR_THIS.match(first) is None
    speaker = speaker_it(first) and _EXPLETIVE.search(first) is None
    return this or speaker or contrasts(first)


def first_sentence(claim: str) -> str:
    return _FIRST_SENTENCE.split(claim.strip(), maxsplit=1)[0]
