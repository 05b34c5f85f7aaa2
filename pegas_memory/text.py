"""Pure text helpers shared by every module: normalisation, content hashing, language detection
and the PostgreSQL text-search configuration that matches a language."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

_WS = re.compile(r"\s+")
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_LATIN = re.compile(r"[A-Za-z]")

# Languages whose snowball stemmer PostgreSQL ships as a text-search configuration.
_TS_CONFIGS = {
    "ru": "russian",
    "en": "english",
    "de": "german",
    "fr": "french",
    "es": "spanish",
    "it": "italian",
    "pt": "portuguese",
    "nl": "dutch",
    "sv": "swedish",
    "no": "norwegian",
    "da": "danish",
    "fi": "finnish",
    "hu": "hungarian",
    "ro": "romanian",
    "tr": "turkish",
}


def normalize_text(text: str) -> str:
    """NFKC, whitespace collapsed, trimmed, case-folded: the form content hashes are taken of."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def content_hash(*parts: str) -> str:
    """sha256 over the normalised parts, joined by a separator no normalised text contains."""
    joined = "\x1f".join(normalize_text(p) for p in parts)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()


def raw_hash(data: bytes | str) -> str:
    """sha256 of exact bytes (documents and files: any change is a new version)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=1)
def _identifier():  # type: ignore[no-untyped-def]
    """py3langid's shipped model with normalised probabilities, built the way its README shows
    (`LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)`), once per process."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def detect_language(text: str) -> str | None:
    """ISO 639-1 code of the text's language, or None when the text is too short to tell.

    Script decides the common ru/en case at once; py3langid (its model ships in the package)
    decides the rest.
    """
    sample = text[:4000]
    letters = [c for c in sample if c.isalpha()]
    if len(letters) < 3:
        return None
    cyr = len(_CYRILLIC.findall(sample))
    lat = len(_LATIN.findall(sample))
    if cyr and cyr >= 0.6 * len(letters):
        # Cyrillic is mostly Russian here; let the model tell Ukrainian/Bulgarian etc. apart.
        lang, prob = _identifier().classify(sample)
        return lang if lang in {"uk", "bg", "be", "sr", "mk", "kk"} and prob > 0.9 else "ru"
    if lat and lat >= 0.6 * len(letters) and len(letters) < 20:
        return "en"
    lang, _prob = _identifier().classify(sample)
    return str(lang)


def ts_config_for(language: str | None) -> str:
    """PostgreSQL text-search configuration for a language; 'simple' when none stems it."""
    return _TS_CONFIGS.get(language or "", "simple")
