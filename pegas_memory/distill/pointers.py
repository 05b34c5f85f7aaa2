"""Sentences that only send the reader elsewhere, dropped as `pointer` noise (pure logic).

"See LICENSE.txt", "См. также ...", "Please refer to Bash Completions for details.", "Lesen Sie
dazu die Dokumentation.", "The following are the steps ..." (`distill.following_en`): true in
their place, and nothing by themselves; a README or a manual is full of them. `distill.units`
drops such a sentence and counts it, so the ingest result says how many went and why.
"""

from __future__ import annotations

import re

from pegas_memory.distill.following_en import presents_what_follows
from pegas_memory.distill.patterns import words_of
from pegas_memory.distill.steps_en import announces_what_follows
from pegas_memory.sentences import split_sentences

# "See X", "cf. X", "См. также X": a bare pointer, whatever it points at, when it is this short.
_POINTER = re.compile(
    r"^(?:see(?: also)?|cf\.|см\.(?: также)?|подробнее см\.|siehe(?: auch)?)\s", re.IGNORECASE
)
_MAX_BARE_POINTER_WORDS = 6

# A sentence that only sends the reader elsewhere: a reading verb in the imperative and a
# destination ("Read more about it in Shell Completions.", "Please refer to Bash Completions for
# details.", "Подробнее см. в документации.", "Lesen Sie dazu die Dokumentation."), or "for
# details, see ...". Short only: a longer sentence says something on its way.
_READ_VERB = re.compile(
    r"^(?:please\s+)?(?:see|read|refer to|consult|check out|head over to|go to|visit|follow"
    r"|look (?:at|into)|more (?:in|at|about)|см\.|смотрите|читайте|подробнее|обратитесь к"
    r"|следуйте|siehe|lesen sie|folgen sie|mehr (?:dazu )?(?:in|unter|bei))\b",
    re.IGNORECASE,
)
_READ_WHERE = re.compile(
    r"\b(?:documentation|docs|guide|readme|reference|tutorial|section|chapter|manual"
    r"|for (?:more |further |complete |full |additional )?(?:details|information|info)"
    r"|for (?:a |the |an )?(?:full |complete |short |brief )?(?:list|overview|description"
    r"|discussion|explanation|example|examples|summary) of"
    r"|документаци\w*|руководств\w*|раздел\w*|глав\w*|за подробност\w*|подробн\w*"
    r"|dokumentation|anleitung|handbuch|abschnitt|kapitel|für (?:weitere )?(?:details"
    r"|informationen|einzelheiten))\b",
    re.IGNORECASE,
)
# ... or, in a short sentence, a place named at its end ("Read more about it in Active Help.")
_READ_IN = re.compile(r"\b(?:in|at|about|в|во|im|unter)\s+(?:\S+\s+){0,3}\S+$", re.IGNORECASE)
_MAX_SHORT_POINTER_WORDS = 8
# only for reading verbs: "Visit the museum in Paris." goes somewhere, it points to no text
_READING = re.compile(
    r"^(?:please\s+)?(?:see|read|refer|consult|more|см\.|смотрите|читайте|siehe|lesen|mehr)\b", re.I
)
_FOR_DETAILS = re.compile(
    r"^for (?:more|further|complete|full|additional)?\s?(?:details|information|info)\b"
    r"(?:[^.]|\.(?=\w))*?"  # a dot inside a word ("express.js") ends no sentence
    r"\b(?:see|read|refer to|consult|check)\b",
    re.IGNORECASE,
)
_MAX_POINTER_WORDS = 16


# "If you find a vulnerability, please see ...": the condition says when, the rest points.
_CONDITION = re.compile(r"^(?:if|when|если|когда|wenn|falls)\b[^,;:]{2,100},\s*", re.IGNORECASE)
_PLEASE = re.compile(r"^(?:please|пожалуйста,?|bitte)\s+", re.IGNORECASE)


