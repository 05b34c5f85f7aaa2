"""Calls through receivers typed by return types: ``SearcherBuilder::new().build()`` (Rust),
``new GsonBuilder().serializeNulls().create()`` (Java).

A receiver is followed segment by segment: a type path (``TypesBuilder``,
``ignore::types::TypesBuilder``) or a bare call (``tmpdir()``) gives the first type, each method
call the type its signature returns (``-> Searcher``, ``Self``; Java ``public Builder
addMethod(..)``, a ``Builder`` declared inside the method's class being that nested type),
each ``unwrap``/``expect``/``?`` takes the ``Ok``/``Some`` type out of a ``Result``/``Option``
(or a crate's ``CliResult<T>`` alias), ``Box``/``Arc``/``Rc`` are looked through; a chain
from ``self``/``this`` starts at the type the call is written in. When any step is unknown (a
generic parameter, a trait's associated type, a library's type) the call stays unresolved:
nothing is guessed. Pure logic over the :class:`~code_memory.names.NameIndex`; the walker
writes the receivers (:mod:`lang_rust`; ``Some(x)`` / ``Ok(x)`` of a ``match`` or ``if let``
bind ``x`` to the unwrapped value).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pegas_memory.code_memory.lang_rust import clean_type
from pegas_memory.code_memory.model import FileIndex
from pegas_memory.code_memory.names import NameIndex, base_name

_UNWRAP = frozenset({"unwrap", "expect", "unwrap_or_default", "unwrap_or_else", "unwrap_or"})
_WRAPPERS = frozenset({"Result", "Option"})
_SMART = frozenset({"Box", "Arc", "Rc"})
_OPEN, _CLOSE = "([{", ")]}"


@dataclass(frozen=True, slots=True)
class Segment:
    name: str
    call: bool  # ``name(...)``
    tried: bool  # ``name(...)?``


def split_chain(text: str) -> list[Segment] | None:
    """``a::B::new(x).build()?.run`` -> segments a, B, new(), build()?, run; None when the text
    is not a plain chain (a cast, a generic qualified path, unbalanced brackets). A leading
    ``::`` (``::config::Config::new()``, the crate root in the 2015 edition) is dropped: the
    path resolves as any other."""
    text = text.removeprefix("::")
    parts: list[str] = []
    depth, start, i, quote = 0, 0, 0, ""
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c == '"':
            quote = c
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0 and (c == "." or text.startswith("::", i)):
            parts.append(text[start:i])
            i += 2 if c == ":" else 1
            start = i
            continue
        i += 1
    if depth or quote:
        return None
    parts.append(text[start:])
    out: list[Segment] = []
    for part in parts:
        if part.startswith("<") and part.endswith(">"):
            continue  # a turbofish ``Vec::<u8>::new``
        found = re.match(r"([A-Za-z_]\w*)(::<.*>)?", part)
        if found is None:
            return None
        rest = part[found.end() :]
        if not _call_suffix(rest.rstrip("?")):
            return None  # ``self[0].len()``: an index or a cast, not a name or a call
        out.append(Segment(found.group(1), rest.startswith("("), rest.endswith("?")))
    return out


def _call_suffix(rest: str) -> bool:
    """Whether what follows a segment's name is nothing or one argument list (and a comment)."""
    if not rest:
        return True
    if rest[0] != "(":
        return False
    depth, quote, escaped = 0, False, False
    for i, c in enumerate(rest):
        if quote:
            quote = escaped or c != '"'
            escaped = not escaped and c == "\\"
            continue
        quote = c == '"'
        depth += (c in _OPEN) - (c in _CLOSE)
        if depth == 0:  # a comment may follow (``.classBuilder("X") // why``)
            return i == len(rest) - 1 or rest.startswith(("//", "/*"), i + 1)
    return False


def _generic_args(text: str) -> list[str]:
    inner = text[text.index("<") + 1 : text.rindex(">")] if "<" in text else ""
    args, depth, start = [], 0, 0
    for i, c in enumerate(inner):
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        elif c == "," and depth == 0:
            args.append(inner[start:i].strip())
            start = i + 1
    if inner.strip():
        args.append(inner[start:].strip())
    return args


def _wrapper(name: str) -> bool:
    """``Result``, ``Option`` and the crate's own result aliases (``CliResult<T>``,
    ``io::Result<T>``), whose first type argument ``?`` or an unwrap takes out."""
    return name in _WRAPPERS or name.endswith("Result")


def _outer(text: str) -> str:
    return clean_type(text).rsplit("::", 1)[-1]


