"""Russian claims that lean on the sentence before, and carries that name the wrong thing (issue
15, the Russian junk of graded samples 7171 and 8181): each rule fires and does not fire, in
Russian and in English (`distill.context`, `distill.carry`)."""

from __future__ import annotations

from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext
from tests.distill.offline_chunk import claims

_IDEAS = "В конце 1960-х годов вновь возникли идеи о том, что динозавры были теплокровными."
_ORBIT = (
    "Впервые элементы орбиты Урана были вычислены в 1783 году Лапласом, однако со временем были"
    " выявлены несоответствия расчётных и наблюдаемых положений планеты."
)


def _claims(text: str, heading: str, language: str | None) -> list[str]:
    return claims(text, None, (heading,), language)


def test_the_sentences_graded_junk_join_the_one_they_lean_on() -> None:
    """Seed 8181's "ошибки в расчётах" and "Все началось ...": one atom with the sentence
    before, its quote one verbatim span; the paragraph's first sentence is not joined to."""
    text = (
        "Период обращения Урана составляет 84 года. " + _ORBIT + " В 1841 году британец Джон"
        " Кауч Адамс первым предположил, что ошибки в расчётах вызваны воздействием ещё не"
        " открытой планеты.\n\n" + _IDEAS + " Все началось с работы Джона Острома."
    )
    context = ChunkContext(title=None, heading_path=("Уран",), language="ru")
    atoms = OfflineDistiller().distill(text, context)
    quotes = [text[a.quote_start : a.quote_end] for a in atoms]
    assert quotes[0] == "Период обращения Урана составляет 84 года."
    assert quotes[1].startswith("Впервые элементы орбиты") and quotes[1].endswith("планеты.")
    assert "ошибки в расчётах" in quotes[1]
    assert quotes[2] == _IDEAS + " Все началось с работы Джона Острома."
    assert len(atoms) == 3
