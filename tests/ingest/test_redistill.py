"""New distiller rules reach documents already stored (issue 15): re-ingesting unchanged bytes
whose atoms came from another distiller version re-distills the version in place (same document
id; a claim produced again keeps its atom and is cited once; a reworded one supersedes the old
atom; one no longer extracted becomes stale with the reason; verified and linked atoms stay), the
same version stays the bytes-only "unchanged" path, `redistill` forces it, and an interrupted
re-distill leaves the old atoms as they were.

The older distiller is the real offline one under another version string, with the differences
a rule change makes: one claim worded otherwise, and two drafts the running rules do not make.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import pegas_memory.ingest.pipeline as pipeline_module
from pegas_memory.app.requests import ContextRequest, IngestRequest, SearchRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.embedded import EmbeddedPostgres
from pegas_memory.db.repo import add_link, set_status
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import OFFLINE_VERSION, ChunkContext, DraftAtom
from pegas_memory.errors import IngestError
from pegas_memory.ingest.pipeline import IngestPipeline
from pegas_memory.ingest.writes import IngestReport
from pegas_memory.outbox.reconcile import reconcile
from tests.mcp_harness import mcp_client, serve_env, structured
from tests.pgcluster import create_database

OLD = "offline-v4"

HISTORY = """# Town history

In 1773 the small river town of Ostrovets received its charter and market rights from the crown.

The old stone bridge over the river was rebuilt twice after floods in the following century.

The market square was paved with granite from the northern quarries in the year 1802.
"""

HISTORY_RU = """# История города

В 1773 году небольшой речной город Островец получил от короны грамоту и право на ярмарку.

Старый каменный мост через реку дважды перестраивали после наводнений в следующем веке.

Рыночную площадь вымостили гранитом из северных каменоломен в 1802 году.
"""

# The square's sentence as the older distiller cut it short.
CUT = ("The market square was paved with granite", "Рыночную площадь вымостили гранитом")


def _extra(text: str, word: str, claim: str) -> DraftAtom:
    start = text.index(word)
    return DraftAtom(
        "text", claim, claim, 0.5, word, start, start + len(word), None, {"distiller": "offline"}
    )


def _cut(text: str, atom: DraftAtom, head: str) -> DraftAtom:
    start = text.index(head)
    return replace(atom, claim=head, content=head, quote=head, quote_start=start,
                   quote_end=start + len(head))  # fmt: skip


class OlderDistiller(OfflineDistiller):
    """The offline distiller as an earlier version: the charter sentence without 'small' in
    its claim, the bridge sentence typed "text", the market square sentence cut short (its
    quote inside the whole sentence's), plus two drafts the running rules do not make (a
    fragment, and one that a test verifies)."""

    prompt_version = OLD

    def distill_counted(
        self, text: str, context: ChunkContext
    ) -> tuple[list[DraftAtom], dict[str, int]]:
        atoms, drops = super().distill_counted(text, context)
        out = [
            replace(a, claim=a.claim.replace(" small", "").replace(" небольшой", ""))
            if "1773" in a.claim
            else replace(a, type="text")
            if "stone bridge" in a.claim or "каменный мост" in a.claim
            else _cut(text, a, next(h for h in CUT if h in a.claim))
            if any(h in a.claim for h in CUT)
            else a
            for a in atoms
        ]
        if "Ostrovets" in text and "rebuilt twice" in text:
            out.append(_extra(text, "rebuilt twice", "Fragment rebuilt twice"))
        if "Ostrovets" in text and "granite" in text:
            out.append(_extra(text, "granite", "Granite quarries supplied the paving stones"))
        return out, drops


class CountingDistiller(OfflineDistiller):
    """The running distiller, counting the chunks it is given."""

    def __init__(self) -> None:
        self.calls = 0

    def distill_counted(
        self, text: str, context: ChunkContext
    ) -> tuple[list[DraftAtom], dict[str, int]]:
        self.calls += 1
        return super().distill_counted(text, context)


class FailingDistiller(OfflineDistiller):
    """The running distiller, failing on the chunk that holds `marker`."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def distill_counted(
        self, text: str, context: ChunkContext
    ) -> tuple[list[DraftAtom], dict[str, int]]:
        if self.marker in text:
            raise RuntimeError("the distiller broke on this chunk")
        return super().distill_counted(text, context)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _pipeline(service: MemoryService, distiller: Any) -> IngestPipeline:
    return IngestPipeline(service.settings, service.db, service.runtime, lambda: distiller)


