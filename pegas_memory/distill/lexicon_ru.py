"""The offline distiller's Russian word lists, all stages (pure data).

The same plan as `distill.lexicon_en`: one lexicon module per language, each list named by the
structural role its words play and grouped by the module that reads it (`# --- <module>: ... ---`),
a prefix by what it is for where two modules' lists would share a name (`BARE_BE`, `CARRY_BE`),
and a list with words of both languages split between the two lexicons under one name, the
module that reads it building the union. The lists `distill.words_ru` shares among the context
rules (pronouns, demonstratives, prepositions, adverbs) follow the promote group: others are
built on them.

The first group, which the promote stage reads (`distill.layout`, `distill.discourse`), holds
phrase shapes as well as words: the parts of a document ("раздел 2", "рис. 3"), the verbs that
say how a text is organised ("рассматривается в главе"), the reader addressed by a tutorial
("давайте", "вы увидите"), and the words of a reference list (ГОСТ "//", "С. 10–20", "М.:
Наука") and of front matter ("УДК", "Ключевые слова"). The promote stage reads grammar (mood,
person, part of speech) from pymorphy3 (`distill.morph_ru`), not from word endings.
"""

from __future__ import annotations

import re


def wordset(words: str) -> frozenset[str]:
    """The words of `words`, split on whitespace (`distill.words` and `distill.definition_rules`
    read this module, so the helper is not imported from there)."""
    return frozenset(words.split())


# --- layout, discourse (promote): a document's parts, its organising verbs, the reader ---
PARTS = (
    r"раздел\w*|подраздел\w*|глав[аеуыо]\w*|параграф\w*|пункт\w*|приложени\w*|рис\.|рисун\w*"
    r"|табл\.|таблиц\w*|формул\w*|уравнени\w*|листинг\w*|алгоритм\w*|теорем\w*|лемм\w*"
    r"|определени\w*|пример\w*|част[иьяю]\w*|стр\.|с\.|§"
)
SELF = (
    r"(?:в\s+|во\s+)?(?:следующ\w+|предыдущ\w+|данн\w+|эт\w+|настоящ\w+|последн\w+"
    r"|нижеследующ\w+|первой|второй|третьей)\s+(?:раздел\w*|подраздел\w*|глав\w*|параграф\w*"
    r"|част\w*)"
)
ORGANISING = (
    r"рассматрива\w+|рассмотрен\w*|рассмотрим|описыва\w+|описан\w*|опишем|приведен\w*"
    r"|приводи\w+|привод\w+|приведём|приведем|представлен\w*|представля\w+|излага\w+|изложен\w*"
    r"|обсужда\w+|обсудим|посвящ\w+|показан\w*|покажем|показыва\w+|даны|дан|дано|дается"
    r"|даётся|предлага\w+|содерж\w+|перечислен\w*|см\.|смотри\w*|изображ\w+|обзор\w*"
    r"|вводи\w+|введ\w+|продолж\w+|расшир\w+|подвод\w+|заключ\w+"
)
READER = re.compile(
    r"(?:^|\s)(?:давайте|давай|теперь мы|сейчас мы|далее мы|затем мы|потом мы|сначала мы"
    r"|мы будем|мы собираемся|вы увидите|вы получите|вы заметите|вы узнаете|вы научитесь"
    r"|вам нужно|вам понадобится|вам потребуется)(?=\s|[,.!?])",
    re.IGNORECASE,
)
PURPOSE = re.compile(r"(?:^|\s)(?:чтобы|для того|если|когда|иначе|поскольку)(?=\s|,)", re.I)
# Adverbs that may come before a step's verb ("Теперь откройте ...", "Затем нажмите ...").
STEP_LEADS = wordset("теперь затем далее потом сначала сперва снова ещё еще также и")
# Words of a reference list's entries (ГОСТ and the journals', publishers' and degrees' words).
VENUE = re.compile(
    r"(?:\bжурн\.|\bжурнал\b|\bвестник\b|\bтруды\b|\bтр\.|\bсб\.|\bсборник\b|\bматериалы\b"
    r"|\bизд-во\b|\bиздательство\b|\bнаука\b|\bдис\.|\bдисс\.|\bавтореф\.|\bканд\.|\bд-ра\b"
    r"|\bконф\.|\bконференци\w*|\bуч\. пособие|\bучеб\.|\bмонография\b|\bред\.|\bпод ред\."
    r"|\bм\.:|\bспб\.:|\bл\.:|\bэлектронный ресурс|\bдата обращения|\bрежим доступа)",
    re.IGNORECASE,
)
FRONT = re.compile(
    r"(?:\bудк\b|\bббк\b|\bгрнти\b|\bisbn\b|\bissn\b|\bdoi\b|ключевые слова\s*:"
    r"|поступила в редакцию|принята (?:к печати|в печать)|©|все права защищены"
    r"|\bработа (?:выполнена|поддержана) (?:при|в рамках)|\bгрант\w*\s+(?:№|n)"
    r"|\bнаучный руководитель\b|\bна правах рукописи\b|\bдиссертация на соискание\b"
    r"|\bспециальность\s+\d)",
    re.IGNORECASE,
)
AFFILIATION = re.compile(
    r"(?:университет|институт|кафедр|факультет|лаборатори|академи|филиал|ран\b|нии\b|мгу\b)",
    re.IGNORECASE,
)


