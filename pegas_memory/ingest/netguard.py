"""Safe fetching: what a URL or a file path may reach before ingest reads a single byte.

The agent chooses URLs and paths, and a page it reads may choose them for it, so both are
untrusted. `fetch_url` refuses every address that is not globally routable (private, loopback,
link-local, CGNAT, multicast, reserved, cloud metadata) after DNS resolution and again on every
redirect, unless the host, IP or CIDR is allow-listed. `check_path` and `read_checked_file` keep
file ingest under the configured roots.

DNS rebinding: on a direct connection the request goes to the IP that was checked (the URL is
rewritten to the IP; Host header and TLS SNI keep the name, so certificates still verify). Through
a proxy the proxy resolves the name itself, as it must for geo-blocked sources; the residual risk
is that the name resolves differently there than in our check, which reaches only what the proxy
can reach.
"""

from __future__ import annotations

import io
import ipaddress
import os
import re
import socket
import stat
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from pegas_memory.config import Settings
from pegas_memory.errors import IngestError, LimitExceeded, SecurityRefused

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[str]]

USER_AGENT = "pegas-memory/0.1 (+research agent memory; ingest)"
_REDIRECTS = {301, 302, 303, 307, 308}
# The whole fetch (all hops and the body) may take this many times settings.fetch_timeout: the
# per-read timeout alone lets a server that drips one byte per read hold a fetch forever.
_TOTAL_TIMEOUT_FACTOR = 4

_METADATA_NAMES = {"metadata.google.internal", "metadata.goog", "metadata", "instance-data"}
_METADATA_IPS = {
    ipaddress.ip_address("169.254.169.254"),  # AWS, GCP, Azure, OpenStack
    ipaddress.ip_address("169.254.170.2"),  # AWS ECS task metadata
    ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
    ipaddress.ip_address("fd00:ec2::254"),  # AWS over IPv6
}
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}\.?$", re.I)


@dataclass(frozen=True)
class FetchedResource:
    """A fetched HTTP body. `content_type` is sniffed from the bytes, not taken on trust."""

    url_final: str
    status: int
    content_type: str
    body: bytes
    headers: Mapping[str, str]
    redirects: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class CheckedUrl:
    """A URL that passed the SSRF checks, with the addresses it may be fetched from."""

    url: str
    scheme: str
    host: str
    port: int
    addresses: tuple[str, ...]  # empty when the host itself is allow-listed by name
    allow_listed: bool


# --- address classification (pure) -----------------------------------------------------------


def parse_ip_host(host: str) -> IPAddress | None:
    """The IP a URL host denotes, including the legacy IPv4 forms browsers and libc accept
    ("2130706433", "0x7f.1", "0177.0.0.1"); None for a DNS name.

    Raises SecurityRefused for a numeric host no resolver agrees on (out-of-range parts).
    """
    h = host.strip().strip("[]")
    if "%" in h:  # zone-scoped IPv6 only makes sense on a local link
        raise SecurityRefused(f"host {host!r} is a zone-scoped IPv6 address; refused")
    try:
        return ipaddress.ip_address(h)
    except ValueError:
        pass
    if not _NUMERIC_HOST.match(h):
        return None
    parts = h.rstrip(".").split(".")
    try:
        values = [_parse_inet_part(p) for p in parts]
    except ValueError as exc:
        raise SecurityRefused(f"host {host!r} is a malformed numeric address; refused") from exc
    # inet_aton semantics: the last part fills all the remaining bytes.
    limits = [0xFF] * (len(values) - 1)
    last_limit = (1 << (8 * (5 - len(values)))) - 1
    if any(v > lim for v, lim in zip(values, limits, strict=False)) or values[-1] > last_limit:
        raise SecurityRefused(f"host {host!r} is an out-of-range numeric address; refused")
    number = 0
    for v in values[:-1]:
        number = (number << 8) | v
    number = (number << (8 * (5 - len(values)))) | values[-1]
    return ipaddress.IPv4Address(number)


def _parse_inet_part(part: str) -> int:
    if part.lower().startswith("0x"):
        return int(part[2:] or "0", 16)
    if len(part) > 1 and part.startswith("0"):
        return int(part, 8)
    return int(part, 10)


def embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, NAT64, Teredo), if any."""
    if isinstance(ip, ipaddress.IPv4Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.teredo is not None:
        return ip.teredo[1]
    return None


def address_refusal(ip: IPAddress) -> str | None:
    """Why fetching from `ip` is refused, or None when it is a public address."""
    inner = embedded_ipv4(ip)
    if inner is not None:
        reason = address_refusal(inner)
        return f"{reason} (embedded in IPv6 {ip})" if reason else None
    if ip in _METADATA_IPS:
        return f"{ip} is a cloud metadata address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return f"{ip} is a carrier-grade NAT (shared) address"
    for attr, what in (
        ("is_unspecified", "an unspecified"),
        ("is_loopback", "a loopback"),
        ("is_link_local", "a link-local"),
        ("is_multicast", "a multicast"),
        ("is_reserved", "a reserved"),
        ("is_private", "a private"),
    ):
        if getattr(ip, attr):
            return f"{ip} is {what} address"
    if not ip.is_global:
        return f"{ip} is not a globally routable address"
    return None


def _normalise_host(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


def _host_allowed(host: str, ip: IPAddress | None, allow: Sequence[str]) -> bool:
    name = _normalise_host(host)
    for entry in allow:
        item = entry.strip().lower()
        if not item:
            continue
        try:
            network = ipaddress.ip_network(item.strip("[]"), strict=False)
        except ValueError:
            item = item.rstrip(".")
            # ".example.org" allows every subdomain; "example.org" exactly that host.
            if name == item or (item.startswith(".") and name.endswith(item)):
                return True
            continue
        if ip is not None and ip.version == network.version and ip in network:
            return True
    return False


def system_resolver(host: str, port: int) -> list[str]:
    """All addresses `host` resolves to; IngestError when it does not resolve."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise IngestError(f"cannot resolve host {host!r}: {exc}; check the URL") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def check_url(
    url: str,
    settings: Settings,
    *,
    allow: Sequence[str] = (),
    resolver: Resolver | None = None,
) -> CheckedUrl:
    """Validate one URL (one hop) against the SSRF rules; DNS names are resolved and every
    address they resolve to must be acceptable.

    Raises SecurityRefused (scheme, credentials, refused address), IngestError (bad URL, DNS).
    """
    allow_all = [*settings.url_allowlist, *allow]
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise IngestError(f"malformed URL {url!r}: {exc}") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise SecurityRefused(f"URL scheme {scheme or '(none)'!r} refused: only http and https")
    if parts.username is not None or parts.password is not None:
        raise SecurityRefused("URLs with embedded credentials are refused; remove 'user:pass@'")
    host = parts.hostname or ""
    if not host:
        raise IngestError(f"URL {url!r} has no host")
    port = port or (443 if scheme == "https" else 80)
    ip = parse_ip_host(host)
    if _host_allowed(host, ip, allow_all):
        return CheckedUrl(url, scheme, host, port, (str(ip),) if ip else (), True)
    hint = "add it to PEGAS_URL_ALLOWLIST if this server may really read it"
    if ip is None:
        name = _normalise_host(host)
        if name in _METADATA_NAMES:
            raise SecurityRefused(f"host {host!r} is a cloud metadata service; refused")
        if name == "localhost" or name.endswith(".localhost"):
            raise SecurityRefused(f"host {host!r} is loopback; refused ({hint})")
        addresses = list((resolver or system_resolver)(host, port))
        if not addresses:
            raise IngestError(f"host {host!r} resolved to no address; check the URL")
    else:
        addresses = [str(ip)]
    for address in addresses:
        resolved = ipaddress.ip_address(address.split("%")[0])
        if _host_allowed(host, resolved, allow_all):
            continue
        reason = address_refusal(resolved)
        if reason:
            via = "" if ip is not None else f" ({host!r} resolves to it)"
            raise SecurityRefused(f"URL {url!r} refused: {reason}{via}; {hint}")
    return CheckedUrl(url, scheme, host, port, tuple(addresses), False)


# --- content sniffing (pure) ------------------------------------------------------------------


def sniff_content_type(body: bytes, declared: str | None = None) -> str:
    """The media type the bytes really are: magic numbers beat the server's Content-Type."""
    head = body[:2048]
    if b"%PDF-" in head[:1024]:
        return "application/pdf"
    if head.startswith(b"PK\x03\x04"):
        if head[30:58] == b"mimetypeapplication/epub+zip":
            return "application/epub+zip"
        return "application/zip"
    declared_type = (declared or "").split(";")[0].strip().lower()
    text_head = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text_head.startswith((b"<!doctype html", b"<html", b"<head", b"<body")) or (
        b"<html" in head.lower() and b"</" in head
    ):
        return "text/html"
    if declared_type in ("application/xhtml+xml", "text/html") and b"<" in head:
        return "text/html"
    if looks_binary(head):
        return "application/octet-stream"
    if declared_type in ("text/markdown", "text/x-markdown"):
        return "text/markdown"
    return "text/plain"