def _older(service: MemoryService, path: Path) -> IngestReport:
    """`path` ingested by the older distiller version (OlderDistiller)."""
    return _pipeline(service, OlderDistiller()).ingest(IngestRequest(source=str(path)))


def _older_version(
    service: MemoryService, tmp_path: Path, name: str, text: str
) -> tuple[Path, IngestReport, dict[int, Mapping[str, Any]]]:
    """`text` written as `name` and ingested by the older distiller, the outbox drained: the
    file, the ingest's report and the atoms of that version."""
    path = _write(tmp_path, name, text)
    first = _older(service, path)
    service.runtime.worker().drain()
    return path, first, _atoms(service, first.version_id or 0)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / "files" / name
    path.write_text(text)
    return path


def _atoms(service: MemoryService, version_id: int) -> dict[int, Mapping[str, Any]]:
    """The atoms a document version cites, with status, claim and their citations there."""
    with service.db.connection() as conn:
        rows = conn.execute(
            "SELECT a.id, a.claim, a.status, a.status_reason, a.superseded_by, a.prompt_version,"
            " a.metadata->>'typed_by' AS typed_by,"
            " count(c.id) AS cites FROM pm_atom a JOIN pm_citation c ON c.atom_id = a.id"
            " WHERE c.doc_id = %s GROUP BY a.id",
            (version_id,),
        ).fetchall()
    return {int(r["id"]): r for r in rows}


def _atom(service: MemoryService, atom_id: int) -> Mapping[str, Any]:
    with service.db.connection() as conn:
        row = conn.execute(
            "SELECT id, claim, status, status_reason, superseded_by FROM pm_atom WHERE id = %s",
            (atom_id,),
        ).fetchone()
    assert row is not None
    return row


def _by_claim(atoms: Mapping[int, Mapping[str, Any]], part: str) -> int:
    found = [i for i, a in atoms.items() if part in a["claim"]]
    assert len(found) == 1, (part, [a["claim"] for a in atoms.values()])
    return found[0]


def _snapshot(service: MemoryService, version_id: int) -> tuple[Any, ...]:
    with service.db.connection() as conn:
        atoms = conn.execute("SELECT id, status FROM pm_atom ORDER BY id").fetchall()
        cites = conn.execute(
            "SELECT id, atom_id, chunk_id FROM pm_citation WHERE doc_id = %s ORDER BY id",
            (version_id,),
        ).fetchall()
        chunks = conn.execute(
            "SELECT id FROM pm_chunk WHERE doc_id = %s ORDER BY id", (version_id,)
        ).fetchall()
        meta = conn.execute(
            "SELECT metadata->>'distiller_version' AS v FROM pm_document WHERE id = %s",
            (version_id,),
        ).fetchone()
    return (
        [tuple(r.values()) for r in atoms],
        [tuple(r.values()) for r in cites],
        [r["id"] for r in chunks],
        meta["v"],
    )


def test_same_distiller_version_stays_unchanged_and_reads_nothing(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, "history.md", HISTORY)
    counting = CountingDistiller()
    first = _pipeline(service, counting).ingest(IngestRequest(source=str(path)))
    assert first.atoms_new >= 3 and counting.calls >= 1 and first.redistilled is None
    with service.db.connection() as conn:
        doc = conn.execute(
            "SELECT metadata->>'distiller_version' AS v FROM pm_document WHERE id = %s",
            (first.version_id,),
        ).fetchone()
    assert doc["v"] == OFFLINE_VERSION  # recorded on the version
    stored = _atoms(service, first.version_id or 0).values()
    assert {a["prompt_version"] for a in stored} == {OFFLINE_VERSION}
    assert all(a["typed_by"] for a in stored)  # the type stage's trace is stored with the atom
    parsed: list[str] = []
    real_parse = pipeline_module.parse_source

    def spy(*args: Any, **kwargs: Any) -> Any:
        parsed.append("parsed")
        return real_parse(*args, **kwargs)

    monkeypatch.setattr(pipeline_module, "parse_source", spy)
    counting.calls = 0
    again = _pipeline(service, counting).ingest(IngestRequest(source=str(path)))
    assert again.unchanged and again.redistilled is None and again.atoms_new == 0
    assert parsed == [] and counting.calls == 0  # the bytes-only path: no parse, no distiller
    assert again.document_id == first.document_id and again.version_id == first.version_id


