"""SSRF checks, safe HTTP fetching against a real server on 127.0.0.1, and file-root checks.

No test sends traffic to a non-loopback address: the address classifier is tested on literal IPs
and on names answered by a stub resolver.
"""

from __future__ import annotations

import io
import ipaddress
import os
import time
import zipfile
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from pegas_memory.config import Settings, load_settings
from pegas_memory.errors import IngestError, LimitExceeded, SecurityRefused
from pegas_memory.ingest.netguard import (
    address_refusal,
    check_path,
    check_url,
    check_zip,
    fetch_url,
    parse_ip_host,
    read_checked_file,
    redact_proxy,
    sniff_content_type,
)
from tests.loopback import serve

PDF_MAGIC = b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF\n"


def make_settings(tmp_path: Path, **overrides: object) -> Settings:
    return load_settings(data_dir=tmp_path / "data", **overrides)


def no_dns(host: str, port: int) -> list[str]:
    raise AssertionError(f"resolver must not be called for {host}")


def stub_dns(table: dict[str, list[str]]) -> Callable[[str, int], list[str]]:
    return lambda host, port: table[host]


# --- address classification ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "ip"),
    [
        ("2130706433", "127.0.0.1"),  # decimal
        ("0x7f000001", "127.0.0.1"),  # hex
        ("0177.0.0.1", "127.0.0.1"),  # octal
        ("0x7f.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.1", "10.0.0.1"),
        ("[::1]", "::1"),
        ("169.254.169.254", "169.254.169.254"),
    ],
)
def test_numeric_host_forms_are_decoded(host: str, ip: str) -> None:
    assert parse_ip_host(host) == ipaddress.ip_address(ip)


def test_dns_names_are_not_ips_and_bad_numbers_are_refused() -> None:
    assert parse_ip_host("example.org") is None
    assert parse_ip_host("1.2.3.4.example") is None
    for bad in ("256.1.1.1", "1.2.3.0x100", "08.1.1.1"):
        with pytest.raises(SecurityRefused):
            parse_ip_host(bad)


