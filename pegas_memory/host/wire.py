"""The engine host's wire format: length-prefixed JSON frames, vectors as base64 float32.

Why not pickle: the socket is the user's own, but a frame should never be able to run code in
the host. Why not plain JSON lists for vectors: a 384-d vector is about 8 KB of decimal text
and a 256-point outbox batch took tens of milliseconds to print and parse; float32 bytes are
what the engine stores anyway, so nothing is lost.

A request is `{"op": name, "args": {...}}`; an answer is `{"ok": value}` or
`{"error": {"kind": class name, "message": text}}`, where the kind is one of the error tree's
classes, raised again on the caller's side with the same message.
"""

from __future__ import annotations

import base64
import json
import socket
import struct
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any

import numpy as np

from pegas_memory import errors
from pegas_memory.errors import InvalidInput, PegasMemoryError
from pegas_memory.qdrant_store.index import (
    SparseHit,
    SparseVector,
    VectorFilter,
    VectorHit,
    VectorPoint,
    VectorRecord,
    prepare_payload,
)

MAX_FRAME = 256 * 1024 * 1024  # an upsert batch or an embedding batch stays far below this
_HEADER = struct.Struct(">I")


class ConnectionLost(ConnectionError):
    """The host closed the connection (it exited or was killed) before answering."""


# --------------------------------------------------------------------------- frames


def send_frame(sock: socket.socket, message: Mapping[str, Any]) -> None:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
    if len(body) > MAX_FRAME:
        raise InvalidInput(
            f"a request of {len(body)} bytes is too large for the engine host; send fewer "
            "points or texts per call"
        )
    sock.sendall(_HEADER.pack(len(body)) + body)


def recv_frame(sock: socket.socket) -> dict[str, Any]:
    (size,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size))
    if size > MAX_FRAME:
        raise ConnectionLost(f"frame of {size} bytes exceeds the limit; the peer is not a host")
    message = json.loads(_recv_exact(sock, size))
    if not isinstance(message, dict):
        raise ConnectionLost("the peer sent a frame that is not an object")
    return message


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionLost("the engine host closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


# --------------------------------------------------------------------------- errors


def error_answer(exc: PegasMemoryError) -> dict[str, Any]:
    return {"error": {"kind": type(exc).__name__, "message": str(exc)}}


def raise_error(answer: Mapping[str, Any]) -> None:
    """Raise the error an answer carries (the same class as on the host), if any."""
    error = answer.get("error")
    if error is None:
        return
    kind = getattr(errors, str(error.get("kind")), None)
    cls = kind if isinstance(kind, type) and issubclass(kind, PegasMemoryError) else None
    message = str(error.get("message") or "the engine host failed")
    raise (cls or errors.BackendUnavailable)(message)


# --------------------------------------------------------------------------- values


def pack_vectors(vectors: Sequence[Any] | np.ndarray) -> dict[str, Any]:
    """A matrix (rows of equal length) as base64 float32 with its shape."""
    try:
        matrix = np.asarray(vectors, dtype="<f4")
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"vectors must be sequences of numbers of one length: {exc}") from exc
    if matrix.ndim == 1 and matrix.size == 0:
        matrix = matrix.reshape(0, 0)
    if matrix.ndim != 2:
        raise InvalidInput(f"expected a list of vectors, got an array of shape {matrix.shape}")
    return {"shape": list(matrix.shape), "f32": base64.b64encode(matrix.tobytes()).decode()}


def unpack_vectors(packed: Mapping[str, Any]) -> np.ndarray:
    rows, cols = (int(n) for n in packed["shape"])
    data = np.frombuffer(base64.b64decode(packed["f32"]), dtype="<f4")
    return data.reshape(rows, cols)


def pack_vector(vector: Sequence[float] | np.ndarray) -> dict[str, Any]:
    try:
        row = np.asarray(vector, dtype="<f4")
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"a vector must be a sequence of numbers: {exc}") from exc
    if row.ndim != 1:
        raise InvalidInput(f"a vector must be one-dimensional, got shape {row.shape}")
    return pack_vectors(row.reshape(1, -1))


def unpack_vector(packed: Mapping[str, Any]) -> np.ndarray:
    return unpack_vectors(packed)[0]


def pack_points(points: Sequence[VectorPoint]) -> dict[str, Any]:
    if not all(isinstance(p, VectorPoint) for p in points):
        raise InvalidInput("upsert takes VectorPoint values")
    return {
        "ids": [p.id for p in points],
        "vectors": pack_vectors([np.asarray(p.vector, dtype="<f4") for p in points])
        if points
        else pack_vectors(np.zeros((0, 0))),
        "payloads": [prepare_payload(p.payload) for p in points],
        "sparse": [None if p.sparse is None else pack_sparse(p.sparse) for p in points],
    }


def unpack_points(packed: Mapping[str, Any]) -> list[VectorPoint]:
    matrix = unpack_vectors(packed["vectors"])
    sparse = packed.get("sparse") or [None] * len(packed["ids"])
    return [
        VectorPoint(id=point_id, vector=matrix[n], payload=payload, sparse=unpack_sparse(terms))
        for n, (point_id, payload, terms) in enumerate(
            zip(packed["ids"], packed["payloads"], sparse, strict=True)
        )
    ]


def pack_sparse(vector: SparseVector) -> list[list[Any]]:
    return [list(vector.indices), list(vector.values)]


def unpack_sparse(packed: Sequence[Sequence[Any]] | None) -> SparseVector | None:
    if packed is None:
        return None
    indices, values = packed
    return SparseVector(tuple(int(i) for i in indices), tuple(float(v) for v in values))


def pack_sparse_hits(hits: Sequence[SparseHit]) -> list[list[Any]]:
    return [[h.id, h.score, list(h.indices)] for h in hits]


def unpack_sparse_hits(packed: Sequence[Sequence[Any]]) -> list[SparseHit]:
    return [
        SparseHit(int(i), float(score), tuple(int(t) for t in terms)) for i, score, terms in packed
    ]


def pack_filter(where: VectorFilter | None) -> dict[str, Any] | None:
    if where is None:
        return None
    out = asdict(where)
    for key in ("created_after", "created_before"):
        value = out[key]
        if isinstance(value, datetime):
            out[key] = value.isoformat()
    return out


def unpack_filter(packed: Mapping[str, Any] | None) -> VectorFilter | None:
    if packed is None:
        return None
    values: dict[str, Any] = {}
    for key, value in packed.items():
        if key in ("created_after", "created_before"):
            values[key] = datetime.fromisoformat(value) if value else None
        else:
            values[key] = tuple(value)
    return VectorFilter(**values)


def pack_hits(hits: Sequence[VectorHit]) -> list[list[Any]]:
    return [[h.id, h.score, dict(h.payload)] for h in hits]


def unpack_hits(packed: Sequence[Sequence[Any]]) -> list[VectorHit]:
    return [VectorHit(id=int(i), score=float(s), payload=p) for i, s, p in packed]


def pack_records(records: Sequence[VectorRecord]) -> list[dict[str, Any]]:
    return [
        {
            "id": r.id,
            "payload": dict(r.payload),
            "vector": None if r.vector is None else pack_vector(r.vector),
        }
        for r in records
    ]


def unpack_records(packed: Sequence[Mapping[str, Any]]) -> list[VectorRecord]:
    return [
        VectorRecord(
            id=int(r["id"]),
            payload=r["payload"],
            vector=None
            if r["vector"] is None
            else tuple(float(x) for x in unpack_vector(r["vector"])),
        )
        for r in packed
    ]
