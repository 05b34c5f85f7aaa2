"""What every parser checks on the text it extracted: the size limit, and the sample the
language is judged by. Shared by the text, PDF, EPUB and HTML parsers so they agree."""

from __future__ import annotations

from collections.abc import Sequence

from pegas_memory.config import Settings
from pegas_memory.errors import LimitExceeded
from pegas_memory.ingest.chunking import Section


def check_size(chars: int, uri: str, settings: Settings) -> None:
    """Refuse text over max_text_chars, counted as it is extracted (before any chunking)."""
    if chars > settings.max_text_chars:
        raise LimitExceeded(
            f"{uri} has {chars} characters of text, over max_text_chars={settings.max_text_chars}; "
            "raise PEGAS_MAX_TEXT_CHARS or ingest the source in parts"
        )


def language_sample(sections: Sequence[Section]) -> str:
    """Text from the start, middle and end, so a language is not judged by a preface alone."""
    joined = "\n".join(s.text for s in sections)
    if len(joined) <= 4000:
        return joined
    mid = len(joined) // 2
    return "\n".join((joined[:1400], joined[mid : mid + 1300], joined[-1300:]))
