"""`pegas-memory host`: run the engine host in the foreground, show it, or stop it.

Starting it by hand is never needed (the first process that needs it starts it); running it in
the foreground is for a supervisor (systemd) or for reading its log live.
"""

from __future__ import annotations

import socket
import time
from dataclasses import replace
from typing import Any

from pegas_memory import locks
from pegas_memory.config import Settings
from pegas_memory.host import wire
from pegas_memory.host.paths import HostConfig, host_paths
from pegas_memory.host.server import run_host
from pegas_memory.procs import process_state


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


def stop_host(settings: Settings, wait_seconds: float = 10.0) -> bool:
    """Stop the running host and its standby, and wait up to `wait_seconds` until both have
    closed their engines and the host has exited (the data dir can then be copied or removed).
    Whether a host answered; processes still using it will start a new one."""
    info = _ask(settings, "ping")
    if _ask(settings, "shutdown") is None:
        return False
    paths = host_paths(settings.data_dir)
    held = (paths.active_lock, paths.directory / "standby.lock")
    pid = int(info["pid"]) if isinstance(info, dict) and "pid" in info else None
    deadline = time.monotonic() + wait_seconds
    # The active host unlocks after closing its engines; its standby then takes the lock, sees
    # the clean stop and exits: done when neither lock is held twice in a row and the host's
    # process is gone.
    free = 0
    while time.monotonic() < deadline:
        free = free + 1 if not any(locks.is_locked(path) for path in held) else 0
        if free >= 2 and (pid is None or process_state(pid) != "alive"):
            break
        time.sleep(0.05)
    return True


def run_foreground(settings: Settings, *, stay: bool) -> int:
    config = HostConfig.from_settings(settings)
    if stay:
        config = replace(config, idle_seconds=0.0)
    return run_host(config, standby=False)
