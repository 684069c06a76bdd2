#!/usr/bin/env bash
# check-so-deps.sh FILE GLIBC: fail unless FILE loads on every x86-64 Linux with glibc GLIBC
# or newer, as auditwheel judges a manylinux wheel: no versioned symbol newer than
# GLIBC_<GLIBC>, no C++ runtime or other versioned library, and only libraries of glibc
# itself (and libgcc_s) needed.
set -euo pipefail
file=$1 max=$2
fail() { echo "check-so-deps: $file: $*" >&2; exit 1; }
[ -f "$file" ] || fail "no such file"

# The version requirements (.gnu.version_r), what the dynamic loader checks at load time.
versions=$(readelf -V --wide "$file" | sed -n '/\.gnu\.version_r/,$p' | awk '$2 == "Name:" {print $3}' | sort -u)
newest=$(echo "$versions" | sed -n 's/^GLIBC_\([0-9.]*\)$/\1/p' | sort -V | tail -1)
[ -n "$newest" ] || fail "no GLIBC symbol versions found (not a dynamically linked glibc .so?)"
if [ "$(printf '%s\n%s\n' "$newest" "$max" | sort -V | tail -1)" != "$max" ]; then
    fail "needs GLIBC_$newest, newer than the GLIBC_$max baseline: $(objdump -T "$file" | grep "GLIBC_$newest" | awk '{print $NF}' | tr '\n' ' ')"
fi
others=$(echo "$versions" | grep -v '^GLIBC_' | grep -v '^GCC_' || true)
[ -z "$others" ] || fail "needs versioned symbols outside glibc: $others"

allowed='^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libgcc_s\.so\.1|ld-linux-x86-64\.so\.2)$'
needed=$(objdump -p "$file" | awk '$1 == "NEEDED" {print $2}')
bad=$(echo "$needed" | grep -Ev "$allowed" || true)
[ -z "$bad" ] || fail "needs libraries outside glibc: $bad"
echo "check-so-deps: $file: newest symbol GLIBC_$newest (baseline GLIBC_$max); needs $(echo $needed)"
