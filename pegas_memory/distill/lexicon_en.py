"""The offline distiller's English word lists, all stages (pure data).

Word lists live in one lexicon module per language: this one and `distill.lexicon_ru`. A list is
named by the structural role its words play (a connector that leans on the sentence before, a
noun that names the document, a verb that opens a step), not by a sample's wording, and the
lists are grouped by the module that reads them (`# --- <module>: ... ---`). Where two modules'
lists would share a name, each is prefixed by what it is for (`JOIN_PRONOUNS`,
`CONTEXT_PRONOUNS`). A list with words of both languages is split between the two lexicons under
one name, and the module that reads it builds the union (`en.ANAPHORS | ru.ANAPHORS`). A rule
module keeps its own name for a list (`_CONNECTORS = en.CONNECTORS`); the regular expressions
stay with their rules.

A few English lists hold words of another Latin-script language that a rule reads alike: German
(`DEFINITION_OPENERS`, `GENERIC_TERMS`, `GENERIC_HEADINGS`, `DIALOGUE_PRONOUNS`) and the
particles of Romance names (`SHORT_FUNCTION`).

The first group, which the promote stage reads (`distill.layout`, `distill.discourse`), holds
phrase shapes as well as words: the names of a document's parts (section, figure, ...), the verbs
that say how a text is organised ("is described in", "we present"), the reader addressed by a
tutorial ("you", "let's"), the verbs of a step, and the words of a reference list or of front
matter.
"""

from __future__ import annotations

import re


def wordset(words: str) -> frozenset[str]:
    """The words of `words`, split on whitespace (`distill.words` and `distill.definition_rules`
    read this module, so the helper is not imported from there)."""
    return frozenset(words.split())


# --- layout, discourse (promote): a document's parts, its organising verbs, the reader ---
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


# --- carry: which heading names the subject, what a carried claim lowers ---
# Section labels of manuals and articles: a part of the document, not what its claims are about
# ("Usage: it can be installed ..." carried the label, not the tool), so the heading above them
# is the subject, as for `GENERIC_HEADINGS`.
# carry reads it with the Russian words, lexicon_ru.SECTION_WORDS.
SECTION_WORDS = wordset(
    "usage installation installing install license licence contributing contributors quickstart"
    " examples example features requirements prerequisites configuration faq changelog"
    " documentation support development testing credits acknowledgements acknowledgments api"
    " authors status roadmap motivation concepts"
)
# Section labels of several words ("getting started", "см. также") (carry).
# carry reads it with the Russian words, lexicon_ru.SECTION_PHRASES.
SECTION_PHRASES = frozenset(
    ["getting started", "quick start", "see also", "further reading", "external links",
     "table of contents", "api reference"]
)  # fmt: skip
# Two-letter words that are no name: what a subject's short word must not be to count (the
# particles of Romance names too: "de", "la", "di").
# carry reads it with the Russian words, lexicon_ru.SHORT_FUNCTION.
SHORT_FUNCTION = wordset("of in on at to by an as or is it de la le el di da du the")
# A connector that concludes from, or narrows, the sentences before: "The role of monocytes is
# therefore controversial", "In particular the situation ...". "Moreover", "however" add or
# oppose and say nothing of what is concluded from (refers_back's docstring).
BACK_CONNECTORS = wordset("therefore thus hence consequently accordingly")
# "Such" points at a kind the sentence before described ("Такими городами являются Люблин,
# Краков ...", "Such patients were excluded"), never at the section's subject, which is one
# thing: the claim joins the sentence before (context rule 1) and carries nothing. carry reads
# it with lexicon_ru.QUALITATIVE and the forms of "подобный".
QUALITATIVE = wordset("such")


