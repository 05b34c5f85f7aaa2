"""`python -m pegas_memory.host`: one engine host process (started by `host.client`)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from pegas_memory.host.paths import HostConfig
from pegas_memory.host.server import run_host


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pegas_memory.host")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--embedder", default="none", help="local model name, or none")
    parser.add_argument("--exact-limit", type=int, default=20_000)
    parser.add_argument("--hnsw-ef", type=int, default=128)
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    parser.add_argument("--standby", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s host[%(process)d] %(levelname)s %(message)s"
    )
    config = HostConfig(
        data_dir=Path(args.data_dir),
        local_embedder=None if args.embedder == "none" else args.embedder,
        exact_limit=args.exact_limit,
        hnsw_ef=args.hnsw_ef,
        idle_seconds=args.idle_seconds,
    )
    return run_host(config, standby=args.standby)


if __name__ == "__main__":
    sys.exit(main())
