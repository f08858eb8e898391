#!/usr/bin/env bash
# The SAML single-logout tests run against Debian's SimpleSAMLphp as the identity provider,
# served on loopback by PHP's built-in server with a temporary configuration
# (tests/support/simplesamlphp.ts). crewjam's samlidp, used for sign-in, has no logout endpoint.
# Installs simplesamlphp, php-cli and the PHP modules it needs from the Debian archive when
# missing. The package depends on a web server (apache2 by default); its service is never
# started: a policy-rc.d refusing every start is put in place for the install when none exists.
set -euo pipefail
have() {
  [ -f /usr/share/simplesamlphp/www/saml2/idp/SingleLogoutService.php ] && command -v php >/dev/null 2>&1 &&
    php -r 'exit(extension_loaded("dom") && extension_loaded("mbstring") && extension_loaded("openssl") ? 0 : 1);'
}
if have; then exit 0; fi
if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
  echo "SimpleSAMLphp is missing and this user cannot install it: apt-get install simplesamlphp php-cli php-xml php-mbstring" >&2
  exit 1
fi
SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo sudo)
echo "[deps] installing simplesamlphp, php-cli, php-xml and php-mbstring from the Debian archive" >&2
POLICY=/usr/sbin/policy-rc.d
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod 755 "$POLICY"
  trap '$SUDO rm -f "$POLICY"' EXIT
fi
$SUDO apt-get update -qq
# php-xml: SimpleSAMLphp's XML signatures need DOM; mbstring: its templates and encoders.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends simplesamlphp php-cli php-xml php-mbstring >/dev/null
have || { echo "SimpleSAMLphp installed but php lacks dom, mbstring or openssl" >&2; exit 1; }
