#!/usr/bin/env bash
# make bench-java: JMH of Limiter.fixed against a bare Lettuce dispatch of the same
# WINLIMIT.FIXED line, sync and async, with allocations per call (-prof gc), on a redis-server
# with the module from .cache/ on a free loopback port, stopped by its PID. Needs winlimit-core
# installed in the local Maven repository (make bench-java installs it first): ~/.m2, or the one
# MAVEN_OPTS=-Dmaven.repo.local=... names, which every mvn here and in make bench-java honours. Raw JMH results go to
# bench/results/java-overhead.json; bench/results/java-overhead.md is written from them by hand.
# `run.sh interleaved [rounds] [calls per batch]` measures the time per call instead, as the
# limiter's ratio to the bare call per round of calls taken in turns (make bench-java-time).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
module=${WINLIMIT_MODULE:-$root/target/x86_64-unknown-linux-gnu/dist/libwinlimit.so}
server=$root/.cache/redis-7.0/bin/server
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

"$server" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --loadmodule "$module" >/dev/null 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 600); do
  "$root/.cache/redis-7.0/bin/cli" -p "$port" PING 2>/dev/null | grep -q PONG && break
  sleep 0.1
done

cd "$here"
mvn -B -q compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
classpath="target/classes:$(cat target/classpath.txt)"
if [ "${1:-}" = interleaved ]; then
  # Time per call as ratios from one run: the four calls take turns in one JVM (InterleavedTime).
  shift
  java -cp "$classpath" "-Dwinlimit.bench.port=$port" io.winlimit.bench.InterleavedTime "$@"
  exit
fi
java -cp "$classpath" org.openjdk.jmh.Main \
  -jvmArgsAppend "-Dwinlimit.bench.port=$port" \
  -prof gc -rf json -rff "$root/bench/results/java-overhead.json" "${@:-OverheadBenchmark}"