# --- words_ru: pronouns, prepositions, adverbs shared by the context rules ---
# Third-person personal pronouns in every case (words_ru: context, carry, bare_ru ...).
PRONOUNS = wordset(
    "он она оно они его её ее ему ей им их ним ней нём нем них нему неё него нею ими"
)
# Demonstratives in every case and number ("этот", "тот", "такой"); words_ru adds the
# modifiers that point back by what they mean ("данный", "указанный", "подобный" ...).
DEMONSTRATIVES = wordset(
    "этот эта это эти этого этой этом этим этих этому эту этою этими тот та те того той тому"
    " тем тех ту тою теми такой такая такое такие такого таком такому таким таких такими"
    " такую такою"
)
# Prepositions: a leading adverbial opens with one (words_ru: context, carry, bare_ru ...).
PREPOSITIONS = wordset(
    "в во на по с со к ко о об обо от до из изо за для при под над без у через после перед"
    " около среди между против вокруг вместо кроме вследствие благодаря согласно вдоль"
)
# Adverbs and particles of a leading adverbial (words_ru: context, carry, bare_ru ...).
ADVERBS = wordset(
    "впервые уже ещё еще также затем позже позднее ранее вскоре впоследствии неоднократно"
    " дважды трижды окончательно официально изначально первоначально однажды там здесь тогда"
    " сейчас сегодня ныне теперь потом сначала долго часто нередко иногда всегда никогда"
    " вновь снова тоже лишь только даже уже почти около примерно всего более менее затем"
    " наконец поэтому однако впрочем например так и а но вечером утром днём днем ночью летом"
    " зимой весной осенью вместе частности итоге результате"
)
# Nouns that end like a verb form ("совет", "генерал", "член"): never taken for one.
NOT_VERBS = wordset(
    "совет совета бюджет предмет портрет ответ поэт балет кабинет комитет пакет секрет билет"
    " кредит визит аппетит институт маршрут салют генерал канал сериал материал финал идеал"
    " капитал арсенал журнал портал член план роман океан стакан феномен пол стол футбол"
    " минут минута самолет самолёт брат сюжет объект проект эффект аспект факт контакт акт"
    " пакт тракт инстинкт продукт конфликт результат кандидат депутат адвокат солдат"
    " автомат формат климат сенат магистрат архитектор кит щит школа школы село села число"
    " числа дело дела тело тела масло стекло крыло кресло скала скалы стрела пчела игла сила"
    " силы земли роли мили угли мысли числа масла ремесла весла кресла стекла иглы"
)


