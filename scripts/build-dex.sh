#!/usr/bin/env bash
# Builds dex (issue 17 item 5: the OpenID Connect provider the OIDC tests sign in against) from
# the Go module proxy into the same cache as trivy (scripts/build-trivy.sh), OUTSIDE the
# repository, so a fresh clone on the same machine (CI) reuses it. Idempotent: a directory
# holding `.complete` is not rebuilt.
#
#   scripts/build-dex.sh      builds dex; prints the binary's path
#
#   CAPSTAN_CACHE_DIR   cache root (default: $HOME/.cache/capstan)
#   CAPSTAN_DEX_BIN     use this dex binary instead of building one
#
# Prints progress on stderr; on success the last line on stdout is the binary's path.
set -euo pipefail

# dex's tags (v2.x) do not match its module path: go.mod says `module github.com/dexidp/dex`
# without /v2, so the proxy knows no v2.45.1 of it (only v0.6.1 and v2.13.0+incompatible).
# A pseudo-version of the release commit pins exactly that commit instead:
# v2.45.1 is 11d2eeb52b42e1980e14cb91e69dd9e3faab2076, committed 2026-03-03 13:39:05 UTC.
DEX_RELEASE=v2.45.1
DEX_VERSION=v0.0.0-20260303133905-11d2eeb52b42
DEX_API_VERSION=v2.4.0

CACHE_DIR="${CAPSTAN_CACHE_DIR:-$HOME/.cache/capstan}"
BIN_DIR="$CACHE_DIR/bin"

export CGO_ENABLED=0 GOTOOLCHAIN=local

log() { printf '[dex] %s\n' "$*" >&2; }

if [ -n "${CAPSTAN_DEX_BIN:-}" ]; then
  [ -x "$CAPSTAN_DEX_BIN" ] || { log "CAPSTAN_DEX_BIN=$CAPSTAN_DEX_BIN is not executable"; exit 1; }
  echo "$CAPSTAN_DEX_BIN"
  exit 0
fi

dest="$CACHE_DIR/dex-$DEX_RELEASE"
if [ -f "$dest/.complete" ]; then
  log "dex $DEX_RELEASE: cached in $dest"
  echo "$dest/dex"
  exit 0
fi

command -v go >/dev/null || { log "go is required to build dex (or set CAPSTAN_DEX_BIN)"; exit 1; }
mkdir -p "$CACHE_DIR" "$BIN_DIR"
log "dex $DEX_RELEASE: building (first time only)"
started=$(date +%s)
rm -rf "$dest.partial" && mkdir -p "$dest.partial"

log "  go mod download github.com/dexidp/dex@$DEX_VERSION"
# As for trivy: a throwaway copy of the module's own source builds with exactly its go.mod,
# go.sum and its `replace github.com/dexidp/dex/api/v2 => ./api/v2`, as the release does
# (`go install pkg@version` ignores replace directives and refuses such a module).
work=$(mktemp -d "${TMPDIR:-/tmp}/capstan-build-dex.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$(go mod download -json github.com/dexidp/dex@"$DEX_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
[ -n "$src" ] || { log "go mod download gave no source directory"; exit 1; }
cp -r "$src/." "$work/" && chmod -R u+w "$work"
# The module zip leaves out nested modules, so the replace target ./api/v2 is missing: put the
# published api/v2 module there. v2.45.1's api/v2 differs from api/v2.4.0 (the version its
# go.mod requires) only in go.mod and go.sum, not in any Go file.
api=$(go mod download -json github.com/dexidp/dex/api/v2@"$DEX_API_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
[ -n "$api" ] || { log "go mod download gave no api/v2 directory"; exit 1; }
mkdir -p "$work/api/v2" && cp -r "$api/." "$work/api/v2/" && chmod -R u+w "$work/api/v2"
log "  go build ./cmd/dex (in a copy of $src; a few minutes on a small machine)"
# nice: CI runs the suite beside this on two cores.
( cd "$work" && GOFLAGS=-mod=readonly nice -n 10 go build -trimpath \
    -ldflags "-s -w -X main.version=$DEX_RELEASE" -o "$dest.partial/dex" ./cmd/dex )
"$dest.partial/dex" version >/dev/null || { log "the built dex does not run"; exit 1; }
touch "$dest.partial/.complete"
rm -rf "$dest" && mv "$dest.partial" "$dest"
ln -sfn "$dest/dex" "$BIN_DIR/dex"
log "dex $DEX_RELEASE: built in $(( $(date +%s) - started ))s"
echo "$dest/dex"
