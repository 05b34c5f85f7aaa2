"""Contradictions a person resolves: the review queue of contested pairs (issue 31).

A pair is two atoms linked `contradicts` (by ingest, `ingest/versions.py`, or by memory_verify's
self-critique) while at least one of them is still contested. A person resolves it one of three
ways, in the caller's transaction:

- `keep`: one atom is right. The other is retracted as memory_forget retracts (stale, with the
  reason); the kept one goes back to the status it had before it was contested, unless another
  contradiction with an atom that is not stale still holds it contested. The link stays (it was a
  contradiction) and records the decision in its metadata.
- `both`: both hold, in different scopes (a date, an edition, a place: the person says which).
  The link becomes `differs_in_scope` with the two scopes in its metadata, each atom keeps its
  scope in its own metadata, and both go back to their statuses before the contest;
  memory_verify does not contest the pair again (`scoped_apart`).
- `retract`: neither holds: both are retracted.

`snapshot` reads what a resolution changes (both atoms' status, confidence and scope, the link's
kind and metadata) and `restore` puts a snapshot back: the UI's undo.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from psycopg.types.json import Jsonb

from pegas_memory.curation.forget import retract
from pegas_memory.curation.queries import CURATION_SQL as Q
from pegas_memory.db.pool import Conn
from pegas_memory.db.repo import set_status
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.models import AtomStatus

Outcome = Literal["keep", "both", "retract"]
OUTCOMES: tuple[Outcome, ...] = ("keep", "both", "retract")
SCOPED_KIND = "differs_in_scope"
MAX_SCOPE = 300
MAX_LIMIT = 200


def open_pairs(conn: Conn, *, limit: int = 20, offset: int = 0) -> list[dict[str, Any]]:
    """Contested pairs, newest link first (rows of `contested_pairs`, with `total`)."""
    if not 1 <= limit <= MAX_LIMIT or offset < 0:
        raise InvalidInput(f"limit must be 1..{MAX_LIMIT} and offset >= 0")
    return [
        dict(r)
        for r in conn.execute(Q.contested_pairs, {"limit": limit, "offset": offset}).fetchall()
    ]


@dataclass(frozen=True)
class Resolution:
    """What a resolution did: the link, the pair, the statuses it left, and the pair as it
    found and left it (`snapshot`s, read in its transaction: what an undo puts back)."""

    link_id: int
    outcome: Outcome
    atoms: tuple[int, int]
    statuses: Mapping[int, str]
    before: Mapping[str, Any]
    after: Mapping[str, Any]


def _lock(conn: Conn, link_id: int) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    link = conn.execute(Q.lock_pair, {"id": link_id}).fetchone()
    if link is None:
        raise NotFound(f"link {link_id} not found (one of its atoms was erased?)")
    ids = [int(link["src_atom_id"]), int(link["dst_atom_id"])]
    atoms = {
        int(r["id"]): dict(r) for r in conn.execute(Q.lock_pair_atoms, {"ids": ids}).fetchall()
    }
    return dict(link), atoms


def snapshot(conn: Conn, link_id: int) -> dict[str, Any]:
    """The pair as a resolution finds or leaves it (JSON): the link's kind and metadata, each
    atom's status, confidence and scope. Locks the link and both atoms."""
    link, atoms = _lock(conn, link_id)
    return {
        "link": {"kind": link["kind"], "metadata": dict(link["metadata"] or {})},
        "atoms": {
            str(i): {
                "status": a["status"],
                "confidence": float(a["confidence"]),
                "scope": a["scope"],
            }
            for i, a in sorted(atoms.items())
        },
    }


def _status_before_contest(conn: Conn, atom_id: int, link_id: int) -> AtomStatus:
    args = {"atom": atom_id, "link": link_id}
    others = conn.execute(Q.other_open_contradictions, args).fetchone()
    if others and int(others["n"]) > 0:
        return AtomStatus.CONTESTED  # another contradiction still holds it
    row = conn.execute(Q.status_before_contest, {"id": atom_id}).fetchone()
    was = row["from_status"] if row else None
    if was in (AtomStatus.CANDIDATE, AtomStatus.VERIFIED):
        return AtomStatus(was)
    return AtomStatus.CANDIDATE


def _scope(text: str | None) -> str | None:
    text = (text or "").strip()
    if "\x00" in text:
        raise InvalidInput("a scope contains a NUL character")
    if len(text) > MAX_SCOPE:
        raise InvalidInput(f"a scope is over {MAX_SCOPE} characters; shorten it")
    return text or None


