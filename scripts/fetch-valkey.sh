#!/usr/bin/env bash
# Unpack Valkey (Debian's valkey-server from <codename>-backports) into .cache/valkey, so the
# integration tests also run on a newer server than Debian's Redis 7.0. Nothing is installed
# system-wide: apt only downloads, with its own lists under a temporary directory, from the
# Debian mirror this machine's apt sources already use. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

dest=.cache/valkey
if [ -x "$dest/usr/bin/valkey-server" ]; then exit 0; fi

mirror=$(grep -hoE '^URIs:\s*\S+' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -n 1 || true)
if [ -z "$mirror" ]; then
    mirror=$(grep -hoE '^deb\s+\S+' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -v security | head -n 1 || true)
fi
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
if [ -z "$mirror" ] || [ -z "$codename" ]; then
    echo "fetch-valkey: cannot find this machine's Debian mirror or release in its apt sources" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $codename-backports main" > "$work/sources.list"
apt_opts=(-o Dir::Etc::sourcelist="$work/sources.list" -o Dir::Etc::sourceparts=- \
          -o Dir::State::Lists="$work/lists" -o Dir::Cache::Archives="$work/archives" \
          -o APT::Sandbox::User=root -qq)

echo "fetch-valkey: downloading valkey-server from $codename-backports"
apt-get "${apt_opts[@]}" update
(cd "$work" && apt-get "${apt_opts[@]}" download valkey-server valkey-tools)
mkdir -p "$dest"
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$dest"; done
"$dest/usr/bin/valkey-server" --version
