"""Java's rules for what a call in a class body refers to, over the repository's names.

Two lookups the resolver by syntax (:mod:`code_memory.graph`) makes for Java only: the
constructor a class instance creation calls (JLS 15.9.3: ``new X(..)`` calls a constructor of
X, whichever way X is spelled: ``X``, an imported ``X``, ``Outer.Inner``), and the class a bare
method call searches (JLS 15.12.1: the innermost enclosing class that has a method of that name,
its own or inherited, then the classes around it outward). The declared types of fields, which
type ``Type.field.m()`` and ``recv.field.m()``, are followed with receiver chains
(:meth:`code_memory.chains.Chains.field_type`). Pure logic over the
:class:`~code_memory.names.NameIndex`.
"""

from __future__ import annotations

from pegas_memory.code_memory.names import NameIndex


def constructor_of(index: NameIndex, dst: str, arity: int | None) -> str:
    """``dst`` itself, or when it is a class (a call resolved to a class is an instance creation
    in Java) the constructor taking ``arity`` arguments it declares; a class that declares none
    stays the class (its implicit constructor is no symbol)."""
    if dst not in index.java_types:
        return dst
    name = dst.rpartition(".")[2]
    declared = index.members.get(dst, {}).get(name)
    if not declared:
        return dst
    found = index.member(dst, name, arity)
    return found if found in declared else declared[0]


def enclosing_method(index: NameIndex, owner: str, name: str, arity: int | None) -> str | None:
    """The method a bare call ``name(..)`` written in class ``owner`` calls (JLS 15.12.1): a
    method of that name of ``owner`` (its own or inherited) or, when it has none, of the class
    around it, outward; None when no enclosing class has one. The innermost class that has a
    method of that name is the one searched, even when none of its methods takes ``arity``
    arguments (the call does not compile then; the nearest is still the best answer). A class
    (a nested class of that name, ``this(..)`` of a constructor) is never the answer."""
    current: str | None = owner
    while current is not None:
        if index.member(current, name) is not None:
            found = index.member(current, name, arity)
            return None if found in index.types else found
        current = index.enclosing_type(current.rpartition(".")[0])  # a local class's too
    return None
