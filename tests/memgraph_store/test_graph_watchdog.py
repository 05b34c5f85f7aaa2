"""The embedded FalkorDB stops itself (issue 18, scope 4): its redis-server does not outlive the
processes using it when the last one is killed with SIGKILL (no release, no later start on that
data dir to prune it), nor its data dir when that is deleted under it. Before its watchdog, a
fresh-clone CI run left one redis-server behind, from test_per_tool_time_limit's data dir."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from pegas_memory.db.embedded import EmbeddedPostgres
from pegas_memory.locks import is_locked
from pegas_memory.memgraph_store.falkor_watchdog import (
    is_redis_process,
    live_users,
    watchdog_lock_path,
)
from pegas_memory.procs import process_state
from tests.hardening_helpers import result_text, session_with_a_slow_model
from tests.holders import kill_holder, start_graph_user, watchdog_log
from tests.pgcluster import create_database


def _redis_pid(data_dir: Path) -> int:
    pid = int((data_dir / "graph" / "redis.pid").read_text().strip())
    assert is_redis_process(pid)
    return pid


def _wait_gone(pid: int, timeout: float = 90.0) -> bool:
    """Whether the redis-server pid is gone within `timeout` (a bound, not a measurement)."""
    deadline = time.monotonic() + timeout
    while process_state(pid) == "alive" and is_redis_process(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_the_graph_server_stops_when_its_last_user_was_killed(tmp_path: Path) -> None:
    first, second = start_graph_user(tmp_path), start_graph_user(tmp_path)
    pid = _redis_pid(tmp_path)
    try:
        assert is_locked(watchdog_lock_path(tmp_path / "graph"))  # one watchdog runs
        first.kill()
        first.wait(30)
        time.sleep(4)  # past the grace: a live user keeps the server
        assert live_users(tmp_path / "graph")
        assert process_state(pid) == "alive"
        second.kill()  # the last one dies without releasing the server
        second.wait(30)
        assert live_users(tmp_path / "graph") is False
        assert _wait_gone(pid), "the redis-server outlived its last user"
    finally:
        kill_holder(first)
        kill_holder(second)
    assert not (tmp_path / "graph" / "redis.sock").exists()  # a clean SHUTDOWN
    assert "last user gone: server stopped" in watchdog_log(tmp_path / "graph" / "watchdog.log")
    # The next user starts it again from its files, and gets a watchdog of its own.
    again = start_graph_user(tmp_path)
    try:
        restarted = _redis_pid(tmp_path)
        assert restarted != pid
    finally:
        kill_holder(again)
    assert _wait_gone(restarted)


def test_the_graph_server_stops_when_its_data_dir_is_deleted(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    holder = start_graph_user(data)
    try:
        pid = _redis_pid(data)
        shutil.rmtree(data / "graph", ignore_errors=True)
        assert _wait_gone(pid), "the redis-server outlived its deleted data dir"
    finally:
        kill_holder(holder)


def test_no_graph_server_survives_a_serve_ended_with_a_job_running(
    embedded_pg: EmbeddedPostgres, tmp_path: Path
) -> None:
    """test_per_tool_time_limit's case: a serve whose ingest job waits on a slow model is
    closed; its exit deadline ends the process without releasing the graph server, and no
    later start on that data dir comes to prune it."""
    data = tmp_path / "data"
    with session_with_a_slow_model(create_database(embedded_pg.uri), tmp_path) as server:
        source = {"source": "Entropy measures uncertainty in a system."}
        result = server.call("memory_ingest", source, timeout=20)
        assert not result.is_error, result_text(result)
        stats = server.call("memory_stats", {})
        assert not stats.is_error, result_text(stats)
        deadline = time.monotonic() + 60
        while not (data / "graph" / "redis.pid").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        pid = _redis_pid(data)
    assert _wait_gone(pid), "a redis-server outlived the serve that used it"
