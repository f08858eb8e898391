#!/usr/bin/env bash
# Builds the SAML 2.0 identity provider the SAML sign-in tests run (tests/support/samlidp.ts):
# crewjam/saml's samlidp (v0.5.1, from the Go module proxy) wrapped by scripts/samlidp/main.go,
# which takes the test's own key and certificate and signs with RSA-SHA256 (the library's
# default is RSA-SHA1, which Capstan refuses). Cached outside the repository, like trivy
# (scripts/build-trivy.sh), so a fresh clone on the same machine reuses it; rebuilt when the
# wrapper's sources change. Prints the binary's path on stdout, progress on stderr.
#
#   CAPSTAN_CACHE_DIR   cache root (default: $HOME/.cache/capstan)
set -euo pipefail

SAML_VERSION=v0.5.1
CACHE_DIR="${CAPSTAN_CACHE_DIR:-$HOME/.cache/capstan}"
SRC_DIR="$(cd "$(dirname "$0")/samlidp" && pwd)"
DEST="$CACHE_DIR/samlidp-$SAML_VERSION"

export CGO_ENABLED=0 GOTOOLCHAIN=local

log() { printf '[samlidp] %s\n' "$*" >&2; }

key=$(cd "$SRC_DIR" && cat main.go go.mod go.sum | sha256sum | cut -c1-16)
if [ -f "$DEST/.complete" ] && [ "$(cat "$DEST/.complete")" = "$key" ]; then
  echo "$DEST/samlidp"
  exit 0
fi
command -v go >/dev/null || { log "go is required to build the test SAML IdP"; exit 1; }
log "building crewjam/saml $SAML_VERSION samlidp (first time only, about a minute)"
started=$(date +%s)
rm -rf "$DEST.partial" && mkdir -p "$DEST.partial" "$CACHE_DIR"
# A copy of the wrapper's module with its own go.mod and go.sum, read-only: exactly the
# pinned versions, checked against go.sum.
work=$(mktemp -d "${TMPDIR:-/tmp}/capstan-build-samlidp.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$SRC_DIR/main.go" "$SRC_DIR/go.mod" "$SRC_DIR/go.sum" "$work/"
( cd "$work" && GOFLAGS=-mod=readonly go mod download && GOFLAGS=-mod=readonly nice -n 10 go build -trimpath -ldflags "-s -w" -o "$DEST.partial/samlidp" . )
echo "$key" > "$DEST.partial/.complete"
rm -rf "$DEST" && mv "$DEST.partial" "$DEST"
log "built in $(( $(date +%s) - started ))s"
echo "$DEST/samlidp"
