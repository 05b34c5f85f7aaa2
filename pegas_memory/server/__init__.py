"""The MCP layer: the server and its lifespan (`app`), the tools by family (`tools_memory`,
`tools_code`, `tools_graph`), the typed service call (`calls`) and a stdio loop that answers
undecodable requests (`stdio_guard`)."""

from pegas_memory.server.app import build_server, configure_logging, serve

__all__ = ["build_server", "configure_logging", "serve"]
