"""The MCP layer: the tools (`tools`) and a stdio loop that answers undecodable requests
(`stdio_guard`)."""

from pegas_memory.server.tools import build_server, configure_logging, serve

__all__ = ["build_server", "configure_logging", "serve"]
