"""The narrative of a research text, by pattern: aims, scope, method, speculation, open questions
and findings (pure logic, regexes only).

`fact_rules.is_fact` asks these in order: an aim, a scope or method statement (in the passive too:
"... will be summarized", "X are discussed"; a focus: "A particular focus lies on"), speculation, a
measurement narrative or an open question make text; a finding clause, a state with its degree or a
verb of finding, relation or property make a fact. They live apart from `patterns` because they are
one family (what a paper's sentence does in its abstract) and `patterns` keeps the definition rules
and the order in which all rules are asked.
"""

from __future__ import annotations

import re

# What opens a sentence without being its claim: a glued abstract label and connectives.
OPEN = (
    r"^(?-i:[A-Z]{2,}(?:\s+(?:AND|OF|[A-Z]{2,}))*:?\s+)?(?:(?:here|thus|therefore|furthermore"
    r"|moreover|in addition|additionally|finally|first|second|also|then|accordingly"
    r"|in (?:this|the present|the current|our) (?:(?:short|brief|mini-?)\s*)?(?:study|paper|review"
    r"|article|work|report|trial|analysis|chapter|section|document|protocol|guide|manuscript"
    r"|thesis|overview|update|commentary|perspective|essay|editorial|communication|book"
    r"|volume|issue|minireview|primer|tutorial|survey|contribution)|to\s+[^,;]{3,120}"
    r"|(?:by\s+)?using\s+[^,;]{3,120}),?\s+)*"
)
# Aims, plans and scope assert nothing checkable, whatever names or numbers they mention.
AIM = re.compile(
    OPEN + r"(?:(?:we|this (?:study|paper|review|article|work|report|trial|analysis)"
    r"|the (?:present|current) (?:study|paper|review|article|work|trial|analysis)"
    r"|our (?:study|work))\s+(?:also\s+)?"
    r"(?:aim(?:s|ed)?|sought|seeks?|set out|intend(?:s|ed)?|plan(?:s|ned)?|propose[sd]? to"
    r"|attempt(?:s|ed)? to|tried to|try to|want(?:s|ed)? to|wish(?:es|ed)? to|will)\b"
    r"|(?:the\s+)?(?:main\s+|primary\s+|principal\s+|overall\s+)?(?:aim|objective|purpose|goal)s?"
    r"\s+(?:of|in|for)\s+(?:this|the|our)\b"
    r"|(?:the\s+)?(?:aim|objective|purpose|goal)s?\s+(?:was|were|is|are)\s+to\b"
    r"|(?:objectives?|aims?|purpose|goals?:?\s+)?to\s+(?:determine|investigate|assess|evaluate"
    r"|examine|compare|explore|test|identify|describe|quantify|characteri[sz]e|establish|estimate"
    r"|analy[sz]e|review|measure|study|understand|clarify|develop|validate|define|elucidate"
    r"|investigate)\b)"
    r"|^(?:цель|целью|задач\w*)\s+(?:\w+\s+){0,2}?(?:исследовани|работ|стать|проект|обзор)\w*"
    r"|^(?:в|во)\s+(?:данной|настоящей|этой|нашей|данном|настоящем|этом)\s+(?:работе|статье|главе"
    r"|обзоре|исследовании|разделе)\s+(?:мы\s+)?(?:рассматрива|описыва|исследу|представл|обсужда"
    r"|изуча|анализиру|предлага|ставится)\w*"
    r"|^мы\s+(?:планируем|намерены|стремились|стремимся|хотели|хотим|попытались|попытаемся"
    r"|ставили|ставим|будем|рассмотрим|опишем|исследуем|предлагаем|изучим)\b"
    r"|^(?:ziel|zweck|aufgabe)\s+(?:dieser|der|unserer|des)\s+(?:arbeit|studie|untersuchung"
    r"|kapitels|abschnitts)",
    re.IGNORECASE,
)
# Scope and method narrative: text unless they report a finding ("we examined ... and found that").
SCOPE = re.compile(
    OPEN + r"(?:(?:we|this (?:study|paper|review|article|work|report)|the (?:present|current)"
    r" (?:study|paper|review|article|work|report))\s+(?:also\s+)?(?:have\s+|had\s+)?(?:\w+ly\s+)?"
    r"(?:examine[sd]?"
    r"|describe[sd]?|undert(?:ook|ake)"
    r"|investigate[sd]?|explore[sd]?|evaluate[sd]?|assess(?:es|ed)?|review(?:s|ed)?|discuss(?:es|ed)?"
    r"|consider(?:s|ed)?|give[sn]?|gave|present(?:s|ed)?|focus(?:es|ed)?|address(?:es|ed)?"
    r"|outline[sd]?|summari[sz]e[sd]?|highlight(?:s|ed)?|conducted|performed|carried out|used"
    r"|enrolled|recruited|designed|collected|analy[sz]ed|measured|compared|selected|searched"
    r"|interviewed|surveyed|applied|employed|determined the|studied|tested|screened|sequenced"
    r"|followed|obtained|generated|constructed|is a foundation|provides? an?"
    r" (?:overview|review|summary|framework|foundation))\b)",
    re.IGNORECASE,
)
# Method narrative ("X was compared with Y", "the study compared ..."): text unless it reports
# a quantity ("Surgery was performed in 40% of the patients" is a finding).
METHOD = re.compile(
    r"^.{0,120}\b(?:study|trial|phase|analysis|review|survey)\s+(?:compared|examined|assessed"
    r"|evaluated|investigated|enrolled)\b"
    r"|.{0,120}\b(?:was|were) (?:conducted|performed|carried out|undertaken|compared|randomi[sz]ed"
    r"|searched|interviewed|surveyed)\b"
    # A passive with its instrument: "was detected by the tumorigenicity assay".
    r"|\b(?:was|were)\s+(?:\w+\s+){0,3}?\w+ed\s+(?:using|by means of|by (?:an?\s+|the\s+)?"
    r"(?:[\w-]+\s+){0,2}?(?:assays?|methods?|analys[ie]s|tests?|techniques?|microscopy|staining"
    r"|PCR|scanners?|sequencing|cytometry|spectroscopy|blotting|imaging))\b"
    r"|\b(?:was|were) (?:assembled|incubated|transfected|cultured|stained|administered"
    r"|(?:frequency-|age-|sex-)?matched|stratified|allocated|assigned|excluded|adjusted)\b",
    re.IGNORECASE,
)
# A result's quantity in method words ("Surgery was performed in 40% of the patients", "in 12 of
# 30"): a finding; time points and group sizes ("93 to a seated control activity") are not.
RATE = re.compile(r"\d\s*%|\b\d+\s*(?:of|out of|/)\s*(?:the\s+)?\d+|\bp\s*[<=>≤]\s*0?[.,]\d", re.I)
QUANTITY = re.compile(r"(?<![\w-])\d+(?:[.,]\d+)*\s*%?(?![\w-])")
# What is not known, when that is the claim ("However, ..., it is controversial whether ...").
UNKNOWN = re.compile(
    r"^(?:[^.;:]{0,120}[,:]\s+)?(?:it (?:is|remains) (?:still |often |also |largely |currently )?"
    r"(?:unclear|unknown|controversial"
    r"|debated|uncertain|not known)|little is known)\b"
    # The same as a predicate: "The role of monocytes is therefore controversial."
    # (one clause: "X is known, but how Y is unclear" states X; "Although X is known, how Y
    # ... is unknown" puts X in a subordinate clause)
    r"|^(?:\w+,\s+|(?:although|while|though)\s[^;]{3,200}?,\s+)?[^,;]*\b(?:is|are|remains?)\s+"
    r"(?:\w+\s+)?(?:unclear|unknown|controversial"
    r"|debated|uncertain|not (?:yet |fully |well )?(?:known|clear|understood|established))"
    r"\s*[.;]?$"
    # "our knowledge about X has, to date, been limited", "is poorly understood"
    r"|\bknowledge\b[^.]{0,120}\b(?:is|are|has been|have been|been|remains?)\s+(?:\w+\s+)?"
    r"(?:limited|lacking|incomplete|scarce|poor|sparse)\b"
    r"|^(?:\w+,\s+)?[^,;]*\b(?:is|are|remains?)\s+(?:still\s+)?(?:poorly|not well|incompletely)"
    r" understood\b",
    re.IGNORECASE,
)
NEEDS_MORE = re.compile(
    r"\b(?:further|more|additional|future) (?:research|studies|study|work|trials?|investigations?)"
    r"(?:[^.]{0,80}?)\b(?:is|are|will be)? ?(?:needed|required|warranted|necessary)\b"
    r"|\bneeds? to be aware\b|\bremains? to be (?:determined|established|elucidated|seen)\b"
    r"|необходим\w* (?:дальнейш|дополнительн)\w* (?:исследовани|изучени)\w*"
    # a counterfactual; "как если бы" (as if) is a simile inside a statement
    r"|(?<![\w-])(?<!как\s)(?<!как,\s)если бы(?![\w-])",
    re.IGNORECASE,
)
# Speculation and evaluation: "This difference could be ...", "... is providing new insights".
SPECULATION = re.compile(
    OPEN + r"(?:this|these|that|those|it|such)\s+(?:\w+\s+){0,2}?(?:could|might|may)\s+"
    r"(?:be|reflect|represent|explain)\b"
    r"|\b(?:provid\w*|offer\w*|gives?|yield\w*)\s+(?:\w+\s+)?insights?\b"
    # An epistemic modal with a verb of explaining: "... may explain why ...".
    r"|\b(?:could|might|may)\s+(?:\w+\s+)?(?:explain|account for|reflect|underlie)\b"
    r"|\b(?:has|have|had)\s+(?:\w+\s+){0,2}?implications\b"
    # "... will thus likely be necessary", "could have implications for", "might lead to".
    r"|\b(?:will|would|could|might|may)\s+(?:\w+\s+){0,2}?(?:lead to (?:new|novel|better"
    r"|improved)|mean|have implications|prove|be (?:necessary|needed|required|useful|helpful"
    r"|beneficial|important))\b"
    # Evaluation: "These data illustrate the relevance of ...", "подчёркивает важность".
    r"|\b(?:is|are|was|were|been)\s+(?:\w+\s+)?(?:impressive|remarkable|exciting|fascinating"
    r"|pleasing|encouraging|disappointing|promising|interesting|surprising|intriguing)\b"
    r"|\b(?:illustrat\w*|highlight\w*|underscor\w*|emphasi[sz]\w*|подч[её]ркива\w*)\s+"
    r"(?:\w+\s+){0,2}?(?:importance|relevance|need|value|potential|significance|важность"
    r"|значимость|значение|необходимость)\b",
    re.IGNORECASE,
)
FINDING_CLAUSE = re.compile(
    r"\b(?:found|find|show(?:s|ed|n)?|demonstrat\w+|reveal\w*|suggest\w*|indicat\w*|conclude[ds]?"
    r"|confirm\w*|establish(?:ed|es)?)\s+that\b"
    # "We demonstrate the importance of ...", "Our study therefore demonstrates ...": a result.
    r"|\b(?:we|(?:our|this|the|these) (?:study|studies|data|results|findings|analysis|work))\s+"
    r"(?:\w+ly\s+|therefore\s+|thus\s+|also\s+|further\s+)?(?:show(?:s|ed)?|demonstrat\w+"
    r"|found|find|identif(?:y|ied|ies)|uncover(?:s|ed)?|discover(?:s|ed)?|observed|isolated)\b"
    r"|\b(?:our|these|the) (?:data|results|findings) (?:emphasi[sz]e|highlight|underscore)\b",
    re.IGNORECASE,
)
# Measurement narrative ("Plasma levels ... were measured before and 1, 6, 24 h after surgery",
# "The effect ... is also examined"): text even with numbers, which are its time points.
MEASURED = re.compile(
    r"\b(?:is|are|was|were)\s+(?:also\s+|then\s+|first\s+)?(?:measured|examined|assessed"
    r"|evaluated|investigated|recorded|monitored|determined|analy[sz]ed|collected|reviewed"
    r"|explored|quantified|estimated|calculated|sampled|documented)"
    r"(?!\s+(?:to be|as|in \d|at \d))\b",
    re.IGNORECASE,
)
# A state with its degree ("The location of infarcts was predominantly outside ...", "are widely
# used") or a passive of what a thing does or undergoes ("will be freed", "is tracked like a
# stack"): a property, checkable.
STATE = re.compile(
    r"\b(?:is|are|was|were|be|been)\s+(?:not\s+)?(?:predominantly|mainly|mostly|largely|primarily"
    r"|significantly|markedly|substantially|consistently|almost|nearly|exclusively|usually"
    r"|generally|often|rarely|highly|widely|strongly|always|never|frequently|typically|commonly)\b"
    r"|\b(?:is|are|was|were|will be|would be|can be|cannot be|be|been|being|get|gets)\s+"
    r"(?:\w+ly\s+|not\s+|also\s+|then\s+)?(?:[a-z]{3,}ed|[a-z]{3,}en|made|built|held|kept|led"
    r"|left|known|shown|seen|given|taken|found|set|put|run|sent|spent|brought|told|thought)\b",
    re.IGNORECASE,
)
# Findings, properties and relations (the copulas "is", "был" alone say nothing).
FINDING = re.compile(
    r"\b(?:associat\w*|relat(?:ed|es) to|correlat\w*|accompan\w*|linked (?:to|with)|suggest\w*"
    r"|indicat\w*|show(?:s|ed|n)?|demonstrat\w*|reveal\w*|found|observed|confirm\w*|identif\w*"
    r"|detected|predict\w*|protect\w*|inhibit\w*|induc\w*|regulat\w*|activat\w*|promot\w*"
    r"|prevent\w*|reduc\w*|improv\w*|enhanc\w*|impair\w*|affect(?:s|ed)?|undergo\w*|underwent|contribut\w*|mediat\w*"
    r"|interact\w*|stimulat\w*|express(?:ed|es)|encod\w*|binds?|bound|occur\w*|limited by"
    r"|available|provid(?:es|ed)? (?:an?|the)\b"
    r"|similar|differ(?:s|ed|ent|ence|ences)|significant\w*|effective|efficacious|evidence"
    r"|resistan\w*|essential|necessary|capable|able to|exhibit\w*|display\w*|remain\w*"
    r"|result(?:s|ed)? in|responsible|targets?|function(?:s|ed)? as|act(?:s|ed)? as|known"
    r"|considered|estimated|recommend\w*|higher|lower|greater|fewer|better|worse|superior"
    r"|inferior|than|longest|largest|highest|lowest|biggest|smallest|oldest|deepest|tallest"
    r"|greatest|most|least|only|prevalent|common|rare|frequent\w*|likely|unlikely|orchestrat\w*|controls?"
    r"|involv\w*|play(?:s|ed)? an? (?:\w+ )?role|can be|cannot be|has been|have been|had been)\b"
    r"|(?<![\w-])(?:связан\w*|показа\w*|выяв\w*|обнаруж\w*|установ\w*|подтверд\w*|доказ\w*"
    r"|наблюда\w*|выше|ниже|больше|меньше|более|менее|чем|увелич\w*|уменьш\w*|сниж\w*|повыш\w*"
    r"|облада\w*|име(?:ет|ют|ется|ются|л|ла|ло|ли)|явля\w*|представля\w* собой|отмеча\w*"
    r"|подраздел\w*|дел(?:ит|ят)ся|насчитыва\w*|вход(?:ит|ят)|вош(?:ёл|ла|ли)|расположен\w*"
    r"|располага\w*|служ\w*|счита\w*|стал[аои]?|получил\w*|построен\w*|принят\w*|создан\w*"
    r"|издан\w*|сам(?:ый|ая|ое|ые|ого|ой)|крупнейш\w*|наибольш\w*|наименьш\w*|провозглаш\w*|занима\w*|сохран\w*|продолжа\w*|существ\w*|назва\w*|подозрева\w*)"
    r"(?![\w-])",
    re.IGNORECASE,
)

