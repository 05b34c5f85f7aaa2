"""`pegas-memory host`: run the engine host in the foreground, show it, or stop it.

Starting it by hand is never needed (the first process that needs it starts it); running it in
the foreground is for a supervisor (systemd) or for reading its log live.
"""

from __future__ import annotations

import socket
from dataclasses import replace
from typing import Any

from pegas_memory.config import Settings
from pegas_memory.host import wire
from pegas_memory.host.paths import HostConfig, host_paths
from pegas_memory.host.server import run_host


def _ask(settings: Settings, op: str) -> Any:
    """One request to the running host; None if none answers."""
    paths = host_paths(settings.data_dir)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5.0)
    try:
        sock.connect(str(paths.socket))
        wire.send_frame(sock, {"op": op, "args": {}})
        answer = wire.recv_frame(sock)
    except (OSError, wire.ConnectionLost):
        return None
    finally:
        sock.close()
    wire.raise_error(answer)
    return answer.get("ok")


def host_status(settings: Settings) -> dict[str, Any] | None:
    """What the running host says about itself (pid, data dir, model) and its users."""
    info = _ask(settings, "ping")
    if info is None:
        return None
    leases = _ask(settings, "leases")
    return {
        "running": True,
        **info,
        "users": leases,
        "socket": str(host_paths(settings.data_dir).socket),
    }


def stop_host(settings: Settings) -> bool:
    """Stop the running host and its standby; processes still using it will start a new one."""
    return _ask(settings, "shutdown") is not None


def run_foreground(settings: Settings, *, stay: bool) -> int:
    config = HostConfig.from_settings(settings)
    if stay:
        config = replace(config, idle_seconds=0.0)
    return run_host(config, standby=False)