# --- agree_ru: a subjectless sentence that goes on about a relative ---
# Possessives that open a sentence about a relative ("Его отец ...") (agree_ru).
OWNERS = wordset("его её ее их")


# --- bare_ru: a bare noun or an owner the sentence before names ---
# Prepositions that open a leading adverbial, with those of compound ones ("несмотря на")
# (bare_ru).
LEAD_PREPOSITIONS = PREPOSITIONS | wordset("помимо несмотря ввиду вследствие")
# Short past forms the verb shape misses ("шёл", "был", "мог") (bare_ru).
SHORT_PAST = wordset("шёл шел шла шло был была было рос нёс нес вёл вел мог смог жил")
# Idioms with "в" that are adverbs ("в основном", "в целом") (bare_ru).
IDIOM_ADVERBS = wordset("основном целом общем частности")
# Conjunctions and relatives: never a noun, nor a noun's complement after it (bare_ru).
BARE_CONJUNCTIONS = wordset("и а но или что как чтобы если когда где который которая")
# Singular third-person pronouns (bare_ru).
SINGULAR = wordset("он она оно")
# Adverbs of place: no noun though they look like one ("оттуда") (bare_ru).
PLACE_ADVERBS = wordset("сюда туда отсюда оттуда здесь там тут куда откуда")
# Words between a subject and its participle ("Проект не был завершён") (bare_ru).
AUXILIARIES = wordset("не был была было стал стала стало")
# Forms of "быть"/"стать" after an instrumental: a predicate, no subject (bare_ru).
BARE_BE = wordset("был была было стал стала стало")
# Nouns after an ordinal that are no series ("в первый раз", "на первом месте") (bare_ru).
NOT_SERIES = wordset("раз место места месте половине половина очередь")
# Possessives: a relational noun after one names its owner ("его отец") (bare_ru).
POSSESSIVES = wordset(
    "его её ее их свой своя своё свое свои своего своей своих своему своим своими свою"
)


# --- carry: which heading names the subject, what a carried claim lowers ---
# Section labels of manuals and articles: a part of the document, not what its claims are about
# ("Usage: it can be installed ..." carried the label, not the tool), so the heading above them
# is the subject, as for `GENERIC_HEADINGS`.
# carry reads it with the English words, lexicon_en.SECTION_WORDS.
SECTION_WORDS = wordset(
    "сюжет критика отзывы производство съёмки фильмография дискография библиография галерея"
    " состав использование применение установка этимология название классификация"
    " распространение строение свойства"
)
# Section labels of several words ("getting started", "см. также") (carry).
# carry reads it with the English words, lexicon_en.SECTION_PHRASES.
SECTION_PHRASES = frozenset(
    ["в ролях", "см. также", "интересные факты", "основные сведения", "общие сведения",
     "ссылки и литература", "отзывы критиков"]
)  # fmt: skip
# Two-letter words that are no name: what a subject's short word must not be to count.
# carry reads it with the English words, lexicon_en.SHORT_FUNCTION.
SHORT_FUNCTION = wordset("в во на по с со к ко о об от до из за у и а но не ни же ли бы то")
# Conjunctions lowered after the carried subject's colon, as names are not (carry).
CARRY_CONJUNCTIONS = wordset("когда если хотя пока чтобы как поскольку пусть лишь так")
# Forms of "быть"/"стать"/"являться": a verb, lowered after the colon (carry).
CARRY_BE = wordset("был была было были будет будут есть стал стала стало стали является являются")
# Where a subject is: "районы в Кракове", "учителя в Уэльсе" ("удалённость от Солнца",
# "между Ураном и Землёй" relate it to a name, and say nothing of whose it is).
WHERE = wordset("в во на")
# Words that open a compound preposition ("Наряду с Крипке, ..."): an adverbial, no subject.
COMPOUND_PREPOSITIONS = wordset(
    "наряду вместе рядом вплоть согласно вслед независимо совместно одновременно параллельно"
)
# "Такой" points at a kind the sentence before described ("Такими городами являются Люблин,
# Краков ...", "Such patients were excluded"), never at the section's subject, which is one
# thing: the claim joins the sentence before (context rule 1) and carries nothing. carry reads
# it with lexicon_en.QUALITATIVE and the forms of "подобный".
QUALITATIVE = wordset("такой такая такое такие такого таком такому таким таких такими такую такою")