# --- context: what makes a sentence lean on the one before (rules en and ru) ---
# Pronouns among a sentence's first words that lean on the sentence before (context).
CONTEXT_PRONOUNS = wordset("it its they their them he she his her him such both latter former")
# What a carry resolves: the pronouns but "such", "both", "latter", "former" (context).
PERSONAL = CONTEXT_PRONOUNS - wordset("such both latter former")
# Demonstratives among a sentence's first words that lean back (context).
CONTEXT_DEMONSTRATIVES = wordset("this these those that")
# Possessives that lean back wherever they stand among the first words ("its") (context).
CONTEXT_POSSESSIVES = wordset("its their his her")
# Words after a demonstrative that show it has no noun of its own ("like this gives") (context).
CONTEXT_FUNCTION = wordset(
    "is are was were be been has have had can could will would may might should must does do did"
    " gives give shows show and or but of to in on at for with by as that which who"
)
# Plural demonstratives: "these studies" lean back, "this study" is the document (context).
# context reads it with the Russian words, lexicon_ru.PLURAL_DEMONSTRATIVES.
PLURAL_DEMONSTRATIVES = wordset("these those")
# Nouns after "this"/"этот" that point at the document itself, not at the sentence before
# (context reads them with the Russian ones, lexicon_ru.SELF_NOUNS).
SELF_NOUNS = wordset(
    "study studies paper article work review report analysis trial thesis chapter book section"
    " survey investigation issue essay letter note page document text research experiment"
    # and the deictic ones, which point at the moment told, not at a sentence: "at this moment"
    " moment time point stage way instant"
)
# Verbs that open a subjectless English claim ("Born in ...", "Served as ...") (context).
BARE_VERBS = wordset(
    "born became served received died moved graduated studied worked joined married appeared"
    " elected appointed starred wrote directed"
)
# Category nouns after "the" whose owner is the section's subject ("the film") (context).
CATEGORY = wordset(
    "film movie series show album song single band group book novel poem city town village"
    " river lake island country state region province company firm organization organisation"
    " party species genus family game match tournament team club method technique approach"
    " procedure algorithm model drug compound protein gene enzyme virus disease disorder"
    " treatment intervention program programme building church ship player character school"
    " university museum capital population area"
)
# Words that are never a name: lowered after the carried subject's colon (context, carry).
LOWERABLE = (
    CONTEXT_PRONOUNS
    | CONTEXT_DEMONSTRATIVES
    | BARE_VERBS
    | wordset(
        "the a an in on at for of to by with from after before during since until when while as"
        " many some most all each both several few one two three use using among between"
        " although though because if however moreover furthermore finally thus therefore"
        " overall here there we our"
    )
)
# Headings that name a part of a text, not what it is about (German ones too).
# context reads it with the Russian words, lexicon_ru.GENERIC_HEADINGS.
GENERIC_HEADINGS = wordset(
    "introduction background abstract methods results discussion conclusion conclusions"
    " overview summary early life career history description references notes personal death"
    " legacy awards biography contents einleitung zusammenfassung geschichte leben"
)


# --- continues_en: a set or series told before, a subject that names nothing ---
# Rule 2: cardinals that count a set told before ("the two groups") (continues_en).
CARDINALS = wordset("two three four five six seven eight nine ten eleven twelve")
# What after the opener is no noun: "Other than X", "Another, ...", "Further to ...".
NO_NOUN = wordset(
    "than to of and or but is are was were be been has have had can could will would may might"
    " should must that which who the a an this these those it they"
)
# Openers that may be more work to come, not more members ("Further studies") (continues_en).
FUTURE_OPENERS = wordset("further additional")
# Rule 2: what a counted noun may be that is no set of the text's: time, measure, a share.
UNITS = wordset(
    "second seconds minute minutes hour hours day days week weeks month months year years"
    " decade decades century centuries time times percent mg kg ml g cm mm km h min s"
    " points point"
)
# Words after "the two" that end its noun phrase: "between the two.", "the two and ...".
ENDS_PHRASE = wordset(
    "and or but is are was were did do does had have has in at on for with by from showed"
    " differed did not"
)
# Rule 8: what is no head noun of the condition's description (continues_en).
NOT_HEAD = wordset(
    "same other following first last next whole entire only most user reader is are was were"
    " has have had does did can will would may must should"
)
# What after the noun says whose series it is, or gives it its own description.
OWN_SERIES = wordset("of in to for on among from that which who with within at by since after")
# Nouns of time: "the first time", "the next day" is no series told before (continues_en).
MOMENTS = wordset(
    "time times day days week weeks month months year years decade decades century centuries"
    " moment minute minutes hour hours night morning generation edition century"
)
# What `distill.subject_en` reads as a subject that names nothing: a determiner, common nouns
# (no capital after the first word, no acronym, no digit; brackets are asides) up to the verb.
CONTINUES_DETERMINERS = wordset("the a an this these that those such")
# Auxiliaries and copulas that end such a subject, and a condition's plural (continues_en).
VERBS = wordset(
    "is are was were has have had can could will would may might should must does do did"
    " remains remain seems seem appears appear"
)


