#!/usr/bin/env bash
# The LDAP sign-in tests run against Debian's OpenLDAP server (slapd) started on loopback with a
# temporary configuration (tests/support/slapd.ts). Installs slapd and ldap-utils from the Debian
# archive when missing; the package's own service is never started (tests run their own).
set -euo pipefail
if [ -x /usr/sbin/slapd ] && command -v slappasswd >/dev/null 2>&1 && [ -x /usr/sbin/slapadd ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
  echo "slapd is missing and this user cannot install it: apt-get install slapd ldap-utils" >&2
  exit 1
fi
SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo sudo)
echo "[deps] installing slapd and ldap-utils from the Debian archive" >&2
$SUDO apt-get update -qq
# slapd's postinst asks for an admin password; noninteractive gives it a throwaway default
# directory that the tests never use (they start their own with -f <temp slapd.conf>).
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends slapd ldap-utils >/dev/null
