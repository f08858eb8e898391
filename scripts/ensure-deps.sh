#!/usr/bin/env bash
# Installs what Capstan needs to run and type-check from a fresh clone: npm packages (from the
# committed lockfile) and the dashboard's build. The local control plane is built (once, into a
# cache outside the repo) by whatever first needs it: `capstan demo`, `capstan localcluster` or
# the test runner, which builds it while the unit tests run.
set -euo pipefail
cd "$(dirname "$0")/.."

major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 20 ]; then
  echo "Capstan needs Node.js 20 or newer (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi

# npm ci only when the lockfile changed since the last install (node_modules/.package-lock.json mirrors it).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[deps] npm ci" >&2
  npm ci --no-audit --no-fund --loglevel=error
fi

# The dashboard, rebuilt when any of its sources (or the lockfile) is newer than the last build.
if [ ! -f ui/web/dist/index.html ] || [ -n "$(find ui/web/src ui/web/index.html ui/web/vite.config.ts package-lock.json -newer ui/web/dist/index.html -print -quit)" ]; then
  echo "[deps] building the dashboard" >&2
  npx vite build --config ui/web/vite.config.ts --logLevel warn
fi
