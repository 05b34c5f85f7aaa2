"""Security review through the real MCP transport (issue 9, section 5), one test per finding.

- SSRF through memory_ingest: every spelling of loopback, a DNS name resolving to loopback,
  cloud metadata, and a redirect from an allow-listed server into a loopback address that is not
  allow-listed. A real HTTP server listens behind each refused address, so a broken check would
  show up as a fetched page; it must receive nothing, and nothing is written.
- File-root escapes: a symlink inside the root pointing out, `..`, absolute paths, /etc/passwd,
  /proc/self/environ.
- Secrets: proxy credentials and the database password appear in no tool result and no log line.
- Per-tool time limits: a tool waiting on a slow model ends with a clear timeout error.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.db.embedded import EmbeddedPostgres
from tests.db_fingerprint import fingerprint
from tests.loopback import Replies, serve
from tests.mcp_sessions import McpSession, result_text, session_with_a_slow_model
from tests.pgcluster import create_database

SECRET = "s3cret"
PAGE = b"<html><body><h1>Internal</h1><p>TOPSECRET internal page text.</p></body></html>"


class Site:
    """A real HTTP server on a loopback address: serves PAGE, or redirects to `redirect_to`."""

    def __init__(self, host: str, redirect_to: str | None = None):
        self.hits: list[str] = []
        site = self

        class Handler(Replies):
            def do_GET(self) -> None:
                site.hits.append(self.path)
                if redirect_to:
                    self.send_response(302)
                    self.send_header("Location", redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.reply(200, PAGE, "text/html")

        self._running = ExitStack()
        base = self._running.enter_context(serve(Handler, host))
        self.port = int(base.rsplit(":", 1)[1])

    def close(self) -> None:
        self._running.close()


def _loopback_name() -> str | None:
    """A DNS name other than 'localhost' that resolves only to loopback here (hosts file)."""
    for name in (socket.gethostname(), "localhost.localdomain", "ip6-localhost", "vm", "runsc"):
        try:
            infos = socket.getaddrinfo(name, 80, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            continue
        addresses = {ipaddress.ip_address(str(i[4][0]).split("%")[0]) for i in infos}
        if name != "localhost" and addresses and all(a.is_loopback for a in addresses):
            return name
    return None


@pytest.fixture(scope="module")
def target() -> Iterator[Site]:
    """What an SSRF would reach: a page on 127.0.0.1."""
    site = Site("127.0.0.1")
    yield site
    site.close()


@pytest.fixture(scope="module")
def allowed(target: Site) -> Iterator[Site]:
    """An allow-listed loopback server (127.0.0.2) that redirects to the non-allow-listed one."""
    site = Site("127.0.0.2", redirect_to=f"http://127.0.0.1:{target.port}/internal")
    yield site
    site.close()


@pytest.fixture(scope="module")
def sec_db(embedded_pg: EmbeddedPostgres) -> str:
    return create_database(embedded_pg.uri)


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("security")
    root, outside = base / "root", base / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("TOPSECRET outside the root.\n", "utf-8")
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (root / "notes.txt").write_text("Notes inside the root are fine to read.\n", "utf-8")
    return {"base": base, "root": root, "outside": outside}


@pytest.fixture(scope="module")
def server(sec_db: str, layout: dict[str, Path], allowed: Site) -> Iterator[McpSession]:
    env = {
        "PEGAS_DATA_DIR": str(layout["base"] / "data"),
        "PEGAS_DATABASE_URL": sec_db,
        "PEGAS_INGEST_ROOTS": json.dumps([str(layout["root"])]),
        "PEGAS_URL_ALLOWLIST": json.dumps(["127.0.0.2"]),
        "PEGAS_FETCH_TIMEOUT": "5",
    }
    with McpSession(env, layout["base"] / "server.stderr") as session:
        yield session


def _refused(server: McpSession, db: str, arguments: dict[str, Any]) -> str:
    before = fingerprint(db)
    result = server.call("memory_ingest", arguments, timeout=60)
    text = result_text(result)
    assert result.is_error, f"{arguments} was ingested: {text[:400]}"
    assert "TOPSECRET" not in text and "root:x:0" not in text, text
    assert fingerprint(db) == before, f"{arguments} was refused but wrote"
    return text


SSRF_HOSTS = {
    "decimal": "2130706433",
    "octal": "0177.0.0.1",
    "hex": "0x7f000001",
    "short dotted": "127.1",
    "ipv6-mapped": "[::ffff:127.0.0.1]",
    "ipv6 loopback": "[::1]",
    "localhost": "localhost",
    "unspecified": "0.0.0.0",
}


@pytest.mark.parametrize("case", sorted(SSRF_HOSTS))
def test_ssrf_loopback_spellings_are_refused(
    server: McpSession, sec_db: str, target: Site, case: str
) -> None:
    url = f"http://{SSRF_HOSTS[case]}:{target.port}/internal"
    text = _refused(server, sec_db, {"source": url})
    assert "refused" in text and "PEGAS_URL_ALLOWLIST" in text, text
    assert target.hits == []


def test_ssrf_dns_name_resolving_to_loopback_is_refused(
    server: McpSession, sec_db: str, target: Site
) -> None:
    name = _loopback_name()
    if name is None:
        pytest.skip("no hosts-file name other than localhost resolves to loopback here")
    text = _refused(server, sec_db, {"source": f"http://{name}:{target.port}/internal"})
    assert "loopback" in text and "resolves to" in text, text
    assert target.hits == []


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "file:///etc/passwd",
        "gopher://127.0.0.1:6379/_FLUSHALL",
    ],
)
def test_ssrf_metadata_and_other_schemes_are_refused(
    server: McpSession, sec_db: str, url: str
) -> None:
    text = _refused(server, sec_db, {"source": url})
    assert "refused" in text, text


def test_ssrf_redirect_from_allow_listed_server_into_loopback_is_refused(
    server: McpSession, sec_db: str, allowed: Site, target: Site
) -> None:
    text = _refused(server, sec_db, {"source": f"http://127.0.0.2:{allowed.port}/start"})
    assert "127.0.0.1" in text and "loopback" in text, text
    assert allowed.hits == ["/start"]  # the allow-listed hop was fetched ...
    assert target.hits == []  # ... and the redirect target never was


def test_allow_listed_server_itself_is_readable(server: McpSession, tmp_path: Path) -> None:
    """The control case: the allow-list works, so the refusals above are the SSRF checks."""
    page = Site("127.0.0.2")
    try:
        result = server.call("memory_ingest", {"source": f"http://127.0.0.2:{page.port}/ok"})
        assert not result.is_error, result_text(result)
        assert page.hits == ["/ok"]
    finally:
        page.close()


def test_file_root_escapes_are_refused(
    server: McpSession, sec_db: str, layout: dict[str, Path]
) -> None:
    root, outside = layout["root"], layout["outside"]
    cases = [
        "link.txt",  # a symlink inside the root to a file outside
        str(root / "link.txt"),
        str(root / "linkdir" / "secret.txt"),  # a symlinked directory
        "../outside/secret.txt",
        str(root / ".." / "outside" / "secret.txt"),
        str(outside / "secret.txt"),
        "/etc/passwd",
        "/proc/self/environ",
        "~/.bashrc.txt",
    ]
    for source in cases:
        text = _refused(server, sec_db, {"source": source})
        assert "outside the ingest roots" in text or "no such file" in text, (source, text)
    for source in ("/etc/passwd", "/proc/self/environ"):
        forced = _refused(server, sec_db, {"source": source, "kind": "html"})
        assert "outside the ingest roots" in forced, forced
    # The control case: a file inside the root is read.
    inside = server.call("memory_ingest", {"source": "notes.txt"})
    assert not inside.is_error, result_text(inside)


def _collect_errors(env: dict[str, str], stderr: Path, calls: list[tuple[str, Any]]) -> list[str]:
    texts = []
    with McpSession(env, stderr) as server:
        for tool, arguments in calls:
            result = server.call(tool, arguments, timeout=60)
            assert result.is_error, (tool, result_text(result))
            texts.append(result_text(result))
    return texts


@pytest.mark.slow
def test_secrets_are_never_returned_or_logged(
    embedded_pg: EmbeddedPostgres, tmp_path: Path
) -> None:
    proxy = f"socks5://user:{SECRET}@127.0.0.1:9"
    # A reachable database whose URL carries a password (the embedded server trusts the socket).
    url = create_database(embedded_pg.uri)
    assert "postgres:@" in url
    via_proxy = _collect_errors(
        {
            "PEGAS_DATA_DIR": str(tmp_path / "a"),
            "PROXY_URL": proxy,
            "PEGAS_DATABASE_URL": url.replace("postgres:@", f"postgres:{SECRET}@"),
            "PEGAS_FETCH_TIMEOUT": "5",
        },
        tmp_path / "a.stderr",
        [
            ("memory_ingest", {"source": "http://93.184.216.34/page"}),
            ("memory_ingest", {"source": "https://example.org/"}),
            ("memory_ingest", {"source": f"http://user:{SECRET}@93.184.216.34/"}),
        ],
    )
    # The fetch went to the (closed) proxy port: a direct fetch of a public IP has no route here
    # and would time out instead of being refused at once.
    assert "failed" in via_proxy[0] or "proxy" in via_proxy[0], via_proxy
    # An unreachable database whose URL carries a password.
    db_down = _collect_errors(
        {
            "PEGAS_DATA_DIR": str(tmp_path / "b"),
            "PROXY_URL": proxy,
            "PEGAS_DATABASE_URL": f"postgresql://pm:{SECRET}@127.0.0.1:9/pegas",
            "PEGAS_DB_CONNECT_TIMEOUT": "2",
            "PEGAS_GRAPH_PASSWORD": SECRET,
        },
        tmp_path / "b.stderr",
        [
            ("memory_stats", {}),
            ("memory_search", {"query": "anything"}),
            ("memory_store", {"claim": "a claim"}),
            ("memory_list_gaps", {}),
        ],
    )
    # memory_search says only "the database is not open" here: see
    # test_hardening_mcp::test_server_started_while_postgres_is_down_recovers.
    assert sum("PostgreSQL" in t for t in db_down) >= 3, "\n".join(db_down)
    logs = [(tmp_path / n).read_text("utf-8", errors="replace") for n in ("a.stderr", "b.stderr")]
    for text in [*via_proxy, *db_down, *logs]:
        assert SECRET not in text, text[:3000]


def test_per_tool_time_limit(embedded_pg: EmbeddedPostgres, tmp_path: Path) -> None:
    with session_with_a_slow_model(create_database(embedded_pg.uri), tmp_path) as server:
        # Bounded well below the model's 30 s delay: the tool limit must end it first.
        result = server.call("memory_search", {"query": "энтропия"}, timeout=20)
        assert result.is_error, result_text(result)
        assert "longer than" in result_text(result), result_text(result)
        # memory_ingest runs as a job: within its bound it answers with the job to follow.
        source = {"source": "Entropy measures uncertainty in a system."}
        result = server.call("memory_ingest", source, timeout=20)
        assert not result.is_error, result_text(result)
        assert '"finished": false' in result_text(result), result_text(result)
        # The server is still serving: stats never waits for the engines (they are prewarmed
        # at start, and a slice still starting is reported as such).
        stats = server.call("memory_stats", {})
        assert not stats.is_error, result_text(stats)
