"""Hostile requests: a change without the token, a forged cross-site form, an unsafe bind."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pegas_memory.ui.auth import (
    COOKIE,
    BindRefused,
    Guard,
    check_bind,
    same_origin,
    token_path,
    write_token,
)
from pegas_memory.ui.serve import UiServer
from tests.ui.conftest import Seeded


def test_a_post_without_the_token_is_refused_and_changes_nothing(seeded: Seeded) -> None:
    before = seeded.status(seeded.en_atom)
    with seeded.client(token=False) as http:
        answer = http.post(
            f"/atom/{seeded.en_atom}/retract",
            data=seeded.form(reason="no token"),
            headers=seeded.own_origin,
        )
    assert answer.status_code == 403
    assert "needs the session token" in answer.text
    assert seeded.status(seeded.en_atom) == before
    assert seeded.audit_count() == 0


def test_a_post_with_a_wrong_token_or_no_csrf_field_is_refused(seeded: Seeded) -> None:
    with seeded.client(token=False) as http:
        http.cookies.set(COOKIE, "x" * 40)
        wrong = http.post(
            f"/atom/{seeded.en_atom}/retract", data=seeded.form(), headers=seeded.own_origin
        )
    with seeded.client() as http:
        no_csrf = http.post(
            f"/atom/{seeded.en_atom}/retract", data={"reason": "x"}, headers=seeded.own_origin
        )
    assert (wrong.status_code, no_csrf.status_code) == (403, 403)
    assert "CSRF" in no_csrf.text
    assert seeded.status(seeded.en_atom) == "candidate"
    assert seeded.audit_count() == 0


def test_a_forged_cross_site_form_is_refused(seeded: Seeded) -> None:
    """Another site's page posting to the UI: the browser sends the cookie (were it not
    SameSite) and that site's Origin; even a form that somehow carried the CSRF field fails."""
    with seeded.client() as http:
        forged = http.post(
            f"/gap/{seeded.gap}/close",
            data=seeded.form(status="abandoned", reason="forged"),
            headers={"Origin": "http://evil.example"},
        )
        no_origin = http.post(
            f"/gap/{seeded.gap}/close",
            data=seeded.form(status="abandoned"),
            headers={"Referer": "http://evil.example/page"},
        )
        neither = http.post(f"/gap/{seeded.gap}/close", data=seeded.form(status="abandoned"))
    assert [forged.status_code, no_origin.status_code, neither.status_code] == [403, 403, 403]
    assert "Origin/Referer" in forged.text
    assert seeded.service.list_gaps(status="open").total == 1
    assert seeded.audit_count() == 0


def test_the_same_form_from_the_uis_own_page_goes_through(seeded: Seeded) -> None:
    """The control of the three refusals above: the very same request from this server's
    page, with the cookie, is accepted."""
    with seeded.client() as http:
        done = http.post(
            f"/gap/{seeded.gap}/close",
            data=seeded.form(status="abandoned", reason="answered elsewhere"),
            headers={"Referer": f"{seeded.url}/"},
        )
    assert done.status_code == 303
    assert seeded.service.list_gaps(status="open").total == 0


def test_the_token_link_sets_an_http_only_strict_cookie_and_a_wrong_one_does_not(
    seeded: Seeded,
) -> None:
    with seeded.client(token=False) as http:
        bad = http.get("/", params={"token": "not-the-token"})
        good = http.get("/search", params={"token": seeded.token, "q": "Волга"})
    assert bad.status_code == 403 and "set-cookie" not in bad.headers
    assert good.status_code == 303
    assert good.headers["location"] == "/search?q=%D0%92%D0%BE%D0%BB%D0%B3%D0%B0"
    cookie = good.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}={seeded.token};")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie


