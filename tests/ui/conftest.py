"""A real memory (PostgreSQL, the offline distiller, embeddings from the fake Ollama) with a few
English and Russian atoms and documents, served by the UI over HTTP on loopback; a headless
Chromium (Debian's, driven by Playwright) for the browser tests."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from pegas_memory.app.requests import IngestRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.repo import add_link
from pegas_memory.jobs import JobContext, JobInfo, JobRunner
from pegas_memory.models import CodeCitationIn
from pegas_memory.ui.auth import COOKIE, CSRF_FIELD, Guard
from pegas_memory.ui.serve import UiServer
from tests.conftest import fetch_all, fetch_one, offline_memory

EN_DOC = (
    "# Refracting telescopes\n\n"
    "A refracting telescope uses a lens as its objective to form an image. "
    "The Yerkes Observatory refractor has an objective lens of 40 inches.\n"
)
CHROMIUM = Path("/usr/bin/chromium")
NEEDS_CHROMIUM = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian's chromium is not installed at /usr/bin/chromium "
    "(scripts/system-deps.sh installs it: apt-get install -y chromium)",
)
RU_DOC = "# Волга\n\nВолга — самая длинная река в Европе. Длина Волги составляет 3530 километров.\n"
SCRIPT_CLAIM = "Beware <script>window.pwned = 1</script> in stored claims & quotes"


class MemoryReads:
    """Reads of the served memory's tables, for the UI tests' assertions."""

    service: MemoryService

    def rows(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        return fetch_all(self.service, sql, *params)

    def row(self, sql: str, *params: Any) -> dict[str, Any]:
        return fetch_one(self.service, sql, *params)

    def audit(self) -> list[dict[str, Any]]:
        """The UI's audit lines, oldest first."""
        return self.rows("SELECT * FROM pm_ui_audit ORDER BY id")

    def audit_count(self) -> int:
        return int(self.row("SELECT count(*) AS n FROM pm_ui_audit")["n"])

    def status(self, atom_id: int) -> str:
        return str(self.row("SELECT status FROM pm_atom WHERE id = %s", atom_id)["status"])


@dataclass
class Seeded(MemoryReads):
    """The served memory and what was put in it."""

    service: MemoryService
    server: UiServer
    en_atom: int  # stored by hand, English, with a source and a quote
    ru_atom: int  # stored by hand, Russian
    script_atom: int
    en_doc: int
    ru_doc: int
    en_doc_atoms: list[int]
    ru_doc_atoms: list[int]
    gap: int
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def token(self) -> str:
        return self.server.guard.token

    def client(self, *, token: bool = True) -> httpx.Client:
        """An HTTP client holding the session cookie (as a browser that opened the link)."""
        cookies = {COOKIE: self.token} if token else {}
        return httpx.Client(base_url=self.url, cookies=cookies, follow_redirects=False)

    def form(self, **fields: str) -> dict[str, str]:
        """A form as the UI's own pages post it (with their CSRF field)."""
        return {CSRF_FIELD: self.server.guard.csrf, **fields}

    @property
    def own_origin(self) -> dict[str, str]:
        return {"Origin": self.url}

    def symbols(self, *qualified_names: str) -> list[int]:
        """The ids of `seed_graph`'s code symbols ("pkg.b.g", ...), in the order asked."""
        return [int(self.extra["sym"][name]) for name in qualified_names]


def seed(service: MemoryService) -> dict[str, Any]:
    en = service.store(
        StoreRequest(
            claim="The Lick Observatory refractor has a 36-inch objective lens.",
            source="https://example.org/lick",
            quote="a 36-inch objective lens",
        )
    )
    ru = service.store(
        StoreRequest(
            claim="Байкал — самое глубокое озеро на Земле.",
            source="https://example.org/baikal",
            quote="самое глубокое озеро",
        )
    )
    script = service.store(StoreRequest(claim=SCRIPT_CLAIM, source="https://evil.example/x"))
    en_doc = service.ingest(IngestRequest(source=EN_DOC, kind="text", title="Telescopes"))
    ru_doc = service.ingest(IngestRequest(source=RU_DOC, kind="text", title="Реки Европы"))
    assert en_doc.atom_ids and ru_doc.atom_ids, "the offline distiller made no atom"
    gap = service.add_gap("What is the resolving power of the Yerkes refractor?")
    return {
        "en_atom": en.id,
        "ru_atom": ru.id,
        "script_atom": script.id,
        "en_doc": en_doc.document_id,
        "ru_doc": ru_doc.document_id,
        "en_doc_atoms": list(en_doc.atom_ids),
        "ru_doc_atoms": list(ru_doc.atom_ids),
        "gap": gap.gap.id,
    }