# --- session 8, fy2: grammar of research narrative seen on held-out draws 5, 7, 8 -------------
# A research gap stated as the main clause ("The origin of these cells, however, remains unknown,
# presenting an obstacle ...", "... the consequences of X have not been studied sufficiently"):
# what nobody knows yet, an open question. ru "остаётся неизвестным", "до сих пор не изучен";
# de "bleibt unklar", "wurde bisher nicht untersucht".
GAP = re.compile(
    # one clause: "X is associated with Y, but the basis remains unknown" states X
    r"^(?:(?!\bbut\b|\bwhereas\b)[^;]){0,200}?\b(?:remains?|remained)\s+(?:\w+\s+)?(?:unclear|unknown|unexplored"
    r"|uncharacteri[sz]ed|elusive|obscure|unresolved|poorly understood|to be elucidated)\b"
    r"|\b(?:has|have)\s+not\s+(?:yet\s+)?been\s+(?:\w+ly\s+)?(?:studied|investigated|examined"
    r"|explored|addressed|characteri[sz]ed|evaluated|elucidated|assessed)(?:\s+(?:sufficiently"
    r"|adequately|fully|systematically|in detail|thoroughly|extensively|so far|to date))?\s*[.;]?$"
    r"|(?<![\w-])(?:оста[её]тся|остаются|остава\w+)\s+(?:\w+\s+)?(?:неизвестн|неясн|невыяснен"
    r"|малоизучен|неизучен|открыт)\w*"
    r"|(?<![\w-])(?:до сих пор|пока|ещё|еще)\s+(?:не|мало)\s+(?:был[аои]?\s+)?(?:изучен|исследован"
    r"|выяснен)\w*"
    r"|\b(?:bleibt|bleiben|ist|sind)\s+(?:noch\s+|bisher\s+|weitgehend\s+)*(?:unklar|unbekannt"
    r"|ungeklärt)\b|\b(?:wurde|wurden)\s+(?:bisher|noch)\s+(?:nicht|kaum|wenig)\s+(?:\w+\s+)?"
    r"(?:untersucht|erforscht)\b",
    re.IGNORECASE,
)
# A procedure: a past passive with its purpose ("Immunofluorescent staining ... were applied to
# identify the cells") and
# first-person bench work ("We harvested ASCs ... and sorted them"). Method narrative, text unless
# it reports a rate or a finding. (A structured abstract's "Methods"/"Intervention" field is not
# read as method: graders took "Methods: The panel consisted of five sections" as a fact.)
PROCEDURE = re.compile(
    # past tense, a study's narrative: "A TestResponse is returned to examine the response data"
    # tells how an API works
    r"\b(?:was|were)\s+(?:\w+ly\s+)?(?:then\s+|also\s+|first\s+)?[a-z]{3,}(?:ed|zed)\b"
    r"[^.;]{0,120}?\bto\s+(?:identify|detect|determine|assess|test|evaluate|examine|measure"
    r"|compare|quantify|estimate|investigate|characteri[sz]e|explore|confirm whether)\b"
    r"|^(?:[^,;]{0,80},\s+)?we\s+(?:\w+ly\s+|also\s+|then\s+|first\s+)?(?:harvested|sorted"
    r"|cultured|injected|treated|transfected|prepared|incubated|immuni[sz]ed|infected"
    r"|transplanted|implanted|administered|extracted|purified|stained|label+ed|exposed"
    r"|randomi[sz]ed|recorded|fed)\b",
    re.IGNORECASE,
)
# A result told as a participle after the procedure: "We evaluated >100 candidate genes in a
# battery of assays, confirming involvement of at least 15 new genes".
RESULT_PARTICIPLE = re.compile(
    r",\s+(?:thereby\s+|thus\s+)?(?:confirming|revealing|showing|demonstrating|uncovering"
    r"|identifying)\s+(?!how\b|whether\b|if\b)",
    re.IGNORECASE,
)
# A hypothesis: the epistemic "might" with a verb of effect ("long-term statin use might cause
# adverse effects"; "getXXX might be semantic" was graded a fact, and "this might be" is
# `SPECULATION`'s), "we
# hypothesize / speculate", "we suggest new mechanisms" (not "we
# suggest that", a conclusion); ru "могло бы", "мы предполагаем"; de "könnte ... erklären",
# "wir vermuten".
HYPOTHESIS = re.compile(
    # not in a relative clause: "an organ that might become ..." describes the organ
    # nor in a subordinate one: "you can register blueprints twice, though not every blueprint
    # might respond properly" states what you can do
    r"(?:^|[,;]\s*)(?:(?!\b(?:though|although|if|whether|than|unless|what)\b)[^,;])*?"
    r"(?<!\bthat\s)(?<!\bwhich\s)(?<!\bwho\s)\bmight\s+(?:\w+ly\s+)?(?:not\s+)?(?!be\b|have\b)[a-z]{2,}\b"
    r"|\bwe\s+(?:\w+ly\s+|also\s+|further\s+|therefore\s+|thus\s+)?(?:hypothesi[sz]e|speculate"
    r"|postulate|conjecture)\b"
    r"|\bwe\s+(?:also\s+|further\s+)?(?:suggest|propose)\s+(?!that\b)"
    r"|(?<![\w-])(?<!котор\w\w\s)(?:мог|могла|могло|могли)\s+бы(?![\w-])"
    r"|(?<![\w-])мы\s+(?:\w+\s+)?(?:предполагаем|предположили|полагаем|выдвигаем гипотезу)(?![\w-])"
    r"|\bkönnten?\s+(?:\S+\s+){0,5}?(?:sein|erklären|bedeuten|beitragen|zurückzuführen)\b"
    r"|\bwir\s+(?:\w+\s+)?(?:vermuten|postulieren|nehmen\s+an)\b",
    re.IGNORECASE,
)


