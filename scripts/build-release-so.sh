#!/usr/bin/env bash
# Build the released module: target/x86_64-unknown-linux-gnu/dist/libwinlimit.so, linked
# against glibc 2.17 (the manylinux2014 baseline) by cargo-zigbuild with zig from PyPI (both
# pinned in requirements.txt, in .venv), without debug info (Cargo.toml's [profile.dist]).
# Then checks what it needs of the system (scripts/check-so-deps.sh). Prints the .so's path.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=x86_64-unknown-linux-gnu
GLIBC=2.17
SO=target/$TARGET/dist/libwinlimit.so

[ -x .venv/bin/cargo-zigbuild ] || { echo "build-release-so: .venv has no cargo-zigbuild: run scripts/install-deps.sh" >&2; exit 1; }
# cargo-zigbuild finds zig through the ziglang package of the Python it runs beside. It runs
# from /proc, a folder no checkout is under: zig names its C headers relative to the working
# directory when that is above them (.venv/lib/...), and bindgen, which runs in
# redis-module's own folder, then finds none of them ('sys/types.h' file not found).
root=$PWD
(cd /proc && PATH="$root/.venv/bin:$PATH" cargo zigbuild --quiet --manifest-path "$root/Cargo.toml" \
    --profile dist --target "$TARGET.$GLIBC") >&2
scripts/check-so-deps.sh "$SO" "$GLIBC" >&2
echo "$SO"
