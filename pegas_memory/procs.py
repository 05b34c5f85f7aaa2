"""Small helpers about processes and their log files, shared by the embedded engines.

The embedded PostgreSQL (`db.embedded`) and the embedded FalkorDB (`memgraph_store.falkor`) both
keep pid files of processes that may have died without cleaning up, and both end an error about a
failed start with the tail of the server's log; the two did it their own way before.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (a process we may not signal counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def process_state(pid: int) -> str:
    """ "alive", "zombie" or "gone". A zombie (killed, not yet reaped) still answers signal 0 and
    psutil's is_running(), but serves nothing; it is reaped here when it is our child."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except OSError:
        pass  # not our child (ChildProcessError): its parent or init reaps it
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        if Path("/proc/self").exists():
            return "gone"
        return "alive" if pid_alive(pid) else "gone"  # no procfs: signal 0 is all there is
    except OSError:
        return "alive" if pid_alive(pid) else "gone"
    state = stat.rsplit(")", 1)[-1].split()[0]  # the name in parentheses may contain spaces
    return "zombie" if state in ("Z", "X") else "alive"


def log_tail(path: Path, *, lines: int | None = None, chars: int | None = None) -> str:
    """The end of a log file: its last `lines` lines and/or `chars` characters; "" if unreadable.

    Error messages quote it so that the cause of a failed start is in front of whoever reads
    the error, not in a file they have to find.
    """
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    if lines is not None:
        text = "\n".join(text.splitlines()[-lines:])
    if chars is not None:
        text = text[-chars:]
    return text


SOCKET_PATH_MAX = 100  # sun_path is 108 bytes with its NUL; keep a margin


def socket_path(directory: Path, filename: str, tag: str) -> Path:
    """`directory/filename`, or a short path under the temp dir when that is too long for a
    Unix socket (a deep data dir): the same directory always gives the same short path."""
    socket = directory / filename
    if len(os.fsencode(socket)) <= SOCKET_PATH_MAX:
        return socket
    digest = hashlib.sha256(os.fsencode(directory)).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"pegas-{tag}-{digest}" / filename
