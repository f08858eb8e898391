#!/usr/bin/env bash
# The observability tests query Debian's prometheus (with promtool), started on loopback by
# tests/support/prometheus.ts to scrape the local control plane's kube-apiserver. Installs the
# package from the Debian archive when missing; the package's own service is never used.
set -euo pipefail
if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
  echo "prometheus is missing and this user cannot install it: apt-get install prometheus" >&2
  exit 1
fi
SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo sudo)
echo "[deps] installing prometheus from the Debian archive" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends prometheus >/dev/null
# The package enables its own service; the tests run their own server on a free port.
if command -v systemctl >/dev/null 2>&1; then $SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true; fi