def resolve(
    conn: Conn,
    link_id: int,
    outcome: str,
    *,
    reason: str,
    keep: int | None = None,
    scopes: Mapping[int, str] | None = None,
    by: str = "agent",
) -> Resolution:
    """Resolve the pair of link `link_id` (module docstring). Raises NotFound for an unknown
    link, InvalidInput for a link that is not an open contradiction or arguments that do not fit
    the outcome; nothing is written then (the caller's transaction rolls back)."""
    if outcome not in OUTCOMES:
        raise InvalidInput(f"outcome must be one of {', '.join(OUTCOMES)}")
    before = snapshot(conn, link_id)
    link, atoms = _lock(conn, link_id)
    a, b = int(link["src_atom_id"]), int(link["dst_atom_id"])
    if link["kind"] != "contradicts":
        raise InvalidInput(f"link {link_id} is a {link['kind']} link, not a contradiction")
    if not any(atoms[i]["status"] == "contested" for i in (a, b)):
        raise InvalidInput(
            f"atoms {a} and {b} are no longer contested ({atoms[a]['status']}, "
            f"{atoms[b]['status']}): the pair was resolved already"
        )
    why = reason.strip() or "no reason given"
    decision: dict[str, Any] = {"outcome": outcome, "by": by, "reason": why}
    statuses: dict[int, str] = {}
    if outcome == "keep":
        if keep not in (a, b):
            raise InvalidInput(f"keep must name atom {a} or atom {b}")
        other = b if keep == a else a
        retract(conn, [other], f"contradicts atom {keep}, which a person kept: {why}")
        statuses[other] = "stale"
        decision["kept"] = keep
    elif outcome == "retract":
        retract(conn, [a, b], f"atoms {a} and {b} contradict each other; neither kept: {why}")
        statuses = {a: "stale", b: "stale"}
    if outcome in ("keep", "both"):
        for atom_id in (a, b):
            if atom_id in statuses:
                continue
            to = _status_before_contest(conn, atom_id, link_id)
            if atoms[atom_id]["status"] != to:
                set_status(
                    conn,
                    atom_id,
                    to,
                    reason=f"contradiction with atom {b if atom_id == a else a} resolved "
                    f"({outcome}): {why}",
                    check_name=by,
                )
            statuses[atom_id] = to
    kind = str(link["kind"])
    if outcome == "both":
        given = {int(k): _scope(v) for k, v in (scopes or {}).items()}
        if not given.get(a) or not given.get(b):
            raise InvalidInput("keeping both needs each atom's scope (where or when it holds)")
        for atom_id in (a, b):
            conn.execute(Q.set_atom_scope, {"id": atom_id, "scope": given[atom_id]})
        decision["scopes"] = {str(k): v for k, v in given.items()}
        kind = SCOPED_KIND
    metadata = {**dict(link["metadata"] or {}), "resolution": decision}
    conn.execute(Q.set_link_resolution, {"id": link_id, "kind": kind, "metadata": Jsonb(metadata)})
    after = snapshot(conn, link_id)
    return Resolution(link_id, outcome, (a, b), statuses, before, after)  # type: ignore[arg-type]


def restore(conn: Conn, link_id: int, before: Mapping[str, Any], *, reason: str) -> None:
    """Put the pair back as `before` (a `snapshot`) says: statuses and confidences (logged as
    status changes by 'ui'), scopes, the link's kind and metadata."""
    _lock(conn, link_id)
    for key, was in dict(before["atoms"]).items():
        atom_id = int(key)
        set_status(
            conn,
            atom_id,
            AtomStatus.parse(str(was["status"]), "status"),
            reason=reason,
            check_name="ui",
            confidence=was.get("confidence"),
        )
        conn.execute(Q.set_atom_scope, {"id": atom_id, "scope": was.get("scope")})
    link = dict(before["link"])
    conn.execute(
        Q.set_link_resolution,
        {"id": link_id, "kind": link["kind"], "metadata": Jsonb(dict(link["metadata"]))},
    )


def scoped_apart(conn: Conn, a: int, b: int) -> bool:
    """Whether a person judged atoms `a` and `b` true in different scopes."""
    return conn.execute(Q.scoped_apart, {"a": a, "b": b}).fetchone() is not None
