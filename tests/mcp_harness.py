"""Drive `pegas-memory serve` over the real stdio transport with the SDK client."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from pegas_memory.config import load_settings
from pegas_memory.host.control import stop_host

REPO = Path(__file__).resolve().parent.parent


def server_params(env: Mapping[str, str], *, via_script: bool = False) -> StdioServerParameters:
    """`pegas-memory serve` as a subprocess (or `python mcp_server.py`, as the dsh profile does)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("PEGAS_")}
    if via_script:
        command, args = sys.executable, [str(REPO / "mcp_server.py")]
    else:
        command, args = sys.executable, ["-m", "pegas_memory.cli", "serve"]
    return StdioServerParameters(command=command, args=args, env={**base, **env}, cwd=str(REPO))


@asynccontextmanager
async def mcp_client(env: Mapping[str, str], **kwargs: Any) -> AsyncIterator[Client]:
    async with Client(server_params(env, **kwargs)) as client:
        yield client


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)


def error_text(result: Any) -> str:
    assert result.is_error, result
    return " ".join(getattr(c, "text", "") for c in result.content)


_TYPED = ("type", "$ref", "anyOf", "allOf", "oneOf", "enum", "const")


def untyped_properties(schema: Mapping[str, Any], where: str) -> list[str]:
    """Paths of the properties of a JSON schema (its `$defs` included) that say nothing of their
    type: no type/$ref/anyOf/enum, an object whose values are anything, an array of anything."""
    found: list[str] = []

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, Mapping):
            return
        for name, prop in (node.get("properties") or {}).items():
            if not any(key in prop for key in _TYPED):
                found.append(f"{path}.{name}")
            walk(prop, f"{path}.{name}")
        extra = node.get("additionalProperties")
        if node.get("type") == "object" and "properties" not in node and extra in (None, True, {}):
            found.append(f"{path}{{*}}")
        if isinstance(extra, Mapping):
            walk(extra, f"{path}{{}}")
        items = node.get("items")
        if node.get("type") == "array" and items in (None, {}) and "prefixItems" not in node:
            found.append(f"{path}[]")  # a tuple's positions are typed by prefixItems
        walk(items, f"{path}[]")
        for i, sub in enumerate(node.get("prefixItems") or []):
            walk(sub, f"{path}[{i}]")
        for key in ("anyOf", "allOf", "oneOf"):
            for sub in node.get(key) or []:
                walk(sub, path)

    walk(schema, where)
    for name, sub in (schema.get("$defs") or {}).items():
        walk(sub, f"{where}#{name}")
    return found


def stop_host_and_wait(data_dir: Path, seconds: float = 10) -> None:
    """Stop the engine host serving `data_dir`; `stop_host` waits until it has exited."""
    stop_host(load_settings(data_dir=data_dir), wait_seconds=seconds)


def files_env(tmp_path: Path, **more: str) -> dict[str, str]:
    """The PEGAS_ variables of a served memory whose data lives in `tmp_path/data` and whose one
    ingest root is `tmp_path/files`, with `more` of them."""
    return {
        "PEGAS_DATA_DIR": str(tmp_path / "data"),
        "PEGAS_INGEST_ROOTS": f'["{tmp_path / "files"}"]',
        **more,
    }


@contextmanager
def serve_env(data_dir: Path, database_url: str, **more: str) -> Iterator[dict[str, str]]:
    """The PEGAS_ variables of a `pegas-memory serve` on `data_dir` and `database_url` whose engine
    host exits 2 s after its last client, with `more` of them; the host is stopped (and waited
    for) on the way out."""
    try:
        yield {
            "PEGAS_DATA_DIR": str(data_dir),
            "PEGAS_DATABASE_URL": database_url,
            "PEGAS_HOST_IDLE_SECONDS": "2",
            **more,
        }
    finally:
        stop_host_and_wait(data_dir)
