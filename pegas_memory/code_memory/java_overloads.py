"""Java's choice among overloads of one arity, by the argument types a call site shows.

JLS 15.12.2 in the part a resolver by syntax can follow: a method is applicable when each
argument converts to its parameter, first by identity and widening only (phase 1: ``int`` to
``long``, ``Integer`` to ``Number``), then with boxing and unboxing too (phase 2: ``int`` to
``Integer`` or ``Object``); among the applicable methods of the first phase that has any, the
most specific one (each parameter a subtype of the other's: ``long`` before ``float`` before
``double``) is called. Varargs (phase 3) is the arity fallback in :mod:`code_memory.names`.

Types are simple names as the call site and the signature write them ("" unknown), a class of
the repository by its qualified name. Primitives, their boxes and a few JDK types are known
(String, Class and the boxes are final, so they convert to nothing but their listed
supertypes); a class of the repository is known through ``supertypes`` (a
:class:`Hierarchy`): it converts to the types it extends or implements, its own and the
library's (those by simple name); only a class of the repository can extend one, so a JDK
value never converts to a repository class, nor a repository class to another one it does not
extend. A type variable, or a library type a repository class does not name among its
supertypes while one of them is a library type, makes a conversion unknown, and a call with any
unknown conversion is left to the caller's old scoring, minus the overloads that certainly do
not apply (a varargs one stays: it may still win in phase 3). Pure logic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol


class Hierarchy(Protocol):
    """What is known of the repository's classes."""

    def supertypes(self, name: str) -> tuple[frozenset[str], bool] | None:
        """A repository class's supertypes: (every type it extends or implements,
        transitively, the repository's by qualified name and the library's by simple name;
        whether all of them are the repository's, so none is unknown), or None for a type the
        repository does not declare."""

    def library(self, name: str) -> bool:
        """Whether ``name`` (as written) is certainly no class of the repository: no class
        of the repository has that simple name."""


# Widening primitive conversions (JLS 5.1.2): the types each primitive widens to.
_WIDENS: dict[str, frozenset[str]] = {
    "byte": frozenset({"short", "int", "long", "float", "double"}),
    "short": frozenset({"int", "long", "float", "double"}),
    "char": frozenset({"int", "long", "float", "double"}),
    "int": frozenset({"long", "float", "double"}),
    "long": frozenset({"float", "double"}),
    "float": frozenset({"double"}),
    "double": frozenset(),
    "boolean": frozenset(),
}
_BOXES = {
    "byte": "Byte",
    "short": "Short",
    "char": "Character",
    "int": "Integer",
    "long": "Long",
    "float": "Float",
    "double": "Double",
    "boolean": "Boolean",
}
_UNBOXES = {box: prim for prim, box in _BOXES.items()}
_COMMON = frozenset({"Object", "Comparable", "Serializable", "java.io.Serializable"})
# The JDK types whose supertypes are known here (all final but Number and Object).
_SUPERS: dict[str, frozenset[str]] = {
    **{
        box: _COMMON | ({"Number"} if box not in ("Boolean", "Character") else set())
        for box in _UNBOXES
    },
    "String": _COMMON | {"CharSequence"},
    "Number": frozenset({"Object", "Serializable", "java.io.Serializable"}),
    "CharSequence": frozenset({"Object"}),
    "Class": frozenset(
        {"Object", "Serializable", "Type", "GenericDeclaration", "AnnotatedElement"}
    ),
    "Object": frozenset(),
}

_PHASE_STRICT, _PHASE_LOOSE = 1, 2
# Final JDK classes: every supertype they have is listed above, so no other type applies.
_FINAL = frozenset({"String", "Class", *_UNBOXES})


def type_variable(written: str) -> bool:
    """A type variable by the naming convention (``T``, ``K``, ``V``, ``T2``), so unknown."""
    return bool(re.fullmatch(r"[A-Z][A-Z0-9]?(\.\.\.|\[\])?", written))


