#!/usr/bin/env bash
# Install everything the build, tests and benchmark need (Debian 12). Idempotent:
# apt runs only when something is missing, pip only when requirements.txt changed.
# Usage: scripts/install-deps.sh [valgrind] [wrk]   (valgrind: also what make bench-instr needs;
# wrk: make bench-gateway's load generator)
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" || missing+=("$1"); }

need_cmd redis-server    redis-server
need_cmd redis-cli       redis-tools
need_cmd redis-benchmark redis-tools
need_cmd clang           clang
need_pkg libclang-dev                      # bindgen (redis-module build) needs libclang.so
need_cmd make            build-essential
need_cmd luacheck        lua-check           # make lint: the Lua library
need_cmd luac5.1         lua5.1              # make lint: the Lua library's locals (scripts/lua-locals.py)
need_cmd gcc             build-essential
need_cmd promtool        prometheus          # make lint: promtool check rules (docs/prometheus)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
for extra in "$@"; do
    case $extra in
        valgrind) need_cmd valgrind valgrind; need_cmd callgrind_control valgrind ;;
        wrk) need_cmd wrk wrk ;;
        *) echo "install-deps: unknown extra $extra" >&2; exit 2 ;;
    esac
done

if [ ${#missing[@]} -gt 0 ]; then
    pkgs=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
    echo "install-deps: installing $pkgs"
    $SUDO apt-get update
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $pkgs
fi

command -v cargo >/dev/null 2>&1 || {
    echo "install-deps: cargo not found: install a stable Rust toolchain (https://rustup.rs)" >&2
    exit 1
}

if [ ! -x .venv/bin/python ]; then
    echo "install-deps: creating .venv"
    python3 -m venv .venv
fi

stamp=.venv/.requirements.sha256
want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
    echo "install-deps: pip install -r requirements.txt"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
    echo "$want" > "$stamp"
fi

# The Python client (clients/python) with its asgi extra, editable, so the tests and
# docs/make_algorithms_png.py run the working tree's code. Again when its pyproject.toml
# changed, or when the installed winlimit is not this tree's (a .venv copied or moved).
# No build isolation: setuptools and wheel come from requirements.txt (its dependencies too).
client_stamp=.venv/.client.sha256
client_want=$( (cat clients/python/pyproject.toml; pwd) | sha256sum | cut -d' ' -f1)
client_here=$(.venv/bin/python -c 'import os, winlimit; print(os.path.dirname(os.path.dirname(winlimit.__file__)))' 2>/dev/null || true)
if [ "$(cat "$client_stamp" 2>/dev/null || true)" != "$client_want" ] || [ "$client_here" != "$PWD/clients/python" ]; then
    echo "install-deps: pip install -e ./clients/python[asgi]"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-build-isolation -e "./clients/python[asgi]"
    echo "$client_want" > "$client_stamp"
fi