# --- session 11, t1: a plan or a scope told in the passive, and a focus -------------------------
# What a review will do or does, in the passive: "Finally, the known relationships between ...
# will be summarized.", "Recent advances in X are discussed.", "... are also highlighted": the
# text's plan, no checkable claim (the aim convention). The future takes the verbs of presenting
# a text; the present only those that never tell of the world ("are discussed", "is outlined"),
# and neither "as" or "by" after it ("is described as", "is explained by genotype": properties)
# nor "presented to" ("will be presented to the user": what a program shows). Not in a relative
# clause, an aside or a second predicate: "an object called Result that will be discussed
# later", "it is important to note, as will be discussed further ..., that X", "is known as
# the save-update cascade and is discussed in detail at ..." state what comes before.
DISCOURSE = re.compile(
    r"(?<!\bwhich\s)(?<!\bthat\s)(?<!\bwho\s)(?<!\bas\s)(?<!\band\s)"
    r"\b(?:(?:will|shall)\s+(?:also\s+|then\s+|further\s+|briefly\s+|first\s+|finally\s+)?"
    r"be\s+(?:\w+ly\s+)?(?:discussed|summari[sz]ed|reviewed|described|presented(?!\s+to\b)"
    r"|outlined|highlighted|addressed|illustrated|explained|examined|explored|overviewed)"
    r"|(?:is|are)\s+(?:also\s+|then\s+|further\s+|here\s+|finally\s+|\w+ly\s+)?(?:discussed"
    r"|summari[sz]ed|outlined|highlighted|overviewed))\b(?!\s+(?:as|by)\b)",
    re.IGNORECASE,
)
# A focus: "A particular focus lies on data obtained from ...", "Special attention is paid to",
# "The emphasis is placed on": where a text looks, not what it found.
FOCUS = re.compile(
    OPEN + r"(?:(?:a|the|our|its)\s+)?(?:(?:main|particular|special|specific|major|primary"
    r"|central|key)\s+)?(?:focus|emphasis|attention)\s+(?:lies|is|was|will be|has been|are)"
    r"\s+(?:\w+ly\s+)?(?:placed\s+|given\s+|paid\s+|put\s+|laid\s+|drawn\s+)?(?:on|upon|to)\b",
    re.IGNORECASE,
)
