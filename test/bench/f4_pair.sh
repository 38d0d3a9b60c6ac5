#!/usr/bin/env bash
# Release 1.3 against release 1.2 in one invocation: the set-up shared by the
# f4_*.sh benchmarks of issue 27 (never a pass/fail test).
#
# One cluster loads one sbf.so, so each build gets its own private copy of
# PostgreSQL 18 and its own throwaway cluster (bench_cluster.sh on a unix
# socket in a temporary directory, stopped by its trap on exit):
#   B12  (default /var/tmp/pg18-b12): release 1.2, commit 232b1eb, built
#        from `git archive` in a temporary directory (once: a stamp file in
#        the copy remembers it)
#   B13  (default /var/tmp/pg18-b13): this working tree as it is (committed
#        or not), built in a temporary copy so the tree's own objects stay
#   PG18 (default the first /var/cache/sbf/pg-18.6-*/ with .built): what the
#        copies are made from when they do not exist yet
#
#   usage: bash test/bench/f4_pair.sh "name=value ..." command [args...]
# The command runs with both clusters up and sees H12/P12 and H13/P13 (host
# and port of each), PG12BIN/PG13BIN, and the helper functions of
# f4_lib.sh.  Run as root (the clusters run as postgres).
# F4_NOBUILD=1 skips building this tree into B13 (reuse the last install).
# BASE=commit builds that commit into the first cluster instead of 1.2's
# 232b1eb (default B12 then /var/tmp/pg18-base-COMMIT), e.g. BASE=0d9b718
# (release 1.3's code) to measure this tree against 1.3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BASE=${BASE:-232b1eb}
if [ "$BASE" = 232b1eb ]; then B12=${B12:-/var/tmp/pg18-b12}; else B12=${B12:-/var/tmp/pg18-base-$BASE}; fi
B13=${B13:-/var/tmp/pg18-b13}
export B12 B13 BASE

if [ "${1:-}" = --hop ]; then	# inside the 1.2 cluster: start the 1.3 one
	shift
	export H12=$PGHOST P12=$PGPORT PG12BIN=$B12/bin
	settings=$1
	PG_CONFIG=$B13/bin/pg_config exec bash "$here/bench_cluster.sh" "$settings" bash "$here/f4_pair.sh" --body "$@"
fi
if [ "${1:-}" = --body ]; then	# inside both
	shift 2
	export H13=$PGHOST P13=$PGPORT PG13BIN=$B13/bin
	unset PGHOST PGPORT
	exec "$@"
fi

# the sources, when the copies do not exist yet
pg18=${PG18:-}
if [ -z "$pg18" ]; then
	for d in /var/cache/sbf/pg-18.6-*/; do
		[ -e "$d/.built" ] && pg18=${d%/} && break
	done
fi
for c in "$B12" "$B13"; do
	if [ ! -x "$c/bin/pg_config" ]; then
		[ -n "$pg18" ] || { echo "f4_pair: no PostgreSQL 18 to copy (set PG18)" >&2; exit 1; }
		cp -a "$pg18" "$c"
	fi
done

# builds the tree in $1 into the installation whose pg_config is $2
build_into() {
	(cd "$1" && make -s -j2 PG_CONFIG="$2" install >"$1/build.log" 2>&1) ||
		{ tail -20 "$1/build.log" >&2; echo "f4_pair: build failed ($1)" >&2; exit 1; }
}
root=$(cd "$here/../.." && pwd)
if [ ! -e "$B12/.sbf-$BASE" ]; then
	src=$(mktemp -d /tmp/sbf12.XXXXXX)
	git -C "$root" archive "$BASE" | tar -x -C "$src"
	build_into "$src" "$B12/bin/pg_config"
	rm -rf "$src"
	touch "$B12/.sbf-$BASE"
fi
if [ "${F4_NOBUILD:-0}" != 1 ]; then
	src=$(mktemp -d /tmp/sbf13.XXXXXX)
	# the working tree as it is, without its objects and .git
	(cd "$root" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -x -C "$src"
	build_into "$src" "$B13/bin/pg_config"
	rm -rf "$src"
fi

settings=$1
shift
PG_CONFIG=$B12/bin/pg_config exec bash "$here/bench_cluster.sh" "$settings" \
	bash "$here/f4_pair.sh" --hop "$settings" "$@"