# --- dialogue: who a quoted line's speaker is ---
# Pronouns: an attribution whose names are all pronouns names no speaker (dialogue); German
# "er", "sie", "es" too.
# dialogue reads it with the Russian words, lexicon_ru.DIALOGUE_PRONOUNS.
DIALOGUE_PRONOUNS = wordset("i he she it they we you his her its their one er sie es")


# --- discourse: a claim about the text, or one that addresses the reader ---
# Words that may stand between the organising verb and the clause it states ("we show here
# that ..."); a noun there makes the clause a relative one ("shows an example ... that ...").
ADVERBS = wordset("here also then further again now below above in detail formally")
# Adverbs that may come before a step's verb ("Now click ...") (discourse).
LEADS = wordset("now then next first finally here also so")
# "You"/"I" and one of these is a statement; "You open ..." without one a step (discourse).
DISCOURSE_MODALS = wordset(
    "can could may might must should need needs have has will would shall cannot can't"
    " don't do does"
)
# Determiners: no sentence ends on one, so a quote that does is cut off (discourse).
DISCOURSE_DETERMINERS = wordset("the a an this that these those its their our your my his her")


# --- items: list items and a troubleshooting entry's role labels ---
# Function words, left out when an item's content words are counted (items).
ITEMS_FUNCTION = wordset("a an the of in on at to for from by with and or")
# A troubleshooting entry's role labels: "**Reason:** ...", "**Solution:** ..." (as a line of
# its own or as the lead-in of a list) say what the text is *to* the section's heading, which
# names the problem ("IllegalStateException: 'Expected ... but was NULL'"). Without the
# heading "Reason: The JSON data does not have the correct format" says nothing. A label
# relative to the problem (reason, fix, ...) always carries it; one that restates the problem
# (problem, symptom) only when the claim does not name it already.
# items reads it with the Russian words, lexicon_ru.RELATIVE_ROLES.
RELATIVE_ROLES = wordset(
    "reason reasons cause causes solution solutions fix fixes workaround workarounds"
    " explanation resolution"
)
# Role labels that restate the problem the heading names (items).
# items reads it with the Russian words, lexicon_ru.RESTATING_ROLES.
RESTATING_ROLES = wordset("problem symptom symptoms")


