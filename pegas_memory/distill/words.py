"""What several stages read of a sentence's words (pure logic): its words (`words_of`), whether
it holds a letter (`LETTER`), the words that point back (`ANAPHORS`), a Russian finite verb by
its ending (`RU_VERB`), and the text without its brackets (`unbracketed`).

They sit below `distill.patterns` and `distill.definition_rules` so that both read them and
import one way (patterns re-exports `words_of`, `LETTER` and `ANAPHORS`, as most modules import
them from there); the type stage (`distill.fact_rules`) reads `RU_VERB` and `unbracketed` too.
"""

from __future__ import annotations

import re

import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru

LETTER = re.compile(r"[^\W\d_]")
ANAPHORS = en.ANAPHORS | ru.ANAPHORS
_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")


def words_of(text: str) -> list[str]:
    return re.findall(r"[^\W_]+(?:[-'’][^\W_]+)*", text)


def unbracketed(text: str) -> str:
    """The text without its round and square brackets (nested ones too), spaces collapsed."""
    while True:
        flat = _BRACKETED.sub("", text)
        if flat == text:
            return re.sub(r"\s+", " ", flat).strip()
        text = flat


# A Russian finite verb (the lead definition rule, `distill.definition_rules`, and the type stage,
# `distill.fact_rules`, read it) in the indicative, past ("принял", "сыграли", "образовался"),
# present ("ведут", "образуется") or a short passive participle ("заведены", "распространён"): a
# sentence that states an event or a property, the way Wikipedia narrates.
RU_VERB = re.compile(
    r"(?<![\w-])[а-яё]{2,}(?:(?:[аяиеуы]л(?:а|о|и)?(?:сь|ся)?)|(?:[ая]ет|[уюи]ет|ит|ят|ют|ут|ат)(?:ся)?"
    r"|(?:[ая]ют|[уюи]ют)ся|[ёе]н[аоы]?|[ая]н[аоы]?"
    # the stressed present "-ёт" ("берёт", "идёт"; "полёт", "счёт" are nouns)
    r"|(?<![лч])ёт(?:ся)?)(?![\w-])"
    # the past of the consonant stems, whose "-л-" follows no vowel ("возросла", "принесла",
    # "смогла", "достигла", "умерла", "предпочли", "учли"), with any prefix
    r"|(?<![\w-])[а-яё]*(?:р[ао]с|н[её]с|в[её]з|мог|стиг|лег|гиб|бер[её]г|мер|пер|сох|мерз"
    r"|полз|[оуе]ч)л(?:а|о|и)(?:сь)?(?![\w-])"
    # the copula states a property or an event ("долгое время была в услужении", "велосипед был
    # очень модным развлечением"), as "is"/"was" do in an English sentence
    r"|(?<![\w-])(?:был|была|было|были|будет|будут)(?![\w-])"
    # the short passive participles in "-т" of an event ("открыт музей", "убит", "снята",
    # "свергнут"), from the stems that form them, with a prefix where the bare stem is a noun
    # ("бит", "сбыт")
    r"|(?<![\w-])(?:(?:от|за|рас|вс|по|пере|при|на|у|с|вы|про|под|об)?крыт|(?:у|с|раз|из|при|за"
    r"|до|от|вы|про|под|по|пере|на)бит|(?:на|за|про|вы|с|раз|пере|от|об|до|под)лит|(?:с|при|вы"
    r"|за|об|по|на|у|пере|под)шит|(?:за|до)быт|(?:про|пере|на)жит|(?:при|за|от|по|на|под|пере"
    r"|об|с)нят|(?:вз|из[ъь])ят|(?:на|за)чат|[а-яё]*(?:[гк]нут|двинут|кинут|тянут|манут))[аоы]?"
    r"(?![\w-])"
    # "может" (what something can do); a consonant-stem past in the masculine ("возник",
    # "достиг", "погиб", "исчез"); the past of "идти" ("шли", "произошла", "пришёл") and the
    # pasts too short for the first rule ("дал", "жил")
    r"|(?<![\w-])(?:может|(?:воз|про|за|по)ник|(?:до|за)?стиг|(?:по|у|за)?гиб|исчез"
    r"|[а-яё]*(?:ш[её]л|шл[аои])|(?:дал|жил|пел)[аои]?"
    # a requirement stated of a third party (`distill.norms_ru`): "рекомендации должны соблюдаться"
    r"|должен|должн[аоы]|обязан[аоы]?)(?![\w-])",
    re.IGNORECASE,
)
