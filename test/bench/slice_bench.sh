#!/usr/bin/env bash
# Benchmark of a single lookup on a large stored value (never a pass/fail
# test): the sliced read of src/pg/sbf_slice.c, for each kind.
#
# In a throwaway cluster (bench_cluster.sh) it stores, for each kind, a value
# of about 10 kB and one of about 10 MB (out of line, uncompressed: the
# type's STORAGE external), then times SELECT seen @> 'k<i>' on one row with
# pgbench (1 client, -M prepared: every transaction is a new execution, so
# the call site's memo starts empty; sbf.cache_size = 0, so the session
# cache never holds the value).  A 10 kB value is detoasted whole, a 10 MB
# one read by slices (the DEBUG2 line is shown for each).  Prints the median
# latency over REPS repetitions, interleaved, and the 10 MB / 10 kB ratio
# (issue 35, item 4: at most 1.2).
#   bloom    growth's bloom segment (4x) after a full blocked one (no writer
#            makes a plain value of bloom segments only); the keys looked up
#            ('pad1'..'pad500') were added after the blocked one filled, so a
#            lookup probes the blocked line, then the bloom bytes
#   blocked  an empty filter's one blocked segment, keys 'k1'..'k500'
#   fused    sbf_agg of a complete set (10 MB: 4M at 1e-5), keys 'k1'..'k500'
#
# Run as root where sbf is built and installed (see lookup_bench.sh; with
# PG_CONFIG=... for another installation).  Output goes to stdout and to
# test/bench/results/slice_bench.txt.
#   REPS      repetitions (default 7; medians are reported)
#   DURATION  seconds per pgbench run (default 2)
set -euo pipefail
cd "$(dirname "$0")"

if [ "${1:-}" != --run ]; then
	mkdir -p results
	export REPS=${REPS:-7} DURATION=${DURATION:-2}
	bash ./bench_cluster.sh "shared_buffers=1GB jit=off" \
		bash ./slice_bench.sh --run 2>&1 | tee results/slice_bench.txt
	exit "${PIPESTATUS[0]}"
fi

PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sql() { "${PSQL[@]}" -c "$1"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}'; }

echo "# sbf single-lookup benchmark: 10 kB vs 10 MB stored values"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; $(sql 'SELECT version()' | cut -d, -f1)"
echo "sbf commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- ../../src ../../sql 2>/dev/null || echo ' with local changes'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "settings: shared_buffers=1GB jit=off sbf.cache_size=0; pgbench -M prepared -c 1 -T $DURATION, REPS=$REPS (medians)"
echo

sql "CREATE EXTENSION sbf"
sql "CREATE TABLE sized (id int PRIMARY KEY, kind text, size text, pfx text,
	seen scalablebloom)"
# ids: 1/2 bloom, 3/4 blocked, 5/6 fused (odd 10 kB, even 10 MB)
sql "INSERT INTO sized VALUES
	(1, 'bloom', '10 kB', 'pad', sbf_add(sbf_empty(1000, 0.002, 4, 0.9),
		ARRAY(SELECT 'k' || i FROM generate_series(1, 1000) i)
		|| ARRAY(SELECT 'pad' || i FROM generate_series(1, 500) i))),
	(2, 'bloom', '10 MB', 'pad', sbf_add(sbf_empty(1000000, 0.002, 4, 0.9),
		ARRAY(SELECT 'k' || i FROM generate_series(1, 1000000) i)
		|| ARRAY(SELECT 'pad' || i FROM generate_series(1, 500) i))),
	(3, 'blocked', '10 kB', 'k', sbf_add(sbf_empty(7500, 0.01),
		ARRAY(SELECT 'k' || i FROM generate_series(1, 5000) i))),
	(4, 'blocked', '10 MB', 'k', sbf_add(sbf_empty(5000000, 0.01),
		ARRAY(SELECT 'k' || i FROM generate_series(1, 5000) i)))"
# (at 1e-5 a set this small is written bloom, the smaller: 1e-2 keeps it fused)
sql "INSERT INTO sized SELECT 5, 'fused', '10 kB', 'k', sbf_agg('k' || i, 0.01)
	FROM generate_series(1, 9500) i"
sql "INSERT INTO sized SELECT 6, 'fused', '10 MB', 'k', sbf_agg('k' || i, 0.00001)
	FROM generate_series(1, 4000000) i"
sql "VACUUM ANALYZE sized"
echo "## values"
"${PSQL[@]}" -F ' | ' -c "SELECT id, kind, size, octet_length(seen::bytea) AS bytes,
	(SELECT string_agg(s->>'kind', ',') FROM jsonb_array_elements(sbf_info(seen)->'segments') s)
	FROM sized ORDER BY id"
echo "## path of a single lookup (DEBUG2)"
for id in 1 2 3 4 5 6; do
	PGOPTIONS="-c sbf.cache_size=0 -c client_min_messages=debug2" \
		"${PSQL[@]}" -c "SELECT $id, seen @> (pfx || 1) FROM sized WHERE id = $id" 2>&1 |
		tr '\n' ' '
	echo
done
echo

cat > "$work/one.sql" <<'SQL'
\set i random(1, 500)
SELECT seen @> (pfx || :i) FROM sized WHERE id = :id;
SQL
export PGOPTIONS="-c sbf.cache_size=0"
lat_of() {
	pgbench -n -M prepared -c 1 -T "$DURATION" -D id="$1" -f "$work/one.sql" 2>&1 |
		sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p'
}
for id in 1 2 3 4 5 6; do
	pgbench -n -M prepared -c 1 -t 50 -D id=$id -f "$work/one.sql" >/dev/null 2>&1
done
declare -A R
for ((r = 0; r < REPS; r++)); do
	for id in 1 2 3 4 5 6; do
		R[$id]+="$(lat_of $id) "
	done
done
echo "## single lookup: SELECT seen @> (pfx || i) FROM sized WHERE id = \$1 (latency ms)"
for id in 1 2 3 4 5 6; do
	echo "  id=$id runs: ${R[$id]}"
done
printf '| %-8s | %10s | %10s | %13s |\n' kind "10 kB ms" "10 MB ms" "10 MB / 10 kB"
printf '|%s|%s|%s|%s|\n' "----------" "------------" "------------" "---------------"
for k in bloom:1:2 blocked:3:4 fused:5:6; do
	IFS=: read -r name a b <<<"$k"
	# shellcheck disable=SC2086
	ma=$(median ${R[$a]}) mb=$(median ${R[$b]})
	printf '| %-8s | %10s | %10s | %13s |\n' "$name" "$ma" "$mb" "$(ratio "$mb" "$ma")"
done