# --- join_en: English sentences that lean back past their first words ---
# Rule 1's demonstratives, which lean back with their noun anywhere (join_en).
JOIN_DEMONSTRATIVES = wordset("this these those")
# What a demonstrative names that is no sentence before: the document, a moment, the present.
DEICTIC_NOUNS = wordset(
    "study paper article work review report analysis thesis chapter book section survey essay"
    " letter note page document text manuscript guide tutorial documentation moment time point"
    " stage instant way day year week month century"
)
# Words after which "these"/"those"/"this" is no determiner of a noun ("at this, Alice ...").
NOT_A_NOUN = wordset(
    "is are was were be been being has have had can could will would may might should must does"
    " do did and or but of to in on at for with by as that which who whom whose where when than"
    ' not also all both only , ; : . ! ? ( ) [ ] " “ ”'
)
# Prepositions whose object "this" stands for what was said ("for this", "due to this,"); "at
# this" is a moment ("At this, Alice got up").
OBJECT_OF = wordset("for of to with by about from on")
# "those" describing its own set: "those receiving placebo", "those with diabetes".
THOSE_OWN = wordset("who whom whose which that with without of in from at on under over")
# Rule 3's connectors of consequence inside the clause ("is therefore ...") (join_en).
CONSEQUENCE = wordset("therefore thus hence consequently accordingly")
# Rule 3: after these the connector links two clauses of one sentence (join_en).
CLAUSE_LINK = wordset("and or but which that")
# Connectors that lean back with a pronoun after them.
CONNECTORS = wordset("but however yet still so and also then now nevertheless nonetheless")
# The pronouns after them ("both", "such" after a connector are rule 2's: "However, both A and
# B ..." names them).
JOIN_PRONOUNS = wordset("it they he she this that these those its their his her them")
# Rule 5's subject pronouns after an opening phrase without a comma (join_en).
SUBJECT_PRONOUNS = wordset("they he she")
# Capitalised first words that are no name ("On the surface they ...", "When she ...").
JOIN_OPENERS = wordset(
    "the a an on in at when while after before if as but and so then now for with by from since"
    " although though because once during until unless whether even only just still yet"
)
# Words in "-s" that are no plural noun "they" could stand for (rule 5, join_en).
NOT_PLURAL = wordset("is was has this its thus us yes his as does always perhaps whereas")
# Auxiliaries, copulas and modals: a verb after a demonstrative or comparative (join_en).
VERBISH = wordset(
    "is are was were be been has have had can could will would may might should must does do"
    " did remains remain seems seem appears appear"
)
# Rule 7: a complement after the repeated head noun says whose it is ("the rate of") (join_en).
THE_COMPLEMENT = wordset("of")
# Rule 12: the copulas a predicative comparative follows, the degree words between ("much
# less", "not so", "even more"), the comparative words, and what after it names its own
# standard (than, as, compared, versus) or the group it holds for (in women, among smokers).
COPULAS = wordset(
    "is are was were be been being remain remains remained seem seems seemed appear appears"
    " appeared"
)  # not "become/grow/get": "as X become more complex" compares X with itself before
# Rule 12's degree words ("much less", "not so") (join_en).
DEGREE = wordset(
    "much far even still slightly significantly substantially considerably markedly somewhat"
    " lot little bit no not any never generally often usually also all"
)
# Rule 12's comparative words before an adjective (join_en).
COMPARING = wordset("more less so equally similarly")
# "-er" words that are no comparative adjective ("was never", "were other", "is either").
NOT_COMPARATIVE = wordset(
    "never ever over under other either neither rather whether after later together however"
    " per her their water number member manner matter order paper power user layer answer"
    " cancer cluster register filter folder header tower border computer parameter"
)
# Rule 12: after the comparative these name its own standard or group (join_en).
OWN_STANDARD = wordset(
    "than as compared comparing versus vs relative unlike contrary contrast"
    " in among at for with within when during after before if while across between from"
    " likely unlikely able"
)
# A comparative after these is in a clause whose main clause holds what it compares with.
SUBORDINATORS = wordset("because since while whereas although though unless so")
# Rule 9's nouns: kinds of means that an abstract names once by their own name and then by kind
# ("SaTScan ... the method", "atorvastatin ... the drug"). A README's own subject ("the library",
# "the tool") is the document's, which `distill.carry` handles, not the sentence before's.
CATEGORY_HEADS = wordset(
    "method methods technique techniques approach approaches procedure procedures algorithm"
    " algorithms model models drug drugs compound compounds treatment treatments therapy"
    " therapies intervention interventions protocol protocols strategy strategies assay assays"
    " statistic statistics vaccine vaccines device devices"
)
# What after the noun says which one: a complement, a relative clause, a participle of its own.
WHICH_ONE = wordset(
    "of for that which who whose where used described proposed developed presented introduced"
    " called known named based given shown outlined employed applied here above below"
)
# Rule 9: before the noun these introduce the thing in this sentence ("a new method") (join_en).
INTRODUCING = wordset("a an new novel one")
# Rule 10: "above"/"below" are adverbs before these (or punctuation, or the end).
AFTER_ADVERB = wordset(
    "is are was were has have can will and or but we you it this that which shows show"
    " illustrates illustrate uses use defines define demonstrates creates"
)
# Rule 10: a sentence that speaks for its authors, whose "here" is the paper (join_en).
FIRST_PERSON = wordset("we our us i my")
# What after the connector names its own subject: a pronoun (rules 1 and 4), the authors, an
# indefinite (something new), an existential "there".
OWN_SUBJECT = wordset("a an we i you there it this that these those they he she one some many")
# Rule 6: adverbs before an instruction's verb ("just wrap it") (join_en).
INSTRUCTION_ADVERBS = wordset("just simply then now also please")
# Clause openers before "it" that are no verb ("like it does", "otherwise it will", "usually").
NO_VERB = wordset("like unlike otherwise rather unless than whether where how why what")
# Rule 11's result nouns; nominalisations are read by their suffix (join_en).
RESULT_NOUNS = wordset(
    "effect effects change changes increase increases decrease"
    " decreases difference differences reduction reductions rise decline loss gain improvement"
    " outcome outcomes challenge challenges problem problems benefit benefits trend trends"
    " response responses shift shifts"
)


