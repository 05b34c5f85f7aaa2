"""The first crash recovery of a new embedded cluster is as short as the later ones (issue 18,
scope 2): the schema the migrations just created is checkpointed at open, and the embedded
cluster checkpoints every 30 s, so the end-of-recovery checkpoint after a kill writes only
what changed since. Before, the first kill's recovery fsynced the ~200 files of the
migrations (0.7 s idle, over 2 s under load) and was the slowest round of every bench run.
"""

from __future__ import annotations

from pathlib import Path

from pegas_memory.config import load_settings
from pegas_memory.db.pool import Database

# The migrations write a few MB of WAL; what is left after the checkpoint is a few records.
MAX_WAL_AFTER_CHECKPOINT = 256 * 1024


def test_a_new_embedded_cluster_is_checkpointed_after_its_migrations(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path / "data", database_url=None, engine_host="off")
    db = Database(settings).open()
    try:
        with db.connection() as conn:
            row = conn.execute(
                "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::bigint AS behind "
                "FROM pg_control_checkpoint()"
            ).fetchone()
            assert row is not None
            assert row["behind"] < MAX_WAL_AFTER_CHECKPOINT, row
            timeout = conn.execute("SHOW checkpoint_timeout").fetchone()
            assert timeout is not None and timeout["checkpoint_timeout"] == "30s"
    finally:
        db.close()


def test_the_settings_survive_a_second_open_and_are_written_once(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path / "data", database_url=None, engine_host="off")
    Database(settings).open().close()
    db = Database(settings).open()  # nothing to migrate: no checkpoint, the settings kept
    try:
        with db.connection() as conn:
            timeout = conn.execute("SHOW checkpoint_timeout").fetchone()
            assert timeout is not None and timeout["checkpoint_timeout"] == "30s"
    finally:
        db.close()
    conf = (tmp_path / "data" / "postgres" / "postgresql.auto.conf").read_text()
    assert conf.count("checkpoint_timeout") == 1