def test_a_non_loopback_server_wants_the_token_for_reading_too(seeded: Seeded) -> None:
    guard = Guard("r" * 32, reads_need_token=True)
    server = UiServer(seeded.service, guard, "127.0.0.1", 0).start()
    try:
        import httpx

        with httpx.Client(base_url=server.url) as http:
            anonymous = http.get(f"/atom/{seeded.en_atom}")
            http.cookies.set(COOKIE, guard.token)
            holder = http.get(f"/atom/{seeded.en_atom}")
    finally:
        server.stop()
    assert anonymous.status_code == 403 and "Lick Observatory" not in anonymous.text
    assert holder.status_code == 200 and "Lick Observatory" in holder.text


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_binds_need_no_configured_token(host: str) -> None:
    check_bind(host, None)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "example.org"])
def test_other_binds_need_a_configured_token(host: str) -> None:
    with pytest.raises(BindRefused, match="PEGAS_UI_TOKEN"):
        check_bind(host, None)
    check_bind(host, "c" * 32)


def test_non_loopback_bind_without_a_token_refuses_to_start(tmp_path: Path) -> None:
    """The real command: it says why and exits before opening anything (no database started,
    no token written)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEGAS_")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pegas_memory.cli",
            "--data-dir",
            str(tmp_path / "data"),
            "ui",
            "--bind",
            "0.0.0.0",
            "--port",
            "0",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2
    assert "refusing to serve the UI on 0.0.0.0" in done.stderr
    assert "PEGAS_UI_TOKEN" in done.stderr
    assert not (tmp_path / "data" / "postgres").exists()
    assert not token_path(tmp_path / "data").exists()


def test_the_token_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    old = os.umask(0)  # even with a permissive umask
    try:
        path = write_token(tmp_path / "data", "s" * 32)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.read_text() == "s" * 32 + "\n"


@pytest.mark.parametrize(
    ("origin", "referer", "ok"),
    [
        ("http://127.0.0.1:8766", None, True),
        (None, "http://127.0.0.1:8766/atom/3", True),
        ("http://127.0.0.1:8767", None, False),
        ("null", None, False),
        ("http://127.0.0.1:8766.evil.example", None, False),
        ("http://evil.example", "http://127.0.0.1:8766/", False),
        (None, None, False),
    ],
)
def test_same_origin_compares_host_and_port(
    origin: str | None, referer: str | None, ok: bool
) -> None:
    assert same_origin(origin, referer, "127.0.0.1:8766") is ok


def test_the_ui_command_prints_its_link_keeps_the_token_and_serves(
    database_url: str, tmp_path: Path
) -> None:
    """`pegas-memory ui` as a person starts it (on a test database, embeddings from the fake
    Ollama): the printed link carries the token kept owner-only in the data dir."""
    import httpx

    from pegas_memory.memgraph_store.falkor import stop_embedded_graph
    from tests.fake_ollama import FakeOllama

    data = tmp_path / "data"
    with FakeOllama(dim=64) as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PEGAS_")}
        env |= {
            "PEGAS_DATABASE_URL": database_url,
            "PEGAS_OLLAMA_URL": fake.url,
            "PEGAS_EMBEDDING_DIM": "64",
            "PEGAS_ENGINE_HOST": "off",
        }
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pegas_memory.cli",
                "--data-dir",
                str(data),
                "ui",
                "--port",
                "0",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        try:
            assert proc.stdout is not None
            lines = [proc.stdout.readline() for _ in range(3)]
            link = re.search(r"open (http://127\.0\.0\.1:\d+/\?token=(\S+)) ", lines[1])
            assert link is not None, lines
            kept = token_path(data)
            assert kept.read_text().strip() == link.group(2)
            assert stat.S_IMODE(kept.stat().st_mode) == 0o600
            with httpx.Client() as http:
                login = http.get(link.group(1))
                assert login.status_code == 303 and COOKIE in login.cookies
                overview = http.get(link.group(1).split("?")[0])
            assert overview.status_code == 200 and "What the memory holds" in overview.text
        finally:
            proc.terminate()
            proc.wait(timeout=60)
            stop_embedded_graph(data)
