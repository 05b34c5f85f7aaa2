"""What a sentence does by its grammar, before what it says: it instructs, prescribes, names
without stating, or states a property (pure logic, used by `distill.fact_rules` and
`distill.definition_rules`).

An atom typed `fact` must be checkable. Advice, instructions and norms are not, whatever names
or numbers they hold ("First, use go get to install the latest version", "Our society has to
call attention to this"), nor is a phrase without a verb ("Fully POSIX-compliant flags"), nor a
line that only introduces what follows ("It can be installed by running:"). These are read from
the mood and the shape of the sentence, not from its topic, so they hold on documents nobody
tuned on:

- `instructs(sentence, language)`: an imperative (a base-form verb with no subject, after an
  optional "If ..., " / "To ..., " clause or "First," / "Just"; ru "-йте/-ите" forms, de "Verwenden
  Sie"), a second person with a modal of obligation ("you would have to", "you should"), a norm
  ("should", "ought to", "has to", "need to"; ru "следует", "нужно", "необходимо", and "должен"
  + an infinitive when the reader must: `distill.norms_ru`; de "sollte", "muss man"), or a
  lead-in that ends at ":".
- `verbless(sentence)`: an English phrase with no finite verb (no auxiliary, copula or modal,
  no past tense, no verb of the fact lists, no third person "-s" after a subject pronoun).
- `generic_present(sentence)`: a whole English sentence with a verb in "-s" between a subject and
  its object ("SIV naturally infects non-human primates"), which `verbless` misses after a
  singular noun or an acronym's bracket: `fact_rules.is_fact` reads it as a statement.
- `ru_adjective_predicate(sentence)`: a short verbless Russian sentence whose last word is an
  adjective after its noun ("Тип ветвления моноподиальный.", "Гребни корки прерывающиеся."): in
  Russian an attribute comes before its noun, so a closing adjective is the predicate, a property.
- `presents_result(sentence, language)`: "We present / describe / report X" (ru "мы
  представляем", "представлена") is scope, unless the sentence states its result: a second verb
  of finding on the same subject, "report that", a rate, a classification into named classes.
- `relational_term(term)`: "Автор монумента", "Столица Арубы": a relational noun with its owner
  names a value of that owner, not a term, so "Автор монумента — скульптор X" is no definition.
"""

from __future__ import annotations

import itertools
import re

import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru
from pegas_memory.distill.norms_ru import ru_instructs
from pegas_memory.distill.steps_en import imperative_step

