"""The embedded FalkorDB stops itself (issue 18, scope 4): its redis-server does not outlive the
processes using it when the last one is killed with SIGKILL (no release, no later start on that
data dir to prune it), nor its data dir when that is deleted under it. Before its watchdog, a
fresh-clone CI run left one redis-server behind, from test_per_tool_time_limit's data dir."""

from __future__ import annotations

import time
from pathlib import Path

from pegas_memory.db.embedded import EmbeddedPostgres
from pegas_memory.memgraph_store import falkor_watchdog
from pegas_memory.memgraph_store.falkor_watchdog import is_redis_process
from tests.holders import (
    WatchedServer,
    assert_the_server_stops_when_its_data_dir_is_deleted,
    assert_the_server_stops_with_its_last_user,
    kill_holder,
    start_graph_user,
    watchdog_log,
)
from tests.mcp_sessions import result_text, session_with_a_slow_model
from tests.pgcluster import create_database


def _redis_pid(data_dir: Path) -> int:
    pid = int((data_dir / "graph" / "redis.pid").read_text().strip())
    assert is_redis_process(pid)
    return pid


GRAPH = WatchedServer(
    "graph",
    start_graph_user,
    _redis_pid,
    falkor_watchdog,
    is_server=is_redis_process,
    grace=4.0,  # the watchdog's grace: a live user keeps the server past it
)


def test_the_graph_server_stops_when_its_last_user_was_killed(tmp_path: Path) -> None:
    pid = assert_the_server_stops_with_its_last_user(GRAPH, tmp_path)
    assert not (tmp_path / "graph" / "redis.sock").exists()  # a clean SHUTDOWN
    assert "last user gone: server stopped" in watchdog_log(tmp_path / "graph" / "watchdog.log")
    # The next user starts it again from its files, and gets a watchdog of its own.
    again = start_graph_user(tmp_path)
    try:
        restarted = _redis_pid(tmp_path)
        assert restarted != pid
    finally:
        kill_holder(again)
    assert GRAPH.wait_gone(restarted)


def test_the_graph_server_stops_when_its_data_dir_is_deleted(tmp_path: Path) -> None:
    assert_the_server_stops_when_its_data_dir_is_deleted(GRAPH, tmp_path)


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
    assert GRAPH.wait_gone(pid), "a redis-server outlived the serve that used it"
