"""Entry point of the outbox worker (the systemd service): `python outbox_sync.py`.

Same as `pegas-memory worker`: drains the PostgreSQL outbox into Qdrant and the graph, wakes on
LISTEN/NOTIFY, polls as a safety net, and on SIGTERM finishes its batch and exits.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pegas_memory.cli import main

if __name__ == "__main__":
    sys.exit(main(["worker", *sys.argv[1:]]))