def looks_binary(data: bytes) -> bool:
    """NUL bytes or many control characters: not text in any encoding we read."""
    if not data:
        return False
    sample = data[:8192]
    if b"\x00" in sample and not sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13, 27))
    return controls > max(2, len(sample) // 100)


def decode_text(data: bytes, uri: str) -> tuple[str, str | None]:
    """Bytes to str: BOMs, then UTF-8, then the best guess of charset_normalizer (with a warning).

    Raises IngestError when the bytes look binary.
    """
    for bom, codec in (
        (b"\xef\xbb\xbf", "utf-8-sig"),
        (b"\xff\xfe", "utf-16"),
        (b"\xfe\xff", "utf-16"),
    ):
        if data.startswith(bom):
            try:
                return data.decode(codec), None
            except UnicodeDecodeError:
                break
    if looks_binary(data):
        raise IngestError(f"{uri} looks binary, not text; pass a PDF, EPUB, HTML or text document")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data[:200_000]).best()
    if best is None:
        raise IngestError(f"{uri} looks binary: no text encoding fits; pass a text document")
    encoding = best.encoding
    return data.decode(encoding, errors="replace"), f"not UTF-8; decoded as {encoding}"


# --- archives -------------------------------------------------------------------------------

# EPUBs are zips of mostly text; a member inflating more than this is a bomb, not a book.
_MAX_ZIP_RATIO = 100
_MAX_ZIP_ENTRIES = 10_000


def check_zip(data: bytes, uri: str, settings: Settings) -> None:
    """Refuse non-zips and zip bombs from the central directory, before anything is inflated.

    Python's zipfile never inflates a member past its declared size, so the declared sizes
    checked here bound what ebooklib will read.
    Raises IngestError (not a zip), LimitExceeded (too many members, too large, bomb ratio).
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise IngestError(f"{uri} is not an EPUB: it is not a zip archive ({exc})") from None
    if len(infos) > _MAX_ZIP_ENTRIES:
        raise LimitExceeded(f"{uri} has {len(infos)} members, over {_MAX_ZIP_ENTRIES}; refused")
    # Ten times the download limit: room for images, far below what a bomb inflates to.
    limit = 10 * settings.max_fetch_bytes
    total = sum(info.file_size for info in infos)
    if total > limit:
        raise LimitExceeded(
            f"{uri} inflates to {total} bytes, over {limit} (10 x max_fetch_bytes); a zip bomb or "
            "a huge book: raise PEGAS_MAX_FETCH_BYTES if it is legitimate"
        )
    for info in infos:
        ratio = info.file_size // max(info.compress_size, 1)
        if info.file_size > 1_000_000 and ratio > _MAX_ZIP_RATIO:
            raise LimitExceeded(
                f"{uri}: member {info.filename!r} inflates {ratio}x (limit {_MAX_ZIP_RATIO}x); "
                "refused as a zip bomb"
            )


# --- HTTP -------------------------------------------------------------------------------------


def redact_proxy(proxy_url: str | None) -> str:
    """The proxy URL without its credentials, safe for messages and logs."""
    if not proxy_url:
        return "(none)"
    parts = urlsplit(proxy_url)
    host = parts.hostname or "?"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}"


def _pinned_request(
    checked: CheckedUrl, direct: bool
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The URL to send, extra headers and httpx extensions for one hop.

    Direct connections go to the checked IP so DNS cannot change between check and connect.
    """
    if not direct or checked.allow_listed or not checked.addresses:
        return checked.url, {}, {}
    ip = ipaddress.ip_address(checked.addresses[0].split("%")[0])
    if parse_ip_host(checked.host) is not None:
        return checked.url, {}, {}
    parts = urlsplit(checked.url)
    netloc_ip = f"[{ip}]" if ip.version == 6 else str(ip)
    default_port = 443 if checked.scheme == "https" else 80
    netloc = netloc_ip if checked.port == default_port else f"{netloc_ip}:{checked.port}"
    host_header = parts.netloc
    target = parts._replace(netloc=netloc).geturl()
    extensions = {"sni_hostname": checked.host} if checked.scheme == "https" else {}
    return target, {"Host": host_header}, extensions