# Base-form verbs that open an instruction in technical prose, in two kinds. These are rarely
# anything but a verb at a sentence's start:
_COMMANDS = (
    "avoid|choose|clone|configure|consider|create|define|delete|disable|download|edit|enable"
    "|ensure|enter|follow|give|go|install|keep|make|please|prefer|refer|register|remember|remove"
    "|replace|save|see|select|specify|try|visit|wrap|write|don't|do not|never|always|be sure"
    "|be careful|double-check|make sure"
    # the verbs of a goal list ("Provide simple toJson() ...", "Allow custom representations")
    "|provide|allow|expose|generate|convert|implement|simplify|minimi[sz]e|maximi[sz]e|preserve"
    "|permit|guarantee"
)
# and these are nouns as often ("Use of statins", "Copy number", "Start codons"): a verb only with
# an object that cannot be a compound's second noun (a determiner, a pronoun, code), or after an
# opener of steps ("First, use go get ...").
_AMBIGUOUS = (
    "add|apply|build|call|change|check|copy|do|get|import|look|move|open|pass|pick|put|read"
    "|return|run|set|start|stop|take|turn|type|update|upgrade|use|let's|support|offer|handle"
)
_STEP = r"(?:first|second|third|then|next|now|finally|just|simply|instead|again|alternatively)"
_CLAUSE = r"(?:(?:if|when|once|before|after|unless|to|in order to|in case)\b[^,;:]{2,120},\s*)?"
_OBJECT = (
    r"\s+(?:the|a|an|this|that|these|those|it|them|your|its|their|our|some|any|each|all|one|both"
    r"|either|[`:\"'“\[(]|-{1,2}[a-z]|[a-z]{3,}ly\s)"  # "Support arbitrarily complex objects"
)
_EN_IMPERATIVE = re.compile(
    r"^" + _CLAUSE + r"(?:(?:also|so|and|or|but|here|optionally|otherwise),?\s+)?(?:"
    r"(?:" + _STEP + r",?\s+)+(?:" + _COMMANDS + "|" + _AMBIGUOUS + r")\b(?![-'’])"
    r"|(?:" + _COMMANDS + r")\b(?![-'’])(?!\s*(?:of|in|on|for|is|are|was|were|has|have|and|or"
    r"|to\s+be|\d|[,.;:)]))"
    r"|(?:" + _AMBIGUOUS + r")\b(?=" + _OBJECT + r"))",
    re.IGNORECASE,
)
# Any other verb in the imperative: a sentence's first word followed by a determiner or an object
# pronoun ("Observe a minute silence ...") is a verb, unless it is a word that can open a
# statement that way (a preposition, conjunction, adverb, quantifier or wh-word; a participle or
# gerund "Using the ...", "Given the ..."; a third person "Returns the value").
_BARE = re.compile(
    r"^(?:" + _STEP + r",?\s+)?(?P<verb>[A-Z][a-z]+)\s+(?:the|a|an|your|this|these|those|it|them"
    r"|every|any)\s"
)
_OPENS_STATEMENT = en.OPENS_STATEMENT


def _bare_imperative(sentence: str) -> bool:
    m = _BARE.match(sentence)
    if m is None:
        return False
    verb = m["verb"].casefold()
    if verb in _OPENS_STATEMENT:
        return False
    return not verb.endswith(("ly", "ing", "ed", "en", "s"))


_EN_OBLIGED = re.compile(
    r"\b(?:you|we|one|users?|developers?)\s+(?:\w+\s+){0,2}?(?:must|need to|needs to|have to"
    r"|has to|would (?:\w+\s+)?have to|will (?:\w+\s+)?have to|will need|'ll need|had better)\b"
    # "Our society has to call attention": a norm; "they have to use the working directory": what
    # something does by necessity, stated of it.
    r"|(?<!\bthe\s)(?<!\ba\s)(?<!\bno\s)(?<!\bthey\s)(?<!\bit\s)(?<!\bhe\s)(?<!\bshe\s)"
    r"(?<!\bwho\s)(?<!\bwhich\s)(?<!\bmay\s)(?<!\bmight\s)(?<!\bcould\s)(?<!\bwill\s)"
    # "has to have", "has to be": what a thing requires, a property ("A WSGI application has to
    # have one central callable").
    r"(?<!\bwould\s)\b(?:has|have|needs?)\s+to\s+(?!do\b|have\b|be\b)[a-z]+",
    re.IGNORECASE,
)
_SHOULD = re.compile(r"\b(?:should|ought to)\b", re.IGNORECASE)
# A "should" that is reported ("saying that Rudolph should be disciplined") is what someone said,
# an event; one in a dependent question ("no way of knowing which handler it should run") is no
# norm of the sentence.
_REPORTED = re.compile(
    r"\b(?:said|says|saying|told|argued|argues|wrote|writes|believes?|thinks?|according to|asked"
    r"|claimed|claims)\b",
    re.IGNORECASE,
)
_DEPENDENT = re.compile(r"\b(?:which|what|how|whether|if|where|when|who|whom|why)\b", re.IGNORECASE)
# "that" right before the modal after a definite noun: a relative clause that identifies the
# noun by its role ("is the function that should be called when ..."), no norm of the sentence;
# "functionality that should be fully exposed" (no "the") is the sentence's own norm.
_RELATIVE_THAT = re.compile(r"\bthe\s+(?:[\w-]+\s+){0,2}[a-z]{3,}\s+that\s+$", re.IGNORECASE)


