"""English steps of a procedure and sentences that only announce what follows (pure logic).

A checklist or a how-to is a run of imperatives: "Review changes for every crate in crates since
the last ripgrep release.", "Run ci/sha256-releases {VERSION} >> pkg/brew/ripgrep-bin.rb.",
"Commit updated Cargo.lock.". `distill.mood` reads an imperative from a short list of command
verbs, or from an ambiguous verb ("check", "run", "update") only before a determiner; an object
that is a bare plural, a path or a code token ("Check crates ...", "Run ci/...") slipped through
and the step was typed a checkable `fact`. The rule here is the grammar of the imperative, not
the words of one checklist:

- `imperative_step(sentence)`: the sentence (after an optional leading "If/When/Once/Before/
  After/Unless ..., " clause, a step adverb "Then/Also/Next", or an opening bracket) opens with a
  verb in its base form that takes an object, and its main clause has no finite verb of its own.
  A noun that looks like that verb is the subject of a statement, and a statement has its verb:
  "Run times were shorter ..." ("were"), "Test scores improved ..." (a past after the noun),
  "Review articles suggest that ..." (a present after a plural), "Check-ins increased ..." (a
  compound), "Runs the tests" (a third person, no base form) stay statements. A verb that is a
  noun as often ("type", "log", "turn", "press") opens a step only with its particle: "Type in
  color in cmd.exe ...", "Log in to ...", "Turn off ..."; "Type 2 diabetes ..." is no step.
- `announces_what_follows(sentence)`: a short sentence whose claim is only that something comes
  next ("Check crates in the following order.", "The steps are as follows.", "Порядок действий
  приведён ниже."): the order or the steps are the list after it, which the claim never holds. It
  ends on the announcement, so "The following options are supported: ..." or "as follows: X"
  (something after it) is not one. `distill.pointers` drops it with the pointers.
"""

from __future__ import annotations

import itertools
import re

import pegas_memory.distill.lexicon_en as en

_STEP_VERBS = en.STEPS_VERBS
_PHRASAL_VERBS = en.PHRASAL_VERBS
_PARTICLES = en.PARTICLES
_CLAUSE = re.compile(
    r"^(?:if|when|once|before|after|unless|while|whenever|to|in order to|in case)\b[^,;:]{2,120}"
    r",\s*",
    re.IGNORECASE,
)
_STEP_ADVERB = re.compile(
    r"^(?:(?:then|also|next|now|finally|first|second|third|afterwards|again|and|but|so|or"
    r"|optionally|alternatively)\b,?\s+)+",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"^(?:please\s+)?(?:do\s+not|don['’]t|never|always)\s+", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")
_NOT_OBJECT = en.NOT_OBJECT
# A finite verb in the main clause: an auxiliary, a copula or a modal.
_FINITE = re.compile(
    r"\b(?:is|are|was|were|am|has|have|had|does|did|can|could|will|would|shall|may|might|must"
    r"|isn't|aren't|wasn't|weren't|doesn't|didn't|won't|cannot)\b"
    # "Wait there's more.": a subject and its contracted verb
    r"|\b(?:there|here|it|that|what|he|she|i|you|we|they)['’](?:s|re|m|ve|ll|d)\b",
    re.IGNORECASE,
)
# A present verb after a plural noun ("Review articles suggest that ...", "Test results show ...").
_PLURAL_THEN_VERB = re.compile(
    r"^\S+\s+[a-z]+s\s+(?:\w+ly\s+)?(?:show|suggest|indicate|reveal|demonstrate|remain|appear"
    r"|seem|occur|vary|differ|exist|tend|increase|decrease|rise|fall|depend|play|help|allow"
    r"|make|take|give|provide|contain|require|involve|cause|lead|support|confirm)\b",
    re.IGNORECASE,
)
# Where the main clause ends: a subordinate clause may hold its own verb ("... so that the
# Cargo.lock is updated", "..., but don't update to crates that are still in beta"). Not at a
# relative pronoun: "Pull requests that appear in violation of this will be closed" has its
# verb after the relative clause on its subject.
_CLAUSE_END = re.compile(
    r"[,;:(]|\s(?:so that|so|when|if|unless|because|until|since|as|and|but|or|to)\s",
    re.IGNORECASE,
)


def _main_clause(rest: str) -> str:
    end = _CLAUSE_END.search(rest)
    return rest if end is None else rest[: end.start()]


def imperative_step(sentence: str) -> bool:
    """Whether the English sentence is a step of a procedure: a bare verb that takes an object,
    opening its main clause with no subject and no finite verb after it (module docstring)."""
    opened = sentence.strip().lstrip("([*-• ").strip()
    if not opened[:1].isupper():
        return False  # a sentence opening in lower case is a fragment, not a step
    s = _STEP_ADVERB.sub("", _CLAUSE.sub("", opened, count=1), count=1)
    s = _NEGATED.sub("", s, count=1)  # "(But do not publish a new version ... yet.)"
    first = _WORD.match(s)
    if first is None:
        return False
    rest = s[first.end() :]
    if rest[:1] in "-'’" or not rest[:1].isspace():
        return False  # "Check-ins increased", "Run's", "Test3"
    nxt = _WORD.match(rest.lstrip())
    verb = first[0].casefold()
    phrasal = verb in _PHRASAL_VERBS and nxt is not None and nxt[0].casefold() in _PARTICLES
    if verb not in _STEP_VERBS and not phrasal:
        return False  # "Type in color in cmd.exe ...": a verb with its particle opens a step
    if nxt is None:
        # a code token or a path ("Run ci/sha256-releases {VERSION} ...", "Run `make`")
        return bool(rest.strip()) and rest.strip()[:1] not in ".,;:!?"
    if nxt[0].casefold() in _NOT_OBJECT:
        return False
    main = _main_clause(rest)
    if _FINITE.search(main) or _PLURAL_THEN_VERB.match(s):
        return False
    # A past after the noun the verb-like word would be a subject of ("Test scores improved
    # ..."): only a word right after the verb may be a participle before its noun ("Commit
    # updated Cargo.lock").
    tokens = [w.strip(".,;:!?\"'“”`") for w in main.split()]
    words = [w if w.isalpha() else "" for w in tokens]  # a path or a code token is no word
    if words and words[0][:1].isupper() and words[0][1:].islower():
        return False  # a name: "Mark Twain wrote ...", "Record Store Day is ..."
    for k, (prev, word) in enumerate(itertools.pairwise(words)):
        following = words[k + 2] if k + 2 < len(words) else ""
        if prev and word and _finite_after(prev, word, following):
            return False
    return True


def _finite_after(prev: str, word: str, nxt: str) -> bool:
    """Whether `word` after `prev` is the verb of a subject `prev`: a past in "-ed" or an
    irregular one ("Test scores improved", "Record temperatures hit"), or a third person in "-s"
    after a singular noun with its own object after it ("Set theory studies sets"; "share long
    snippets" ends on its plural noun). Not after a determiner or a preposition ("Commit the
    changes", "in crates")."""
    if not word.islower() or prev.casefold() in _FUNCTION:
        return False
    if (len(word) > 4 and word.endswith("ed")) or word in _IRREGULAR_PAST:
        return True
    third = len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))
    has_object = bool(nxt) and nxt.casefold() not in _FUNCTION
    return third and has_object and prev.islower() and not prev.endswith("s")


