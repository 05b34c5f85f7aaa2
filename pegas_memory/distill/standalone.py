"""What is still no claim after join and carry: the last checks before a draft is stored (pure).

Join (`distill.units`) and carry (`distill.carry`) make most sentences stand alone; a draft whose
reference neither resolved keeps the mark `anaphoric` (confidence 0.4). Measured on the five
labelled samples (`bench/standalone_marks.py`), that mark alone is mostly on good atoms ("Our
findings suggest ...", "This paper describes ...": the authors and the document, which a claim
may name so), so it is not dropped as such. Two narrower shapes are dropped, because grammar
says the claim cannot be read alone, and counted in the `dropped` reasons the ingest result
reports:

- **needs context** (`needs_context`): a marked claim whose subject is a third-person personal
  pronoun ("Они были отправлены ...", "They were sent ...", "Most of them ...", "Большинство из
  них ...") or a kind described before ("Примером такого права ...", "Such a change ..."), with
  no name before it in the claim that could be its antecedent. "Their/их" as an owner ("Их сын
  Михаил ...") is not the subject and is not dropped: the phrase names its own head; "такой ...,
  как X" names its kind; expletive "it" ("It is known that ...") is not on the list.
  So is an English claim that opens on a bare demonstrative or "it" as the subject of its
  verb ("This will do a full build ...", "That is why ...", "It will then change ..."): after a
  command or a code block the pronoun stands for the command, which a list item's claim does
  not hold ("Start the release: `mvn release:prepare`" is the item before). "This paper ...",
  "This crate ..." name their noun (carried or kept as before); "It is known that ...", "It can
  be shown that ..." are expletive: kept. So is what `distill.lean_en` reads as still leaning
  after join and carry ("You can achieve this with ...", "However, ... things are much worse."),
  and a draft `distill.referent_en` found leaning on a code block or on the chunk before
  (`settled`, re-exported here: `OfflineDistiller` runs it on a chunk's drafts before `unfit`;
  it also carries an FAQ answer's question onto its "this").
- **damaged: words lost in the source** (`damaged_gap`): Wikipedia text whose link text was lost
  leaves a space before "." or "," right after a word ("началась работа над фильмом ."). The gap
  destroys the claim when grammar says a word was needed there: a preposition, article or
  conjunction right before it ("родился в , Австрия", "released in ."), or a noun of a work
  or a named kind right after a preposition, whose name was the lost link ("над фильмом .", "в
  сериале ,", "in the film ,"). Anything else is a harmless gap (a lost footnote or image
  after a complete phrase: "со стеклянной трубкой .", "передал мяч Уарду , который"), and so
  is a gap inside brackets: an aside (life dates, a birthplace) lost, the main claim intact.
  A run of empty items ("— русский , , ,  журналов.") is damaged too (`distill.comma_runs`).
- **label line** (`distill.labels_ru`): a flattened passage's timeline period left alone
  ("Конец XVIII — начало XIX века.", its title did not follow it) or a chart's legend entry
  ("Плейстоценовая эпоха (P)."), judged on the quote, so a carry does not hide it.
"""

from __future__ import annotations

import re

import pegas_memory.distill.lean_en as lean_en
import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru
from pegas_memory.distill.comma_runs import comma_run
from pegas_memory.distill.labels_ru import legend_line, period_only
from pegas_memory.distill.patterns import words_of
from pegas_memory.distill.referent_en import LEANS_ON
from pegas_memory.distill.referent_en import settled as settled
from pegas_memory.distill.types import DraftAtom

NEEDS_CONTEXT = "needs context"
DAMAGED = "damaged: words lost in the source"
LABEL_LINE = "label line"

_FIRST_WORDS = 4  # a subject pronoun counts among the claim's first words only
_EN_SUBJECT = en.SUBJECT
_RU_SUBJECT = ru.SUBJECT
_SUCH = en.SUCH | ru.SUCH
# "most of them", "большинство из них": a part of a group named before.
_PARTITIVE = re.compile(r"(?:of (?:them|these|those)|из (?:них|этих|тех))\b")
_LEADING = en.LEADING | ru.LEADING
_SUCH_NAMED = re.compile(r"\b(?:как|as|like)\b", re.IGNORECASE)  # "такие ..., как X" names it

# A space before "." or "," right after a word; ";" is left out: a manual's "with :, or ;" is the
# literal punctuation of inline code whose backticks are gone.
_GAP = re.compile(r"([^\W\d_][\w-]*)[ \t\u00a0]+[.,](?=\s|$|[)\]»\"])")
_EN_NEEDS_OBJECT = en.NEEDS_OBJECT
_RU_NEEDS_OBJECT = ru.NEEDS_OBJECT
_EN_PREPOSITION = en.PREPOSITION
# Nouns of works and named kinds, whose name follows them ("фильм «X»", "the film X").
_RU_WORK = re.compile(
    r"^(?:фильм|мультфильм|сериал|телесериал|альбом|сингл|песн|книг|роман|повест|поэм|стат"
    r"|журнал|газет|игр|спектакл|опер|мюзикл|шоу|передач|программ|проект|компани|групп"
    r"|корабл|судн|клуб|команд)\w{0,4}$"
)
_EN_WORK = en.WORK


