#!/usr/bin/env bash
# make bench-rls: winlimit-ratelimit (on the module, and on Functions) beside
# envoyproxy/ratelimit, with the same configuration, Redis and gRPC load (bench/rls, a Go load
# generator); the report goes to bench/results/rls.md.
#
# Upstream is built from the Go module proxy, as a Go module, at a pinned version, in a
# throw-away module under .cache/ (never in the tree, never committed). Set UPSTREAM=0 to
# bench winlimit-ratelimit alone, beside its own no-rule baseline. Extra arguments go to the
# generator (e.g. -rounds 3 -window 3s).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
version=${UPSTREAM_VERSION:-v1.4.1-0.20260122083618-3fb702589d36}
module=${WINLIMIT_MODULE:-$root/target/x86_64-unknown-linux-gnu/dist/libwinlimit.so}
redis=$root/.cache/redis-7.0/bin/server
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$root/services/ratelimit" && go build -o "$work/winlimit-ratelimit" ./cmd/winlimit-ratelimit)
(cd "$root/bench/rls" && go build -o "$work/rlsbench" .)

upstream=()
if [ "${UPSTREAM:-1}" = 1 ]; then
	dir=$root/.cache/upstream-rls/$version
	if [ ! -x "$dir/ratelimit" ]; then
		mkdir -p "$dir"
		printf 'module winlimit.local/upstream-rls\n\ngo 1.26.8\n' >"$dir/go.mod"
		(cd "$dir" && go get "github.com/envoyproxy/ratelimit/src/service_cmd@$version" &&
			CGO_ENABLED=0 go build -o ratelimit github.com/envoyproxy/ratelimit/src/service_cmd)
	fi
	upstream=(-upstream "$dir/ratelimit" -upstream-version "$version")
fi

"$work/rlsbench" -winlimit "$work/winlimit-ratelimit" "${upstream[@]}" -redis-server "$redis" \
	-module "$module" -out "$root/bench/results/rls.md" "$@"
