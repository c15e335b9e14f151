#!/usr/bin/env bash
# Builds Centrifugo (the real-time server `make compare` measures Ermine
# against) from its Go module into $HOME/.cache/ermine/centrifugo-<version>/
# and prints the binary's path. It builds in a temporary module, so nothing
# of it enters this repository, and only when the binary is absent.
# v5.4.9 is pinned: the module proxy here serves it (no v6 release is).
set -euo pipefail
version="${CENTRIFUGO_VERSION:-v5.4.9}"
dir="${HOME}/.cache/ermine/centrifugo-${version}"
bin="${dir}/centrifugo"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
major="${version%%.*}"
(
  cd "$tmp"
  go mod init ermine-compare-centrifugo >/dev/null 2>&1
  GOFLAGS=-mod=mod go get "github.com/centrifugal/centrifugo/${major}@${version}" >/dev/null 2>&1 ||
    { echo "go get github.com/centrifugal/centrifugo/${major}@${version} failed" >&2; exit 1; }
  CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath -o "$bin.tmp" "github.com/centrifugal/centrifugo/${major}"
)
mv "$bin.tmp" "$bin"
echo "$bin"