# --- context: what makes a sentence lean on the one before (rules en and ru) ---
# Plural demonstratives: "these studies" lean back, "this study" is the document (context).
# context reads it with the English words, lexicon_en.PLURAL_DEMONSTRATIVES.
PLURAL_DEMONSTRATIVES = wordset("эти этих этим этими те тех тем теми")
# Nouns after "этот"/"this" that point at the document itself, not at the sentence before
# (context reads them with the English ones, lexicon_en.SELF_NOUNS).
SELF_NOUNS = wordset(
    "статья статье статьи работа работе работы исследование исследовании обзор обзоре книга"
    " книге глава главе раздел разделе текст тексте"
    # and the deictic ones, which point at the moment told, not at a sentence
    " момент время раз"
)
# Headings that name a part of a text, not what it is about.
# context reads it with the English words, lexicon_en.GENERIC_HEADINGS.
GENERIC_HEADINGS = wordset(
    "биография детство юность ранние годы личная жизнь карьера история описание примечания"
    " ссылки литература источники творчество деятельность семья награды память смерть введение"
    " заключение выводы результаты методы обсуждение аннотация содержание"
)
# Nouns that gather people or things the sentence before named: "пара поженилась" (Мэй and her
# future husband), "супруги", "оба/обе"; "последний/последняя" alone before the verb is "the
# latter". The section's subject is one thing: these are never it.
COLLECTIVE = wordset("пара супруги оба обе обоих обеих")
# "последний" alone before the verb: "the latter" of the sentence before (context).
LATTER = wordset("последний последняя последнее последние")
# Russian has no article: "the skete" of the sentence before is "скит" again, bare ("Через
# некоторое время скит восстановили.", "Проезд по дорожке стоил 10 центов.", "Главным условием
# передачи было ..."). A common noun before the first verb whose stem is a lower-case word of the
# sentence before, with no name after it to say whose, refers to that sentence: the group joins
# it. Words of time and quantity repeat without pointing back ("В том же году ...", "часть").
REPEAT_STOP = wordset(
    "время времени года году годы годах части часть числе начале конце середине период периода"
    " раза образом случае результате течение также который которая которые этого может является"
)
# A word that confirms what was said before ("после 1991 года бо́льшая часть коллекций
# действительно попала в Россию": what was expected, and of which collections).
CONFIRMING = wordset("действительно")
# "этот" with its noun later in the sentence ("Рихтер представлялся членом этого братства"):
# which brotherhood is in the sentence before, as for "these cells" mid-sentence in English.
THIS = wordset("этот эта эти этого этой этих этому эту этою этими этим")
# Words after a late "этот" that are no noun to look for ("до этого им") (context).
CONTEXT_FUNCTION = wordset("и или а но что как же ли бы не ни в во на с со к по о от до из за для")
# Nouns of time after a late "этот": "с этого времени" points nowhere (context).
TIME_NOUNS = wordset("времени момента моменту дня года году периода раза случаю поводу")
# Forms of "быть"/"стать": after "всё" or "последний" they make it the subject (context).
BE_FORMS = wordset("был была было были будет будут есть стал стала стало стали")


# --- dialogue: who a quoted line's speaker is ---
# Pronouns: an attribution whose names are all pronouns names no speaker (dialogue).
# dialogue reads it with the English words, lexicon_en.DIALOGUE_PRONOUNS.
DIALOGUE_PRONOUNS = wordset("он она оно они я мы вы ты")


