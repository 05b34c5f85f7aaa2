"""The person's view of the memory (`pegas-memory ui`, issue 31): server-rendered pages over the
same MemoryService the MCP tools use, changes behind a session token and CSRF checks, each
change in an audit trail and undoable."""

from pegas_memory.ui.auth import BindRefused, Guard
from pegas_memory.ui.serve import UiServer, serve_ui

__all__ = ["BindRefused", "Guard", "UiServer", "serve_ui"]
