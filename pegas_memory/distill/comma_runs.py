"""A run of empty list items where the source lost its link text (pure logic; `distill.standalone`
drops such a claim as "damaged: words lost in the source").

Wikipedia text whose links were lost keeps the commas between them: "Михаил Михайлович
Достоевский (...) — русский , , ,  журналов." (a writer, translator, publisher of journals: the
words for what he was are gone). A word, then two commas or more with nothing but spaces around
and between them, is such a run: no sentence writes an empty item twice. One " , " is left to
`standalone.damaged_gap`, which reads whether the lost word was needed; a run inside brackets (the
life dates' places: "(1849, , Российская империя — , , УССР)") is an aside lost, the claim intact.
"""

from __future__ import annotations

import re

_RUN = re.compile(r"[^\W\d_][\w-]*[ \t\u00a0]+,(?:[ \t\u00a0]*,)+")


def comma_run(claim: str) -> bool:
    """Whether the claim has a run of empty items outside brackets (module docstring)."""
    for m in _RUN.finditer(claim):
        before = claim[: m.start()]
        if before.count("(") <= before.count(")") and before.count("[") <= before.count("]"):
            return True
    return False
