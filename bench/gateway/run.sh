#!/usr/bin/env bash
# make bench-gateway: Spring Cloud Gateway's own RedisRateLimiter beside winlimit's limiter (on
# the module, and on Functions) and no limiter, in one gateway (this folder's Maven project, with
# the winlimit-spring-cloud-gateway jar that make installed into ~/.m2); the Go driver starts
# everything, loads the routes in alternating rounds and writes bench/results/gateway.md and
# .json. The load comes from wrk (scripts/install-deps.sh wrk), as the issue's own figures did;
# LOAD=go loads with the driver's Go HTTP client instead. Extra arguments go to the driver (e.g.
# -rounds 3 -round 5s).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
module=${WINLIMIT_MODULE:-$root/target/x86_64-unknown-linux-gnu/dist/libwinlimit.so}
cd "$root/bench/gateway"
# The JVM loads its classes from copies: ~/.m2 is shared, and an install of io.winlimit elsewhere
# during the run would replace a jar under the running gateway. winlimit's own jars are this
# tree's, as make built them.
rm -rf target/lib
mvn -B -q compile dependency:copy-dependencies -DoutputDirectory=target/lib
for jar in target/lib/winlimit-*.jar; do
	name=$(basename "$jar" .jar)
	cp "$root/clients/java/${name%-*}/target/$name.jar" "$jar"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/bench-gateway" .
generator=()
if [ "${LOAD:-wrk}" = wrk ]; then generator=(-wrk "$(command -v wrk)"); fi
"$work/bench-gateway" "${generator[@]}" -classpath "$PWD/target/classes:$PWD/target/lib/*" \
	-redis-server "$root/.cache/redis-7.0/bin/server" -module "$module" \
	-out "$root/bench/results/gateway.md" "$@"
