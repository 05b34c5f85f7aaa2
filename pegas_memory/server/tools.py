"""The MCP tool layer, by its historical name: the server is built in `app` from the tool
families `tools_memory`, `tools_code` and `tools_graph`, which call the service through
`calls.run`. This module only re-exports, for the CLI, the benchmarks and the tests."""

from pegas_memory.server.app import build_server, configure_logging, serve

__all__ = ["build_server", "configure_logging", "serve"]