# --- lean_en: "this" and "it" still leaning after join and carry ---
# Rule 1: what after "this" shows it has no noun: a function word, an auxiliary or a verb of its
# own (lean_en adds punctuation but ":", which points at what follows).
NO_NOUN_AFTER = wordset(
    "is are was were be been being has have had can could will would may might should must does"
    " do did and or but of to in on at for with by from as into onto out up down off over through"
    " without within automatically again too also already only just yet still here there now"
    " then first means meant allows allowed lets makes made gives gave ensures requires causes"
    " creates runs works happens happened occurs occurred depends applies leads led helps results"
    " fails failed breaks exists appears seems matters changes"
)
# Rule 1: "this" after these is compared or placed, not leaning ("like this") (lean_en).
NOT_BEFORE_THIS = wordset("like as at than unlike")
# A clause boundary before "this": it then stands for the clause before it, in its own sentence.
CLAUSE_BREAK = wordset(
    "and but or however although though whereas while which because since so yet unless whether"
    " if when where once"
)
# Rule 3: a clause before the speaker ("If I ..., I ...") is no aside (lean_en).
LEAN_OPENERS = wordset("if when once unless whenever until after before while since")
# Words between the speaker and "it" that are no noun "it" could stand for.
NOT_NOUN = wordset(
    "can could will would may might should must do does did not never also just then still"
    " really first soon have had always only to"
)
# Verbs whose object "it" gets its description right after it ("call it X", "find it hard").
NAMING = wordset(
    "call calls called name names named consider considers considered find finds found make"
    " makes made keep keeps kept leave leaves left deem deems deemed"
)
# Rule 4: collectives whose members a sentence before named ("the group of columns").
COLLECTIVES = wordset(
    "group set pair collection combination series sequence subset family cluster batch bundle"
    " couple trio"
)


# --- mood: an imperative, a generic present ---
# First words that open a statement before a determiner: no bare imperative verb (mood).
OPENS_STATEMENT = wordset(
    "about above according across after against along although amid among around as at because"
    " before behind below beneath beside besides between beyond but by despite down during even"
    " except for from here however if in including inside into like near nevertheless next"
    " nonetheless notwithstanding of off on once only onto or out outside over overall past per"
    " perhaps plus regarding since so still than that then there thereafter though through"
    " throughout thus till to today together toward towards under underneath unlike until unto"
    " up upon versus via whereas when whenever where wherever whether while with within without"
    " yet yesterday all both each half many most much no none not one several some such what"
    " which who whom whose why how and nor also again almost already always hence indeed instead"
    " later meanwhile moreover never now often rather soon sometimes thereby therefore tomorrow"
    " is are was were be been am has have had do does did can could will would shall should may"
    " might must let first second third last neither either whatever whichever whoever got"
)
# A present verb after a plural or a name ("Antibiotics kill bacteria", "STIM1 mediates"): a
# lower-case word right after a word in "-s" or in capitals that is no function word.
MOOD_FUNCTION = wordset(
    "in on of for with and or to from by at as the a an that which who including such like than"
    " per vs versus between among within without into over under after before during through"
    " across against about around both either each all more less its their his her our your"
    " not no only also via"
)
# What may open a verb's object: a determiner, a quantifier, a number.
OBJECT_OPENERS = wordset(
    "the a an this that these those its their his her our your my some many most all both each"
    " every several no any few much more less other such"
)


# --- morph_en: a word's part of speech by the word before it ---
# After these a word with a verb reading is a noun or an infinitive: "with values", "the
# store", "to implement".
NOT_BEFORE_VERB = wordset(
    "a an the this that these those each every any some no all both its their our your my his"
    " her of for with without in on at by from into onto to about over under between among via"
    " per than as"
)


# --- offline: sentence openers that do not lean back ---
# Sentence openers in ANAPHORS that do not lean on the sentence before ("There are ...").
# offline reads it with the Russian words, lexicon_ru.SELF_CONTAINED.
SELF_CONTAINED = wordset("there we i you here what who which")


# --- patterns: what is never a defined term ---
# Pronouns and demonstratives: never a defined term's first word; a sentence opening on one leans
# back (patterns, offline).
# distill.words and definition_rules read it with the Russian words, lexicon_ru.ANAPHORS.
ANAPHORS = wordset(
    "it this that these those there they he she we i you here which what who such its their our"
    " his her my"
)
# "The term refers to ...": the defined word is elsewhere, so this is no definition of "term"
# (German "Begriff", "Wort" too).
# distill.words and definition_rules read it with the Russian words, lexicon_ru.GENERIC_TERMS.
GENERIC_TERMS = wordset("term word concept notion begriff wort")
# Words that open a sentence or clause but never a defined term (with German ones).
# distill.words and definition_rules read it with the Russian words, lexicon_ru.DEFINITION_OPENERS.
DEFINITION_OPENERS = wordset(
    "but so then and or indeed only yet also still now thus hence however helping noting dann"
    " und oder aber damit daher somit"
)
# Words of a clause: a "term" holding one is a sentence, not a name (patterns).
CLAUSE_WORDS = wordset("there that which who says said is are was were")