@pytest.fixture
def seeded(database_url: str, tmp_path: Path) -> Iterator[Seeded]:
    with offline_memory(database_url, tmp_path / "data", llm=False) as service:
        ids = seed(service)
        server = UiServer(service, Guard("t" * 8 + "session-token-for-tests"), "127.0.0.1", 0)
        server.start()
        try:
            yield Seeded(service=service, server=server, **ids)
        finally:
            server.stop()


@dataclass
class Served(MemoryReads):
    """A memory without seed data (each test stores what it needs), served by the UI; `chat`
    answers the fake Ollama's chat requests (memory_verify's self-critique)."""

    service: MemoryService
    server: UiServer
    chat: list[Any] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.server.url

    def client(self, *, token: bool = True) -> httpx.Client:
        cookies = {COOKIE: self.server.guard.token} if token else {}
        return httpx.Client(base_url=self.url, cookies=cookies, follow_redirects=False)

    def post(self, path: str, **fields: str) -> httpx.Response:
        """A form posted as the UI's own pages post it (cookie, CSRF field, Origin)."""
        with self.client() as http:
            return http.post(
                path,
                data={CSRF_FIELD: self.server.guard.csrf, **fields},
                headers={"Origin": self.url},
            )

    def get(self, path: str) -> str:
        with self.client() as http:
            answer = http.get(path)
        assert answer.status_code == 200, answer.text
        return answer.text


@pytest.fixture
def served(database_url: str, tmp_path: Path) -> Iterator[Served]:
    replies: list[Any] = []

    def chat(request: dict[str, Any]) -> Any:
        return replies[0](request) if replies else {"verdict": "new", "reason": "nothing alike"}

    with offline_memory(database_url, tmp_path / "data", dim=128, chat=chat) as service:
        server = UiServer(service, Guard("s" * 8 + "session-token-for-tests"), "127.0.0.1", 0)
        server.start()
        try:
            yield Served(service=service, server=server, chat=replies)
        finally:
            server.stop()


WAIT = 30.0  # the bound of every wait on a job