def _reading_pointer(body: str) -> bool:
    """Whether the sentence only points elsewhere (`_READ_VERB` and a destination), after a
    condition in front of it."""
    if len(words_of(body)) > _MAX_POINTER_WORDS:
        return False
    body = _CONDITION.sub("", body, count=1)
    if _FOR_DETAILS.match(body):
        return True
    if not _READ_VERB.match(body):
        return False
    short = len(words_of(body)) <= _MAX_SHORT_POINTER_WORDS and _READING.match(body) is not None
    return _READ_WHERE.search(body) is not None or (short and _READ_IN.search(body) is not None)


# A docs page speaking of itself ("This section details the single-table version of ...", "The
# following example shows ...", "В этом разделе описывается ...", "Dieser Abschnitt beschreibt
# ..."): navigation, true of the page and of nothing else.
_HERE = (
    r"(?:this|the (?:following|next|present)|the \w+ below)\s+(?:\w+\s+)?"
    r"(?:section|sections|page|chapter|document|article|guide|tutorial|example|examples"
    r"|part|subsection|paragraph|appendix|snippet|listing)"
    r"|(?:этот|данный|следующий|настоящий)\s+(?:раздел|параграф|пример|документ|глава)"
    r"|(?:эта|данная|следующая|настоящая)\s+(?:глава|статья|страница|часть)"
    r"|(?:dieser|der folgende|dieses|das folgende|diese)\s+(?:abschnitt|kapitel|beispiel"
    r"|dokument|seite|teil)"
)
_SHOW_VERB = (
    r"(?:details|describes|covers|shows|explains|illustrates|discusses|presents|introduces"
    r"|demonstrates|outlines|summari[sz]es|documents|walks (?:you )?through|lists|reviews"
    r"|(?:only )?(?:gives|provides|offers) (?:\w+ ){0,3}(?:introduction|overview|summary|tour)"
    r"|(?:will|is going to|is meant to|aims to)\s+(?:\w+\s+)?(?:detail|describe|cover|show"
    r"|explain|illustrate|discuss|present|introduce|demonstrate|outline|walk|list|review)"
    r"|описывает|рассматривает|показывает|объясняет|содержит|посвящ[её]н\w*|демонстрирует"
    r"|перечисляет|beschreibt|zeigt|erklärt|behandelt|erläutert|enthält)"
)
_SELF_REFERENCE = re.compile(
    rf"^(?:(?:{_HERE})\s+{_SHOW_VERB}"
    r"|(?:in|within) (?:this|the following|the next) (?:section|chapter|page|guide|tutorial"
    r"|document|article|part|example|snippet)\b,?\s+(?:we|you|i)\b"
    r"|(?:в|во) (?:этом|данном|следующем|настоящем) (?:разделе|параграфе|документе|примере"
    r"|главе|статье),?\s+(?:\w+\s+)?(?:описыва\w+|рассматрива\w+|привод\w+|приведен\w*"
    r"|показ\w+|описан\w*|перечисл\w+|обсужда\w+|собран\w*|мы|вы)\b"
    r"|(?:in|im) (?:diesem|folgenden|nächsten) (?:abschnitt|kapitel|beispiel|dokument),?\s+"
    r"(?:wird|werden|zeigen|beschreiben|erklären|erläutern|sehen|lernen)\b)",
    re.IGNORECASE,
)
# A second clause that says something of the subject itself keeps the sentence ("This section
# describes the cache, which is cleared on every restart.").
_FACT_CLAUSE = re.compile(
    r"[,;(]\s*(?:which|who|where|because|since|but|so|and (?:it|this|they)|который|которая"
    r"|которое|которые|потому|так как|но|однако|welche[rs]?|der|die|das|weil|aber)\b"
    r"|\b(?:because|since|потому что|так как|weil)\b|\d",
    re.IGNORECASE,
)
_MAX_SELF_REFERENCE_WORDS = 30
_NEXT_SENTENCE = re.compile(r"[.!?]\s+\S")

# Wikipedia's category footer ("Категория:Массовые убийства Категория:Реформация во Франции",
# "Categories: Mass murder | Huguenots"): links to index pages, no text of the article.
_CATEGORIES = re.compile(r"^(?:categor(?:y|ies)|категори[яи]|kategorie[n]?)\s*:", re.IGNORECASE)
# A reference-list entry: "↑" (or "^") is its link back to the text it is cited in.
_BACKLINK = re.compile(r"^\s*[↑^]\s")


