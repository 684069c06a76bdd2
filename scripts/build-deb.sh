#!/usr/bin/env bash
# build-deb.sh SO VERSION OUT_DIR: the Debian package winlimit_VERSION_amd64.deb, built with
# dpkg-deb from packaging/: the module as /usr/lib/redis/modules/winlimit.so, the docs,
# copyright and changelog under /usr/share/doc/winlimit/, and examples/winlimit.conf; the
# Functions library (for servers without the module) as /usr/share/winlimit/winlimit.lua. No
# maintainer scripts: a server's configuration is its own package's conffile, never ours.
set -euo pipefail
cd "$(dirname "$0")/.."
so=$1 version=$2 out=$3

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
doc=$root/usr/share/doc/winlimit
# Redis refuses a module without execute permission.
install -D -m 0755 "$so" "$root/usr/lib/redis/modules/winlimit.so"
install -D -m 0644 README.md "$doc/README.md"
install -D -m 0644 lua/winlimit.lua "$root/usr/share/winlimit/winlimit.lua"
install -D -m 0644 packaging/debian/copyright "$doc/copyright"
install -D -m 0644 packaging/winlimit.conf "$doc/examples/winlimit.conf"
gzip -9n < CHANGELOG.md > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@SIZE@/$size/" packaging/debian/control > "$root/DEBIAN/control"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 0755 {} +

deb=$out/winlimit_${version}_amd64.deb
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0} dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