def fetch_url(
    url: str,
    settings: Settings,
    *,
    allow: Sequence[str] = (),
    resolver: Resolver | None = None,
) -> FetchedResource:
    """GET `url` safely: SSRF checks on every hop, manual redirects, streaming size limit.

    `allow` adds hosts, IPs or CIDRs to settings.url_allowlist for this call.
    Raises SecurityRefused (address or scheme refused), LimitExceeded (body larger than
    settings.max_fetch_bytes, more than settings.max_redirects redirects), IngestError (HTTP
    error status, timeout, connection failure).
    """
    timeout = settings.fetch_timeout
    deadline = time.monotonic() + _TOTAL_TIMEOUT_FACTOR * timeout
    direct = not settings.proxy_url
    redirects: list[str] = []
    current = url
    try:
        client = httpx.Client(
            proxy=settings.proxy_url,
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,  # the proxy comes from settings only, never from HTTP_PROXY
            headers={"User-Agent": USER_AGENT, "Accept": "*/*"},
        )
    except (ValueError, httpx.HTTPError) as exc:
        raise IngestError(
            f"proxy {redact_proxy(settings.proxy_url)} is unusable: {type(exc).__name__}; "
            "check PEGAS_PROXY_URL (http://, https://, socks5:// are supported)"
        ) from None
    with client:
        while True:
            checked = check_url(current, settings, allow=allow, resolver=resolver)
            target, headers, extensions = _pinned_request(checked, direct)
            try:
                with client.stream(
                    "GET", target, headers=headers, extensions=extensions
                ) as response:
                    if response.status_code in _REDIRECTS and "location" in response.headers:
                        location = urljoin(current, response.headers["location"])
                        redirects.append(location)
                        if len(redirects) > settings.max_redirects:
                            raise LimitExceeded(
                                f"{url} redirected more than {settings.max_redirects} times "
                                f"(last to {location}); raise PEGAS_MAX_REDIRECTS if legitimate"
                            )
                        current = location
                        continue
                    if response.status_code >= 400:
                        raise IngestError(
                            f"HTTP {response.status_code} fetching {current}; "
                            + (
                                "the page does not exist: check the URL"
                                if response.status_code in (404, 410)
                                else "the server refused or failed: retry later"
                            )
                        )
                    body = _read_limited(response, current, settings, deadline)
                    declared = response.headers.get("content-type")
                    return FetchedResource(
                        url_final=current,
                        status=response.status_code,
                        content_type=sniff_content_type(body, declared),
                        body=body,
                        headers=dict(response.headers),
                        redirects=tuple(redirects),
                    )
            except httpx.TimeoutException:
                raise IngestError(
                    f"timed out after {timeout:g}s fetching {current}; the server is slow or "
                    "unreachable: retry later or raise PEGAS_FETCH_TIMEOUT"
                ) from None
            except httpx.ProxyError as exc:
                raise IngestError(
                    f"proxy {redact_proxy(settings.proxy_url)} failed for {current}: "
                    f"{_redact(str(exc), settings.proxy_url)}; check PEGAS_PROXY_URL"
                ) from None
            except httpx.HTTPError as exc:
                raise IngestError(
                    f"fetching {current} failed: {type(exc).__name__}: "
                    f"{_redact(str(exc), settings.proxy_url)}"
                ) from None


def _read_limited(response: httpx.Response, url: str, settings: Settings, deadline: float) -> bytes:
    limit = settings.max_fetch_bytes
    too_big = (
        f"{url} is larger than max_fetch_bytes={limit}; raise PEGAS_MAX_FETCH_BYTES to ingest it"
    )
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise LimitExceeded(too_big)
    body = bytearray()
    # iter_bytes yields decoded bytes, so a gzip bomb counts at its inflated size.
    for piece in response.iter_bytes():
        body += piece
        if len(body) > limit:
            raise LimitExceeded(too_big)
        if time.monotonic() > deadline:
            raise IngestError(
                f"fetching {url} took longer than {_TOTAL_TIMEOUT_FACTOR}x fetch_timeout; "
                "retry later or raise PEGAS_FETCH_TIMEOUT"
            )
    return bytes(body)


def _redact(text: str, proxy_url: str | None) -> str:
    if not proxy_url:
        return text
    return text.replace(proxy_url, redact_proxy(proxy_url))


