#!/usr/bin/env bash
# The saved-Helm-config tests pull charts from Debian's docker-registry (the CNCF distribution
# server) started on loopback with htpasswd authentication (tests/support/registry.ts). Installs
# the package from the Debian archive when missing; the package's own service is never started.
set -euo pipefail
if command -v docker-registry >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
  echo "docker-registry is missing and this user cannot install it: apt-get install docker-registry" >&2
  exit 1
fi
SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo sudo)
echo "[deps] installing docker-registry from the Debian archive" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends docker-registry >/dev/null
# The package enables its own service; the tests run their own registry on a free port.
if command -v systemctl >/dev/null 2>&1; then $SUDO systemctl disable --now docker-registry >/dev/null 2>&1 || true; fi
