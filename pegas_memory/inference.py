"""The design card's name for `pegas_memory.reasoning.inference` (re-exports its public names)."""

from pegas_memory.reasoning.inference import (
    Edge,
    InferenceResult,
    Limits,
    Rule,
    RuleSet,
    infer,
    parse_rule,
    reconcile,
)

__all__ = [
    "Edge",
    "InferenceResult",
    "Limits",
    "Rule",
    "RuleSet",
    "infer",
    "parse_rule",
    "reconcile",
]