# --- reference: referring words and what they may stand for ---
# Opening a claim, they stand for the condition the sentence before set.
# reference reads it with the Russian words, lexicon_ru.OTHERWISE.
OTHERWISE = wordset("otherwise else")
# The pronoun "it" and its possessive (reference).
IT = wordset("it its")
# The forms of "they" and their contractions (reference).
THEY = wordset("they them their theirs they're they've they'll they'd")
# The forms of "he" and "she" (reference).
PERSON = wordset("he him his she her he's she's")
# Possessives that a candidate later in the claim may resolve (reference).
REFERENCE_POSSESSIVE = wordset("its their his her")
# Demonstratives that point back ("that" only opening the claim) (reference).
REFERENCE_DEMONSTRATIVE = wordset("this these those")
# Words that point at another item of a list told before ("the latter") (reference).
ANOTHER = wordset("another latter former")
# Words of grammar: never what a pronoun stands for.
GRAMMAR = wordset(
    "a an the and or nor but so yet then than that which who whom whose where when while whereas"
    " as if because since although though unless until after before of in on at to for with by"
    " from into onto over under between through about against among is are was were be been"
    " being am do does did done doing have has had having can could may might must shall should"
    " will would not no also however thus hence therefore just only even still very too more most"
    " less least much many few some any all each every both either neither such own same other"
    " we us our ours you your yours i me my mine it its they them their he him his she her this"
    " that these those there here what how why whether let let's we're we'll we've you're you'll"
    " you've it's i'm i've don't doesn't didn't can't won't isn't aren't wasn't weren't one ones"
    " now again once first next finally instead rather quite really always never often sometimes"
    " usually already yet ever out up down off well"
)
# Nouns that name the document or its parts: "this paper" says which by the title.
DOCUMENT = wordset(
    "paper papers article chapter section subsection book report thesis dissertation document"
    " tutorial guide page post work study lecture course talk note notes survey appendix part"
    " text manual documentation crate library package module project tool plugin framework"
    " review manuscript essay letter commentary editorial overview entry site website"
    " extension crates libraries packages modules projects tools plugins frameworks extensions"
)
# What follows a demonstrative that points forward: "those who ...", "those of ...".
FORWARD = wordset("who which that of with in whose whom where")
# "It" as an expletive: "it is/was/seems ... that/to/whether".
EXPLETIVE_VERB = wordset(
    "is was 's seems seemed appears appeared turns turned follows followed remains remained"
    " becomes became makes made takes took may might can could will would should must has had"
    " does did"
)
# What follows an expletive "it" and its verb ("that", "to", "whether") (reference).
EXPLETIVE_TAIL = wordset("that to whether if how when why what")
# Words in "-s" that are no plural: never what "they" stands for (reference).
SINGULAR_S = wordset(
    "is was has does this its his us thus as yes always perhaps sometimes process class access"
    " status analysis basis thesis less unless across series species news various previous"
    " famous bus gas lens plus bonus focus corpus virus campus census consensus axis"
)


# --- referent_en: what a demonstrative after a code block names ---
# What a demonstrative names that a code block shows ("this alias", "the output of this
# command", "in this example"): the code's, whatever heading is carried; "this functionality",
# "this approach" may be the heading's ("Rendering Bound Parameters Inline: this functionality
# is provided mainly for logging ...").
DISPLAY_NOUNS = wordset(
    "command commands output example examples code snippet script alias function list listing"
    " file query statement call configuration config program block sample invocation line lines"
    " path setup recipe data"
)
# Words after a demonstrative that show it stands alone, with no noun (referent_en).
REFERENT_PRONOUNS = wordset("this that these those it they them here")


