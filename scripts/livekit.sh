#!/usr/bin/env bash
# Builds livekit-server (the media server behind Ermine's voice channels) from
# its Go module into $HOME/.cache/ermine/livekit-server-<version>/ and prints
# the binary's path. It builds only when the binary is absent, so CI and
# developers pay the few minutes once per machine.
set -euo pipefail
version="${LIVEKIT_VERSION:-v1.13.5}"
dir="${HOME}/.cache/ermine/livekit-server-${version}"
bin="${dir}/livekit-server"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
# Downloaded from outside any module, so the caller's go.mod is untouched.
src=$(cd / && GOFLAGS=-mod=mod go mod download -json "github.com/livekit/livekit-server@${version}" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "go mod download gave no source directory for livekit-server ${version}" >&2; exit 1; }
cp -r "$src/." "$tmp/"
chmod -R u+w "$tmp"
(cd "$tmp" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath -o "$bin.tmp" ./cmd/server)
mv "$bin.tmp" "$bin"
echo "$bin"