# An epistemic "should" about a measure or a comparison: "performance of this crate should be
# roughly on par with the glob crate", "the build should take about 5 minutes" expect a property,
# a checkable claim; "it should be placed ...", "you should be able to ..." stay norms. de "sollte
# etwa gleich schnell sein", ru "должно составлять около ...".
_EXPECTED = re.compile(
    r"^\s+(?:\w+ly\s+)?(?:be\s+(?:\w+ly\s+)?(?:on par|comparable|similar|equal|equivalent"
    r"|identical|close|the same|faster|slower|larger|smaller|higher|lower|within"
    r"|about|around|approximately|no (?:more|less|slower|faster))\b"
    r"|(?:take|last|cost|use|need|require)\s+(?:only\s+)?(?:about|around|roughly|approximately"
    r"|up to|less than|more than|at most|at least|under|\d))",
    re.IGNORECASE,
)
# "you should be about ...", "there should be ... for production": a norm for the reader
_PERSON_SUBJECT = re.compile(
    r"\b(?:you|we|one|users?|readers?|there)\s+(?:\w+\s+)?$", re.IGNORECASE
)
_DE_EXPECTED = re.compile(
    r"\b(?:sollte|sollten)\s+(?:\w+\s+){0,4}?(?:etwa|ungefähr|in etwa|rund|circa|ca\.|vergleichbar"
    r"|ähnlich|gleich\s+(?:schnell|groß))\b",
    re.IGNORECASE,
)


def _en_norm(sentence: str) -> bool:
    for m in _SHOULD.finditer(sentence):
        before = sentence[: m.start()]
        if _REPORTED.search(before) or _DEPENDENT.search(re.split(r"[,;:]", before)[-1]):
            continue
        if _RELATIVE_THAT.search(before):
            continue  # "the function that should be called when ...": what the function is for
        if _EXPECTED.match(sentence[m.end() :]) and not _PERSON_SUBJECT.search(before):
            continue  # "X should be roughly on par with Y": an expectation, not a norm
        return True
    return False


def _de_norm(sentence: str) -> bool:
    return bool(_DE_IMPERATIVE.search(sentence)) and not _DE_EXPECTED.search(sentence)


