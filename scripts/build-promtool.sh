#!/usr/bin/env bash
# Builds promtool (github.com/prometheus/prometheus, cmd/promtool) from the Go module proxy into
# the cache outside the repository, as scripts/build-trivy.sh builds trivy. Why not Debian's:
# Debian builds prometheus without Kubernetes service discovery, so its promtool refuses
# `kubernetes_sd_configs`, which the generated scrape config (GET /observability/scrape-config)
# uses. Debian's prometheus still runs the tests' server; this promtool only checks configs.
#
#   scripts/build-promtool.sh    builds it once (a few minutes on two cores); prints its path
set -euo pipefail

# Prometheus v3.16's module version (the Go module is versioned v0.3xx.y for v3.xx.y).
PROMETHEUS_MODULE_VERSION=v0.316.0

CACHE_DIR="${CAPSTAN_CACHE_DIR:-$HOME/.cache/capstan}"
export CGO_ENABLED=0 GOTOOLCHAIN=local
log() { printf '[promtool] %s\n' "$*" >&2; }
command -v go >/dev/null || { log "go is required to build promtool"; exit 1; }

dest="$CACHE_DIR/promtool-$PROMETHEUS_MODULE_VERSION"
if [ ! -f "$dest/.complete" ]; then
  log "building promtool $PROMETHEUS_MODULE_VERSION (first time only)"
  started=$(date +%s)
  rm -rf "$dest.partial" && mkdir -p "$dest.partial"
  # A throwaway copy of the module's own source builds with exactly its go.mod and go.sum.
  work=$(mktemp -d "${TMPDIR:-/tmp}/capstan-build-promtool.XXXXXX")
  src=$(go mod download -json github.com/prometheus/prometheus@"$PROMETHEUS_MODULE_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  cp -r "$src/." "$work/" && chmod -R u+w "$work"
  # The module ships a go.work naming directories the module zip leaves out: build without it.
  ( cd "$work" && GOWORK=off GOFLAGS=-mod=readonly go build -trimpath -ldflags "-s -w" -o "$dest.partial/promtool" ./cmd/promtool )
  rm -rf "$work"
  "$dest.partial/promtool" --version >/dev/null || { log "the built promtool does not run"; exit 1; }
  touch "$dest.partial/.complete"
  rm -rf "$dest" && mv "$dest.partial" "$dest"
  log "built in $(( $(date +%s) - started ))s"
fi
echo "$dest/promtool"