def is_self_reference(body: str) -> bool:
    """Whether the (cleaned) sentence only says what the page, section or example in front of
    the reader is about ("This section details ...", "В этом разделе описывается ..."), with no
    clause that states something of the subject itself."""
    if len(words_of(body)) > _MAX_SELF_REFERENCE_WORDS or not _SELF_REFERENCE.match(body):
        return False
    if _NEXT_SENTENCE.search(body.rstrip()):  # a second sentence may say what the first promised
        return False
    return _FACT_CLAUSE.search(body) is None


def only_self_reference(body: str) -> bool:
    """Whether every sentence of a joined unit speaks of the page or the example in front of
    the reader ("This example shows how to use a GlobBuilder to configure aspects of match
    semantics. In this example, we prevent wildcards from matching path separators.", "В этом
    примере показано ... В этом примере мы ..."): the second sentence of such a unit was joined
    because it leans on the first, and says no more than it, of an example that is not in the
    claim. One sentence is `is_self_reference`'s."""
    sentences = [body[s.start : s.end] for s in split_sentences(body)]
    return len(sentences) > 1 and all(is_self_reference(s) for s in sentences)


# "Note the limitations described in signals-sending and the flask.request_tearing_down
# signal.": which limitations the page does not say; only where they are. The sentence ends on
# its destinations (one or two: a word, or a few capitalised ones, an optional "section" after
# each), so "Note the limits described in the paper do not apply here" states something.
_DESTINATION = (
    r"(?:the\s+)?(?:[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){1,3}|[\w.:~/'’-]+)"
    r"(?:\s+(?:section|chapter|page|signal|docs|documentation|guide))?"
)
_NOTE_POINTER = re.compile(
    r"^(?:please\s+)?note\s+(?:the\s+|that\s+the\s+)?(?:[\w-]+\s+){0,3}"
    r"(?:described|explained|discussed|documented|listed|mentioned|outlined|covered|shown)"
    rf"\s+(?:in|at|under|on)\s+{_DESTINATION}(?:\s*(?:,|and|or)\s+{_DESTINATION})?\s*[.!]?$",
    re.IGNORECASE,
)
# Russian puts "см." after what it points for: "Список всех встроенных сигналов см. в разделе
# Core Signals." A short sentence with no clause of its own (no comma, no bracket) is a pointer.
_RU_SEE_AFTER = re.compile(
    r"^[^,;:()]{3,80}?\s(?:см\.|смотрите)\s+(?:также\s+)?(?:в\s+|на\s+)?[^,;()]{1,60}[.!]?$",
    re.IGNORECASE,
)
_MAX_RU_SEE_WORDS = 12


def _trailing_pointer(body: str) -> bool:
    """Whether the sentence only says where something is described ("Note the limitations
    described in X.", "Список ... см. в разделе X.")."""
    if len(words_of(body)) > _MAX_POINTER_WORDS:
        return False
    if _NOTE_POINTER.match(body):
        return True
    return len(words_of(body)) <= _MAX_RU_SEE_WORDS and _RU_SEE_AFTER.match(body) is not None


def is_pointer(body: str) -> bool:
    """Whether the (cleaned) sentence only points elsewhere: a bare "See X" of a few words, a
    reading verb with a destination (`_reading_pointer`), the page speaking of itself
    (`is_self_reference`), or a category footer or a reference-list entry."""
    core = _PLEASE.sub("", _CONDITION.sub("", body, count=1), count=1)
    short = len(words_of(body)) <= _MAX_POINTER_WORDS
    bare = _POINTER.match(core) is not None and len(words_of(core)) <= _MAX_BARE_POINTER_WORDS
    if (bare and short) or _reading_pointer(body) or _trailing_pointer(core):
        return True
    if announces_what_follows(body):  # "Check crates in the following order." (`steps_en`)
        return True
    if presents_what_follows(body) and _FACT_CLAUSE.search(body) is None:
        return True  # "The following are the steps ..." (`following_en`); a clause of its own
        # or a number says something ("The following example shows that process id 6847 ...")
    furniture = _CATEGORIES.match(body) is not None or _BACKLINK.match(body) is not None
    return is_self_reference(body) or furniture or only_self_reference(body)