# --- discourse: a claim that addresses the reader ---
# "Вы"/"ты" and one of these is a statement; without one a step (discourse).
MODALS = wordset("можете можешь сможете сможешь должны должен должна могли мог могла вправе")


# --- head_ru: a head noun whose owner the section names ---
HEAD_BE = wordset("был была было были")  # before a participle: the verb opens


# --- items: a troubleshooting entry's role labels ---
# A troubleshooting entry's role labels: "**Reason:** ...", "**Solution:** ..." (as a line of
# its own or as the lead-in of a list) say what the text is *to* the section's heading, which
# names the problem ("IllegalStateException: 'Expected ... but was NULL'"). Without the
# heading "Reason: The JSON data does not have the correct format" says nothing. A label
# relative to the problem (reason, fix, ...) always carries it; one that restates the problem
# (problem, symptom) only when the claim does not name it already.
# items reads it with the English words, lexicon_en.RELATIVE_ROLES.
RELATIVE_ROLES = wordset("причина причины решение решения объяснение исправление")
# Role labels that restate the problem the heading names (items).
# items reads it with the English words, lexicon_en.RESTATING_ROLES.
RESTATING_ROLES = wordset("проблема симптом симптомы")


# --- lean_ru: "это" and a clause that still lean ---
# Words of a clause: "это" after one opens the clause, it is its subject (lean_ru).
CLAUSE_WORDS = wordset("что как чем ли если когда где")


# --- mood: a relational term before a dash ---
# Relational nouns: with an owner before a dash ("Автор монумента — ...") a value (mood).
RELATIONAL = wordset(
    "автор авторы создатель создатели основатель основатели руководитель директор глава"
    " президент председатель владелец владельцы столица население численность площадь длина"
    " высота ширина глубина протяжённость протяженность вход входы выход выходы победитель"
    " победители чемпион тренер капитан режиссёр режиссер продюсер сценарист композитор"
    " архитектор скульптор художник редактор издатель отец мать сын дочь жена муж брат сестра"
    " родители адрес девиз преемник предшественник исполнитель исполнители ведущий участники"
    " центр административный"
)


# --- morph_ru: what pymorphy3 reads as a predicate ---
# Words that are a predicate whatever pymorphy3 reads ("есть", "нет", "является") (morph_ru).
PREDICATE_WORDS = wordset("есть нет это является являются")


# --- offline: sentence openers that do not lean back ---
# Sentence openers in ANAPHORS that do not lean on the sentence before ("There are ...").
# offline reads it with the English words, lexicon_en.SELF_CONTAINED.
SELF_CONTAINED = wordset("мы")


# --- patterns: what is never a defined term ---
# Pronouns and demonstratives: never a defined term's first word; a sentence opening on one leans
# back (patterns, offline).
# distill.words and definition_rules read it with the English words, lexicon_en.ANAPHORS.
ANAPHORS = wordset(
    "он она оно они это этот эта эти тот та те там тут здесь мы я вы такой такая такие который"
    " которая которые всё все его её их"
)
# "The term refers to ...": the defined word is elsewhere, so this is no definition of "term".
# distill.words and definition_rules read it with the English words, lexicon_en.GENERIC_TERMS.
GENERIC_TERMS = wordset("термин понятие слово")
# Words that open a sentence or clause but never a defined term.
# distill.words and definition_rules read it with the English words, lexicon_en.DEFINITION_OPENERS.
DEFINITION_OPENERS = wordset("тогда также затем потом однако поэтому сейчас сам самое другие")
# Prepositions and conjunctions: a dash after a phrase with one is prose (patterns).
DEFINITION_FUNCTION_WORDS = wordset(
    "в во на по с со к о об от до из за для при и а но или что как у"
)


