"""What `match_definition` takes for a definition, and the term it records: one table of the
sentences that define a term (with the term) and of those that define nothing (None), in the
languages the offline distiller reads."""

from __future__ import annotations

import pytest

from pegas_memory.distill.patterns import match_definition


@pytest.mark.parametrize(
    ("sentence", "term"),
    [
        # definition patterns
        ("A hash function is defined as a map from data to fixed-size values.", "hash function"),
        ("RAM stands for random-access memory.", "RAM"),
        ("Photosynthesis — the process by which plants make sugar from light.", "Photosynthesis"),
        ("Энтропия — это мера неопределённости.", "Энтропия"),
        ("Энтропия - это мера неопределённости системы.", "Энтропия"),
        ("Энтропией называется мера неопределённости системы.", "Энтропией"),
        ("Множество точек, равноудалённых от центра, называется окружностью.", "окружностью"),
        ("Под энтропией понимается мера хаоса.", "энтропией"),
        (
            "Фотосинтез (от греч. φῶς — свет и σύνθεσις — соединение) — процесс синтеза.",
            "Фотосинтез",
        ),
        ("Производная определяется как предел отношения приращений.", "Производная"),
        # definition patterns en ru de
        ("A⊆X heißt abgeschlossen, wenn X\\A offen ist.", "abgeschlossen"),
        ("Die Elemente von T heißen offene Teilmengen von X.", "offene Teilmengen von X"),
        (
            "Sei X ein Raum. Dann heißt X zusammenhängend, wenn es keine Zerlegung gibt.",
            "zusammenhängend",
        ),
        ("Unter einer Metrik versteht man eine Abstandsfunktion auf einer Menge.", "einer Metrik"),
        ("Eine Abbildung f nennt man stetig, wenn Urbilder offener Mengen offen sind.", "stetig"),
        ("Ein solcher Raum wird als kompakt bezeichnet.", "kompakt"),
        ("We call a map continuous if preimages of open sets are open.", "continuous"),
        ("A space is said to be connected if it is not a union of two open sets.", "connected"),
        ("Such a space is called compact if every open cover has a finite subcover.", "compact"),
        # definitions record their term
        # Russian Wikipedia leads: the term without its bracketed dates, names or stress marks.
        ("Иван Петров (1900—1970) — советский писатель.", "Иван Петров"),
        ("Волга — река в европейской части России.", "Волга"),
        (
            "Пер Ла́герквист (Swedish: Pär Lagerkvist) (23 мая 1891 — 11 июля 1974) — шведский "
            "писатель, лауреат Нобелевской премии по литературе (1951).",
            "Пер Лагерквист",
        ),
        (
            "Курт Леговец, также Леговек[1] (English: Kurt Lehovec, родился 12 июля 1918 года) — "
            "чешский, впоследствии американский, физик.",
            "Курт Леговец",
        ),
        ("Псайлок (English: Psylocke), она же Элизабет Брэддок — персонаж комиксов.", "Псайлок"),
        ("Как правило, АЦП — электронное устройство, преобразующее напряжение в код.", "АЦП"),
        (
            "Киборг (сокращение от English: cybernetic organism — кибернетический организм) — в "
            "медицине — биологический организм, содержащий электронные компоненты.",
            "Киборг",
        ),
        (
            "Кампания в Нью-Йорке и Нью-Джерси (1776—1777) — 9-месячная кампания британской армии.",
            "Кампания в Нью-Йорке и Нью-Джерси",
        ),
        (
            "«СКБ-Банк Аре́на» (до 24 июля 2015 года назывался «Уралма́ш») — футбольный стадион в "
            "Екатеринбурге.",
            "СКБ-Банк Арена",
        ),
        (
            "Потсдамская конференция (также Берлинская конференция) — третья и последняя встреча "
            "лидеров «большой тройки» — трёх крупнейших держав коалиции.",
            "Потсдамская конференция",
        ),
        # "X — это Y", "X называется Y", "Под X понимают Y".
        ("Строительство — это процесс сооружения здания или инфраструктуры.", "Строительство"),
        (
            "Шиитские общины Средней Азии (потомки населения Ирана) традиционно называются "
            "«иранцами» (Tajik: эронӣ).",
            "иранцами",
        ),
        ("Под энтропией понимают меру хаоса системы.", "энтропией"),
        # English leads: what X is, with a genus after "a"/"an".
        ("John Smith (born 1950) is an American writer.", "John Smith"),
        ("The Volga is a river in Russia.", "Volga"),
        (
            "Rett syndrome (RTT) is an inherited neurodevelopmental disorder of females.",
            "Rett syndrome",
        ),
        (
            "BACKGROUND Long non-coding RNAs (lncRNAs) are a sub-class of the non-coding RNA "
            "repertoire.",
            "Long non-coding RNAs",
        ),
        (
            "A subset of a metric space is called open if it contains a ball around each point.",
            "open",
        ),
        # German.
        ("Unter einer Metrik versteht man eine Abbildung mit drei Eigenschaften.", "einer Metrik"),
        (
            "Eine Teilmenge U heißt offen, wenn sie jeden ihrer Punkte mit einer Kugel enthält.",
            "offen",
        ),
        # definitions with a dash stay definitions
        (
            "Теория множеств — раздел математики, изучающий общие свойства множеств.",
            "Теория множеств",
        ),
        ("Директор — должностное лицо, возглавляющее организацию.", "Директор"),
        ("Энтропия — мера неопределённости системы.", "Энтропия"),
        # a genus after a judgement stays a definition
        (
            "Bioinformatics is a rapidly growing field that combines biology and computing.",
            "Bioinformatics",
        ),
        ("Python is a popular programming language.", "Python"),
        ("Парестезия — один из видов расстройства чувствительности.", "Парестезия"),
        ("Энтропия — мера неопределённости состояния системы.", "Энтропия"),
        # a term that ends like a verb stays a term
        ("Красная стрела — фирменный пассажирский поезд.", "Красная стрела"),
        ("Вирусный гепатит — воспалительное заболевание печени.", "Вирусный гепатит"),
        ("Энтропия — мера беспорядка системы.", "Энтропия"),
        # not definitions
        ("This is a problem for everyone involved.", None),
        ("It means that the build failed again.", None),
        ("Это было давно и неправда.", None),
        ("Москва — Санкт-Петербург: поезд идёт четыре часа.", None),
        ("The term refers to several things at once.", None),
        # not definitions
        # A superlative is a fact about the Volga, not what the Volga is.
        ("The Volga is the longest river in Europe.", None),
        # An attribute of something ("of"), and an evaluative genus ("a common cause of").
        ("The integrity of sperm chromatin is a clinical indicator of male fertility.", None),
        ("Hypoxia is a common cause of cell death.", None),
        # A value with a name after a dash is no genus; whose capital is not said.
        ("Столица — город Ораньестад.", None),
        # An exclamation after the dash is no definition.
        ("Kjift – not at all! A blind text like this gives you information about the font.", None),
        # An aim is no definition of "Цель".
        ("Цель исследования — изучить влияние курения на давление.", None),
        # "... называют местом действия X" after a clause is no definition.
        (
            "Действие игр происходит в крупном городе; для японских версий это просто город, тогда "
            "как другие версии называют местом действия Лос-Анджелес.",
            None,
        ),
        # A lead-like dash with a name, not a genus, after the bracket.
        ("Иван Петров (1900—1970) — Москва.", None),
        # An approximate quantity after the dash is a value, not a genus.
        ("Численность — около 60 тысяч человек.", None),
    ],
)
def test_a_definition_gives_its_term_and_any_other_sentence_none(
    sentence: str, term: str | None
) -> None:
    found = match_definition(sentence)
    assert (found[0] if found is not None else None) == term, found