_FUNCTION = en.STEPS_FUNCTION
_IRREGULAR_PAST = en.IRREGULAR_PAST


# --- Sentences that only announce what follows -------------------------------------------------
_MAX_ANNOUNCE_WORDS = 12
_ANNOUNCES = re.compile(
    r"(?:\b(?:in|with|by|using|at|on)\s+the\s+following\s+(?:order|way|manner|sequence|steps?"
    r"|places?|cases?|list)"
    r"|\bas\s+follows|\bthe\s+following(?:\s+[a-z]+){0,2}|\b(?:listed|shown|given|described"
    r"|outlined|explained|detailed)\s+below|\bbelow"
    r"|(?<![\w-])(?:ниже|следующим\s+образом|в\s+следующем\s+порядке|следующие(?:\s+[а-яё]+)?)"
    r")\s*[.!]?\s*$",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[^\W\d_]+")


def announces_what_follows(sentence: str) -> bool:
    """Whether the sentence only says that something comes after it (module docstring): short,
    and ending on "in the following order", "as follows", "the following (steps)", "(listed)
    below", ru "ниже", "следующим образом", "в следующем порядке"."""
    s = sentence.strip()
    if s.endswith(":") or len(_WORDS.findall(s)) > _MAX_ANNOUNCE_WORDS:
        return False  # a lead-in proper is `distill.units`'s; a long one says more on its way
    return _ANNOUNCES.search(s) is not None


# --- A short step whose object names nothing ---------------------------------------------------
_MAX_SHORT_STEP_WORDS = 8
_NAMING = re.compile(r"`|\w_\w|\w\.\w|\w/\w|\(\)|[a-z][A-Z]|\d|[{}<>]")


def bare_step(claim: str) -> bool:
    """Whether the claim is one short step (`imperative_step`, at most eight words, one
    sentence) that names nothing: no capitalised word after its first, no code, path or digit
    ("Update the CHANGELOG as appropriate.", "Do not share long snippets."). What it acts on is
    the document's subject (the release of a checklist, the policy's contributions), which only
    the heading names, so `distill.subject_en` carries the heading onto it."""
    s = claim.strip()
    words = _WORDS.findall(s)
    if len(words) > _MAX_SHORT_STEP_WORDS or re.search(r"[.!?]\s+\S", s) or _NAMING.search(s):
        return False
    if any(w[:1].isupper() and not w.isupper() for w in words[1:]):
        return False  # a name ("Push changes to GitHub")
    return imperative_step(s)
