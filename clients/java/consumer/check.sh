#!/usr/bin/env bash
# The starter as a user gets it: clients/java installed into the local Maven repository, then
# this project built from that repository alone (no reactor; Maven Central only for the
# pinned third-party artifacts and plugins), run once against a
# real redis-server with the module on a free loopback port, stopped by its PID.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
server=${WINLIMIT_SERVER_BIN:-$repo/.cache/redis-7.0/bin/server}
cli=${WINLIMIT_CLI_BIN:-$repo/.cache/redis-7.0/bin/cli}
module=${WINLIMIT_MODULE:-$repo/target/x86_64-unknown-linux-gnu/dist/libwinlimit.so}

[ -n "${CONSUMER_INSTALLED:-}" ] || (cd "$here/.." && mvn -B -q install -DskipTests)
cd "$here"
mvn -B -q package
mvn -B -q dependency:build-classpath -Dmdep.outputFile=target/classpath.txt

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$server" --port "$port" --bind 127.0.0.1 --save "" --appendonly no --loadmodule "$module" >/dev/null &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 200); do
    [ "$("$cli" -p "$port" ping 2>/dev/null)" = PONG ] && break
    sleep 0.05
done

out=$(java -cp "target/classes:$(cat target/classpath.txt)" io.winlimit.consumer.ConsumerApp \
    --spring.data.redis.host=127.0.0.1 --spring.data.redis.port="$port")
echo "$out" | grep 'winlimit consumer:'
echo "$out" | grep -q 'winlimit consumer: allowed=true remaining=2 backend=module {RateLimit-Policy="winlimit";q=3;w=3600, RateLimit="winlimit";r=2;t=3600}' \
    || { echo "check.sh: the consumer's call did not answer as expected" >&2; exit 1; }
[ "$("$cli" -p "$port" exists 'rl:+4915112345678')" = 1 ]
# The README's calls (ReadmeCalls): two on "sms:ann" (template, then Lettuce), one on "api:42".
echo "$out" | grep -q 'winlimit readme: template=true lettuce=1 configured=api:99' \
    || { echo "check.sh: the README's calls did not answer as expected" >&2; exit 1; }
echo "consumer: 1 passed, 0 failed"
