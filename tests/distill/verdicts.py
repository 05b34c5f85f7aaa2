"""Two verdicts of a case row read as one yes/no answer (a step and no fact, a presentative and a
pointer), for the checks of the stage runners."""

from __future__ import annotations


def agree(*verdicts: object) -> bool | None:
    """True when every verdict holds, False when none does, and None (which no label is) when they
    disagree: a `holds` row must pass every verdict and a `fails` row must fail every one."""
    answers = {bool(verdict) for verdict in verdicts}
    return answers.pop() if len(answers) == 1 else None
