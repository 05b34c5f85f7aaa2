"""Entry point for MCP clients: `python mcp_server.py` serves pegas-memory over stdio.

Settings come from PEGAS_* environment variables (and PEGAS_ENV_FILE); see README.md.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pegas_memory.cli import main

if __name__ == "__main__":
    sys.exit(main(["serve", *sys.argv[1:]]))
