#!/usr/bin/env bash
# Install everything the build, tests and benchmark need (Debian 12). Idempotent:
# apt runs only when something is missing, pip only when requirements.txt changed.
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
need_cmd gcc             build-essential
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)

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
