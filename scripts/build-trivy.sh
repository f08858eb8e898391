#!/usr/bin/env bash
# Builds trivy (issue 16, "Real scanner in the tests") from the Go module proxy into the same
# cache as the control plane (scripts/build-control-plane.sh), OUTSIDE the repository, so a
# fresh clone on the same machine (CI) reuses it. Idempotent: a directory holding
# `.complete` is not rebuilt.
#
#   scripts/build-trivy.sh      builds trivy; prints the binary's path
#   scripts/build-trivy.sh db   also builds the offline vulnerability DB from
#                               scripts/trivy-db/advisories.yaml (docs/trivy-offline.md); prints
#                               its directory, which holds cache/ (for `trivy --cache-dir`) and
#                               bookworm-before-fixes/ (the OCI layout the fixture describes)
#
#   CAPSTAN_CACHE_DIR   cache root (default: $HOME/.cache/capstan)
#   CAPSTAN_TRIVY_BIN   use this trivy binary instead of building one (the DB is still built)
#
# Prints progress on stderr; on success the last line on stdout is the path asked for.
# Not part of `make deps` yet (issue 16's next step wires it).
set -euo pipefail

# v0.74.0's go.mod says `go 1.26.3` and its release builds set GOEXPERIMENT=jsonv2
# (goreleaser.yml).
TRIVY_VERSION=v0.74.0

CACHE_DIR="${CAPSTAN_CACHE_DIR:-$HOME/.cache/capstan}"
BIN_DIR="$CACHE_DIR/bin"

export CGO_ENABLED=0 GOTOOLCHAIN=local

log() { printf '[trivy] %s\n' "$*" >&2; }
need_go() { command -v go >/dev/null || { log "go is required to build $1 (or set CAPSTAN_TRIVY_BIN for trivy itself)"; exit 1; }; }

mkdir -p "$CACHE_DIR" "$BIN_DIR"

# cached_build DEST LABEL FUNCTION: runs FUNCTION with $OUT a scratch directory unless DEST is
# complete, then moves it into place; a half-built one is started again (as build_component in
# scripts/build-control-plane.sh does).
cached_build() {
  local dest=$1 label=$2 fn=$3 started
  if [ -f "$dest/.complete" ]; then
    log "$label: cached in $dest"
    return
  fi
  log "$label: building (first time only)"
  started=$(date +%s)
  rm -rf "$dest.partial" && mkdir -p "$dest.partial"
  OUT="$dest.partial" "$fn"
  touch "$dest.partial/.complete"
  rm -rf "$dest" && mv "$dest.partial" "$dest"
  log "$label: built in $(( $(date +%s) - started ))s"
}

build_trivy() {
  need_go trivy
  log "  go mod download github.com/aquasecurity/trivy@$TRIVY_VERSION"
  # `go install pkg@version` would look up the module's deprecation through the proxy's
  # version list, which this proxy refuses (403); a throwaway copy of the module's own
  # source builds with exactly its go.mod and go.sum instead, as the release does.
  local work src
  work=$(mktemp -d "${TMPDIR:-/tmp}/capstan-build-trivy.XXXXXX")
  src=$(go mod download -json github.com/aquasecurity/trivy@"$TRIVY_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  cp -r "$src/." "$work/" && chmod -R u+w "$work"
  log "  go build ./cmd/trivy (in a copy of $src; several minutes on a small machine)"
  ( cd "$work" && GOEXPERIMENT=jsonv2 GOFLAGS=-mod=readonly go build -trimpath \
      -ldflags "-s -w -X github.com/aquasecurity/trivy/pkg/version/app.ver=${TRIVY_VERSION#v}" \
      -o "$OUT/trivy" ./cmd/trivy )
  rm -rf "$work"
  "$OUT/trivy" --version >/dev/null || { log "the built trivy does not run"; exit 1; }
}

if [ -n "${CAPSTAN_TRIVY_BIN:-}" ]; then
  [ -x "$CAPSTAN_TRIVY_BIN" ] || { log "CAPSTAN_TRIVY_BIN=$CAPSTAN_TRIVY_BIN is not executable"; exit 1; }
  trivy_bin=$CAPSTAN_TRIVY_BIN
else
  dest="$CACHE_DIR/trivy-$TRIVY_VERSION"
  cached_build "$dest" "trivy $TRIVY_VERSION" build_trivy
  ln -sfn "$dest/trivy" "$BIN_DIR/trivy"
  trivy_bin="$dest/trivy"
fi

if [ "${1:-}" != db ]; then
  echo "$trivy_bin"
  exit 0
fi

src_dir="$(cd "$(dirname "$0")/trivy-db" && pwd)"

build_db() {
  need_go "the offline DB"
  ( cd "$src_dir" && GOFLAGS=-mod=readonly go run . -out "$OUT/cache" -oci "$OUT/bookworm-before-fixes" ) 2>&1 \
    | sed -u 's/^/[trivy]   /' >&2
  [ -f "$OUT/cache/db/trivy.db" ] || { log "offline DB: the generator wrote no trivy.db"; exit 1; }
}

# The DB is keyed by its generator's inputs, so editing the fixture builds a new one.
key=$(cd "$src_dir" && cat advisories.yaml main.go go.mod go.sum | sha256sum | cut -c1-12)
db_dest="$CACHE_DIR/trivy-db-$key"
cached_build "$db_dest" "offline DB" build_db
echo "$db_dest"