_DE_IMPERATIVE = re.compile(
    r"^(?:(?:wenn|falls|um)\b[^,;:]{2,120},\s*)?(?:(?:zuerst|dann|danach|nun|jetzt|einfach"
    r"|bitte),?\s+)*[A-ZÄÖÜ][a-zäöüß]+en\s+Sie\b"
    r"|\b(?:sollte|sollten|solltest)\b|\bmuss\s+man\b|\bman\s+muss\b",
)
_LEAD_IN = re.compile(r":\s*$")
# A whole sentence before the lead-in ("Хотя ... не выигрывали чемпионат, команда установила
# несколько рекордов. Среди них:"): that sentence states something; only the last one leads in.
# ... unless that sentence speaks to the reader ("In PyCharm, ..., click on Run ... You'll see a
# screen similar to this:", "In general, don't do anything to modify ... This includes:").
_ADDRESSED = re.compile(
    r"\b(?:you|your|don't|do not|please)\b|,\s+(?:click|go|open|run|select|choose|type|press)\b"
    r"|(?<![\w-])(?:вы|вам|вас|ваш\w*|пожалуйста)(?![\w-])",
    re.IGNORECASE,
)
# The lead-in sentence may be long ("We can opt to receive these arguments by name, by
# establishing ..., by passing named=True to either listen() or listens_for():"): what the
# sentences before it state is still stated, unless a long lead-in speaks to the reader ("...
# there are a couple of things you can keep in mind:", advice) or a sentence before points at
# what follows ("This is what a very basic blueprint looks like.", "An example ... is below.").
# A sentence's end: three characters before its stop, or a short word ("... ask for it."; not a
# one-letter initial or "e.g.").
_STATED_BEFORE = re.compile(
    r"(?:[^\s:]{3}|(?<![\w.])(?!cf|vs|eg|ie)[a-z]{2})[.!?…]\s+(?P<lead>[^.!?…:]{1,400}):\s*$"
)
_SHORT_LEAD_IN = 80
_POINTS_AHEAD = re.compile(
    r"\b(?:this|here)\s+is\s+(?:what|how)\b|^(?:here(?:'s|\s+is|\s+are))\b"
    r"|\b(?:is|are)\s+(?:shown\s+|given\s+|listed\s+)?below\b|\bas follows\b",
    re.IGNORECASE | re.MULTILINE,
)
# A label before the sentence ("Goals: ", "Gson — Documentation: ", "PROTIP "): a list item led
# in by its heading, or a structured abstract's field. What follows it is read on its own.
_LABEL = re.compile(r"^(?:[^:.!?;]{1,60}:\s+|(?-i:[A-Z]{3,})\s+(?=[A-Z]))")
# Advice in the second person with a modal of possibility: "you could use org.json to hand-code
# ...", "you may want to"; "you can" is left alone ("you can either navigate the tree ...": how
# a thing works, told to the reader).
_EN_ADVICE = re.compile(
    # "you" opening a clause: "things you might use" is a relative clause, a statement.
    r"(?:^(?:[a-z]+,?\s+|(?:for example|for instance|in (?:this|that|such a) case|if (?:this|that)"
    r" is the case|of course),?\s+)?|[,;:]\s*|\b(?:and|but|so|then|or|here)\s+)"
    r"you\s+(?:could|might|may)\s+(?:also\s+|instead\s+|then\s+|still\s+|just\s+)?"
    r"(?!be\b|have\b|not\b|notice|see\b|find\b|know\b|recall|remember|think|wonder|expect"
    r"|recogni[sz]e|encounter|hear|get\b|receive|experience|run into)[a-z]+",
    re.IGNORECASE,
)
# A purpose with no main clause: "To provide an update to ...", "Objective: To assess ..."; ru
# "Оценить эффективность ...": the infinitive says what someone wanted, not what is true.
_EN_PURPOSE = re.compile(r"^(?:in order\s+)?to\s+(?:\w+ly\s+)?[a-z]{2,}\b", re.IGNORECASE)
# Nouns and numerals that end like an infinitive ("Память ...", "Двадцать человек ...") are left
# out; what is left is rarely anything but a verb at a sentence's start.
_RU_PURPOSE = re.compile(
    r"^(?:не\s+)?(?![а-яё]*(?:дцать|десять|девять|память|печать|кровать|благодать|тетрадь|знать"
    r"|мать|стать|сеть|треть|смерть|ртуть)\b)[а-яё]{3,}(?:ать|ять|еть|ить|уть|ыть|ти|чь)(?:ся)?"
    r"(?![\w-])",
    re.IGNORECASE,
)
# A finite verb (or a dash predicate) after the infinitive: "Курить — вредно", "Найти его удалось
# только в 1900 году" state something. Read broadly (a noun in "-ла" counts too): where in doubt,
# the sentence is no bare purpose.
_RU_FINITE = re.compile(
    r"(?<![\w-])[а-яё]{2,}(?:ет|ют|ут|ит|ат|ят|ется|ются|ится|ятся|л|ла|ло|ли|лся|лась|лось|лись"
    r"|ось|ась)(?![\w-])|\s[—–]\s"
    r"|(?<![\w-])(?:был|была|было|были|будет|удалось|можно|нельзя|нужно|надо)(?![\w-])",
    re.IGNORECASE,
)


def _unlabelled(s: str) -> list[str]:
    """The sentence, then what follows each of its leading labels (`_LABEL`, up to three:
    "Gson — Documentation: User guide: This guide contains ...")."""
    parts = [s]
    for _ in range(3):
        label = _LABEL.match(parts[-1])
        if label is None or label.end() >= len(parts[-1]):
            break
        parts.append(parts[-1][label.end() :])
    return parts


