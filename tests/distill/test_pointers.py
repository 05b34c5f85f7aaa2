"""What `is_pointer` takes for a sentence that only points elsewhere (a reference, "see ...",
"follow the guide", a category line) and what it leaves as a statement: one table, both sides."""

from __future__ import annotations

import pytest

from pegas_memory.distill.pointers import is_pointer
from tests.both_sides import both_sides


@pytest.mark.parametrize(
    ("sentence", "holds"),
    both_sides(
        holds=[
            # a sentence that only says where is a pointer
            "See core-signals-list for a list of all built-in signals.",  # 13131: 26fa8de4b0
            "See the Cookbook for a complete list of recipes.",
            "Please see Core Signals for an overview of the signals Flask sends.",
            "Note the limitations described in signals-sending and the flask.request_tearing_down"
            " signal.",  # 13131: 282a5b55b0
            "Note the caveats discussed in the Sending Signals section.",
            "For more information, see Sending Signals.",
            "Список всех встроенных сигналов см. в разделе Core Signals.",
            "Ограничения этого подхода см. в главе 3.",
            "См. раздел Core Signals.",
            # follow the guide is a pointer
            "Follow our installing guide for more information.",
            "Следуйте инструкциям в руководстве.",
            "Folgen Sie der Anleitung für weitere Informationen.",
            "For information about the governance of the express.js project, see GOVERNANCE.md.",
            "If you discover a security vulnerability in Express, please see Security Policies.",
            "Если вы нашли уязвимость, читайте раздел о безопасности.",
            "Wenn Sie eine Lücke finden, lesen Sie die Dokumentation.",
            # category lines and reference entries are pointers
            "Категория:Массовые убийства Категория:Реформация во Франции",
            "Categories: Mass murder | Huguenots",
            "Kategorie: Stadt in Bayern",
            "↑ Закон Московской области № 123/2004-ОЗ.",
        ],
        fails=[
            # a sentence that states something is no pointer
            # it points AND states something
            "The signal is deprecated; see core-signals-list for a list of all built-in signals.",
            "Note the limitations described in the paper do not apply to embedded engines.",
            "Note that signals are sent synchronously after every request.",
            "Note the limitations of thread-local sessions in asynchronous code.",
            "See how the list of recipes grows with every release of the library and its users.",
            "Сигнал устарел, см. раздел Core Signals.",
            "Ньютон открыл закон всемирного тяготения (см. раздел 3).",
            "Сигналы отправляются синхронно после каждого запроса.",
            # follow without a destination is no pointer
            "Follow-up visits showed no relapse in 12 patients.",
            "Следуйте за рекой до моря.",
            "Folgen Sie dem Fluss bis zum Meer.",
            "If the server is busy, requests wait in a queue of 512 entries.",
            "Если сервер занят, запросы ждут в очереди из 512 элементов.",
            "Wenn der Server ausgelastet ist, warten Anfragen in einer Warteschlange.",
            # a sentence about categories is no pointer
            "Категория лиц, имеющих право на льготу, определяется законом.",
            "Category theory studies structures and the maps between them.",
            "Die Kategorie der Mengen ist vollständig.",
        ],
    ),
)
def test_a_sentence_that_only_points_elsewhere_is_a_pointer_and_a_statement_is_not(
    sentence: str, holds: bool
) -> None:
    assert bool(is_pointer(sentence)) is holds