# --- reference: referring words and what they may stand for ---
# Opening a claim, they stand for the condition the sentence before set.
# reference reads it with the English words, lexicon_en.OTHERWISE.
OTHERWISE = wordset("иначе")
# Lemmas of the third-person pronouns (pymorphy3 normal forms) (reference).
PERSONAL = wordset("он она оно они")
# Lemmas of the demonstratives (pymorphy3 normal forms) (reference).
REFERENCE_DEMONSTRATIVE = wordset("этот такой данный")
# What follows a demonstrative that points forward: "тот, кто ...", "то, что ..." (reference).
FORWARD = wordset("кто что который которая которое которые где как когда чтобы ли же")
# Words that point at another item of a list told before ("последний") (reference).
ANOTHER = wordset("другой другая другое другие последний последняя последнее последние")


# --- standalone: a claim that still cannot stand alone ---
# Third-person subject pronouns a claim cannot open with (standalone).
SUBJECT = wordset("они он она оно")
# "Such": a kind described before, among a claim's first words (standalone).
# standalone reads it with the English words, lexicon_en.SUCH.
SUCH = wordset("такой такая такое такие такого такому таким такую такими таких")
# What may come before the subject without being its antecedent: connectors and adverbs.
# standalone reads it with the English words, lexicon_en.LEADING.
LEADING = wordset(
    "но а и однако зато тогда затем потом сейчас теперь ныне позже позднее вскоре также тоже"
    " впоследствии впрочем поэтому наконец сначала вновь снова уже ещё еще даже лишь только"
)
# Words that need a word after them: a gap right after one is damage (standalone).
NEEDS_OBJECT = wordset(
    "в во на по с со к ко о об обо от до из изо за для при под над без у через после перед"
    " около среди между против вокруг вместо кроме благодаря согласно вдоль и или а также"
)


# --- title_ru: a named thing's family and what a title's word is ---
# "имени"/"им.": a name follows the noun ("театр имени Пушкина") (title_ru).
NAMED_AFTER = wordset("имени им им.")
# Conjunctions and relatives: after a thing's noun they show no name follows (title_ru).
TITLE_CONJUNCTIONS = wordset(
    "и а но или что как чтобы если когда где который которая которое которые"
)


# --- verbfirst_ru: a claim that opens on its verb ---
# Words after which a name is the verb's subject, not an owner or object: conjunctions and
# particles ("Полагают, что Уран имеет ...", "... и Нино").
SUBJECT_AFTER = wordset(
    "что как и а но или либо ли же чем где когда будто чтобы если хотя пока лишь"
)
# Verbs whose subject follows them ("Существует несколько версий ...", "Насчитывается до 400
# видов"), and impersonal openers ("Стоит отметить, что ...", "Считается, что ..."): the claim
# has a subject of its own, or none to carry.
OWN_SUBJECT_AFTER = wordset(
    "существует существуют существовал существовала существовало существовали имеется имеются"
    " имелся имелась имелось имелись насчитывается насчитываются насчитывалось"
)
# Impersonal openers ("Стоит отметить", "Считается"): no subject to carry (verbfirst_ru).
IMPERSONAL = wordset(
    "стоит следует нужно необходимо можно нельзя известно считается считалось полагают"
    " полагается говорят кажется выходит оказалось оказывается видно ясно очевидно вероятно"
    " возможно предполагается утверждается"
)
# Nouns in "-ел" that look like a past verb ("Предел прочности ...").
EL_NOUNS = wordset("предел отдел раздел удел пробел орел орёл котел котёл пепел")
VERBFIRST_BE = wordset("был была было были")  # "Были депортированы ...": the verb opens the claim
# Nouns that end like a short participle ("стакан", "ветеран", "член") (verbfirst_ru).
NOT_PARTICIPLE = wordset(
    "стакан кафтан султан великан истукан пеликан вулкан кабан таракан партизан ветеран"
    " меридиан титан капитан фонтан тюльпан сарафан чемодан диван караван фазан сан стан член"
    " бетховен"
)
