"""Who may change the memory through the UI: the session token, the bind policy, CSRF checks.

- The session token is `PEGAS_UI_TOKEN` when configured, else a random one made at start. It is
  printed once and written to `data_dir/ui/token` with owner-only permissions (0600), so a
  person on the machine can read it again and nobody else can.
- A browser presents it once (`/?token=...`, the link printed at start): the answer sets it as
  an HttpOnly, SameSite=Strict cookie and redirects to the same page without it.
- Every change (a POST) needs that cookie, the form's CSRF field (an HMAC of the token, so a
  page of another site can neither read nor forge it) and an Origin (or, without one, a Referer)
  naming this server. Anything else is 403 before the handler runs, so nothing changes.
- Binding to anything but loopback without a configured token refuses to start: a random token
  printed on a server's console protects nobody who reaches it over the network unawares.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

COOKIE = "pegas_ui"
CSRF_FIELD = "csrf"
TOKEN_PARAM = "token"


class BindRefused(Exception):
    """The UI must not start on this address with these settings (the message says why)."""


def is_loopback(host: str) -> bool:
    """Whether `host` (as given to --bind) is a loopback address or `localhost`."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


def check_bind(host: str, configured_token: str | None) -> None:
    """Refuse a non-loopback bind without a configured token, saying what to do instead."""
    if is_loopback(host) or configured_token:
        return
    raise BindRefused(
        f"refusing to serve the UI on {host}: that address is reachable from other machines "
        "and no token is configured. Set PEGAS_UI_TOKEN to a secret of 24 or more printable "
        "characters (e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`) and "
        "start again, or bind to 127.0.0.1 (the default)."
    )


def token_path(data_dir: Path) -> Path:
    return data_dir / "ui" / "token"


def write_token(data_dir: Path, token: str) -> Path:
    """Keep `token` in the data dir, readable and writable by the owner only (0600 from its
    creation: never a moment with wider permissions)."""
    path = token_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".token.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (token + "\n").encode())
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return path


def session_token(configured: str | None) -> str:
    return configured or secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Guard:
    """The checks every request passes; `token` is this server's session token."""

    token: str
    reads_need_token: bool = False  # on a non-loopback bind, reading needs the token too

    @property
    def csrf(self) -> str:
        """The CSRF field every form carries: derived from the token, useless without it."""
        return hmac.new(self.token.encode(), b"pegas-ui-csrf", hashlib.sha256).hexdigest()

    def token_ok(self, presented: str | None) -> bool:
        return bool(presented) and hmac.compare_digest(str(presented).encode(), self.token.encode())

    def csrf_ok(self, presented: str | None) -> bool:
        return bool(presented) and hmac.compare_digest(str(presented).encode(), self.csrf.encode())

    def why_refused(
        self,
        *,
        cookie: str | None,
        csrf: str | None,
        origin: str | None,
        referer: str | None,
        host: str | None,
    ) -> str | None:
        """None when a change may go ahead; else why not (shown on the 403 page)."""
        if not self.token_ok(cookie):
            return (
                "this change needs the session token: open the link `pegas-memory ui` printed "
                "(…/?token=…), or read the token from the data dir's ui/token"
            )
        if not same_origin(origin, referer, host):
            return "the request did not come from this server's own pages (Origin/Referer)"
        if not self.csrf_ok(csrf):
            return "the form's CSRF field is missing or wrong: reload the page and try again"
        return None


def same_origin(origin: str | None, referer: str | None, host: str | None) -> bool:
    """The request's Origin (or, when a browser sent none, its Referer) names this server's own
    host and port. Neither header at all is refused: every browser sends one on a form POST."""
    if not host:
        return False
    source = origin if origin and origin != "null" else referer
    if not source:
        return False
    parts = urlsplit(source)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()