@pytest.mark.parametrize(
    ("ip", "reason"),
    [
        ("127.0.0.1", "is a loopback address"),
        ("10.0.0.5", "private"),
        ("172.16.3.4", "private"),
        ("192.168.1.1", "private"),
        ("169.254.1.1", "link-local"),
        ("169.254.169.254", "metadata"),
        ("100.100.100.200", "metadata"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("224.0.0.1", "multicast"),
        ("0.0.0.0", "is an unspecified address"),
        ("240.0.0.1", "reserved"),
        ("192.0.2.10", "private"),  # documentation range
        ("::1", "loopback"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("fd00:ec2::254", "metadata"),
        ("::ffff:127.0.0.1", "loopback"),  # IPv6-mapped IPv4
        ("::ffff:169.254.169.254", "metadata"),
        ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
        ("2002:7f00:1::", "loopback"),  # 6to4 of 127.0.0.1
    ],
)
def test_non_public_addresses_are_refused(ip: str, reason: str) -> None:
    refusal = address_refusal(ipaddress.ip_address(ip))
    assert refusal is not None and reason in refusal


@pytest.mark.parametrize("ip", ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(ip: str) -> None:
    assert address_refusal(ipaddress.ip_address(ip)) is None


def test_check_url_rules(tmp_path: Path) -> None:
    s = make_settings(tmp_path)
    for url in (
        "http://127.0.0.1/",
        "http://2130706433/",
        "http://0x7f.1/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::1]:8080/",
        "http://169.254.169.254/latest/meta-data/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://localhost:9000/",
        "http://api.localhost/",
        "file:///etc/passwd",
        "ftp://example.org/file",
        "gopher://example.org/",
        "http://user:secret@example.org/",
    ):
        with pytest.raises(SecurityRefused):
            check_url(url, s, resolver=no_dns)


def test_names_are_checked_after_resolution(tmp_path: Path) -> None:
    s = make_settings(tmp_path)
    dns = stub_dns(
        {
            "rebind.example": ["127.0.0.1"],
            "mixed.example": ["93.184.216.34", "10.0.0.7"],
            "six.example": ["::ffff:10.1.2.3"],
            "good.example": ["93.184.216.34", "2606:2800:220:1::1"],
        }
    )
    with pytest.raises(SecurityRefused, match=r"loopback.*rebind\.example"):
        check_url("http://rebind.example/", s, resolver=dns)
    with pytest.raises(SecurityRefused, match="private"):
        check_url("https://mixed.example/", s, resolver=dns)
    with pytest.raises(SecurityRefused, match="private"):
        check_url("https://six.example/", s, resolver=dns)
    checked = check_url("https://good.example/a?b=1", s, resolver=dns)
    assert checked.addresses == ("93.184.216.34", "2606:2800:220:1::1")
    assert (checked.port, checked.allow_listed) == (443, False)


def test_allowlist_by_name_ip_and_cidr(tmp_path: Path) -> None:
    s = make_settings(tmp_path, url_allowlist=["10.0.0.0/8", "intranet.example"])
    dns = stub_dns({"wiki.corp": ["10.2.3.4"], "other.corp": ["192.168.0.2"]})
    assert check_url("http://10.9.9.9/", s, resolver=no_dns).allow_listed
    assert check_url("http://intranet.example/", s, resolver=no_dns).allow_listed
    assert check_url("http://wiki.corp/", s, resolver=dns).addresses == ("10.2.3.4",)
    with pytest.raises(SecurityRefused, match="PEGAS_URL_ALLOWLIST"):
        check_url("http://other.corp/", s, resolver=dns)
    assert check_url("http://192.168.0.2/", s, allow=["192.168.0.0/24"], resolver=no_dns)


def test_sniffing_trusts_bytes_over_headers() -> None:
    assert sniff_content_type(PDF_MAGIC, "text/html") == "application/pdf"
    assert sniff_content_type(PDF_MAGIC, "application/octet-stream") == "application/pdf"
    epub = io.BytesIO()
    with zipfile.ZipFile(epub, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
    assert sniff_content_type(epub.getvalue()) == "application/epub+zip"
    assert sniff_content_type(b"\n<!DOCTYPE html><html><body>x</body></html>") == "text/html"
    assert sniff_content_type("Привет, мир".encode()) == "text/plain"
    assert sniff_content_type(bytes(range(256)) * 4) == "application/octet-stream"


def test_proxy_credentials_are_redacted() -> None:
    assert redact_proxy("socks5://alice:s3cret@10.0.0.1:1080") == "socks5://10.0.0.1:1080"
    assert redact_proxy(None) == "(none)"


# --- real HTTP on loopback -----------------------------------------------------------------------

ARTICLE = b"""<!DOCTYPE html><html><head><title>Loopback article</title></head>
<body><article><h1>Loopback article</h1><p>The first paragraph of the article body.</p>
</article></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    sent_big = 0

    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        return

    def _send(self, status: int, body: bytes, ctype: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        port = self.server.server_address[1]
        if self.path == "/page.html":
            self._send(200, ARTICLE, "text/html; charset=utf-8")
        elif self.path == "/doc":
            self._send(200, PDF_MAGIC, "application/octet-stream")
        elif self.path == "/redirect":
            self._send(302, b"", "text/plain", Location="/page.html")
        elif self.path == "/loop":
            self._send(302, b"", "text/plain", Location="/loop")
        elif self.path == "/to-ip":
            self._send(302, b"", "text/plain", Location=f"http://127.0.0.1:{port}/page.html")
        elif self.path == "/to-metadata":
            self._send(301, b"", "text/plain", Location="http://169.254.169.254/latest/")
        elif self.path == "/host":
            self._send(200, self.headers.get("Host", "").encode(), "text/plain")
        elif self.path == "/error":
            self._send(503, b"busy", "text/plain")
        elif self.path == "/declared-big":
            self.send_response(200)
            self.send_header("Content-Length", str(50 * 1024 * 1024))
            self.end_headers()
        elif self.path == "/big":
            # 50 MB, no Content-Length: only the streaming limit can stop it.
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            block = b"<p>" + b"a" * 65_530 + b"</p>"
            try:
                for _ in range(50 * 1024 * 1024 // len(block)):
                    self.wfile.write(block)
                    type(self).sent_big += len(block)
            except (BrokenPipeError, ConnectionResetError):
                return
        elif self.path == "/slow":
            time.sleep(2.0)
            try:
                self._send(200, ARTICLE, "text/html")
            except (BrokenPipeError, ConnectionResetError):
                return  # the client gave up first, as it should
        else:
            self._send(404, b"not here", "text/plain")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve(_Handler) as url:
        yield url


LOOPBACK = ["127.0.0.1"]


def test_fetch_html(server: str, tmp_path: Path) -> None:
    got = fetch_url(f"{server}/page.html", make_settings(tmp_path), allow=LOOPBACK)
    assert (got.status, got.content_type) == (200, "text/html")
    assert b"first paragraph" in got.body
    assert got.headers["content-type"].startswith("text/html")


def test_pdf_served_as_octet_stream_is_sniffed(server: str, tmp_path: Path) -> None:
    got = fetch_url(f"{server}/doc", make_settings(tmp_path), allow=LOOPBACK)
    assert got.content_type == "application/pdf"
    assert got.headers["content-type"] == "application/octet-stream"


def test_redirects_are_followed_and_recorded(server: str, tmp_path: Path) -> None:
    got = fetch_url(f"{server}/redirect", make_settings(tmp_path), allow=LOOPBACK)
    assert got.url_final == f"{server}/page.html"
    assert got.redirects == (f"{server}/page.html",)


def test_redirect_to_loopback_ip_is_refused_when_not_allow_listed(
    server: str, tmp_path: Path
) -> None:
    # The first hop is allowed by name only; the redirect goes to the IP, which is not.
    port = server.rsplit(":", 1)[1]
    with pytest.raises(SecurityRefused, match=r"127\.0\.0\.1 is a loopback"):
        fetch_url(f"http://localhost:{port}/to-ip", make_settings(tmp_path), allow=["localhost"])
    with pytest.raises(SecurityRefused, match="metadata"):
        fetch_url(f"{server}/to-metadata", make_settings(tmp_path), allow=LOOPBACK)


def test_connection_goes_to_the_checked_ip_not_a_second_lookup(server: str, tmp_path: Path) -> None:
    # "pinned.test" exists only in the stub resolver: the fetch can only succeed if it connects
    # to the address that was checked, while the Host header keeps the name.
    port = server.rsplit(":", 1)[1]
    dns = stub_dns({"pinned.test": ["127.0.0.1"]})
    got = fetch_url(
        f"http://pinned.test:{port}/host", make_settings(tmp_path), allow=LOOPBACK, resolver=dns
    )
    assert got.body == f"pinned.test:{port}".encode()
    assert got.url_final == f"http://pinned.test:{port}/host"


def test_redirect_loop_hits_the_limit(server: str, tmp_path: Path) -> None:
    with pytest.raises(LimitExceeded, match="PEGAS_MAX_REDIRECTS"):
        fetch_url(f"{server}/loop", make_settings(tmp_path, max_redirects=3), allow=LOOPBACK)


def test_http_errors(server: str, tmp_path: Path) -> None:
    with pytest.raises(IngestError, match=r"HTTP 404.*check the URL"):
        fetch_url(f"{server}/missing", make_settings(tmp_path), allow=LOOPBACK)
    with pytest.raises(IngestError, match="HTTP 503"):
        fetch_url(f"{server}/error", make_settings(tmp_path), allow=LOOPBACK)


def test_50_mb_page_is_refused_while_streaming(server: str, tmp_path: Path) -> None:
    s = make_settings(tmp_path, max_fetch_bytes=2 * 1024 * 1024)
    with pytest.raises(LimitExceeded, match="PEGAS_MAX_FETCH_BYTES"):
        fetch_url(f"{server}/declared-big", s, allow=LOOPBACK)
    with pytest.raises(LimitExceeded, match="max_fetch_bytes"):
        fetch_url(f"{server}/big", s, allow=LOOPBACK)
    time.sleep(0.2)
    assert _Handler.sent_big < 20 * 1024 * 1024, "the client stopped reading early"


def test_slow_server_times_out(server: str, tmp_path: Path) -> None:
    s = make_settings(tmp_path, fetch_timeout=0.3)
    started = time.monotonic()
    with pytest.raises(IngestError, match=r"timed out.*PEGAS_FETCH_TIMEOUT"):
        fetch_url(f"{server}/slow", s, allow=LOOPBACK)
    assert time.monotonic() - started < 1.5


def test_unreachable_proxy_error_hides_credentials(server: str, tmp_path: Path) -> None:
    s = make_settings(tmp_path, proxy_url="http://alice:s3cret@127.0.0.1:9")
    with pytest.raises(IngestError) as info:
        fetch_url(f"{server}/page.html", s, allow=LOOPBACK)
    assert "s3cret" not in str(info.value)


# --- files ---------------------------------------------------------------------------------------


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "root"
    base.mkdir()
    (base / "notes.md").write_text("# Notes\n\nInside the root.\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("outside", encoding="utf-8")
    return base


def test_file_ingest_is_refused_without_roots(root: Path, tmp_path: Path) -> None:
    with pytest.raises(SecurityRefused, match="PEGAS_INGEST_ROOTS"):
        check_path(root / "notes.md", make_settings(tmp_path))


def test_paths_inside_roots(root: Path, tmp_path: Path) -> None:
    s = make_settings(tmp_path, ingest_roots=[str(root)])
    assert check_path(root / "notes.md", s) == (root / "notes.md").resolve()
    assert check_path("notes.md", s) == (root / "notes.md").resolve()  # relative to the root
    (root / "link.md").symlink_to(root / "notes.md")
    assert check_path(root / "link.md", s) == (root / "notes.md").resolve()
    path, data = read_checked_file("notes.md", s)
    assert data.startswith(b"# Notes") and path.name == "notes.md"


def test_escapes_and_special_files_are_refused(root: Path, tmp_path: Path) -> None:
    s = make_settings(tmp_path, ingest_roots=[str(root)])
    with pytest.raises(SecurityRefused, match="outside the ingest roots"):
        check_path(root / ".." / "secret.txt", s)
    with pytest.raises(SecurityRefused, match="outside the ingest roots"):
        check_path("../secret.txt", s)
    (root / "escape.txt").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(SecurityRefused, match="outside the ingest roots"):
        check_path(root / "escape.txt", s)
    os.mkfifo(root / "pipe")
    with pytest.raises(SecurityRefused, match="FIFO"):
        check_path(root / "pipe", s)
    with pytest.raises(SecurityRefused, match="directory"):
        check_path(root, s)
    with pytest.raises(IngestError, match="no such file"):
        check_path(root / "missing.pdf", s)


def test_file_size_limit(root: Path, tmp_path: Path) -> None:
    (root / "big.txt").write_bytes(b"x" * 5000)
    s = make_settings(tmp_path, ingest_roots=[str(root)], max_fetch_bytes=4096)
    with pytest.raises(LimitExceeded, match="PEGAS_MAX_FETCH_BYTES"):
        read_checked_file(root / "big.txt", s)


# --- archives ------------------------------------------------------------------------------------


def test_zip_checks(tmp_path: Path) -> None:
    s = make_settings(tmp_path, max_fetch_bytes=10 * 1024 * 1024)
    with pytest.raises(IngestError, match="not a zip archive"):
        check_zip(b"this is not a zip at all", "book.epub", s)
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("OEBPS/zeros.xhtml", b"\0" * (8 * 1024 * 1024))
    with pytest.raises(LimitExceeded, match="zip bomb"):
        check_zip(bomb.getvalue(), "bomb.epub", s)
    with pytest.raises(LimitExceeded, match="inflates to"):
        check_zip(bomb.getvalue(), "bomb.epub", make_settings(tmp_path, max_fetch_bytes=1000))


def test_an_unknown_home_directory_is_a_clear_error(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    s = make_settings(tmp_path, ingest_roots=[str(root)])
    with pytest.raises(IngestError, match=r"cannot expand '~no-such-user-0/notes\.md'"):
        check_path("~no-such-user-0/notes.md", s)
