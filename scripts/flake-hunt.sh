#!/usr/bin/env bash
# A flake hunt: `make itest-all` (four suites at once, as `make test` runs it) and
# `make itest-clients`, ROUNDS times each, alternating, while BUSY extra processes keep the
# cores busy (started here, ended by PID). Each run's log and result go to WORKDIR; the summary
# lists every run with its time and its failed tests. Runs on a fresh clone of HEAD whose
# package caches are the machine's own (warm), sharing this checkout's .cache/ of servers,
# after one `make deps servers release-so` there; the suites load the released .so, as in
# `make test`.
# Usage: scripts/flake-hunt.sh [WORKDIR]   (ROUNDS=3 BUSY=2 by default)
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/winlimit-hunt.XXXXXX)}
rounds=${ROUNDS:-3}
busy=${BUSY:-2}
mkdir -p "$work"
[ -d "$work/main" ] || git clone -q --no-local "$repo" "$work/main"
[ -d "$work/shared" ] || { [ -d "$repo/../shared" ] && cp -r "$repo/../shared" "$work/shared"; }
[ -e "$work/main/.cache" ] || { [ -d "$repo/.cache" ] && ln -s "$repo/.cache" "$work/main/.cache"; }
cd "$work/main"
make deps servers release-so >"$work/setup.log" 2>&1 || { echo "hunt: setup failed, see $work/setup.log"; exit 1; }
export WINLIMIT_MODULE=$PWD/target/x86_64-unknown-linux-gnu/dist/libwinlimit.so

pids=()
stop_busy() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; pids=(); }
trap stop_busy EXIT
for _ in $(seq "$busy"); do
    # A busy loop of the shell's own, ended by its PID.
    bash -c 'while :; do :; done' &
    pids+=($!)
done
echo "hunt: $rounds rounds in $work/main at $(git rev-parse --short HEAD), busy loops ${pids[*]}"

summary=$work/summary.txt
: >"$summary"
for round in $(seq "$rounds"); do
    for target in itest-all itest-clients; do
        log=$work/$target.$round.log
        start=$(date +%s)
        make -k "$target" >"$log" 2>&1
        rc=$?
        took=$(($(date +%s) - start))
        printf '%s round %d: rc %d in %dm%02ds\n' "$target" "$round" "$rc" $((took / 60)) $((took % 60)) | tee -a "$summary"
        # What failed, as .ci/run prints it.
        [ "$rc" -ne 0 ] && python3 scripts/ci_summary.py "$log" | sed 's/^/    /' | tee -a "$summary"
    done
done
stop_busy
echo "hunt: summary in $summary"
