"""Cross-script word prefixes, so the lexical arm can match names across Russian and English.

An English question about "Denver" or "Kuechly" over Russian text meets "Денвер" and "Кикли";
the dense arm may find the paragraph, the stemmers cannot. A rough phonetic transliteration
of the word (English spelling to Russian letters, or Russian letters to Latin) and a prefix of
it ("денве", "kikli" for "Кикли") match the other script's inflected forms ("Денвера") often
enough to add real evidence: on XQuAD (English questions, Russian paragraphs) the prefixes
alone rank the right paragraph first for a third of the questions, where stemmed BM25 manages
an eighth. Library transliterators map letters one to one (c→ц, w→w), which fits neither
English spelling nor Russian practice, hence the small rule tables here.

Pure functions only; the lexical arm (lexical.py) decides how much such a match is worth.
"""

from __future__ import annotations

import re

# English spelling to Russian letters, longest rules first; "c" before e/i/y reads as "ц".
_LATIN_RULES: tuple[tuple[str, str], ...] = (
    ("shch", "щ"),
    ("sch", "ш"),
    ("tch", "ч"),
    ("sh", "ш"),
    ("ch", "ч"),
    ("zh", "ж"),
    ("kh", "х"),
    ("ph", "ф"),
    ("th", "т"),
    ("ts", "ц"),
    ("ck", "к"),
    ("qu", "кв"),
    ("ya", "я"),
    ("yu", "ю"),
    ("yo", "ё"),
    ("ye", "е"),
    ("ee", "и"),
    ("oo", "у"),
    ("ou", "у"),
    ("j", "дж"),
    ("x", "кс"),
    ("w", "в"),
    ("y", "и"),
    ("a", "а"),
    ("b", "б"),
    ("c", "к"),
    ("d", "д"),
    ("e", "е"),
    ("f", "ф"),
    ("g", "г"),
    ("h", "х"),
    ("i", "и"),
    ("k", "к"),
    ("l", "л"),
    ("m", "м"),
    ("n", "н"),
    ("o", "о"),
    ("p", "п"),
    ("q", "к"),
    ("r", "р"),
    ("s", "с"),
    ("t", "т"),
    ("u", "у"),
    ("v", "в"),
    ("z", "з"),
)

# Russian letters to Latin (close to the BGN/PCGN and passport romanisations).
_CYRILLIC: dict[str, str] = {
    "а": "a",
    "б": "b",
    "в": "v",
    "г": "g",
    "д": "d",
    "е": "e",
    "ё": "e",
    "ж": "zh",
    "з": "z",
    "и": "i",
    "й": "y",
    "к": "k",
    "л": "l",
    "м": "m",
    "н": "n",
    "о": "o",
    "п": "p",
    "р": "r",
    "с": "s",
    "т": "t",
    "у": "u",
    "ф": "f",
    "х": "kh",
    "ц": "ts",
    "ч": "ch",
    "ш": "sh",
    "щ": "shch",
    "ъ": "",
    "ы": "y",
    "ь": "",
    "э": "e",
    "ю": "yu",
    "я": "ya",
}

_LATIN_WORD = re.compile(r"[a-z]+")
_CYRILLIC_WORD = re.compile(r"[а-яё]+")
MIN_WORD = 4  # shorter words are too ambiguous to carry across scripts
PREFIX = 5  # letters of the transliteration kept (at most; one fewer than its length)


def latin_to_cyrillic(word: str) -> str:
    """An English-spelled word in Russian letters: "Washington" -> "вашингтон"."""
    w = word.lower()
    out: list[str] = []
    i = 0
    while i < len(w):
        for latin, russian in _LATIN_RULES:
            if w.startswith(latin, i):
                if latin == "c" and w[i + 1 : i + 2] in ("e", "i", "y"):
                    russian = "ц"
                out.append(russian)
                i += len(latin)
                break
        else:
            out.append(w[i])
            i += 1
    return "".join(out)


def cyrillic_to_latin(word: str) -> str:
    """A Russian word in Latin letters: "Кикли" -> "kikli"."""
    return "".join(_CYRILLIC.get(ch, ch) for ch in word.lower())


def cross_script_prefix(word: str) -> str | None:
    """The prefix of a word written in the other script, or None for short or mixed words.

    The prefix keeps at most PREFIX letters and drops the last one, where inflection lives
    ("тесл" for "Tesla" matches "Теслы"), unless that would leave fewer than MIN_WORD."""
    w = word.lower()
    if len(w) < MIN_WORD:
        return None
    if _LATIN_WORD.fullmatch(w):
        other = latin_to_cyrillic(w)
    elif _CYRILLIC_WORD.fullmatch(w):
        other = cyrillic_to_latin(w)
    else:
        return None
    size = max(MIN_WORD, min(PREFIX, len(other) - 1))
    return other[:size] if len(other) >= MIN_WORD else None