# --- standalone: a claim that still cannot stand alone ---
# Third-person subject pronouns a claim cannot open with (standalone).
SUBJECT = wordset("they he she")
# "Such": a kind described before, among a claim's first words (standalone).
# standalone reads it with the Russian words, lexicon_ru.SUCH.
SUCH = wordset("such")
# What may come before the subject without being its antecedent: connectors and adverbs.
# standalone reads it with the Russian words, lexicon_ru.LEADING.
LEADING = wordset(
    "but and so yet still then now also thus hence however moreover furthermore instead later"
    " soon today hopefully meanwhile finally first next once again even perhaps probably"
)
# Words that need a word after them: a gap right after one is damage (standalone).
NEEDS_OBJECT = wordset(
    "in at on of by with from to for into onto about than as via per including like between"
    " among near after before during since until under over the a an and or"
)
# The prepositions among them: one before a work's noun whose name was lost (standalone).
PREPOSITION = NEEDS_OBJECT - wordset("the a an and or")
# Nouns of works and named kinds, whose name follows them ("the film X") (standalone).
WORK = wordset(
    "film movie series show album single song book novel poem article magazine newspaper game"
    " play opera musical programme program project company band group ship club team"
)
# Demonstratives that open a claim as their verb's subject ("This will ...") (standalone).
BARE_DEMONSTRATIVE = wordset("this that")
# Modals and "does"/"did" after "it" or a bare demonstrative (standalone).
STANDALONE_MODAL = wordset("will would can could may might should must does did")
# Verbs after a bare "this"/"that": its verb, so no noun says what it is (standalone).
VERB_AFTER_THIS = STANDALONE_MODAL | wordset(
    "is was has had means allows lets makes gives ensures requires causes creates runs builds"
    " installs prints returns starts stops adds removes changes updates"
)


# --- steps_en: a step of a procedure in the imperative ---
# Base-form verbs that take an object and open a step of a procedure (technical and everyday).
STEPS_VERBS = wordset(
    "add answer append apply ask attach build bump call change check clean clear close commit"
    " compare compile confirm copy deploy describe document drop edit execute export fetch fill fix"
    " identify include insert issue launch link list load log mark merge monitor mount move"
    " open paste pin post print publish pull push rebase record reinstall release rename"
    " report request reset restart restore review revert run send set share sign start stop"
    " submit switch tag test tell update upgrade upload use verify wait"
)
# Verbs that open a step with their particle ("Type in ...", "Log in to ...", "Turn off ..."),
# nouns as often without one ("Type 2 diabetes", "Type annotations help ...", "Press coverage");
# not "back", an adverb as often with its particle ("Back in 2005, it wasn't clear ...").
PHRASAL_VERBS = wordset(
    "type key log sign turn look pick plug hook shut scroll click tap press hold zoom write"
    " read fill clean wipe"
)
# The particles of those phrasal verbs ("Log in", "Turn off") (steps_en).
PARTICLES = wordset("in into out up down on off over back through")
# After the verb: what cannot open its object ("Run of the mill", "Check is ...", "Test 3").
NOT_OBJECT = wordset(
    "of is are was were be been has have had do does did can could will would may might must"
    " shall should and or nor than to as by"
)
# Function words: no verb after them, no object when they follow a verb (steps_en).
STEPS_FUNCTION = wordset(
    "the a an this that these those its their his her our your my some any every each all both"
    " no in on of for with to from by at as into onto over under via per new old"
)
# Irregular past forms: a finite verb in the main clause ("wrote", "made") (steps_en).
IRREGULAR_PAST = wordset(
    "wrote hit made took gave found ran led held won lost met began became brought kept left"
    " grew rose fell sold bought built drove drew knew showed shown said told put cut"
)


# --- subject_en: a subject that names nothing, an opening adverbial, a label ---
# Determiners that open a subject naming nothing ("The results ...") (subject_en).
SUBJECT_DETERMINERS = wordset("the this these those any")
# Words that end a subject's noun phrase: its verb, or a clause/complement word after it.
SUBJECT_END = wordset(
    "is are was were be been has have had can could will would may might should must does do"
    " did remains remain seems seem appears appear needs need offers offer provides provide"
    " shows show suggests suggest indicates indicate contains contain makes make takes take"
    " becomes become gives give requires require allows allow lets let uses use"
)
# An opening adverbial: a preposition or adverb first, then a comma soon after (subject_en).
ADVERBIAL_OPENERS = wordset(
    "by in on at for with from after before during since until when while as under over"
    " without within unless if once because although though upon throughout beyond"
)
# A label heading's first words ("Example", "Usage"): no subject to carry (subject_en).
LABEL_FIRST_WORDS = wordset(
    "example examples usage installation installing install configuration configuring"
    " quickstart tutorial faq notes note features"
)
