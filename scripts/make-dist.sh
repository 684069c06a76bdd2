#!/usr/bin/env bash
# Write dist/: the release tarball, the Debian package, the Functions library (lua/winlimit.lua
# as winlimit-VERSION.lua), the Python client's wheel and sdist, and SHA256SUMS over them all (`cd dist && sha256sum -c SHA256SUMS`). One version:
# Cargo.toml's (tests/test_version.py holds the client to it).
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
[ -n "$version" ] || { echo "make-dist: no version in Cargo.toml" >&2; exit 1; }
# The library reports its version (FCALL winlimit_version 0): it must be this one.
grep -q "^local VERSION = '$version'$" lua/winlimit.lua \
    || { echo "make-dist: lua/winlimit.lua's VERSION is not Cargo.toml's $version" >&2; exit 1; }
so=$(scripts/build-release-so.sh)

rm -rf dist && mkdir -p dist
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# The tarball: one folder winlimit-VERSION/ with the .so and what an operator reads.
folder=$stage/winlimit-$version
mkdir -p "$folder"
install -m 0755 "$so" "$folder/libwinlimit.so"
install -m 0644 README.md LICENSE CHANGELOG.md "$folder/"
# The library, for servers that load no module (README "Without the module").
install -m 0644 lua/winlimit.lua "$folder/winlimit.lua"
# The example loads the .so beside it: `redis-server redis.conf.example` inside the folder.
sed 's|^loadmodule ./target/release/libwinlimit.so|loadmodule ./libwinlimit.so|' redis.conf.example > "$folder/redis.conf.example"
grep -q '^loadmodule ./libwinlimit.so$' "$folder/redis.conf.example" \
    || { echo "make-dist: redis.conf.example has no loadmodule line to point at the .so" >&2; exit 1; }
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
    -C "$stage" -czf "dist/winlimit-$version-x86_64-linux-gnu.tar.gz" "winlimit-$version"

scripts/build-deb.sh "$so" "$version" dist >/dev/null
install -m 0644 lua/winlimit.lua "dist/winlimit-$version.lua"

# The client carries the library (lua/winlimit.lua and its script form) as package data.
scripts/embed-lua.py
.venv/bin/python -m build --no-isolation --sdist --wheel --outdir dist clients/python >/dev/null
rm -rf clients/python/build

# winlimit-ratelimit (services/ratelimit): one static Linux x86-64 binary, what
# services/ratelimit/Dockerfile copies into an image of its own.
(cd services/ratelimit && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags "-s -w" \
    -o "../../dist/winlimit-ratelimit-$version-linux-amd64" ./cmd/winlimit-ratelimit)

(cd dist && sha256sum -- * > SHA256SUMS)
echo "make-dist: dist/ for winlimit $version:"
(cd dist && cat SHA256SUMS)