@pytest.fixture
def runner(served: Served) -> Iterator[tuple[JobRunner, threading.Event]]:
    """A real job runner on the memory's database whose research handler reports five steps,
    each once the test lets it go on (`step`) or a cancel reaches it (the runner's heartbeat
    delivers a cancel a moment after it is asked for); its next report stops it there."""
    step = threading.Event()

    def research(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        for i in range(5):
            ctx.report(i, 5, f"step {i + 1} of 5")
            ctx.flush_progress()
            deadline = time.monotonic() + WAIT
            while not (step.wait(0.02) or ctx.cancelled()) and time.monotonic() < deadline:
                pass
            step.clear()
        return {}

    running = JobRunner(
        served.service.db, {"research": research}, workers=1, lease_seconds=1.5, poll_seconds=0.1
    ).start()
    try:
        yield running, step
    finally:
        step.set()
        running.close(10)


# --- a memory with code and rules: the graph and code pages ---------------------------------

PKG = {
    "__init__.py": "",
    "a.py": "from pkg.b import g\n\n\ndef f():\n    return g()\n",
    "b.py": 'from pkg.c import h\n\n\ndef g():\n    """Twice h."""\n    return 2 * h()\n',
    "c.py": "def h():\n    return 1\n",
}
IMPORTS_RULE = {"if": "imports", "then": "depends_on"}
TRANSITIVE_RULE = {"if": ["depends_on", "depends_on"], "then": "depends_on"}


def seed_graph(service: MemoryService, src: Path) -> dict[str, Any]:
    """A repository `proj` (pkg.a.f calls pkg.b.g calls pkg.c.h, each module importing the
    next), three claims x -imports-> y -imports-> z, the two rules that make `depends_on` of
    `imports` transitively (so both the claims and the modules get derived edges), and a claim
    citing pkg.b.g."""
    root = src / "proj"
    (root / "pkg").mkdir(parents=True)
    for name, text in PKG.items():
        (root / "pkg" / name).write_text(text)
    service.store_code(str(root), repo="proj")
    x, y, z = (
        service.store(StoreRequest(claim=claim)).id
        for claim in (
            "The parser module imports the lexer module.",
            "The lexer module imports the token table.",
            "The token table is generated at build time.",
        )
    )
    with service.db.transaction() as conn:
        add_link(conn, x, y, "imports", source="agent")
        add_link(conn, y, z, "imports", source="agent")
    rules = [
        service.store(
            StoreRequest(claim=f"rule {json.dumps(r)}", type="logical_rule", content=json.dumps(r))
        ).id
        for r in (IMPORTS_RULE, TRANSITIVE_RULE)
    ]
    service.infer()
    citing = service.store(
        StoreRequest(
            claim="pkg.b.g doubles what pkg.c.h returns.",
            cite_code=CodeCitationIn(repo="proj", qualified_name="pkg.b.g"),
        )
    ).id
    with service.db.connection() as conn:
        rows = conn.execute(
            "SELECT id, qualified_name FROM pm_code_symbol WHERE repo = 'proj'"
        ).fetchall()
    return {
        "root": root,
        "x": x,
        "y": y,
        "z": z,
        "rules": rules,
        "citing": citing,
        "sym": {r["qualified_name"]: int(r["id"]) for r in rows},
    }


@pytest.fixture
def graph_seeded(database_url: str, tmp_path: Path) -> Iterator[Seeded]:
    """`seeded` plus `seed_graph`'s repository, claims and rules (in `extra`)."""
    src = tmp_path / "src"
    src.mkdir()
    with offline_memory(database_url, tmp_path / "data", llm=False, ingest_roots=[src]) as service:
        ids = seed(service)
        extra = seed_graph(service, src)
        server = UiServer(service, Guard("t" * 8 + "session-token-for-tests"), "127.0.0.1", 0)
        server.start()
        try:
            yield Seeded(service=service, server=server, extra=extra, **ids)
        finally:
            server.stop()


@pytest.fixture
def page() -> Iterator[Any]:
    """A page of a fresh headless Chromium (no cookie: it opens the printed link itself)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        try:
            yield browser.new_context().new_page()
        finally:
            browser.close()


# --- a document read from a file, whose source changes: versions, re-ingest, erase ----------

FILE_V1 = (
    "# Telescopes\n\n"
    "A refracting telescope uses a lens as its objective to form an image. "
    "The Yerkes Observatory refractor has an objective lens of 40 inches.\n\n"
    "## Mirrors\n\n"
    "A reflecting telescope gathers light with a curved primary mirror. "
    "The Hale telescope on Palomar Mountain has a primary mirror of 200 inches.\n"
)
FILE_V2 = FILE_V1.split("## Mirrors")[0] + (
    "## Radio\n\n"
    "A radio telescope collects radio waves with a large dish antenna. "
    "The Arecibo dish in Puerto Rico was 305 meters across.\n"
)


@dataclass
class FileDoc:
    """`seeded`'s memory plus a markdown file under an ingest root, ingested once (`doc`);
    `write` changes the file's bytes. A job runner with the service's own handlers runs the
    ingest jobs a re-ingest starts."""

    seeded: Seeded
    path: Path
    doc: int  # its first (and current) version's id: the document's identity

    def write(self, text: str) -> None:
        self.path.write_text(text, encoding="utf-8")

    def job_of(self, location: str) -> JobInfo:
        """The job a re-ingest's answer (`/?job=N#jobs`) names, once it has finished."""
        job_id = int(location.removeprefix("/?job=").partition("#")[0])
        info = self.seeded.service.jobs.wait(job_id, WAIT)
        assert info.finished, f"job {job_id} did not finish within {WAIT} s: {info}"
        return info

    def rows(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        return self.seeded.rows(sql, *params)


@pytest.fixture
def file_doc(database_url: str, tmp_path: Path) -> Iterator[FileDoc]:
    src = tmp_path / "src"
    src.mkdir()
    path = src / "telescopes.md"
    path.write_text(FILE_V1, encoding="utf-8")
    with offline_memory(database_url, tmp_path / "data", llm=False, ingest_roots=[src]) as service:
        ids = seed(service)
        done = service.ingest(IngestRequest(source=str(path)))
        assert done.atom_ids and done.document_id is not None
        jobs = JobRunner(
            service.db, service.jobs.handlers(), workers=1, lease_seconds=5, poll_seconds=0.1
        ).start()
        server = UiServer(service, Guard("t" * 8 + "session-token-for-tests"), "127.0.0.1", 0)
        server.start()
        try:
            yield FileDoc(Seeded(service=service, server=server, **ids), path, done.document_id)
        finally:
            server.stop()
            jobs.close(10)
