#!/usr/bin/env bash
# The dashboard's end-to-end tests drive Debian's chromium through playwright-core (never a
# browser download). Installs it from the Debian archive when it is missing.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
  echo "chromium is missing and this user cannot install it: apt-get install chromium" >&2
  exit 1
fi
SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo sudo)
echo "[deps] installing chromium from the Debian archive" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