def test_another_distiller_version_redistills_in_place(
    service: MemoryService, tmp_path: Path
) -> None:
    path, first, old = _older_version(service, tmp_path, "history.md", HISTORY)
    version_id = first.version_id or 0
    assert {a["prompt_version"] for a in old.values()} == {OLD}
    reworded = _by_claim(old, "1773")
    bridge = _by_claim(old, "stone bridge")
    fragment = _by_claim(old, "Fragment rebuilt")
    verified = _by_claim(old, "Granite quarries")
    square = _by_claim(old, "market square")
    with service.db.transaction() as conn:
        set_status(conn, verified, "verified", reason="confirmed by a test", check_name="test")

    seen: list[str] = []
    again = service.pipeline.ingest(
        IngestRequest(source=str(path)), progress=lambda d, t, m: seen.append(m)
    )
    service.runtime.worker().drain()
    assert not again.unchanged and again.redistilled == f"{OLD} -> {OFFLINE_VERSION}"
    assert again.document_id == first.document_id and again.version_id == version_id
    assert again.version == 1 and again.is_current
    assert any("re-distilling" in m for m in seen) and any("distilling chunk" in m for m in seen)
    now = _atoms(service, version_id)
    # produced again: the same atom, cited once
    assert bridge in now and now[bridge]["cites"] == 1
    assert now[bridge]["status"] == "candidate"
    with service.db.connection() as conn:
        kind = conn.execute("SELECT type FROM pm_atom WHERE id = %s", (bridge,)).fetchone()
    assert kind["type"] == "fact" and again.atoms_retyped == 1  # the new rules' type, same id
    # reworded: a new atom supersedes the old one, with the reason
    new_charter = _by_claim(now, "1773")
    assert new_charter != reworded and "small" in now[new_charter]["claim"]
    row = _atom(service, reworded)
    assert row["status"] == "stale" and row["superseded_by"] == new_charter
    assert f"re-distilled by {OFFLINE_VERSION}" in row["status_reason"]
    # cut short before, whole now: the new atom quotes where the old one did and supersedes it
    whole = _by_claim(now, "market square")
    row = _atom(service, square)
    assert whole != square and "1802" in now[whole]["claim"] and square not in now
    assert row["status"] == "stale" and row["superseded_by"] == whole
    assert f"its quote is now part of atom {whole}" in row["status_reason"]
    # no longer extracted: stale with the reason, no longer cited by the version
    row = _atom(service, fragment)
    assert row["status"] == "stale" and row["superseded_by"] is None
    assert row["status_reason"].startswith(f"re-distilled by {OFFLINE_VERSION}: no longer")
    assert fragment not in now
    # verified: kept current and still cited by its old quote
    assert _atom(service, verified)["status"] == "verified" and verified in now
    assert any(str(verified) in w for w in again.warnings)
    # the answer's counts
    assert again.atoms_new == 2 and sorted(again.atom_ids) == sorted([new_charter, whole])
    assert again.superseded == 2 and again.marked_stale == 1
    assert again.atoms_kept == 2  # the bridge and the verified one
    assert again.duplicates_exact == 1
    with service.db.connection() as conn:
        doc = conn.execute(
            "SELECT metadata FROM pm_document WHERE id = %s", (version_id,)
        ).fetchone()
        versions = conn.execute(
            "SELECT count(*) AS n FROM pm_document WHERE identity_id = %s", (first.document_id,)
        ).fetchone()
    # the slices followed through the outbox: every point and node as its row (type, status)
    drift = reconcile(service.runtime)
    assert drift.drift == 0 and drift.outbox_pending == 0, drift.summary()
    assert doc["metadata"]["distiller_version"] == OFFLINE_VERSION
    assert doc["metadata"]["redistilled"] == {"from": OLD, "to": OFFLINE_VERSION}
    assert versions["n"] == 1
    # search and get_context answer from the new atoms
    hits = service.search(SearchRequest(query="Ostrovets charter market rights crown", limit=10))
    ids = [h.id for h in hits.hits]
    assert ids[0] == new_charter and reworded not in ids  # a superseded atom is left out
    # one no longer extracted is still found, as stale (search weighs stale atoms down)
    assert all(h.status == "stale" for h in hits.hits if h.id == fragment)
    context = service.get_context(
        ContextRequest(question="When did Ostrovets receive its charter?", budget_tokens=2000)
    )
    claims = [i.claim for i in context.items]
    assert any("small river town" in c for c in claims)
    assert not any("the river town of Ostrovets" in c for c in claims)
    # the running version now stands: the next ingest is unchanged again
    third = service.pipeline.ingest(IngestRequest(source=str(path)))
    assert third.unchanged and third.redistilled is None


