"""What makes a claim true or false, so that dedup never merges two different claims (pure).

Embedding similarity says two sentences are *about* the same thing; it does not say they *claim*
the same thing: "V1 ist keine Mannigfaltigkeit" and "V2 ist eine Mannigfaltigkeit" sit at cosine
0.97, and so do "founded in 1773" and "founded in 1775". A semantic duplicate must therefore also
agree on the parts of a sentence that decide its truth:

- numbers (dates and years included, "1,5" = "1.5", "1,642" = "1642") and number words;
- units and month names next to them;
- negation (en not/no/never/without/n't, ru не/нет/никогда/без/ни, de nicht/kein*/nie/ohne),
  counted, so a double negation is not silently equal to none;
- named entities: capitalised words that do not start a sentence, acronyms and letter-digit
  tokens ("V1", "COVID-19"); German capitalises every noun, which only makes this stricter;
- quantifiers (all/some/none/every/most, все/некоторые/каждый, alle/einige/jeder ...);
- antonym pairs where a stem is enough (increase/decrease, больше/меньше, erhöht/verringert);
- the defined term of a definition;
- the wording itself: a content word replaced by an unrelated one ("first" -> "last", "сильнее"
  -> "слабее", "suppressed" -> "enhanced") is another claim even when no list knows the pair,
  and a negating prefix on a word ("significant" / "insignificant", "зависимый" /
  "независимый") is a negation. Inflections of one word ("increased" / "increases",
  "последние" / "последних") and re-split compounds are the same word.

Numbers, units, names and quantifiers are counted, not only collected: "Communist troops ... under
Communist control" is not "Xining troops ... under Communist control", although both name the
same two things.

Two sentences made of nearly the same words must also agree on them (ingest.claim_agreement):
no more content words on one side only than a small tolerance, each shared word in the same
role (preposition, Russian case), the bare ones in the same order ("the data from the client" is
not "the data received by the client", "path parameters and the request body" not "the body,
path and request parameters").

`claim_signature(text, term)` extracts these; `differences(a, b)` names the parts in which two
signatures disagree (empty: compatible), and `compatible(a, b)` is its emptiness.
`atom_signature(claim, content, term)` is an atom's: a claim of several sentences (a joined
atom, "The Danube flows ... Black Sea. It is Europe's second-longest river.") also carries one
signature per sentence (`parts`), so the same claim on its own elsewhere can match one of them
(`matching_part`). Markup
(emphasis, code ticks, links), line wrapping and punctuation do not change a signature, so a true
duplicate that was re-wrapped, re-punctuated or marked up still merges.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from pegas_memory.ingest.claim_agreement import ClaimFrame, claim_frame, disagreements
from pegas_memory.sentences import split_sentences

_EMPHASIS = re.compile(r"[*_`~]")  # removed in place: "Within-**study**" is "Within-study"
_MARKUP = re.compile(r"[#>\[\]{}|\\]|<[^>]{1,40}>")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_TOKEN = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_NUMBER = re.compile(r"(?<![\w.,])[-−]?\d+(?:[.,]\d+)*(?![\w])")
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+$")
_SENTENCE_END = re.compile(r"[.!?:;…]\s*$")

NEGATIONS = frozenset(
    {
        # en
        "not", "no", "never", "without", "none", "nor", "neither", "cannot", "nothing",
        "nobody", "nowhere",
        # ru
        "не", "нет", "никогда", "без", "ни", "ничто", "ничего", "никто", "нигде", "нельзя",
        # de
        "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals",
        "ohne", "nichts", "niemand", "weder",
    }
)  # fmt: skip

QUANTIFIERS = {
    # en
    "all": "all", "every": "all", "each": "all", "always": "all", "some": "some",
    "several": "some", "many": "many", "most": "most", "few": "few", "any": "some",
    "sometimes": "some", "often": "many", "rarely": "few", "usually": "most",
    # ru
    "все": "all", "всех": "all", "всем": "all", "всеми": "all", "каждый": "all",
    "каждая": "all", "каждое": "all", "всегда": "all", "любой": "all", "некоторые": "some",
    "некоторых": "some", "иногда": "some", "многие": "many", "многих": "many",
    "большинство": "most", "немногие": "few", "часто": "many", "редко": "few",
    # de
    "alle": "all", "allen": "all", "aller": "all", "jeder": "all", "jede": "all",
    "jedes": "all", "immer": "all", "einige": "some", "einigen": "some", "manche": "some",
    "manchmal": "some", "viele": "many", "vielen": "many", "meisten": "most", "wenige": "few",
    "oft": "many", "selten": "few",
}  # fmt: skip

NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "twice": "2", "once": "1",
    "ноль": "0", "один": "1", "одна": "1", "два": "2", "две": "2", "три": "3", "четыре": "4",
    "пять": "5", "шесть": "6", "семь": "7", "восемь": "8", "девять": "9", "десять": "10",
    "null": "0", "eins": "1", "zwei": "2", "drei": "3", "vier": "4", "fünf": "5",
    "sechs": "6", "sieben": "7", "acht": "8", "neun": "9", "zehn": "10",
}  # fmt: skip

# Stems of antonym pairs: (stem of side 0, stem of side 1). A token starting with a stem is that
# side of the pair; "increase" and "decrease" differ, "increased" and "increases" do not.
ANTONYMS: tuple[tuple[str, str], ...] = (
    ("increas", "decreas"), ("higher", "lower"), ("more", "less"), ("larger", "smaller"),
    ("greater", "smaller"), ("positiv", "negativ"), ("before", "after"), ("above", "below"),
    ("maxim", "minim"), ("true", "false"), ("activat", "inhibit"), ("rais", "reduc"),
    ("gain", "loss"), ("success", "failure"), ("benefit", "harm"), ("improv", "worsen"),
    ("west", "east"), ("north", "south"), ("open", "clos"), ("accept", "reject"),
    ("up", "down"),
    ("увелич", "уменьш"), ("больш", "меньш"), ("выше", "ниже"), ("положител", "отрицател"),
    ("повыш", "пониж"), ("до", "после"), ("максим", "миним"), ("истин", "ложн"),
    ("север", "юг"), ("запад", "восток"), ("открыт", "закрыт"),
    ("erhöh", "verringer"), ("größer", "kleiner"), ("mehr", "weniger"), ("höher", "niedriger"),
    ("vor", "nach"), ("über", "unter"), ("wahr", "falsch"), ("zunahm", "abnahm"),
    ("steig", "sink"), ("nord", "süd"), ("offen", "geschlossen"),
)  # fmt: skip
# Function words match the whole token only ("до" must not take "дом", "vor" not "vorher").
_EXACT_STEMS = frozenset(
    {
        "до", "после", "vor", "nach", "über", "unter", "more", "less", "mehr", "weniger",
        "true", "false", "wahr", "falsch", "before", "after", "above", "below", "выше", "ниже",
        "east", "west", "gain", "loss", "up", "down",
    }
)  # fmt: skip

UNITS = frozenset(
    {
        "%", "percent", "per", "mm", "cm", "m", "km", "kg", "g", "mg", "µg", "ml", "l", "s",
        "ms", "h", "min", "hz", "khz", "mhz", "ghz", "kb", "mb", "gb", "tb", "w", "kw", "v",
        "°c", "°f", "k", "metres", "meters", "metre", "meter", "kilometres", "kilometers",
        "miles", "feet", "years", "year", "months", "days", "hours", "minutes", "seconds",
        "million", "billion", "thousand", "dollars", "euros", "people", "patients",
        "лет", "года", "год", "метров", "км", "кг", "процентов", "тысяч", "миллионов",
        "м", "г", "мм", "см", "мг", "мл", "л", "т", "миль", "мили", "милях", "месяцев",
        "месяца", "дней", "дня", "часов", "часа", "минут", "секунд", "раз", "раза", "тысячи",
        "миллиона", "миллиардов", "миллиарда", "рублей", "долларов", "человек",
        "jahre", "jahren", "kilometer", "prozent", "millionen", "tausend",
    }
)  # fmt: skip

# Capitalised words that start sentences without naming anything: a sentence-initial capital
# word is an entity unless it is one of these ("Paris is ..." vs "Berlin is ..." differ).
STARTERS = frozenset(
    {
        "a", "an", "the", "this", "that", "these", "those", "it", "its", "he", "she", "they",
        "we", "i", "you", "there", "here", "in", "on", "at", "of", "for", "from", "by", "with",
        "to", "as", "and", "but", "or", "if", "when", "while", "after", "before", "since",
        "although", "however", "thus", "therefore", "moreover", "furthermore", "also", "so",
        "then", "our", "their", "his", "her", "such", "one", "both", "is", "are", "was", "were",
        "what", "which", "who", "how", "why", "where", "let", "consider", "suppose", "note",
        "в", "на", "он", "она", "оно", "они", "мы", "я", "это", "эта", "этот", "эти", "то",
        "однако", "также", "при", "по", "для", "из", "с", "к", "у", "о", "и", "а", "но", "как",
        "так", "если", "когда", "после", "до", "его", "её", "их", "там", "здесь", "такой",
        "поэтому", "кроме", "пусть", "что", "который", "которая", "где",
        "der", "die", "das", "ein", "eine", "einer", "es", "er", "sie", "wir", "ich", "im",
        "auf", "mit", "für", "von", "bei", "aus", "zu", "zum", "zur", "dies", "diese",
        "dieser", "dieses", "jedoch", "dann", "wenn", "da", "sei", "seien",
        "und", "aber", "oder", "man", "hier", "dort", "damit", "somit", "daher",
    }
)  # fmt: skip

# Month names: English and German ones count when capitalised (so the verb "may" does not),
# Russian ones in their usual case forms.
_MONTHS_LATIN = (
    ("january", "januar", "jänner"), ("february", "februar"), ("march", "märz"), ("april",),
    ("may", "mai"), ("june", "juni"), ("july", "juli"), ("august",), ("september",),
    ("october", "oktober"), ("november",), ("december", "dezember"),
)  # fmt: skip
_MONTH_RU = re.compile(
    r"^(январ|феврал|март|апрел|ма|июн|июл|август|сентябр|октябр|ноябр|декабр)(ь|я|е|ю|й|ем|ём)?$"
)
_RU_ORDER = ("январ", "феврал", "март", "апрел", "ма", "июн", "июл", "август", "сентябр",
             "октябр", "ноябр", "декабр")  # fmt: skip
MONTHS = {name: str(i) for i, names in enumerate(_MONTHS_LATIN, start=1) for name in names}


@dataclass(frozen=True)
class ClaimSignature:
    """The parts of a claim that decide whether it is true (module docstring)."""

    numbers: frozenset[str] = frozenset()
    units: frozenset[str] = frozenset()
    months: frozenset[str] = frozenset()
    negations: int = 0
    entities: frozenset[str] = frozenset()
    quantifiers: frozenset[str] = frozenset()
    antonyms: frozenset[tuple[int, int]] = frozenset()
    term: str | None = None
    # how often each number, unit, name and quantifier occurs ("number:1773", "entity:paris")
    counts: tuple[tuple[str, int], ...] = ()
    # the content words (letters only, lowercased, stop words out), with repeats, sorted
    words: tuple[str, ...] = ()
    # the content words in order, as lemmas with their roles (ingest.claim_agreement)
    frame: ClaimFrame = field(default_factory=ClaimFrame)
    # a claim of several sentences: each sentence's own signature (`atom_signature`)
    parts: tuple[ClaimSignature, ...] = ()


def _plain(text: str) -> str:
    """The text without markup and line wrapping: link texts stay, URLs and markers go."""
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub("", text)
    text = _MARKUP.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def _number(raw: str) -> str:
    raw = raw.replace("−", "-")
    if _THOUSANDS.match(raw.lstrip("-")):
        raw = raw.replace(",", "")
    raw = raw.replace(",", ".")
    if "." in raw:
        whole, _, frac = raw.partition(".")
        frac = frac.rstrip("0")
        raw = f"{whole}.{frac}" if frac else whole
    return raw.lstrip("+")


# What may follow a whole-word stem: an inflection or a hyphenated compound ("gained",
# "eastern", "loss-of-function"), never another word's letters ("moreover", "vorher").
_INFLECTED = re.compile(r"(?:s|es|ed|d|ing|ern|er|-.*)")


def _antonym_of(token: str) -> tuple[int, int] | None:
    for index, pair in enumerate(ANTONYMS):
        for side, stem in enumerate(pair):
            if stem in _EXACT_STEMS:
                if token == stem or (
                    _INFLECTED.fullmatch(token[len(stem) :]) and token.startswith(stem)
                ):
                    return index, side
            elif token.startswith(stem):
                return index, side
    return None


@lru_cache(maxsize=65_536)
def _antonyms(token: str) -> frozenset[tuple[int, int]]:
    """The antonym sides a token holds, its compound parts included ("gram-positive",
    "юго-западнее", "northeast": north and east). Memoised: a pure function of the token, it
    scans every antonym stem and was 80% of a signature (GeoTopo's 719: 7.8 s, issue 17)."""
    parts = [p for p in re.split(r"[-'’]", token) if p]
    found = {a for p in parts if (a := _antonym_of(p)) is not None}
    for p in parts:  # a closed compound: a pair's stem after the first letters
        for index, pair in enumerate(ANTONYMS):
            for side, stem in enumerate(pair):
                if len(stem) >= 4 and stem in p[2:]:
                    found.add((index, side))
    return frozenset(found)


def _month(raw: str, low: str) -> str | None:
    if raw[:1].isupper() and low in MONTHS:
        return MONTHS[low]
    m = _MONTH_RU.match(low)
    if m and (m.group(1) != "ма" or m.group(2) in ("й", "я", "е")):
        return str(_RU_ORDER.index(m.group(1)) + 1)
    return None


def _is_entity(raw: str, low: str, starts_sentence: bool) -> bool:
    """A name: a letter-digit token ("V1"), an acronym, or a capitalised word (module doc)."""
    if any(ch.isdigit() for ch in raw) and any(ch.isalpha() for ch in raw):
        return True
    if not raw[0].isupper() or low in NEGATIONS or low in QUANTIFIERS:
        return False
    return not starts_sentence or low not in STARTERS or (len(raw) > 1 and raw.isupper())


# Words that carry no claim of their own: articles, pronouns, auxiliaries, prepositions (the
# claim-deciding function words, negations and quantifiers, have their own fields).
STOP_WORDS = frozenset(
    {
        "the", "and", "for", "with", "from", "into", "onto", "that", "this", "these", "those",
        "its", "their", "his", "her", "our", "your", "has", "have", "had", "having", "was",
        "were", "are", "been", "being", "does", "did", "doing", "done", "will", "would",
        "shall", "should", "can", "could", "may", "might", "must", "also", "than", "then",
        "such", "which", "who", "whom", "whose", "what", "there", "here", "where", "when",
        "while", "thus", "hence", "however", "very", "about", "upon", "via", "per",
        "both", "either", "they", "them", "she", "him", "you", "one",
        "как", "что", "это", "этот", "эта", "эти", "этой", "этого", "этих", "тот", "того",
        "так", "также", "был", "была", "было", "были", "быть", "есть", "является", "являются",
        "для", "при", "под", "над", "или", "его", "её", "их", "она", "они", "оно",
        "который", "которая", "которое", "которые", "которого", "которой", "которых", "уже",
        "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer",
        "und", "oder", "ist", "sind", "war", "waren", "wird", "werden", "wurde", "wurden",
        "hat", "haben", "mit", "von", "für", "auf", "aus", "bei", "sich", "auch", "dass",
    }
)  # fmt: skip
# Prefixes that negate the word they precede: "un-likely", "in-significant", "не-зависимый".
NEGATING_PREFIXES = (
    "non-", "non", "un", "in", "im", "ir", "il", "dis", "не", "без", "бес", "un",
)  # fmt: skip


def _is_content_word(word: str) -> bool:
    return (
        len(word) >= 3
        and word.isalpha()
        and word not in STOP_WORDS
        and word not in NEGATIONS
        and word not in QUANTIFIERS
    )


def _same_word(a: str, b: str) -> bool:
    """Two forms of one word: one a prefix of the other, or a shared stem that leaves at most
    the inflectional tail ("increased" / "increases", "последние" / "последних", "годы" /
    "годах")."""
    if a.startswith(b) or b.startswith(a):
        return True
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return (n >= 4 and n >= min(len(a), len(b)) - 3) or (n >= 3 and max(len(a), len(b)) - n <= 2)


def _negated(a: str, b: str) -> bool:
    """`b` is `a` with a negating prefix (or the other way round)."""
    for x, y in ((a, b), (b, a)):
        for prefix in NEGATING_PREFIXES:
            if y == prefix + x and len(x) >= 4:
                return True
    return False


def wording_changes(a: Sequence[str], b: Sequence[str]) -> list[str]:
    """A content word of one claim replaced by an unrelated word in the other (module doc):
    the words only one side has, after pairing off inflections and negating prefixes. Words
    only added or only dropped say the same claim more or less fully: no change."""
    gone = list((Counter(a) - Counter(b)).elements())
    new = list((Counter(b) - Counter(a)).elements())
    out: list[str] = []
    unpaired: list[str] = []
    for x in gone:
        partner = next((y for y in new if _same_word(x, y)), None)
        if partner is not None:
            new.remove(partner)
            continue
        negated = next((y for y in new if _negated(x, y)), None)
        if negated is not None:
            new.remove(negated)
            out.append(f"negation {x} -> {negated}")
            continue
        unpaired.append(x)
    if unpaired and new:
        out.append(f"wording {', '.join(unpaired)} -> {', '.join(new)}")
    return out


def _count_changes(a: tuple[tuple[str, int], ...], b: tuple[tuple[str, int], ...]) -> list[str]:
    """The same numbers, units, names and quantifiers, but not as often (module doc)."""
    ca, cb = dict(a), dict(b)
    out = []
    for key in sorted(set(ca) | set(cb)):
        if ca.get(key, 0) != cb.get(key, 0):
            kind, _, value = key.partition(":")
            out.append(f"{kind} {value} x{ca.get(key, 0)} -> x{cb.get(key, 0)}")
    return out


def claim_signature(text: str, term: str | None = None) -> ClaimSignature:
    """The truth-deciding parts of `text` (and the defined term, when a distiller found one)."""
    plain = _plain(text)
    numbers = {_number(m.group(0)) for m in _NUMBER.finditer(plain)}
    units: set[str] = set()
    months: set[str] = set()
    entities: set[str] = set()
    quantifiers: set[str] = set()
    antonyms: set[tuple[int, int]] = set()
    negations = len(re.findall(r"n['’]t\b", plain, re.IGNORECASE))
    counts: Counter[str] = Counter(f"number:{_number(m.group(0))}" for m in _NUMBER.finditer(plain))
    words: list[str] = []
    previous_end = 0
    for m in _TOKEN.finditer(plain):
        raw = m.group(0)
        low = raw.casefold()
        starts_sentence = m.start() == 0 or bool(
            _SENTENCE_END.search(plain[previous_end : m.start()])
        )
        previous_end = m.end()
        if low in NEGATIONS:
            negations += 1
        # a quantifier inside a compound decides too: "an all-time high", "many-sided"
        for part in re.split(r"-", low):
            if part in QUANTIFIERS:
                quantifiers.add(QUANTIFIERS[part])
                counts[f"quantifier:{QUANTIFIERS[part]}"] += 1
        words += [w for w in re.split(r"[-'’]", low) if _is_content_word(w)]
        if low in NUMBER_WORDS:
            numbers.add(NUMBER_WORDS[low])
        if low in UNITS:
            units.add(low)
            counts[f"unit:{low}"] += 1
        month = _month(raw, low)
        if month is not None:
            months.add(month)
        antonyms |= _antonyms(low)
        if _is_entity(raw, low, starts_sentence):
            entities.add(low)
            counts[f"entity:{low}"] += 1
    if "%" in plain:
        units.add("%")
    return ClaimSignature(
        numbers=frozenset(numbers),
        units=frozenset(units),
        months=frozenset(months),
        negations=negations,
        entities=frozenset(entities),
        quantifiers=frozenset(quantifiers),
        antonyms=frozenset(antonyms),
        term=term.casefold().strip() if term else None,
        counts=tuple(sorted(counts.items())),
        words=tuple(sorted(words)),
        frame=claim_frame(plain, _is_content_word),
    )


def atom_signature(claim: str, content: str, term: str | None = None) -> ClaimSignature:
    """An atom's signature: its claim and content (and term); a claim of two sentences or more
    (a joined atom) also gets one signature per sentence of its claim, in `parts`. A content that
    only repeats the claim (the offline distiller's) is not read twice, so a sentence of a joined
    claim and the same sentence as an atom of its own read alike."""
    same = not content.strip() or content.strip() == claim.strip()
    whole = claim_signature(claim if same else f"{claim}\n{content}", term)
    sentences = claim_sentences(claim)
    if not sentences:
        return whole
    return replace(whole, parts=tuple(claim_signature(s) for s in sentences))


def claim_sentences(claim: str) -> list[str]:
    """The sentences of a claim of two sentences or more (a joined atom); [] for one sentence."""
    sentences = [s.text for s in split_sentences(claim) if _TOKEN.search(s.text)]
    return sentences if len(sentences) >= 2 else []


def matching_part(stored: ClaimSignature, new: ClaimSignature) -> int | None:
    """Which sentence of a joined `stored` claim says what `new` says (its index in `parts`), or
    None: a claim on its own repeats a joined atom that says it and more; a joined claim never
    repeats one sentence of it (it would lose the rest)."""
    if new.parts:
        return None
    return next((k for k, p in enumerate(stored.parts) if not differences(p, new)), None)


def differences(a: ClaimSignature, b: ClaimSignature) -> tuple[str, ...]:
    """The parts in which two claims disagree, as short reasons ("number 1773 -> 1775")."""
    out: list[str] = []
    if a.numbers != b.numbers:
        gone = ", ".join(sorted(a.numbers - b.numbers)) or "-"
        new = ", ".join(sorted(b.numbers - a.numbers)) or "-"
        out.append(f"number {gone} -> {new}")
    if a.months != b.months:
        out.append("date")
    if a.units != b.units:
        out.append("unit")
    if a.negations != b.negations:
        out.append("negation")
    if a.entities != b.entities:
        gone = ", ".join(sorted(a.entities - b.entities)) or "-"
        new = ", ".join(sorted(b.entities - a.entities)) or "-"
        out.append(f"entity {gone} -> {new}")
    if a.quantifiers != b.quantifiers:
        out.append("quantifier")
    if a.antonyms != b.antonyms:
        out.append("antonym")
    if a.term and b.term and a.term != b.term:
        out.append(f"defined term {a.term} -> {b.term}")
    if not out:
        out += _count_changes(a.counts, b.counts)
    if not out:
        out += wording_changes(a.words, b.words)
    if not out:
        out += disagreements(a.frame, b.frame)
    return tuple(out)


def compatible(a: ClaimSignature, b: ClaimSignature) -> bool:
    """True when two claims agree on everything that decides their truth."""
    return not differences(a, b)


def is_contradiction(reasons: tuple[str, ...]) -> bool:
    """A conflict on the same subject that one of the two claims must lose: only negation,
    number or date (the entities agree, else they are about different things)."""
    kinds = {r.split(" ", 1)[0] for r in reasons}
    return bool(kinds) and kinds <= {"number", "negation", "date"}
