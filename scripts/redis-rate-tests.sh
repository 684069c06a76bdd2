#!/usr/bin/env bash
# redis_rate's own test file, unchanged, on clients/go/redisrate: on the module (Redis 7.0
# with WINLIMIT_MODULE), the Functions library (Redis 7.0) and the scripts (Redis 6.2).
#
# The file is taken from the pinned module in the Go module cache (fetched through the Go
# module proxy, its hash checked), never committed: it is copied beside a stand-in package
# named as redis_rate (clients/go/redisrate/testdata/redis_rate) that is redisrate under
# redis_rate's names. Only AllowAtMost's tests are skipped (redisrate leaves it out).
#
# The file dials the fixed address :6379, so each server runs in a network namespace of its
# own (unshare -n), where 6379 is free whatever else runs on the machine; the server is
# stopped by its PID. Usage: scripts/redis-rate-tests.sh (make itest-go runs it).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=v10.0.1
sum='h1:calPxi7tVlxojKunJwQ72kwfozdy25RjA0bCj1h0MUo='
cache=${WINLIMIT_CACHE:-$root/.cache}
module=${WINLIMIT_MODULE:-$root/target/x86_64-unknown-linux-gnu/dist/libwinlimit.so}
ready_timeout=60 # seconds, the Go tests' ReadyTimeout

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

info=$(cd "$work" && go mod download -json "github.com/go-redis/redis_rate/v10@$version")
dir=$(printf '%s' "$info" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
got=$(printf '%s' "$info" | sed -n 's/^\t"Sum": "\(.*\)",$/\1/p')
if [ "$got" != "$sum" ]; then
	echo "redis-rate-tests: redis_rate $version has hash $got, not the pinned $sum" >&2
	exit 1
fi

cp -r "$root/clients/go/redisrate/testdata/redis_rate" "$work/shim"
cp "$dir/rate_test.go" "$work/shim/rate_test.go"
(cd "$work/shim" && go mod edit -replace "github.com/winlimit/winlimit/clients/go=$root/clients/go" &&
	GOFLAGS=-mod=mod go test -c -o "$work/rate.test" .)

# run_on NAME SERVER_ARGS...: the tests against one server on 127.0.0.1:6379 in a namespace.
run_on() {
	local name=$1 bin=$cache/$2/bin
	shift 2
	echo "redis_rate's tests on $name"
	unshare -n bash -s "$bin" "$work" "$ready_timeout" "$@" <<'INNER'
set -euo pipefail
bin=$1 work=$2 ready_timeout=$3
shift 3
ip link set lo up
"$bin/server" --port 6379 --bind 127.0.0.1 --save '' --appendonly no --dir "$work" "$@" >"$work/server.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true' EXIT
deadline=$((SECONDS + ready_timeout))
until [ "$("$bin/cli" -p 6379 ping 2>/dev/null)" = PONG ]; do
	if [ $SECONDS -ge $deadline ] || ! kill -0 "$pid" 2>/dev/null; then
		echo "the server did not answer PING:" >&2
		cat "$work/server.log" >&2
		exit 1
	fi
	sleep 0.05
done
"$work/rate.test" -test.count=1 -test.skip 'AllowAtMost' -test.v
INNER
}

run_on module redis-7.0 --loadmodule "$module"
run_on functions redis-7.0
run_on scripts redis-6.2
