"""The search filter: which atoms, passages and traces a search may return (pure).

`SearchFilter` holds the caller's filters (types, statuses, documents, topics, tags, languages,
a time window, an episodic session, an as-of instant) and states them twice, for the two places
a search reads: as a `VectorFilter` for the vector slice, and as a parameterised WHERE fragment
for PostgreSQL (values are never inlined). No I/O: the arms and the hydration run what it builds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, LiteralString

from psycopg import sql

from pegas_memory.models import AtomStatus
from pegas_memory.qdrant_store.index import VectorFilter
from pegas_memory.search.lexical import Entity
from pegas_memory.search.queries import SEARCH_SQL as Q

# The instant of an as-of search inside a filter fragment (SearchFilter.sql).
AS_OF = {"t": sql.Placeholder("f_as_of")}


def aware(at: datetime) -> datetime:
    """A time without a zone is UTC (as the vector slice reads `created_before`)."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


@dataclass(frozen=True)
class SearchFilter:
    types: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    doc_ids: tuple[int, ...] = ()
    topics: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    created_after: datetime | None = None
    created_before: datetime | None = None
    session_id: str | None = None  # episodic only
    # What the memory believed at this instant: atoms recorded by then, with the status they had
    # then (superseded ones come back if they were not superseded yet), passages of the versions
    # current then, traces written by then (migration 0016).
    as_of: datetime | None = None

    @property
    def atoms_only(self) -> bool:
        """The filter names what only atoms have (a type, status, topic or tag): passages,
        which have none of these, cannot match it."""
        return bool(self.types or self.statuses or self.topics or self.tags)

    def vector_filter(self, entity: Entity) -> VectorFilter:
        if self.as_of is not None:  # statuses as they were are checked in PostgreSQL
            before = aware(self.as_of) + timedelta(microseconds=1)
            if self.created_before is None or aware(self.created_before) > before:
                inner = replace(self, as_of=None, created_before=before)
            else:
                inner = replace(self, as_of=None)
            if entity == "atom":
                inner = replace(inner, statuses=())
            return inner.vector_filter(entity)
        if entity == "passage":
            return VectorFilter(
                doc_ids=self.doc_ids,
                languages=self.languages,
                created_after=self.created_after,
                created_before=self.created_before,
            )
        if entity == "trace":
            return VectorFilter(
                languages=self.languages,
                created_after=self.created_after,
                created_before=self.created_before,
            )
        return VectorFilter(
            types=self.types,
            statuses=self.statuses,
            doc_ids=self.doc_ids,
            topics=self.topics,
            tags=self.tags,
            languages=self.languages,
            created_after=self.created_after,
            created_before=self.created_before,
        )

    def sql(self, entity: Entity, alias: str = "t") -> tuple[sql.Composed, dict[str, Any]]:
        """A WHERE fragment (starting with AND) and its parameters; values are never inlined:
        the fragment holds the alias as an identifier and each value as a named placeholder."""
        parts: list[sql.Composable] = []
        params: dict[str, Any] = {}

        def add(cond: LiteralString, name: str, value: Any) -> None:
            parts.append(
                sql.SQL(" AND ")
                + sql.SQL(cond).format(a=sql.Identifier(alias), p=sql.Placeholder(name), **AS_OF)
            )
            params[name] = value

        if self.as_of is not None:
            add("{a}.created_at <= {p}", "f_as_of", self.as_of)
        if entity == "atom":
            if self.types:
                add("{a}.type = ANY({p})", "f_types", list(self.types))
            if self.statuses and self.as_of is not None:
                add(Q.filter_statuses_as_of, "f_statuses", list(self.statuses))
            elif self.statuses:
                add("{a}.status = ANY({p})", "f_statuses", list(self.statuses))
            if self.doc_ids:
                add(Q.filter_documents, "f_docs", list(self.doc_ids))
            if AtomStatus.STALE not in self.statuses:
                current = Q.filter_current_as_of if self.as_of is not None else Q.filter_current
                parts.append(
                    sql.SQL(" AND ") + sql.SQL(current).format(a=sql.Identifier(alias), **AS_OF)
                )
            if self.topics:
                add("{a}.topic = ANY({p})", "f_topics", list(self.topics))
            if self.tags:
                add("{a}.tags && {p}::text[]", "f_tags", list(self.tags))
        elif entity == "passage":
            if self.doc_ids:
                add("{a}.doc_id = ANY({p})", "f_docs", list(self.doc_ids))
            if self.as_of is not None:  # on pm_passage_ever: the version current then
                add("{a}.valid_from <= {p} AND {a}.valid_to > {p}", "f_as_of", self.as_of)
        elif self.session_id:
            add("{a}.session_id = {p}", "f_session", self.session_id)
        if self.languages:
            add("{a}.language = ANY({p})", "f_langs", list(self.languages))
        if self.created_after:
            add("{a}.created_at >= {p}", "f_after", self.created_after)
        if self.created_before:
            add("{a}.created_at < {p}", "f_before", self.created_before)
        return sql.Composed(parts), params