def _purpose_only(s: str, language: str | None) -> bool:
    """A purpose with no main clause (`_EN_PURPOSE`, `_RU_PURPOSE`)."""
    if language == "ru":
        ru = _RU_PURPOSE.match(s)
        return ru is not None and _RU_FINITE.search(s[ru.end() :]) is None
    if language not in (None, "en"):
        return False
    m = _EN_PURPOSE.match(s)
    # "To determine X, we measured Y" has its main clause after the comma.
    return m is not None and verbless(s[m.end() :])


def instructs(sentence: str, language: str | None) -> bool:
    """Whether the sentence tells the reader what to do (module docstring): an instruction, a norm
    or a lead-in to what follows, never a checkable statement."""
    s = sentence.strip()
    if _LEAD_IN.search(s):
        stated = _STATED_BEFORE.search(s)
        before = s[: stated.start() + 4] if stated else ""
        advice = stated is not None and (
            len(stated["lead"]) > _SHORT_LEAD_IN and _ADDRESSED.search(stated["lead"]) is not None
        )
        if (
            stated is None
            or advice
            or _ADDRESSED.search(before)
            or _POINTS_AHEAD.search(before)
            or instructs(before, language)
        ):
            return True  # a lead-in, or an instruction and its lead-in ("Click Run. You'll see:")
    if any(instructs(part, language) for part in _unlabelled(s)[1:]):
        return True  # "Goals: Support arbitrarily complex objects", "PROTIP Be sure to read ..."
    if _purpose_only(s, language):
        return True
    if language == "ru":
        return ru_instructs(s)  # an imperative or the reader's own norm (`distill.norms_ru`)
    if language == "de":
        return _de_norm(s)
    return bool(
        _EN_IMPERATIVE.search(s)
        or _EN_OBLIGED.search(s)
        or _en_norm(s)
        or _bare_imperative(s)
        or _EN_ADVICE.search(s)
        or imperative_step(s)  # "Check crates ...", "Run ci/sha256-releases ..." (`steps_en`)
    )


# --- Sentences about the text itself, not about the world ------------------------------------
# A clause that sends the reader elsewhere ("...; for older releases see CHANGELOG.md"), and where
# the documentation is ("Full documentation for installation is at Installation").
_SEE_CLAUSE = re.compile(
    r"^(?:for\s+[^,;]{2,60}?,?\s+)?(?:please\s+)?(?:see|refer to|consult|check out)\b", re.I
)
_DOCS_AT = re.compile(
    r"^(?:the\s+)?(?:(?:full|complete|more|further|detailed|additional|latest)\s+)?"
    r"(?:documentation|docs|details|information|instructions|examples)\b[^.;]{0,60}?\b"
    r"(?:is|are|can be found|lives?)\s+(?:available\s+)?(?:at|in|on|here)\b",
    re.IGNORECASE,
)
# What a document, page or guide holds ("This guide contains examples ...", "Describes how to
# solve common issues ..." after a link): a pointer's description. "This paper shows that X"
# states X and is left alone.
_DOC_SUBJECT = (
    r"(?:this|the following|the present)\s+(?:(?:part|section|chapter)\s+of\s+(?:the|this)\s+)?"
    r"(?:document|documentation|docs|page|guide|section|chapter|file|readme"
    r"|tutorial|manual|article|text|list)"
)
_DOC_VERB = (
    r"(?:discuss|describ|explain|cover|contain|list|document|introduc|summari[sz]|walk|provid"
    r"|includ|giv|show|present)(?:es|s)"
)
_DESCRIBES_DOC = re.compile(
    r"^(?:" + _DOC_SUBJECT + r"\s+(?:\w+ly\s+)?(?:also\s+)?)?" + _DOC_VERB + r"\b(?![^.]*\bthat\b)",
    re.IGNORECASE,
)
# Placeholder text ("Hello, here is some text without a meaning.", "A blind text like this gives
# you information about the selected font", "Dies ist ein Blindtext", "Это текст-рыба").
_PLACEHOLDER = re.compile(
    r"\b(?:here is|this is|these are)\s+(?:just\s+|only\s+)?(?:some|a|an)\s+(?:\w+\s+)?text\b"
    r"|\b(?:blind|dummy|filler|placeholder)\s+text\b|^(?:\w+,\s+)?this text\b"
    r"|\b(?:blind|füll|platzhalter)text\b|\bhier\s+(?:steht|ist)\s+(?:ein|etwas)\s+(?:\w+\s+)?text\b"
    r"|\bdies(?:er)?\s+(?:ist\s+ein\s+)?text\b"
    # the reader told about the very text they read: "If you read this text, you will get no
    # information.", "Wenn du diesen Text liest, ..."
    r"|\byou\b[^.!?]*\bth(?:is|e present)\s+text\b|\bthis\s+text\b[^.!?]*\byou\b"
    r"|\b(?:du|sie)\b[^.!?]*\bdiesen\s+text\b"
    r"|(?<![\w-])(?:текст-рыба|рыба-текст|этот текст|здесь\s+(?:\w+\s+)?(?:какой-то|некоторый)"
    r"\s+текст)(?![\w-])",
    re.IGNORECASE,
)