def _conversion(arg: str, param: str, supertypes: Hierarchy | None) -> int | str | None:
    """The phase in which ``arg`` converts to ``param`` (0 identity, 1 strict, 2 loose), None
    when it cannot, "?" when the types known here cannot tell."""
    param = param[:-3] + "[]" if param.endswith("...") else param
    if arg == param:
        return 0
    if arg == "null":  # the null type converts to every reference type
        return None if param in _WIDENS else _PHASE_STRICT
    if supertypes is not None:
        known = _repository_conversion(arg, param, supertypes)
        if known != "-":
            return known
    if arg in _WIDENS:
        if param in _WIDENS:
            return _PHASE_STRICT if param in _WIDENS[arg] else None
        box = _BOXES[arg]
        if param == box or param in _SUPERS[box]:
            return _PHASE_LOOSE
        return None if param in _SUPERS or param.endswith("[]") else "?"
    if param in _WIDENS:
        prim = _UNBOXES.get(arg)
        if prim is not None:
            return _PHASE_LOOSE if param == prim or param in _WIDENS[prim] else None
        return None if arg in _SUPERS else "?"
    if param.endswith("[]") and not arg.endswith("[]"):
        return None  # a class type never converts to an array type
    if arg.endswith("[]"):
        return _PHASE_STRICT if param in ("Object", "Cloneable", "Serializable") else "?"
    if arg in _SUPERS:
        if param in _SUPERS[arg] or param == "Object":
            return _PHASE_STRICT
        return None if param in _SUPERS or arg in _FINAL else "?"
    return _PHASE_STRICT if param == "Object" else "?"


def _repository_conversion(arg: str, param: str, supertypes: Hierarchy) -> int | str | None:
    """``_conversion`` when either side is a class of the repository ("-" when neither is)."""
    declared = supertypes.supertypes(arg)
    if declared is None:
        if supertypes.supertypes(param) is None:
            return "-"
        # No primitive, array or library type converts to a repository class (a library is
        # compiled without the repository: none of its classes extends one); a name that
        # may be a repository class not resolved here may.
        known = arg in _WIDENS or arg in _SUPERS or arg.endswith("[]")
        return None if known or supertypes.library(arg) else "?"
    supers, closed = declared
    if param in supers or param == "Object":
        return _PHASE_STRICT
    if param in _WIDENS or param.endswith("[]") or param in _FINAL:
        return None  # a class never unboxes, is no array, extends no final JDK class
    if supertypes.supertypes(param) is not None:
        return None  # only the repository's classes extend one, and all of them are known
    return None if closed else "?"


def _varargs(params: Sequence[str]) -> bool:
    return bool(params) and params[-1].endswith("...")


def _subtype(a: str, b: str, supertypes: Hierarchy | None) -> bool:
    """Whether parameter type ``a`` is known to be a subtype of ``b`` (JLS 4.10)."""
    if a == b:
        return True
    declared = supertypes.supertypes(a) if supertypes is not None else None
    if declared is not None:
        return b == "Object" or b in declared[0]
    if a in _WIDENS:
        return b in _WIDENS[a]
    return b != "" and b not in _WIDENS and (b == "Object" or b in _SUPERS.get(a, ()))


def applicable(
    args: Sequence[str], params: Sequence[str], supertypes: Hierarchy | None = None
) -> int | str | None:
    """The phase a method with ``params`` is applicable in for ``args`` (1 or 2), None when it
    is not, "?" when it may be (an unknown type on either side)."""
    if len(args) != len(params):
        return "?"
    steps = [
        _conversion(a, p, supertypes) if a and p else "?" for a, p in zip(args, params, strict=True)
    ]
    if None in steps:
        return None
    if "?" in steps:
        return "?"
    return max([_PHASE_STRICT, *(s for s in steps if isinstance(s, int))])


def choose(
    args: Sequence[str],
    overloads: Sequence[tuple[str, Sequence[str]]],
    supertypes: Hierarchy | None = None,
) -> list[str]:
    """The overloads (name, parameter types) a call with ``args`` may bind to: the one Java
    picks when every conversion is known, else all that are not certainly inapplicable (all of
    them when none is known to apply, so a type read wrong here loses nothing)."""
    phases = {name: applicable(args, params, supertypes) for name, params in overloads}
    possible = [(n, p) for n, p in overloads if phases[n] is not None]
    if not possible:
        return [n for n, _ in overloads]
    if any(phases[n] == "?" for n, _ in possible):
        # A varargs method ruled out here may still be Java's pick by phase 3 when the ones
        # that may apply do not: it stays.
        return [n for n, p in overloads if phases[n] is not None or _varargs(p)]
    first = min(phases[n] for n, _ in possible)  # type: ignore[type-var]
    chosen = [(n, p) for n, p in possible if phases[n] == first]
    best = [
        n
        for n, p in chosen
        if all(
            all(_subtype(a, b, supertypes) for a, b in zip(p, q, strict=True))
            for m, q in chosen
            if m != n and len(q) == len(p)
        )
    ]
    return best if len(best) == 1 else [n for n, _ in chosen]
