#!/usr/bin/env bash
# CI as a brand-new machine runs it: a fresh clone of HEAD (committed work only) beside a copy
# of ../shared, then `CI=true bash .ci/run` with every package cache pointed at an empty
# folder (Maven's local repository, Go's module and build caches, npm's and pip's caches, and
# cargo's registry), so a step that only passes on a warm cache fails here. Prints the wall
# time. Run it before any submission that changes a dependency, a build file or .ci/run.
# Usage: scripts/ci-cold.sh [WORKDIR]   (default: a new temporary folder, kept for reading)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/winlimit-ci-cold.XXXXXX)}
mkdir -p "$work"
caches=$work/caches
mkdir -p "$caches"/{m2,gomod,gocache,npm,pip,cargo}

git clone -q --no-local "$repo" "$work/main"
if [ -d "$repo/../shared" ]; then
    rm -rf "$work/shared" && cp -r "$repo/../shared" "$work/shared"
fi

# cargo: a new CARGO_HOME has no registry; the toolchain itself stays rustup's.
rust_bin=$(dirname "$(command -v cargo)")
start=$(date +%s)
echo "ci-cold: $work/main at $(git -C "$work/main" rev-parse --short HEAD), caches under $caches"
set +e
(
    cd "$work/main"
    export CI=true
    export MAVEN_OPTS="${MAVEN_OPTS:-} -Dmaven.repo.local=$caches/m2"
    export GOMODCACHE=$caches/gomod GOCACHE=$caches/gocache
    export npm_config_cache=$caches/npm
    export PIP_CACHE_DIR=$caches/pip
    export CARGO_HOME=$caches/cargo RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
    export PATH="$rust_bin:$PATH"
    bash .ci/run
) </dev/null 2>&1 | tee "$work/ci.log"
rc=${PIPESTATUS[0]}
set -e
end=$(date +%s)
printf 'ci-cold: rc %d, wall time %dm%02ds (log: %s)\n' "$rc" $(((end - start) / 60)) $(((end - start) % 60)) "$work/ci.log"
exit "$rc"
