#!/usr/bin/env bash
# The Go client's overhead over a bare go-redis call (make bench-go): the same
# WINLIMIT.FIXED line sent with rdb.Do and through Limiter.Fixed, on a default go-redis client
# and on a tuned one (ContextTimeoutEnabled), in one test binary, on the module.
#
# Interleaved passes: each pass runs every benchmark once, in alternating order (forward,
# then backward), so that a change of load on the machine falls on every case alike. Within
# the Overhead benchmarks the bare call and the limiter alternate in blocks of 20 calls, which
# is the comparison to read on a shared machine (their limiter/bare metric). The raw lines go
# to $OUT (bench/results/go-overhead.txt by default) and benchstat (pinned, $BENCHSTAT, run
# through the Go module proxy) summarises them.
#
# Usage: scripts/bench-go.sh  (PASSES=8; BENCHTIME=20000x calls, PAIRS=500x blocks of each)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
passes=${PASSES:-8}
benchtime=${BENCHTIME:-20000x}
pairs=${PAIRS:-500x}
out=${OUT:-$root/bench/results/go-overhead.txt}
benchstat=${BENCHSTAT:-golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da}
cases=(OverheadDefaultClient OverheadTunedClient BareGoRedisDo LimiterFixed BareGoRedisDoTunedClient
	LimiterFixedTunedClient LimiterFixedNoTimeoutNoBreaker)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root/clients/go"
go test -c -o "$work/winlimit.test" .

: >"$out"
for pass in $(seq "$passes"); do
	order=("${cases[@]}")
	if [ $((pass % 2)) -eq 0 ]; then
		order=()
		for ((i = ${#cases[@]} - 1; i >= 0; i--)); do order+=("${cases[i]}"); done
	fi
	for name in "${order[@]}"; do
		n=$benchtime
		case $name in Overhead*) n=$pairs ;; esac
		"$work/winlimit.test" -test.run '^$' -test.bench "^Benchmark${name}\$" -test.benchmem \
			-test.benchtime "$n" -test.count 1 | grep '^Benchmark' >>"$out"
	done
	echo "pass $pass of $passes done"
done
(cd "$work" && go run "$benchstat" "$out")
