#!/usr/bin/env bash
# Compiles every source file of sbf against the server headers of a PostgreSQL
# major that this machine cannot run (17 and 19 release candidate 1 are kept
# in ../shared/vendor as Debian's postgresql-server-dev-NN packages), warning-
# free with -Werror.  The .deb is unpacked with dpkg-deb -x into a cache
# outside the clone, never installed.  Prints one line per file and ends with
# "N passed, N failed".
#   usage: bash test/compile_check.sh MAJOR DEB
#   SBF_CACHE  cache directory (default /var/cache/sbf)
set -uo pipefail
cd "$(dirname "$0")/.."

major=${1:?major version}
deb=${2:?server-dev .deb}
cache=${SBF_CACHE:-/var/cache/sbf}
hash=$(sha256sum "$deb" | cut -c1-16)
dir=$cache/server-dev-$major-$hash
if [ ! -f "$dir/.unpacked" ]; then
	rm -rf "$dir"; mkdir -p "$dir"
	dpkg-deb -x "$deb" "$dir" && touch "$dir/.unpacked" ||
		{ echo "compile_check: cannot unpack $deb"; echo "0 passed, 1 failed"; exit 1; }
fi
server=$dir/usr/include/postgresql/$major/server
[ -f "$server/postgres.h" ] || { echo "compile_check: no postgres.h in $server"; echo "0 passed, 1 failed"; exit 1; }

# PostgreSQL's own warning flags (as its configure picks them for gcc), the
# project's (Makefile's PG_CFLAGS), -Werror, and C11 (19 requires it; the
# older majors accept it).
flags=(-std=gnu11 -O2 -Wall -Wmissing-prototypes -Wpointer-arith
       -Wdeclaration-after-statement -Werror=vla -Wendif-labels
       -Wmissing-format-attribute -Wimplicit-fallthrough=3 -Wformat-security
       -Wshadow=compatible-local -fno-strict-aliasing -fwrapv
       -Wextra -Wno-unused-parameter -Wno-sign-compare
       -Wno-missing-field-initializers -Wno-cast-function-type -Werror
       -D_GNU_SOURCE -I src -I src/core -I "$server")
pass=0; fail=0
for f in src/*.c src/core/*.c; do
	if out=$(gcc "${flags[@]}" -fsyntax-only "$f" 2>&1) && [ -z "$out" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "compile-$major: $f FAILED"
		echo "$out" | head -20
	fi
done
echo "compile-$major: $pass files compiled warning-free, $fail failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
