"""Cross-script prefixes (pure)."""

from __future__ import annotations

import pytest

from pegas_memory.search.translit import cross_script_prefix, cyrillic_to_latin, latin_to_cyrillic


@pytest.mark.parametrize(
    ("latin", "russian"),
    [
        ("Washington", "вашингтон"),
        ("Denver", "денвер"),
        ("Chicago", "чикаго"),
        ("Sherlock", "шерлок"),
        ("Cecil", "цецил"),
        ("Jefferson", "джефферсон"),
    ],
)
def test_latin_to_cyrillic(latin: str, russian: str) -> None:
    assert latin_to_cyrillic(latin) == russian


def test_cyrillic_to_latin() -> None:
    assert cyrillic_to_latin("Щукин") == "shchukin"
    assert cyrillic_to_latin("Юрьев") == "yurev"


def test_prefixes_drop_the_inflected_ending() -> None:
    assert cross_script_prefix("Tesla") == "тесл"  # matches "Теслы", "Тесле"
    assert cross_script_prefix("Denver") == "денве"  # matches "Денвера"
    assert cross_script_prefix("Москва") == "moskv"
    assert "Денвера".lower().startswith(cross_script_prefix("Denver") or "?")


@pytest.mark.parametrize("word", ["the", "ок", "abc1", "iPhoneЖ", "数据", "", "x" * 3])
def test_no_prefix_for_short_mixed_or_other_scripts(word: str) -> None:
    assert cross_script_prefix(word) is None