def test_redistill_in_russian_supersedes_the_old_wording(
    service: MemoryService, tmp_path: Path
) -> None:
    path, first, old = _older_version(service, tmp_path, "istoriya.md", HISTORY_RU)
    reworded = _by_claim(old, "1773")
    bridge = _by_claim(old, "каменный мост")
    again = service.pipeline.ingest(IngestRequest(source=str(path)))
    now = _atoms(service, first.version_id or 0)
    assert again.redistilled == f"{OLD} -> {OFFLINE_VERSION}" and again.superseded == 2
    assert bridge in now and reworded not in now and again.atoms_retyped == 1
    square = _by_claim(old, "Рыночную площадь")
    whole = _by_claim(now, "Рыночную площадь")
    assert whole != square and "1802" in now[whole]["claim"]
    assert _atom(service, square)["superseded_by"] == whole
    assert _atom(service, reworded)["superseded_by"] == _by_claim(now, "небольшой")


def test_a_linked_atom_is_kept_and_a_shared_one_stays_current(
    service: MemoryService, tmp_path: Path
) -> None:
    path = _write(tmp_path, "history.md", HISTORY)
    first = _older(service, path)
    other = _write(
        tmp_path,
        "quarries.md",
        "# Quarries\n\nThe northern quarries of Ostrovets sent granite down the river.\n",
    )
    _older(service, other)
    service.runtime.worker().drain()
    old = _atoms(service, first.version_id or 0)
    fragment, shared = _by_claim(old, "Fragment rebuilt"), _by_claim(old, "Granite quarries")
    with service.db.transaction() as conn:  # an agent's link (memory_store links=...)
        add_link(conn, fragment, _by_claim(old, "stone bridge"), "related", source="agent")
    again = service.pipeline.ingest(IngestRequest(source=str(path)))
    assert again.marked_stale == 0 and again.superseded == 2
    now = _atoms(service, first.version_id or 0)
    # linked: kept current, still cited by its old quote, named in the warnings
    assert _atom(service, fragment)["status"] == "candidate" and fragment in now
    assert any(str(fragment) in w for w in again.warnings)
    # another current document still cites it: current, no longer cited by this version
    assert _atom(service, shared)["status"] == "candidate" and shared not in now


def test_redistill_forces_the_same_version_without_doubling_citations(
    service: MemoryService, tmp_path: Path
) -> None:
    path = _write(tmp_path, "history.md", HISTORY)
    first = service.pipeline.ingest(IngestRequest(source=str(path)))
    before = _atoms(service, first.version_id or 0)
    counting = CountingDistiller()
    again = _pipeline(service, counting).ingest(IngestRequest(source=str(path), redistill=True))
    assert counting.calls >= 1 and not again.unchanged
    assert again.redistilled == f"{OFFLINE_VERSION} -> {OFFLINE_VERSION}"
    assert again.atoms_new == 0 and again.marked_stale == 0 and again.superseded == 0
    assert again.atoms_retyped == 0  # nothing differs: no atom is touched
    assert again.atoms_kept == len(before)
    after = _atoms(service, first.version_id or 0)
    assert after.keys() == before.keys()
    assert all(a["cites"] == before[i]["cites"] == 1 for i, a in after.items())
    assert all(a["status"] == "candidate" for a in after.values())


def test_versions_stored_before_it_was_recorded_compare_their_atoms(
    service: MemoryService, tmp_path: Path
) -> None:
    """A version ingested before the distiller was recorded on it: its atoms' prompt_version
    says which distiller made them; when none says, it counts as another one."""
    path = _write(tmp_path, "history.md", HISTORY)
    first = service.pipeline.ingest(IngestRequest(source=str(path)))
    with service.db.transaction() as conn:
        conn.execute(
            "UPDATE pm_document SET metadata = metadata - 'distiller_version' WHERE id = %s",
            (first.version_id,),
        )
    same = service.pipeline.ingest(IngestRequest(source=str(path)))
    assert same.unchanged  # its atoms say offline-v(running)
    with service.db.transaction() as conn:
        conn.execute(
            "UPDATE pm_document SET metadata = metadata - 'distiller_version' WHERE id = %s",
            (first.version_id,),
        )
        conn.execute("UPDATE pm_atom SET prompt_version = NULL")
    again = service.pipeline.ingest(IngestRequest(source=str(path)))
    assert again.redistilled == f"unrecorded -> {OFFLINE_VERSION}"
    assert again.atoms_new == 0 and again.atoms_kept == first.atoms_new


