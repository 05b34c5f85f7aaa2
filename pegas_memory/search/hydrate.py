"""Hydration: the rows of ranked hits read from PostgreSQL, filtered, on the caller's connection.

Ranking knows ids and scores; what a hit shows (claim, status, feedback counters, decay profile,
a passage's document and span) and whether it passes the filters (graph neighbours are checked
here) come from one read per store, with the citations of the atoms among them. An as-of search
reads the passages of the versions current then and each atom with the status it had then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from psycopg import sql

from pegas_memory.db.pool import Conn
from pegas_memory.db.repo import Citation, citations_as_of, citations_for, document_versions
from pegas_memory.search.filters import SearchFilter
from pegas_memory.search.lexical import Entity
from pegas_memory.search.queries import SEARCH_SQL as Q

Rows = dict[int, dict[str, Any]]  # id -> the fetched row


def hydrate(
    conn: Conn,
    heads: Mapping[Entity, Sequence[int]],
    flt: SearchFilter,
    *,
    citations: bool = False,
) -> tuple[dict[Entity, Rows], dict[int, list[Citation]]]:
    """The rows of each store's head that pass the filters (graph neighbours are checked
    here) and, with `citations`, the citations of the atoms among them, on one connection.
    Not pipelined: with psycopg pipelines here and in the lexical arm, the BM25 stage was
    9-10 ms slower at p50 in the interleaved 100k bench (cause not established;
    bench/results/search-latency-passages.md)."""
    sent: dict[Entity, Any] = {}
    statuses = None
    cites: dict[int, list[Citation]] = {}
    atoms = list(heads.get("atom", ()))
    fetch = {"atom": Q.fetch_atoms, "passage": Q.fetch_passages, "trace": Q.fetch_traces}
    if flt.as_of is not None:
        fetch["passage"] = Q.fetch_passages_ever
    for entity, ids in heads.items():
        if ids:
            where, params = flt.sql(entity)
            statement = sql.SQL(fetch[entity]).format(where=where)
            sent[entity] = conn.execute(statement, {"ids": list(ids), **params})
    if flt.as_of is not None and atoms:  # ranked and shown with the status it had then
        statuses = conn.execute(Q.statuses_as_of, {"ids": atoms, "t": flt.as_of})
    if citations and atoms:
        if flt.as_of is not None:
            cites = citations_as_of(conn, atoms, flt.as_of)
        else:
            cites = citations_for(conn, atoms)
    rows: dict[Entity, Rows] = {e: {} for e in heads}
    for entity, cursor in sent.items():
        rows[entity] = {int(r["id"]): dict(r) for r in cursor.fetchall()}
    if statuses is not None:
        found = rows["atom"]
        for r in statuses.fetchall():
            if int(r["id"]) in found:
                found[int(r["id"])]["status"] = r["status"]
    return rows, cites


def every_version(conn: Conn, flt: SearchFilter) -> SearchFilter:
    """Document ids name documents, not versions: an id of any version (as an earlier
    answer gave it) selects every version, so a new version is found under the old id."""
    if not flt.doc_ids:
        return flt
    versions = document_versions(conn, flt.doc_ids)
    return replace(flt, doc_ids=tuple(versions) or flt.doc_ids)
