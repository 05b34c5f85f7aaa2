"""A PDF's password never lands in pm_job (the queue is a table any operator can read): it stays
in the process that queued the job, and a job picked up elsewhere says to ingest it again."""

from __future__ import annotations

import json
from pathlib import Path

from fpdf import FPDF

from pegas_memory.app.requests import IngestRequest
from tests.conftest import offline_memory


def _encrypted_pdf(path: Path, password: str) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.multi_cell(0, 8, "The Volga flows into the Caspian Sea. It is the longest river in Europe.")
    pdf.set_encryption(owner_password="owner-" + password, user_password=password)
    pdf.output(str(path))


def test_the_password_stays_out_of_the_queue(database_url: str, tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    pdf = files / "locked.pdf"
    _encrypted_pdf(pdf, "s3cret-pw")
    with offline_memory(database_url, tmp_path / "data", ingest_roots=[files]) as svc:
        info = svc.jobs.submit_ingest([IngestRequest(source=str(pdf), password="s3cret-pw")])
        # A second job as if queued by a process that has gone: its password is not here.
        other = svc.jobs.submit_ingest([IngestRequest(source=str(pdf), password="other-pw")])
        with svc.db.connection() as conn:
            rows = conn.execute(
                "SELECT id, args FROM pm_job WHERE id = ANY(%s)", ([info.id, other.id],)
            ).fetchall()
        args = {r["id"]: r["args"] for r in rows}
        assert "s3cret-pw" not in json.dumps(args) and "other-pw" not in json.dumps(args)
        svc.jobs._secrets.pop(args[other.id]["sources"][0]["password_ref"])
        svc.start_background()
        done = svc.jobs.wait(info.id, 60)
        assert done.state == "done", done
        failed = svc.jobs.wait(other.id, 60)
        assert failed.state == "failed" and "again with the password" in (failed.error or "")