def about_the_text(sentence: str, language: str | None) -> bool:
    """Whether the sentence speaks of the text, not of the world: placeholder text, a pointer
    ("...; for older releases see CHANGELOG.md", "Full documentation ... is at Installation"), a
    description of what a document holds ("This guide contains examples ...", a link's
    "Describes how to ..."). Nothing in it can be checked against the world."""
    s = sentence.strip()
    if _PLACEHOLDER.search(s):
        return True
    if language not in (None, "en"):
        return False
    for part in _unlabelled(s):
        clauses = [c.strip() for c in re.split(r";\s+", part) if c.strip()]
        pointer = [bool(_SEE_CLAUSE.match(c)) for c in clauses]
        if (
            len(clauses) > 1
            and any(pointer)
            and all(
                p or (_EN_AUX.search(c) is None and _EN_PAST.search(c) is None)
                for p, c in zip(pointer, clauses, strict=True)
            )
        ):
            return True  # a phrase and where to look: nothing is stated
        if _DOCS_AT.match(part) or _DESCRIBES_DOC.match(part):
            return True
    return False


def no_claim(sentence: str, language: str | None) -> bool:
    """Whether the sentence makes no claim about the world: it tells the reader what to do
    (`instructs`) or speaks of the text itself (`about_the_text`)."""
    return instructs(sentence, language) or about_the_text(sentence, language)


_EN_AUX = re.compile(
    r"\b(?:is|are|was|were|be|been|am|has|have|had|do|does|did|can|could|will|would|shall"
    r"|should|may|might|must|cannot|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|won't)\b"
    # "you're", "it's"; a possessive "Hatter's" is no verb.
    r"|\w['’](?:re|ll|ve|d)\b|\b(?:it|that|there|here|what|who|he|she|where)['’]s\b",
    re.IGNORECASE,
)
_EN_PAST = re.compile(
    r"\b(?:[a-z]{3,}ed|met|made|took|gave|went|came|saw|began|became|held|led|left|kept|brought"
    r"|thought|told|ran|paid|sent|spent|stood|knew|chose|broke|spoke|struck|taught|caught|fought"
    r"|sought|meant|felt|got|did|drew|drove|grew|rose|fell|won|lost|sold|bought|built|wrote|found"
    r"|showed|shown|said|paid|laid|heard|told|sat|won|hit|cut|let|put|read)\b"
)
_EN_THIRD_PERSON = re.compile(
    r"\b(?:it|he|she|this|that|which|who|one|what)\s+(?:\w+ly\s+)?[a-z]{2,}s\b"
    # a subject pronoun and the word after it ("We also handle the primitive types ..."): a verb
    r"|\b(?-i:[Ww]e|[Tt]hey|I)\s+(?:\w+ly\s+|also\s+|still\s+|only\s+)?[a-z]{2,}\b",
    re.IGNORECASE,
)
_EN_FUNCTION = en.MOOD_FUNCTION
_EN_TOKEN = re.compile(r"[^\W_][\w'’-]*|[^\w\s]")