def needs_context(claim: str, language: str | None) -> bool:
    """Whether a claim marked anaphoric still has a subject that only the text before it names
    (module docstring): "such/такой" among its first words, a subject pronoun that opens the
    claim or follows only connectors and adverbs ("But they ...", "Сейчас они ..."), or a part
    of a group named before ("Most of them ..."). A pronoun after a noun ("The suspect said he
    ...", "Graham said she ...") may stand for that noun: kept."""
    words = [w.casefold() for w in words_of(claim)]
    subjects = _RU_SUBJECT if language == "ru" else _EN_SUBJECT
    head = words[:_FIRST_WORDS]
    if any(w in _SUCH for w in head) and not _SUCH_NAMED.search(claim):
        return True  # a kind described before: no word of the claim names it
    if language != "ru" and (_bare_pronoun_subject(words) or lean_en.unresolved(claim)):
        return True
    for word in head:
        if word in subjects:
            return True
        if word not in _LEADING:
            break
    return _PARTITIVE.match(" ".join(words[1:4])) is not None


_EN_BARE_DEMONSTRATIVE = en.BARE_DEMONSTRATIVE
_EN_MODAL = en.STANDALONE_MODAL
_EN_VERB_AFTER_THIS = en.VERB_AFTER_THIS


def _bare_pronoun_subject(words: list[str]) -> bool:
    """ "This will do ...", "That means ...", "It will then change ...": a demonstrative or
    "it" with its verb next (after "then"/"also" at most), so no noun says what it is; "it" only
    before a modal or "does" and not an expletive "it + modal + be ... that/to"."""
    head = [w for w in words[:4] if w not in ("then", "also", "now")]
    if len(head) < 2:
        return False
    first, verb = head[0], head[1]
    if first in _EN_BARE_DEMONSTRATIVE:
        return verb in _EN_VERB_AFTER_THIS
    if first != "it" or verb not in _EN_MODAL:
        return False
    return not (head[2:3] == ["be"] and any(w in ("that", "to") for w in words[3:6]))


def damaged_gap(claim: str, language: str | None) -> bool:
    """Whether the claim has a gap left by words lost in the source where grammar needs them
    (module docstring); a gap inside brackets or after a complete phrase is harmless."""
    needs_object = _RU_NEEDS_OBJECT if language == "ru" else _EN_NEEDS_OBJECT
    prepositions = _RU_NEEDS_OBJECT if language == "ru" else _EN_PREPOSITION
    for m in _GAP.finditer(claim):
        before = claim[: m.start(1)]
        if before.count("(") > before.count(")") or before.count("[") > before.count("]"):
            continue  # an aside lost, the claim intact
        word = m[1].casefold()
        if word in needs_object:
            return True
        previous = [w.casefold() for w in words_of(before)[-2:]]
        work = _RU_WORK.match(word) if language == "ru" else word in _EN_WORK
        if work and any(p in prepositions for p in previous):
            return True
    return False


# A double space in the source right after a function word, before another function word or
# punctuation ("Разработана Биллом Гейтсом и  в 1976-1977 годах", "из латинских слов
# (Везувий) и  (вино)"): a link's text was lost there, as before a " ." above. On the tunable
# TyDi passages and English docs every double space after a function word was such a loss; a
# double space after a sentence's end or a content word ("(Кузбасс)  началась") is left alone.
_FUNCTION = (
    "и|или|а|но|в|во|с|со|о|об|к|на|по|из|от|до|за|для|при|под|над|у|"
    "and|or|but|of|with|in|on|at|to|by|for|from|the|a|an"
)
_LOST_LINK = re.compile(
    rf"(?<![\w\u0301\u0300-])(?:{_FUNCTION})[ \t\u00a0]{{2,}}"
    rf"(?:(?:{_FUNCTION})(?![\w\u0301])|[.,;:!?()\[\]—–])",
    re.IGNORECASE,
)


def lost_link(quote: str) -> bool:
    """Whether the source text has the double-space gap above (read on the quote: the claim's
    spaces are collapsed)."""
    return _LOST_LINK.search(quote) is not None


def unfit(atom: DraftAtom) -> str | None:
    """Why a prose draft is no claim after join and carry (the `dropped` reason), or None: a
    label line, a marked claim that `needs_context`, a `damaged_gap`. Blocks (code, tables,
    rules), labelled statements and lines of dialogue are judged by their own rules, not here."""
    if atom.type not in ("fact", "text", "definition") or "label" in atom.metadata:
        return None
    if atom.metadata.get("kind") == "dialogue":
        return None
    if period_only(atom.quote) or legend_line(atom.quote):
        return LABEL_LINE  # "Конец XVIII — начало XIX века.", "Плейстоценовая эпоха (P)."
    if atom.metadata.get("anaphoric") and needs_context(atom.claim, atom.language):
        return NEEDS_CONTEXT
    if atom.metadata.get(LEANS_ON):
        return NEEDS_CONTEXT  # "This alias checks ..." after the code (`distill.referent_en`)
    if damaged_gap(atom.claim, atom.language) or lost_link(atom.quote) or comma_run(atom.claim):
        return DAMAGED
    return None
