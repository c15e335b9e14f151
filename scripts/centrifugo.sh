#!/usr/bin/env bash
# Builds Centrifugo (the real-time server `make compare` measures Ermine
# against) from its Go module into $HOME/.cache/ermine/centrifugo-<version>/
# and prints the binary's path. It builds in a temporary module, so nothing
# of it enters this repository, and only when the binary is absent.
# v6.9.1 first; should its build fail (once: the failure is remembered in
# the cache), v5.4.9. It says on stderr which version it gives.
# CENTRIFUGO_VERSION=vX.Y.Z asks for that version alone.
set -euo pipefail
if [ -n "${CENTRIFUGO_VERSION:-}" ]; then
  versions=("$CENTRIFUGO_VERSION")
else
  versions=(v6.9.1 v5.4.9)
fi

# build makes the binary of version $1 and prints its path.
build() {
  local version=$1
  local dir="${HOME}/.cache/ermine/centrifugo-${version}"
  local bin="${dir}/centrifugo"
  if [ -x "$bin" ]; then echo "$bin"; return 0; fi
  if [ -e "${dir}/failed" ]; then return 1; fi
  mkdir -p "$dir"
  local tmp major
  tmp=$(mktemp -d)
  major="${version%%.*}"
  if ! (
    cd "$tmp"
    go mod init ermine-compare-centrifugo >/dev/null 2>&1
    GOFLAGS=-mod=mod go get "github.com/centrifugal/centrifugo/${major}@${version}" >/dev/null 2>&1 ||
      { echo "go get github.com/centrifugal/centrifugo/${major}@${version} failed" >&2; exit 1; }
    CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath \
      -ldflags "-X github.com/centrifugal/centrifugo/${major}/internal/build.Version=${version#v}" \
      -o "$bin.tmp" "github.com/centrifugal/centrifugo/${major}"
  ); then
    rm -rf "$tmp"
    touch "${dir}/failed"
    return 1
  fi
  rm -rf "$tmp"
  mv "$bin.tmp" "$bin"
  echo "$bin"
}

for v in "${versions[@]}"; do
  if bin=$(build "$v"); then
    echo "centrifugo.sh: comparing with Centrifugo $v" >&2
    echo "$bin"
    exit 0
  fi
  echo "centrifugo.sh: Centrifugo $v could not be built (remove ~/.cache/ermine/centrifugo-$v/failed to try again)" >&2
done
exit 1
