#!/usr/bin/env bash
# Builds the local control plane (Kubernetes, etcd, KWOK, metrics-server) and the chart's
# tools (helm, crane) from the Go module proxy into a cache OUTSIDE the repository, so a
# fresh clone on the same machine (CI) reuses it. Idempotent: a component whose directory holds `.complete` is skipped.
#
#   CAPSTAN_CACHE_DIR   cache root (default: $HOME/.cache/capstan)
#   CAPSTAN_K8S_BIN_DIR use binaries that already exist there; nothing is built
#
# Prints one line per component; on success the last line is the bin directory holding
# symlinks to every binary (what `capstan localcluster` uses).
set -euo pipefail

K8S_VERSION=v1.34.4
ETCD_VERSION=v3.6.16
KWOK_VERSION=v0.7.0
METRICS_SERVER_VERSION=v0.9.0
# The chart's tools (issue 15): helm 3 (its go.mod's k8s.io libraries are 1.34's, like the
# control plane's, and it needs no newer Go than 1.24) and crane, which builds the images
# without a Docker daemon.
HELM_VERSION=v3.19.5
CRANE_VERSION=v0.20.7

CACHE_DIR="${CAPSTAN_CACHE_DIR:-$HOME/.cache/capstan}"
BIN_DIR="$CACHE_DIR/bin"
REQUIRED=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok kwokctl metrics-server helm crane)

export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=mod

log() { printf '[control-plane] %s\n' "$*" >&2; }

if [ -n "${CAPSTAN_K8S_BIN_DIR:-}" ]; then
  for b in "${REQUIRED[@]}"; do
    [ -x "$CAPSTAN_K8S_BIN_DIR/$b" ] || { log "CAPSTAN_K8S_BIN_DIR=$CAPSTAN_K8S_BIN_DIR has no executable $b"; exit 1; }
  done
  echo "$CAPSTAN_K8S_BIN_DIR"
  exit 0
fi

command -v go >/dev/null || { log "go is required to build the control plane (or set CAPSTAN_K8S_BIN_DIR)"; exit 1; }
mkdir -p "$CACHE_DIR" "$BIN_DIR"

# build_component NAME VERSION FUNCTION: runs FUNCTION in a scratch module dir with $OUT
# as the destination, then marks the component complete. A half-built component is retried.
build_component() {
  local name=$1 version=$2 fn=$3
  local dest="$CACHE_DIR/$name-$version"
  if [ -f "$dest/.complete" ]; then
    log "$name $version: cached in $dest"
  else
    log "$name $version: building (first time only; this takes a while on a small machine)"
    local work started
    work=$(mktemp -d "${TMPDIR:-/tmp}/capstan-build-$name.XXXXXX")
    started=$(date +%s)
    rm -rf "$dest.partial" && mkdir -p "$dest.partial"
    ( cd "$work" && OUT="$dest.partial" "$fn" "$version" )
    touch "$dest.partial/.complete"
    rm -rf "$dest" && mv "$dest.partial" "$dest"
    rm -rf "$work"
    log "$name $version: built in $(( $(date +%s) - started ))s"
  fi
  local f
  for f in "$dest"/*; do ln -sfn "$f" "$BIN_DIR/$(basename "$f")"; done
}

# Kubernetes: a throwaway module requires k8s.io/kubernetes and replaces every staging
# module (read from that tag's own go.mod) with its published k8s.io/<m> v0.X.Y twin.
build_kubernetes() {
  local version=$1 minor staging_version gomod
  minor=$(echo "$version" | cut -d. -f2)
  staging_version="v0.${version#v1.}"
  gomod=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  {
    echo "module capstan.local/k8s-build"
    grep -E '^go ' "$gomod"
    grep -E '^godebug ' "$gomod" || true
    echo "require k8s.io/kubernetes $version"
    echo "replace ("
    sed -n 's#^\s*\(k8s\.io/[a-z0-9-]*\) => \./staging/.*#\t\1 => \1 '"$staging_version"'#p' "$gomod"
    echo ")"
  } > go.mod
  local pkg=k8s.io/component-base/version cpkg=k8s.io/client-go/pkg/version ldflags="-s -w" v
  for v in "$pkg" "$cpkg"; do
    ldflags+=" -X $v.gitVersion=$version -X $v.gitMajor=1 -X $v.gitMinor=$minor"
    ldflags+=" -X $v.gitTreeState=clean -X $v.buildDate=1970-01-01T00:00:00Z"
  done
  local cmd
  for cmd in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    log "  go build $cmd"
    go build -trimpath -ldflags "$ldflags" -o "$OUT/$cmd" "k8s.io/kubernetes/cmd/$cmd"
  done
}

# etcd: its server module exposes etcdmain.Main, which is all the etcd binary's main does.
build_etcd() {
  local version=$1
  printf 'module capstan.local/etcd-build\n\ngo 1.24\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$version" > go.mod
  cat > main.go <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  go build -trimpath -ldflags "-s -w" -o "$OUT/etcd" .
}

build_kwok() {
  local version=$1 cmd
  for cmd in kwok kwokctl; do
    log "  go install sigs.k8s.io/kwok/cmd/$cmd@$version"
    GOBIN="$OUT" GOFLAGS= go install -trimpath \
      -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$version" "sigs.k8s.io/kwok/cmd/$cmd@$version"
  done
}

build_metrics_server() {
  local version=$1
  GOBIN="$OUT" GOFLAGS= go install -trimpath -ldflags "-s -w" "sigs.k8s.io/metrics-server/cmd/metrics-server@$version"
}

build_helm() {
  local version=$1
  GOBIN="$OUT" GOFLAGS= go install -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$version -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
    "helm.sh/helm/v3/cmd/helm@$version"
}

build_crane() {
  local version=$1
  GOBIN="$OUT" GOFLAGS= go install -trimpath -ldflags "-s -w" "github.com/google/go-containerregistry/cmd/crane@$version"
}

build_component etcd "$ETCD_VERSION" build_etcd
build_component kwok "$KWOK_VERSION" build_kwok
build_component metrics-server "$METRICS_SERVER_VERSION" build_metrics_server
build_component kubernetes "$K8S_VERSION" build_kubernetes
build_component helm "$HELM_VERSION" build_helm
build_component crane "$CRANE_VERSION" build_crane

for b in "${REQUIRED[@]}"; do [ -x "$BIN_DIR/$b" ] || { log "missing $b after build"; exit 1; }; done
echo "$BIN_DIR"
