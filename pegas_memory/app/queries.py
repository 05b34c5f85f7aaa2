"""The SQL the service and the doctor run themselves (the rest lives with its components)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import LiteralString

from pegas_memory.db.sql import load_queries


@dataclass(frozen=True)
class ServiceQueries:
    atom_status: LiteralString
    server_version: LiteralString


Q = load_queries(ServiceQueries, "pegas_memory.app", "queries.sql")
