"""English words and phrase shapes the promote stage reads (pure data, `distill.promote`).

Each list names a structural role in a document, not a sample's wording: the names of a
document's parts (section, figure, ...), the verbs that say how a text is organised ("is
described in", "we present"), the reader addressed by a tutorial ("you", "let's"), the verbs of
a step, and the words of a reference list or of front matter. The rules that read them are in
`distill.layout` and `distill.discourse`.
"""

from __future__ import annotations

import re

from pegas_memory.distill.patterns import wordset

# The parts of a document a sentence can point to ("Section 5.4", "Figure 3", "Appendix B").
PARTS = (
    r"section|sections|subsection|chapter|chapters|appendix|appendices|figure|figures|fig\.|figs\."
    r"|table|tables|tab\.|equation|equations|eq\.|eqs\.|listing|algorithm|theorem|lemma"
    r"|corollary|proposition|definition|example|part|page|pages|p\.|pp\.|§"
)
# "the next section", "this chapter": a part of the document speaking of another part. The
# whole document ("this paper presents ...") is not here: what it presents is its content.
SELF = (
    r"(?:the|this|next|previous|following|preceding|last|remaining|later|earlier)\s+"
    r"(?:section|subsection|chapter|appendix|part|paragraph)s?"
)
# Verbs that say where something is in the text rather than what holds.
ORGANISING = (
    r"describe[sd]?|present(?:s|ed)?|discuss(?:es|ed)?|introduce[sd]?|review(?:s|ed)?"
    r"|outline[sd]?|summari[sz]e[sd]?|extend(?:s|ed)?|give[sn]?|cover(?:s|ed)?|detail(?:s|ed)?"
    r"|explain(?:s|ed)?|address(?:es|ed)?|treat(?:s|ed)?|show(?:s|n)?|illustrate[sd]?"
    r"|organi[sz]ed|structured|devoted|dedicated|concludes?|deals?|focus(?:es)?|provides?"
    r"|report(?:s|ed)?|list(?:s|ed)?|depict(?:s|ed)?|found|given|see|refer|consult"
)
# The reader addressed: "you", and the tutorial's "we" that walks the reader through steps.
READER = re.compile(
    r"\b(?:let's|let us|we're going to|we are going to|you'll|you will|you're"
    r" going to|you are going to)\b",
    re.IGNORECASE,
)
# Verbs that open an instruction step ("Click Save.", "Open the file ...").
STEP_VERBS = wordset(
    "click tap press type enter open close run execute install download upload select choose"
    " pick navigate go head copy paste save create add insert write put drag drop scroll"
    " launch start stop restart sign log check uncheck enable disable fill submit switch"
    " toggle rename move delete remove replace edit change update set configure clone cd mkdir"
    " import call invoke paste repeat wait make build compile deploy"
    " push pull commit fetch merge try"
)
# What follows a step's verb: its object's determiner or a particle ("Run the tests", "Log in").
STEP_OBJECTS = wordset(
    "the a an your this that these those it them all each every any some our my its their"
    " on to in into from with up down out off over through back again"
)
# A purpose or result after a step makes it a statement of what the step does: "Use --force
# to overwrite files" says what --force does.
PURPOSE = re.compile(r"\b(?:to|so that|in order to|if|when|unless|because)\b", re.IGNORECASE)
# Words of a reference list's entries (venues, publishers, editions, identifiers).
VENUE = re.compile(
    r"\b(?:proceedings|proc\.|journal|j\.|conference|conf\.|symposium|workshop|transactions"
    r"|trans\.|press|publishers?|publishing|springer|elsevier|wiley|ieee|acm|siam|arxiv"
    r"|preprint|in:|eds?\.|edition|ed\.|thesis|dissertation|technical report|tech\. rep\."
    r"|univ\.|university press|lecture notes|retrieved|accessed|available at)\b",
    re.IGNORECASE,
)
# Lines of front matter: who wrote it, where they work, how to reach them, its identifiers.
FRONT = re.compile(
    r"(?:\bcopyright\b|©|\ball rights reserved\b|\bisbn\b|\bissn\b|\bdoi\b|\bkey ?words\s*:"
    r"|\bindex terms\s*:|\breceived\b.{0,40}\b(?:19|20)\d\d|\baccepted\b.{0,40}\b(?:19|20)\d\d"
    r"|\bpublished online\b|\bcorresponding author\b|\bsubmitted (?:to|in partial)"
    r"|\bthis (?:work|research|study) (?:was|is) (?:partially |partly )?(?:supported|funded)"
    r"|\bgrant (?:no\.|number|#)|\blicensed under\b|\bpermission to make digital\b)",
    re.IGNORECASE,
)
# Where an affiliation names its place of work.
AFFILIATION = re.compile(
    r"\b(?:university|institute|department|dept\.|faculty|school of|laboratory|college|academy"
    r"|centre|center)\b",
    re.IGNORECASE,
)
# Closed-class words, which open a sentence's middle, not a sentence, when written in lower case
# at a chunk's start ("and the results ...", "which is why ...").
FUNCTION_WORDS = wordset(
    "and or nor but so yet then than that which who whom whose where when while whereas as if"
    " because since although though unless until after before of in on at to for with by from"
    " into onto over under between through about against among is are was were be been being"
    " not also however thus hence therefore"
)
