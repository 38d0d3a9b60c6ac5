#!/usr/bin/env bash
# Releases 1.2, 1.3 and this tree in one invocation: f4_pair.sh with a third
# cluster (issue 35's lookups are measured against both releases at once).
#
# Each build gets its own private copy of PostgreSQL 18 and its own throwaway
# cluster (bench_cluster.sh on a unix socket in a temporary directory):
#   B12 (default /var/tmp/pg18-i35-b12): release 1.2, commit 232b1eb
#   B13 (default /var/tmp/pg18-i35-b13): release 1.3, commit 0d9b718 (main's
#        1.3 code with the version bump to 1.4)
#   B14 (default /var/tmp/pg18-i35-b14): this working tree as it is
# The releases are built once from `git archive` (a stamp file in the copy
# remembers it); PG18 (default the first /var/cache/sbf/pg-18.6-*/ with
# .built, made by test/pg_build.sh) is what the copies are made from.
#
#   usage: bash test/bench/f4_trio.sh "name=value ..." command [args...]
# The command runs with the three clusters up and sees H12/P12, H13/P13 and
# H14/P14.  Run as root.  F4_NOBUILD=1 reuses the last install of this tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B12=${B12:-/var/tmp/pg18-i35-b12} B13=${B13:-/var/tmp/pg18-i35-b13} B14=${B14:-/var/tmp/pg18-i35-b14}
export B12 B13 B14

if [ "${1:-}" = --hop ]; then	# inside the cluster of build $2: start the next
	b=$2 settings=$3
	shift 3
	export "H$b=$PGHOST" "P$b=$PGPORT"
	if [ "$b" = 14 ]; then
		unset PGHOST PGPORT
		exec "$@"
	fi
	next=$((b + 1))
	eval "pgc=\$B$next/bin/pg_config"
	PG_CONFIG=$pgc exec bash "$here/bench_cluster.sh" "$settings" \
		bash "$here/f4_trio.sh" --hop "$next" "$settings" "$@"
fi

pg18=${PG18:-}
if [ -z "$pg18" ]; then
	for d in /var/cache/sbf/pg-18.6-*/; do
		[ -e "$d/.built" ] && pg18=${d%/} && break
	done
fi
for c in "$B12" "$B13" "$B14"; do
	if [ ! -x "$c/bin/pg_config" ]; then
		[ -n "$pg18" ] || { echo "f4_trio: no PostgreSQL 18 to copy (set PG18)" >&2; exit 1; }
		cp -a "$pg18" "$c"
	fi
done

build_into() {
	(cd "$1" && make -s -j2 PG_CONFIG="$2" install >"$1/build.log" 2>&1) ||
		{ tail -20 "$1/build.log" >&2; echo "f4_trio: build failed ($1)" >&2; exit 1; }
}
root=$(cd "$here/../.." && pwd)
for rel in "12 232b1eb" "13 0d9b718"; do
	read -r b commit <<<"$rel"
	eval "dest=\$B$b"
	if [ ! -e "$dest/.sbf-$commit" ]; then
		src=$(mktemp -d "/tmp/sbf$b.XXXXXX")
		git -C "$root" archive "$commit" | tar -x -C "$src"
		build_into "$src" "$dest/bin/pg_config"
		rm -rf "$src"
		touch "$dest/.sbf-$commit"
	fi
done
if [ "${F4_NOBUILD:-0}" != 1 ]; then
	src=$(mktemp -d /tmp/sbf14.XXXXXX)
	(cd "$root" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -x -C "$src"
	build_into "$src" "$B14/bin/pg_config"
	rm -rf "$src"
fi

settings=$1
shift
PG_CONFIG=$B12/bin/pg_config exec bash "$here/bench_cluster.sh" "$settings" \
	bash "$here/f4_trio.sh" --hop 12 "$settings" "$@"
