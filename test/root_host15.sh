#!/usr/bin/env bash
# Copies this machine's PostgreSQL 15 (Debian 12's, with sbf as installed
# in it) into DEST so that it runs inside the Debian root of a newer major,
# for test/t/030_major_upgrade.pl's pg_upgrade and pg_dump from 15 there.
# The root's C library is newer than Debian 12's and runs 15's binaries, but
# the root lacks the other libraries they were linked with (ICU 72, ...):
# those are copied from this machine into DEST/hostlib, and every binary and
# module gets an rpath $ORIGIN/../../../../hostlib (patchelf), so the copy works
# wherever DEST is mounted.  PostgreSQL finds its share directory relative
# to its binaries, so DEST/lib/postgresql/15 is a complete installation; the
# JIT provider (which needs LLVM 14) is left out.  Run it where the 15
# install is not being changed (test/run_all.sh runs it after the 15 suites;
# by hand, under /var/lock/sbf-pg15.lock).
#   usage: bash test/root_host15.sh DEST
set -euo pipefail
. "$(dirname "$0")/packages.sh"

dest=${1:?usage: root_host15.sh DEST}
src_lib=/usr/lib/postgresql/15
src_share=/usr/share/postgresql/15
[ -x "$src_lib/bin/postgres" ] || { echo "root_host15: no PostgreSQL 15 in $src_lib" >&2; exit 1; }
need_packages root_host15 patchelf

rm -rf "$dest"
mkdir -p "$dest/lib/postgresql" "$dest/share/postgresql" "$dest/hostlib"
cp -a "$src_lib" "$dest/lib/postgresql/"
cp -a "$src_share" "$dest/share/postgresql/"
rm -rf "$dest/lib/postgresql/15/lib/llvmjit"* "$dest/lib/postgresql/15/lib/bitcode"

# the libraries of every ELF file but the C library's own
elves=()
for f in "$dest"/lib/postgresql/15/bin/* "$dest"/lib/postgresql/15/lib/*.so; do
	[ -f "$f" ] && [ ! -L "$f" ] && head -c 4 "$f" | grep -q 'ELF' && elves+=("$f")
done
for f in "${elves[@]}"; do
	ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
done | sort -u | grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|libutil|libanl|ld-linux[^/]*)\.so' |
	while read -r lib; do cp -L "$lib" "$dest/hostlib/"; done
for f in "${elves[@]}"; do
	patchelf --force-rpath --set-rpath '$ORIGIN/../../../../hostlib' "$f"
done
echo "root_host15: PostgreSQL 15 ($("$src_lib/bin/pg_config" --version)) copied to $dest ($(ls "$dest/hostlib" | wc -l) libraries of this machine)" >&2
