"""Where one data directory's engine host keeps its files, and what it is started with.

`HostConfig` is everything the host needs from the Settings of whoever starts it; it travels on
the host's command line (not the environment), so a setting given as an override to one
process reaches the host that process starts. The first process to start the host decides;
later ones use it as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pegas_memory.config import Settings
from pegas_memory.procs import socket_path


@dataclass(frozen=True, slots=True)
class HostPaths:
    directory: Path
    socket: Path
    active_lock: Path  # held by the host that serves; its standby waits on it
    start_lock: Path  # held by a client while it starts a host, so only one is started
    pidfile: Path
    log: Path


def host_paths(data_dir: Path) -> HostPaths:
    directory = Path(data_dir).expanduser().resolve() / "host"
    socket = socket_path(directory, "host.sock", "host")
    return HostPaths(
        directory=directory,
        socket=socket,
        active_lock=directory / "active.lock",
        start_lock=directory / "start.lock",
        pidfile=directory / "host.pid",
        log=directory / "host.log",
    )


@dataclass(frozen=True, slots=True)
class HostConfig:
    """What the host serves and how: the vector store, and the local model unless it is None."""

    data_dir: Path
    local_embedder: str | None
    exact_limit: int
    hnsw_ef: int
    idle_seconds: float

    @classmethod
    def from_settings(cls, settings: Settings) -> HostConfig:
        return cls(
            data_dir=settings.data_dir,
            local_embedder=None if settings.ollama_url else settings.local_embedder,
            exact_limit=settings.vector_exact_limit,
            hnsw_ef=settings.vector_hnsw_ef,
            idle_seconds=settings.host_idle_seconds,
        )

    def to_args(self) -> list[str]:
        return [
            "--data-dir",
            str(self.data_dir),
            "--embedder",
            self.local_embedder or "none",
            "--exact-limit",
            str(self.exact_limit),
            "--hnsw-ef",
            str(self.hnsw_ef),
            "--idle-seconds",
            str(self.idle_seconds),
        ]
