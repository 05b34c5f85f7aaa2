"""Drive `pegas-memory serve` over the real stdio transport with the SDK client."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

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