def _present_verb(sentence: str) -> bool:
    # An adverb is skipped: "applications quickly" has no verb, "Cells quickly divide" has one.
    tokens = [t for t in _EN_TOKEN.findall(sentence) if not (t.islower() and t.endswith("ly"))]
    for prev, word in itertools.pairwise(tokens):
        if not word.isalpha() or not word.islower() or word in _EN_FUNCTION:
            continue
        plural = prev.isalpha() and prev.endswith("s") and not prev.endswith(("ss", "us", "is"))
        # A symbol ("STIM1", "Nrf2") before any word, a name ("Flask") before a word in "-s";
        # "POSIX-compliant flags" is an attribute and its noun.
        symbol = prev[:1].isupper() and (prev[-1].isdigit() or prev[-1].isupper()) and len(prev) > 1
        name = prev[:1].isupper() and "-" not in prev and word.endswith("s")
        if plural or symbol or name:
            return True
    return False


_OBJECT_OPENERS = en.OBJECT_OPENERS


def generic_present(sentence: str) -> bool:
    """Whether a whole English sentence states a generic present with a transitive verb and its
    object: "Simian immunodeficiency virus (SIV) naturally infects non-human primates in
    Africa.", "The virus infects host cells.": a subject (a word that is no function word, or the
    ")" of its acronym), a verb in "-s" and an object (a determiner, a number or a content word).
    `verbless` misses these when the subject is no plural or name ("virus", "(SIV)"). Only a
    sentence (a capital, five words, a full stop) is read, so a list item's noun phrase ("Fully
    POSIX-compliant flags (including ...)") is left to `verbless`."""
    s = sentence.strip()
    tokens = [t for t in _EN_TOKEN.findall(s) if not (t.islower() and t.endswith("ly"))]
    words = [t for t in tokens if t[:1].isalpha()]
    if not (s[:1].isupper() and s.endswith(".") and len(words) >= 5):
        return False
    for prev, word, after in zip(tokens, tokens[1:], tokens[2:], strict=False):
        if not (word.isalpha() and word.islower() and len(word) >= 4 and word.endswith("s")):
            continue
        if word.endswith(("ss", "us", "is", "ics")) or word in _EN_FUNCTION:
            continue
        subject = prev == ")" or (prev.isalpha() and prev.casefold() not in _EN_FUNCTION)
        obj = (
            after.casefold() in _OBJECT_OPENERS
            or after[:1].isdigit()
            or (after[:1].isalpha() and after.casefold() not in _EN_FUNCTION)
        )
        if subject and obj:
            return True
    return False


def verbless(sentence: str, verb_lists: re.Pattern[str] | None = None) -> bool:
    """Whether an English phrase has no finite verb (module docstring). `verb_lists` is the fact
    rules' verbs ("mediate", "encodes"): any of them is a verb."""
    s = sentence.strip()
    if _EN_AUX.search(s) or _EN_PAST.search(s) or _EN_THIRD_PERSON.search(s):
        return False
    if _present_verb(s):
        return False
    return not (verb_lists is not None and verb_lists.search(s))


# Full adjective and participle endings; short forms ("-на", "-ен") are left out: too many nouns
# end that way ("окна", "Иван").
_RU_ADJ = re.compile(r"(?:ый|ий|ой|ая|яя|ое|ее|ые|ие)(?:ся)?$")
_RU_ATTRIBUTE = re.compile(r"(?:ый|ий|ой|ая|яя|ое|ее|ые|ие|ого|его|ому|ему|ых|их|ым|им|ую|юю)$")
_RU_WORD = re.compile(r"[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)*")