# --- files ------------------------------------------------------------------------------------


def ingest_roots(settings: Settings) -> list[Path]:
    """The configured ingest roots, resolved."""
    return [Path(r).expanduser().resolve() for r in settings.ingest_roots]


def resolve_under_roots(
    path: str | os.PathLike[str], settings: Settings, what: str, hint: str = "check the path"
) -> Path:
    """The resolved path of an existing file or directory under one of settings.ingest_roots.

    With no roots configured, file access is refused: reading any file the server's user can read
    is too much power for a tool the agent (or a page it read) drives. A relative path is taken
    relative to each root in turn. Symlinks are resolved first, so neither `..` nor a link can
    leave the roots. `what` names the missing thing in the error ("file", "file or directory"),
    `hint` says what to do about it.
    Raises SecurityRefused (no roots, outside the roots) or IngestError (no such path, `~user`
    of an unknown user, unresolvable).
    """
    roots = ingest_roots(settings)
    if not roots:
        raise SecurityRefused(
            "file ingest is disabled: no ingest roots are configured; set PEGAS_INGEST_ROOTS "
            '(a JSON list, e.g. ["/home/me/papers"]) to the folders this server may read, '
            "or pass the text itself"
        )
    try:
        raw = Path(path).expanduser()
    except RuntimeError as exc:  # "~someone" for a user this machine does not know
        raise IngestError(f"cannot expand {str(path)!r} ({exc}); give the path itself") from exc
    candidates = [raw] if raw.is_absolute() else [root / raw for root in roots]
    for candidate in candidates:
        try:
            resolved = candidate.resolve(strict=True)
        except FileNotFoundError:
            continue
        except (OSError, RuntimeError) as exc:  # RuntimeError: symlink loop on older Pythons
            raise IngestError(f"cannot resolve {str(path)!r}: {exc}") from exc
        if not any(resolved.is_relative_to(root) for root in roots):
            raise SecurityRefused(
                f"{str(path)!r} resolves to {resolved}, outside the ingest roots "
                f"({', '.join(map(str, roots))}); copy it under a root or add its folder "
                "to PEGAS_INGEST_ROOTS"
            )
        return resolved
    raise IngestError(
        f"no such {what}: {str(path)!r} (looked under {', '.join(map(str, roots))}); {hint}"
    )


def check_path(path: str | os.PathLike[str], settings: Settings) -> Path:
    """The resolved path of a regular file under one of settings.ingest_roots
    (`resolve_under_roots`). Raises as that does, and SecurityRefused (not a regular file),
    LimitExceeded (larger than settings.max_fetch_bytes).
    """
    resolved = resolve_under_roots(
        path, settings, "file", "check the path, or pass kind='text' to ingest the string itself"
    )
    _check_regular(resolved, os.stat(resolved), settings)
    return resolved


def _check_regular(path: Path, st: os.stat_result, settings: Settings) -> None:
    if not stat.S_ISREG(st.st_mode):
        what = "a directory" if stat.S_ISDIR(st.st_mode) else "a device, FIFO or socket"
        raise SecurityRefused(f"{path} is {what}, not a regular file; pass a document file")
    if st.st_size > settings.max_fetch_bytes:
        raise LimitExceeded(
            f"{path} has {st.st_size} bytes, over max_fetch_bytes={settings.max_fetch_bytes}; "
            "raise PEGAS_MAX_FETCH_BYTES to ingest it"
        )


def read_checked_file(path: str | os.PathLike[str], settings: Settings) -> tuple[Path, bytes]:
    """check_path, then read the file without following a symlink swapped in since the check
    (O_NOFOLLOW) and without blocking on a FIFO swapped in (O_NONBLOCK, then fstat)."""
    resolved = check_path(path, settings)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(resolved, flags)
    except OSError as exc:
        raise IngestError(f"cannot open {resolved}: {exc.strerror}") from exc
    with os.fdopen(fd, "rb") as handle:
        _check_regular(resolved, os.fstat(fd), settings)
        data = handle.read(settings.max_fetch_bytes + 1)
    if len(data) > settings.max_fetch_bytes:
        raise LimitExceeded(
            f"{resolved} grew past max_fetch_bytes={settings.max_fetch_bytes} while being read; "
            "raise PEGAS_MAX_FETCH_BYTES to ingest it"
        )
    return resolved, data
