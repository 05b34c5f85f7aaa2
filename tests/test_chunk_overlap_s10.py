"""Chunk overlap by whole sentences only, session 10 (issue 15, scope 2).

When the previous chunk's last sentence is longer than `overlap`, the next chunk used to repeat
its last WORDS: it opened inside a sentence, the distiller took the tail for a sentence (the
pipeline now drops it as "repeated by chunk overlap", and with it the sentence it was joined
to), and a sentence leaning on that last one ("These differences ...") was read without it.
Now the last sentence is repeated whole if the next chunk has room for it, else nothing is
repeated. Both sides in en and ru, at the chunk level and through `memory_ingest`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.ingest.chunking import chunk_spans
from pegas_memory.requests import IngestRequest
from pegas_memory.service import MemoryService
from tests.conftest import offline_memory
from tests.test_items_s8 import _FILLER

# A last sentence longer than the overlap (150) and shorter than half a chunk (600).
_LONG = {
    "ru": "Учёные сравнили пробы воды из верхнего и нижнего течения реки и нашли заметные"
    " различия в содержании кислорода, нитратов и тяжёлых металлов ниже крупных промышленных"
    " городов, в том числе Череповца и Тольятти.",
    "en": "Chemists of Kazan University measured oxygen, nitrates and heavy metals in water"
    " samples from the upper and lower course of the Volga and found much higher levels below"
    " large industrial cities such as Cherepovets.",
}
_NEXT = {
    "ru": "Весной уровень воды в реке поднимается на несколько метров из-за таяния снега.",
    "en": "In spring the level of the river rises by several metres because the snow melts.",
}


# A sentence that leans on `_LONG` ("Они", "They"): alone it is dropped, joined it stands.
_LEANING = {
    "ru": "Они объясняются сбросами металлургических и химических заводов, стоящих на берегах"
    " реки выше по течению.",
    "en": "They are explained by the discharges of the steel and chemical plants that stand on"
    " the banks upstream.",
}


_TOWNS = {
    "ru": "На Волге стоят Тверь, Углич, Ярославль, Кострома, Кинешма, Чебоксары, Ульяновск,"
    " Сызрань, Саратов, Камышин, Вольск, Маркс, Хвалынск, Козьмодемьянск",
    "en": "Towns on the Volga include Tver, Uglich, Yaroslavl, Kostroma, Kineshma, Cheboksary,"
    " Ulyanovsk, Syzran, Saratov, Kamyshin, Volsk, Marks, Khvalynsk, Kozmodemyansk",
}


def _text(
    lang: str, last: str, size: int | None = None, after: dict[str, str] = _NEXT
) -> tuple[str, int]:
    """Five filler sentences, `last`, `_NEXT` and more filler, and the max_chars that closes
    the first chunk right after `last` (the next sentence no longer fits); with `size`, a
    shortened filler sentence before `last` makes that max_chars about `size`."""
    head = " ".join([*_FILLER[lang], last])
    if size is not None:
        pad = _TOWNS[lang][: size - len(head) - 2].rsplit(",", 1)[0] + "."
        head = " ".join([pad, *_FILLER[lang], last])
    return " ".join([head, after[lang], *_FILLER[lang][:3]]), len(head)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_last_sentence_longer_than_the_overlap_is_repeated_whole(lang: str) -> None:
    text, max_chars = _text(lang, _LONG[lang])
    spans = chunk_spans(text, max_chars=max_chars)
    assert len(spans) == 2
    assert text[spans[0][0] : spans[0][1]].endswith(_LONG[lang])
    assert len(_LONG[lang]) > 150
    assert text[spans[1][0] :].startswith(_LONG[lang])  # the whole sentence, not its tail


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_last_sentence_longer_than_half_a_chunk_is_not_repeated(lang: str) -> None:
    """The other side: no room for it in the next chunk, so no overlap, and never bare words."""
    long = _LONG[lang]
    head = f"{_FILLER[lang][0]} {long}"
    text = f"{head} {_NEXT[lang]} {_FILLER[lang][1]}"
    spans = chunk_spans(text, max_chars=len(head), overlap=100)
    assert len(long) > len(head) // 2 and spans[0] == (0, len(head))
    assert text[spans[1][0] :].startswith(_NEXT[lang])  # not the tail of `long`


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_short_last_sentence_still_overlaps_as_before(lang: str) -> None:
    """Sentences that fit the overlap are repeated as before (not only the last one)."""
    short = _FILLER[lang][0][:60].rsplit(" ", 1)[0] + "."
    text, max_chars = _text(lang, f"{short} {short.upper()}")
    spans = chunk_spans(text, max_chars=max_chars, overlap=149)
    assert len(spans) == 2
    assert text[spans[1][0] :].startswith(f"{short} {short.upper()}")


def test_a_piece_of_an_over_long_sentence_is_never_repeated() -> None:
    """A sentence longer than a chunk is cut at words; none of its pieces is an overlap."""
    words = " ".join(f"word{n}" for n in range(200))  # about 1400 characters, one sentence
    text = f"{_FILLER['en'][0]} {words}. {_NEXT['en']}"
    spans = chunk_spans(text, max_chars=300, overlap=100)
    ends = [e for _, e in spans]
    for s, _ in spans[1:]:
        assert s >= max(e for e in ends if e <= s) if any(e <= s for e in ends) else True
    # no two chunks share a character: without whole sentences there is no overlap at all
    assert all(spans[n + 1][0] >= spans[n][1] for n in range(len(spans) - 1))


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with offline_memory(database_url, tmp_path / "data", dim=64) as svc:
        yield svc


def _claims(svc: MemoryService) -> list[str]:
    with svc.db.connection() as conn:
        return [str(r["claim"]) for r in conn.execute("SELECT claim FROM pm_atom").fetchall()]


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_repeated_sentence_is_stored_once_and_the_next_one_too(
    service: MemoryService, lang: str
) -> None:
    """Through ingest: the repeat is an exact duplicate (stored alone once), no tail of it is
    stored, and the sentence after it is stored (it was lost with the tail it had been joined
    to). A claim that joins the repeated sentence with the next one is whole sentences too."""
    text, max_chars = _text(lang, _LONG[lang], size=1195)
    assert 1200 - len(_NEXT[lang]) < max_chars <= 1200  # the default chunk size cuts there
    assert text[chunk_spans(text)[1][0] :].startswith(_LONG[lang])
    service.ingest(IngestRequest(source=text, kind="text", title="Volga"))
    claims = _claims(service)
    holding = [c for c in claims if _LONG[lang][-40:] in c]
    assert holding and all(_LONG[lang][:40] in c for c in holding)  # never a tail
    assert sum(c.endswith(_LONG[lang]) for c in holding) == 1
    assert any(_NEXT[lang] in c for c in claims)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_sentence_leaning_on_the_previous_chunks_last_is_stored_with_it(
    service: MemoryService, lang: str
) -> None:
    """The second chunk opens on "Они ..." / "They ..."; its antecedent closes the first chunk
    and is longer than the overlap. Before, the next chunk repeated that sentence's last words:
    the tail and the leaning sentence joined to it were dropped as repeated by chunk overlap,
    and the leaning sentence was lost. Now it is read with its antecedent and stored with it."""
    text, max_chars = _text(lang, _LONG[lang], size=1195, after=_LEANING)
    assert 1200 - len(_LEANING[lang]) < max_chars <= 1200  # the default chunk size cuts there
    service.ingest(IngestRequest(source=text, kind="text", title="Volga"))
    claims = _claims(service)
    joined = [c for c in claims if _LEANING[lang] in c]
    assert len(joined) == 1 and _LONG[lang] in joined[0]
    assert not any(_LONG[lang][-40:] in c and _LONG[lang][:40] not in c for c in claims)