def ru_adjective_predicate(sentence: str) -> bool:
    """Whether a short Russian sentence closes on a predicate adjective after its noun (module
    docstring): 3 to 8 words after a carried "Subject:", no dash, the first word and the one
    before the last not attributes, the last a lower-case full adjective or participle."""
    s = sentence.strip()
    if not s.endswith("."):
        return False
    body = s.split(":", 1)[1] if ":" in s else s
    words = _RU_WORD.findall(body)
    if not 3 <= len(words) <= 8 or re.search(r"\s[—–-]\s", body):
        return False
    first, before, last = words[0].casefold(), words[-2].casefold(), words[-1]
    if _RU_ATTRIBUTE.search(first) or _RU_ATTRIBUTE.search(before):
        return False
    return last[:1].islower() and _RU_ADJ.search(last) is not None


_RELATIONAL = ru.RELATIONAL


def relational_term(term: str) -> bool:
    """Whether a dash's left side is a relational noun with its owner ("Автор монумента",
    "Столица Арубы"): a value of that owner, not a defined term. A relational noun alone
    ("Директор — должностное лицо ...") may still be defined."""
    words = _RU_WORD.findall(term)
    return len(words) >= 2 and words[0].casefold() in _RELATIONAL


# "We present / describe / report X": scope text, unless the same sentence states what was found.
_EN_PRESENTS = re.compile(
    r"\b(?:we|this (?:study|paper|report|article|work)|the (?:present|current) (?:study|paper"
    r"|report|work))\s+(?:also\s+|here\s+|now\s+)?(?:present(?:s|ed)?|describe[sd]?|report(?:s|ed)?)\b",
    re.IGNORECASE,
)
_RU_PRESENTS = re.compile(
    r"(?<![\w-])(?:мы\s+(?:представляем|описываем|сообщаем|приводим)|(?:представлен|описан)"
    r"[аоы]?)(?![\w-])",
    re.IGNORECASE,
)
# What makes the presentation a result: a second finite verb of finding on the same subject ("and
# identify 25,000 hotspots"; "to identify" is a purpose), "report that ...", a rate or a p value,
# or a classification into classes it names ("into Proneural, Neural, and Classical subtypes").
_EN_RESULT = re.compile(
    r"\b(?:and|,)\s+(?:\w+ly\s+|also\s+|thereby\s+|then\s+)?(?:identif(?:y|ied)|reveal(?:ed)?"
    r"|show(?:ed)?|demonstrat(?:e|ed)|find|found|uncover(?:ed)?|discover(?:ed)?)\b"
    r"|^\s*that\b"
    r"|\d\s*%|\bp\s*[<=>≤]\s*0?[.,]\d"
    r"|\binto\s+(?-i:(?:[A-Z][\w-]*,?\s+){1,8}(?:and|or)\s+[A-Z][\w-]*)",
    re.IGNORECASE,
)
_RU_RESULT = re.compile(
    r"(?<![\w-])(?:и|,)\s+(?:также\s+)?(?:выяв|показ|обнаруж|установ)\w*"
    r"|\d\s*%|(?<![\w-])на\s+(?-i:(?:[А-ЯЁ][\w-]*,?\s+){1,8}и\s+[А-ЯЁ][\w-]*)",
    re.IGNORECASE,
)


def presents_result(sentence: str, language: str | None) -> bool:
    """Whether a "We present / describe / report X" sentence (ru "мы представляем", "представлена
    ...") states a result after its verb: "... and identify more than 25,000 hotspots", "report
    that ...", a rate, a classification into named classes. "We describe the methods used" and
    "we present a method to identify ..." stay scope: nothing there was found."""
    presents, result = (
        (_RU_PRESENTS, _RU_RESULT) if language == "ru" else (_EN_PRESENTS, _EN_RESULT)
    )
    m = presents.search(sentence)
    return m is not None and result.search(sentence[m.end() :]) is not None