def returns(signature: str | None, name: str = "") -> str | None:
    """The return type a signature writes: Rust ``pub fn new() -> Self`` -> ``Self``; Java
    ``public GsonBuilder create(..)`` -> ``GsonBuilder`` (``name`` is the method's name)."""
    if not signature:
        return None
    if "->" in signature:
        return signature.rpartition("->")[2].split(" where ", 1)[0].strip().rstrip("{").strip()
    found = re.search(rf"([A-Za-z_][\w.$]*)(<[^()]*>)?\s+{re.escape(name)}\s*\(", signature)
    if found is None or found.group(1) in _JAVA_WORDS:
        return None
    return found.group(1)


_JAVA_WORDS = frozenset({"void", "public", "private", "protected", "static", "final", "new"})


class Chains:
    """Resolution of receiver chains against one repository's names (Rust)."""

    def __init__(self, index: NameIndex, java_modules: frozenset[str] = frozenset()) -> None:
        self.index = index
        self.java_modules = java_modules

    def java_type(self, module: str, written: str, scope: str | None = None) -> str | None:
        """A Java type name as ``module`` sees it from inside type ``scope``: a member type of
        ``scope`` or of a type around it (``Builder`` returned by ``TypeSpec.classBuilder``
        is ``TypeSpec.Builder``), a type of the package, an import, a full name; then its
        nested types (``CodeBlock.Builder``)."""
        index = self.index
        parts = written.split("<", 1)[0].replace("::", ".").strip().split(".")
        if not all(parts):
            return None
        full = index.dotted.get(".".join(parts))
        if len(parts) > 1 and full in index.types and parts[0][:1].islower():
            return full  # ``com.squareup.javapoet.TypeSpec``
        base: str | None = None
        while scope is not None and base is None:
            if scope.rsplit(".", 1)[-1] == parts[0]:
                base = scope
            else:  # a member type of the class or one it inherits (JLS 8.5)
                base = self._member_type(scope, parts[0])
            outer = scope.rpartition(".")[0]
            scope = outer if outer in index.types else None
        package = index.packages.get(module)
        found = index.members.get(package, {}).get(parts[0]) if package else None
        if base is None and found and found[0] in index.types:
            base = found[0]
        imported = index.imports_of.get(module, {}).get(parts[0])
        if base is None and imported is not None:
            hit = index.dotted.get(imported)
            base = hit if hit in index.types else None
        for part in parts[1:]:
            base = f"{base}.{part}" if base else None
            if base not in index.types:
                return None
        return base

    def _lineage(self, owner: str) -> Iterator[str]:
        """``owner``, then the types it extends and implements, breadth first."""
        queue, seen = [owner], {owner}
        while queue:
            current = queue.pop(0)
            yield current
            for parent in self.index.parents.get(current, []):
                if parent not in seen:
                    seen.add(parent)
                    queue.append(parent)

    def _member_type(self, owner: str, name: str) -> str | None:
        """Java: the member type ``name`` of ``owner`` or of a type it extends (JLS 8.5:
        ``Method`` inside a class implementing ``Connection`` is ``Connection.Method``)."""
        found = (f"{t}.{name}" for t in self._lineage(owner))
        return next((t for t in found if t in self.index.types), None)

    def field_type(self, owner: str, name: str) -> str | None:
        """Java: the repository type of field ``name`` of class ``owner`` or of a type it
        extends, as the declaring class names it; None for a library type, a type variable or
        no such field."""
        for current in self._lineage(owner):
            declared = self.index.java_fields.get(current, {}).get(name)
            if declared is not None:
                module, written = declared
                return self.java_type(module, written, current)
        return None

    def field_declared(self, owner: str, name: str) -> str | None:
        """Java: the declared type of field ``name`` of class ``owner`` or of a type it
        extends: a repository type by its qualified name, else as written (``String``,
        ``int``); None when no such field is declared."""
        for current in self._lineage(owner):
            declared = self.index.java_fields.get(current, {}).get(name)
            if declared is not None:
                module, written = declared
                return self.java_type(module, written, current) or written
        return None

    def java_path(self, module: str, names: list[str], scope: str | None) -> str | None:
        """Java: the type a dotted receiver without calls gives: its longest prefix naming a
        type (``Evaluator.Tag``), a type's qualified ``this`` (``Attributes.this``: that type),
        then each further name a field of the type before it (``Tokeniser.tagPending``,
        ``AuthenticationHandler.handler``); ``this.field`` starts at ``scope``."""
        typ: str | None = None
        k = len(names)
        if names[0] == "this" and len(names) > 1 and scope is not None:
            # ``this.x`` or a bare field ``x`` (the walker writes ``this.x``): a field of the
            # class, one it inherits, else of a class around it (JLS 15.11.1, 6.5.6.1).
            around: str | None = scope
            while around is not None and typ is None:
                typ = self.field_type(around, names[1])
                around = self.index.enclosing_type(around.rpartition(".")[0])
            if typ is None:  # ``org.jsoup.Jsoup.parse``: no field, a full name
                return self.java_path(module, names[1:], scope)
            names, k = names[1:], 1
        elif names[0] == "this":
            typ, k = scope, 1
        while typ is None and k > 0:
            typ = self.java_type(module, ".".join(names[:k]), scope)
            k = k if typ is not None else k - 1
        for name in names[k:]:
            if typ is None:
                return None
            typ = typ if name == "this" else self.field_type(typ, name)
        return typ

    def type_in(self, module: str, written: str, self_type: str | None) -> str | None:
        """The repository type ``written`` names in ``module`` (``Self``: ``self_type``)."""
        if module in self.index.packages or module in self.java_modules:
            return self.java_type(module, written, self_type)
        while _outer(written) in _SMART and _generic_args(written):
            written = _generic_args(written)[0]
        path = clean_type(written)
        if not path:
            return None
        if path == "Self":
            return self_type
        index = self.index
        there = FileIndex(module + ".rs", "rust", module, "", (), ())
        if "::" in path:
            hit = index.rust_path(there, path)
            return hit if hit in index.types else None
        local = index.members.get(module, {}).get(path)
        if local and local[0] in index.types:
            return local[0]
        imported = index.imports_of.get(module, {}).get(path)
        if imported is not None:
            # As the file's imports resolve: 2015-edition ``use index::Indexed`` (crate-relative
            # without ``crate::``) too, not only the paths rust_path follows.
            hit = index.rust_path(there, imported) or index.import_target(there, imported)
            return hit if hit in index.types else None
        return None

    def resolve(
        self,
        f: FileIndex,
        text: str,
        arity: int | None,
        bare: Callable[[str], str | None],
        scope: str | None = None,
    ) -> str | None:
        """The method the last segment of ``text`` calls, or None. ``bare`` resolves a bare
        function name of ``f`` (the chain's head when it is a call); ``scope`` is the type the
        call is written in (``Self``, Java member types)."""
        segs = split_chain(text)
        if segs is None or len(segs) < 2:
            return None
        index = self.index
        plain: list[str] = []
        while len(plain) < len(segs) - 1 and not segs[len(plain)].call:
            plain.append(segs[len(plain)].name)
        typ: str | None
        java = f.language == "java"
        if plain in (["self"], ["this"]):  # ``self.rconfig().reader()``: the method's own type
            typ = scope
            rest = segs[1:]
        elif plain and java:  # ``Type.field``, ``local.field.field``, ``Outer.this``
            typ = self.java_path(f.module, plain, scope)
            rest = segs[len(plain) :]
        elif plain:
            typ = self.type_in(f.module, "::".join(plain), scope)
            rest = segs[len(plain) :]
        elif f.language == "java" and re.fullmatch(r"new[A-Z]\w*", segs[0].name):
            typ = self.java_type(f.module, segs[0].name[3:], scope)  # ``new GsonBuilder()``
            rest = segs[1:]
        else:
            head = segs[0]
            symbol = bare(head.name)
            if symbol is None:
                return None
            typ = self._result(symbol, head.tried, segs[1:])
            rest = segs[1:]
            if typ is None:
                return None
            if rest and rest[0].name in _UNWRAP:
                rest = rest[1:]
        if typ is None:
            return None
        for n, seg in enumerate(rest[:-1]):
            if seg.name in _UNWRAP:
                continue  # the unwrap was taken when the call before it was typed
            if java and not seg.call:  # ``a.b().field.m()``
                typ = self.field_type(typ, seg.name)
                if typ is None:
                    return None
                continue
            found = index.member(typ, seg.name)
            if found is None:
                return None
            typ = self._result(found, seg.tried, rest[n + 1 :])
            if typ is None:
                return None
        return index.member(typ, rest[-1].name, arity) if rest else None

    def _result(self, symbol: str, tried: bool, after: list[Segment]) -> str | None:
        """The type a call of ``symbol`` gives the next segment: its return type, unwrapped
        when the call is followed by ``?`` or an unwrap."""
        name = base_name(symbol).rsplit(".", 1)[-1]
        written = returns(self.index.signatures.get(symbol), name)
        if written is None:
            return None
        owner = base_name(symbol).rpartition(".")[0]
        module = self.index.module_of.get(symbol, owner)
        self_type = owner if owner in self.index.types else None
        if module in self.index.packages or module in self.java_modules:
            return self.type_in(module, written, self_type)  # Java: no unwrapping
        # ``x()?``, ``x().unwrap()``, ``x().unwrap().unwrap()``: one wrapper taken off each.
        peel = int(tried)
        for seg in after:
            if seg.name not in _UNWRAP:
                break
            peel += 1 + int(seg.tried)
        while _wrapper(_outer(written)) and self.type_in(module, written, self_type) is None:
            if not peel or not _generic_args(written):
                return None
            written, peel = _generic_args(written)[0], peel - 1
        return self.type_in(module, written, self_type)