def test_a_distiller_failing_midway_leaves_the_old_atoms_current(
    service: MemoryService, tmp_path: Path
) -> None:
    path = _write(tmp_path, "history.md", HISTORY)
    first = _older(service, path)
    before = _snapshot(service, first.version_id or 0)
    with pytest.raises(IngestError, match="nothing was changed"):
        _pipeline(service, FailingDistiller("Ostrovets")).ingest(IngestRequest(source=str(path)))
    assert _snapshot(service, first.version_id or 0) == before
    assert before[3] == OLD


def test_a_redistill_stopped_inside_its_transaction_writes_nothing(
    service: MemoryService, tmp_path: Path
) -> None:
    """A job cancelled (or past its deadline) raises from its progress report: here while the
    re-distill's transaction has already written the new atoms and citations."""
    path = _write(tmp_path, "history.md", HISTORY)
    first = _older(service, path)
    service.runtime.worker().drain()
    before = _snapshot(service, first.version_id or 0)

    def stop_at_retiring(done: float, total: float, message: str) -> None:
        if "retiring" in message:
            raise RuntimeError("job cancelled")

    with pytest.raises(RuntimeError, match="job cancelled"):
        service.pipeline.ingest(IngestRequest(source=str(path)), progress=stop_at_retiring)
    assert _snapshot(service, first.version_id or 0) == before
    with service.db.connection() as conn:
        pending = conn.execute(
            "SELECT count(*) AS n FROM pm_outbox WHERE processed_at IS NULL"
        ).fetchone()
    assert pending["n"] == 0  # the rolled-back writes left no outbox event either
    done = service.pipeline.ingest(IngestRequest(source=str(path)))
    assert done.redistilled == f"{OLD} -> {OFFLINE_VERSION}"
    # the charter reworded; the square and the granite draft (its quote inside the whole
    # square sentence) now held by the new square atom; the bridge fragment no longer extracted
    assert done.superseded == 3 and done.marked_stale == 1


def test_redistill_through_the_ingest_job(service: MemoryService, tmp_path: Path) -> None:
    """memory_ingest's path: the job carries `redistill` only when it is asked."""
    path = _write(tmp_path, "history.md", HISTORY)

    def queued(job_id: int) -> dict[str, Any]:
        with service.db.connection() as conn:
            row = conn.execute("SELECT args FROM pm_job WHERE id = %s", (job_id,)).fetchone()
        return dict(row["args"]["sources"][0])

    plain = service.jobs.submit_ingest([IngestRequest(source=str(path))])
    assert "redistill" not in queued(plain.id)
    service.start_background()
    assert service.jobs.wait(plain.id, 60).state == "done"
    forced = service.jobs.submit_ingest([IngestRequest(source=str(path), redistill=True)])
    assert queued(forced.id)["redistill"] is True
    info = service.jobs.wait(forced.id, 60)
    assert info.state == "done", info.error
    assert info.result is not None
    result = info.result["results"][0]
    assert result["redistilled"] == f"{OFFLINE_VERSION} -> {OFFLINE_VERSION}"
    assert result["unchanged"] is False and result["atoms_kept"] >= 3


@pytest.mark.anyio
@pytest.mark.timeout(600)
async def test_memory_ingest_takes_redistill_over_mcp(
    embedded_pg: EmbeddedPostgres, tmp_path: Path, anyio_backend: str
) -> None:
    """The tool's argument, through the real stdio server: documented, and answered."""
    files = tmp_path / "files"
    files.mkdir()
    (files / "history.md").write_text(HISTORY)
    with serve_env(
        tmp_path / "data", create_database(embedded_pg.uri), PEGAS_INGEST_ROOTS=f'["{files}"]'
    ) as env:
        async with mcp_client(env) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            schema = tools["memory_ingest"].input_schema["properties"]["redistill"]
            assert schema["type"] == "boolean" and "re-distill" in schema["description"]
            source = {"source": str(files / "history.md")}
            first = structured(await client.call_tool("memory_ingest", source))
            again = structured(await client.call_tool("memory_ingest", source))
            forced = structured(
                await client.call_tool("memory_ingest", {**source, "redistill": True})
            )
    assert first["finished"] and first["results"][0]["atoms_new"] >= 3, first
    assert again["results"][0]["unchanged"] and again["results"][0]["redistilled"] is None
    done = forced["results"][0]
    assert (
        not done["unchanged"] and done["redistilled"] == f"{OFFLINE_VERSION} -> {OFFLINE_VERSION}"
    )
    assert done["atoms_kept"] == first["results"][0]["atoms_new"] and done["atoms_new"] == 0
