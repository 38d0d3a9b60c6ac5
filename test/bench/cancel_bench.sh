#!/usr/bin/env bash
# Wall time and backend peak memory (VmHWM of the backend, from
# /proc/<pid>/status) of the reproducers of issue 19 (crafted values that
# made sbf work long and uncancellably), each under a statement_timeout.
# Run inside a cluster with sbf installed, e.g.
#   pg_virtualenv -t -v 15 bash test/bench/cancel_bench.sh [timeout] [case ...]
# Cases: union16m union_max uagg_max build_max count_max merge_exact combine
# Prints one line per case: case, elapsed ms (psql side, from before the
# statement to after its error or result), VmHWM of the backend, outcome.
set -euo pipefail
timeout=${1:-100ms}
shift || true
cases=${*:-union16m union_max uagg_max build_max count_max merge_exact combine}
export PGOPTIONS='-c client_min_messages=warning'

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE EXTENSION IF NOT EXISTS sbf;
DROP TABLE IF EXISTS cb_hs, cb_exact, cb_state;
-- hashes 0..N-1 at Rice parameter 0: 2 bits a hash
CREATE TABLE cb_hs(name text, h sbf_hashset);
INSERT INTO cb_hs VALUES
 ('16m', decode('0100000000000000' || '0000000100000000' || repeat('55', 4194304), 'hex')::sbf_hashset),
 ('max', decode('0100000000000000' || 'fcffff0700000000' || repeat('55', 33554431), 'hex')::sbf_hashset);
-- 64 exact filters of 2048 elements (16 kB), growth 1, tightening 1, error 1e-100
CREATE TABLE cb_exact AS
  SELECT g, sbf_add(sbf_empty(64, 1e-100, 1, 1.0),
                    ARRAY(SELECT (g * 100000 + i)::text FROM generate_series(1, 2048) i)) AS f
  FROM generate_series(1, 64) g;
-- a streamed sbf_agg state (flag bits 0 and 1) holding a filter of 4,095
-- segments of 64 bits with k = 64, and a set of 65,536 hashes
CREATE TABLE cb_state(ord int, h sbf_hashset);
INSERT INTO cb_state VALUES
 (1, decode('0103000000000000' || '0000000000000000' || '7b14ae47e17a843f'
     || '02000109' || '0200' || 'ff0f' || '00000000' || '7b14ae47e17a843f'
     || 'cdccccccccccec3f' || 'e803000000000000'
     || repeat('0000000000010000' || '0000000000000000' || '4000000000000000'
               || '000000000000d03f' || '4000' || '0000' || '00000000', 4095)
     || repeat('0000000000000000', 4095), 'hex')::sbf_hashset),
 (2, (SELECT sbf_hashset_agg(i) FROM generate_series(1, 65536) i));
VACUUM ANALYZE cb_hs, cb_exact, cb_state;
SQL

stmt_of() {
	case $1 in
	union16m) echo "SELECT # sbf_hashset_union(h, h) FROM cb_hs WHERE name = '16m'";;
	union_max) echo "SELECT # sbf_hashset_union(h, h) FROM cb_hs WHERE name = 'max'";;
	uagg_max) echo "SELECT # sbf_hashset_union_agg(h) FROM (SELECT h FROM cb_hs WHERE name = 'max' UNION ALL SELECT h FROM cb_hs WHERE name = 'max') s";;
	build_max) echo "SELECT length(sbf_build(h)::bytea) FROM cb_hs WHERE name = 'max'";;
	count_max) echo "SELECT # h FROM cb_hs WHERE name = 'max'";;
	merge_exact) echo "CREATE AGGREGATE pg_temp.u(scalablebloom) (SFUNC = sbf_union_agg_merge, STYPE = scalablebloom); SELECT length(pg_temp.u(f ORDER BY g)::bytea) FROM cb_exact";;
	combine) echo "CREATE AGGREGATE pg_temp.c(sbf_hashset) (SFUNC = sbf_agg_combine, STYPE = sbf_hashset); SELECT length(pg_temp.c(h ORDER BY ord)::bytea) FROM cb_state";;
	*) echo "unknown case $1" >&2; exit 2;;
	esac
}

for c in $cases; do
	stmt=$(stmt_of "$c")
	out=$(psql -X -q 2>&1 <<SQL || true
SELECT pg_backend_pid() AS pid \gset
SET statement_timeout = '$timeout';
\set t0 \`date +%s%N\`
$stmt;
\set t1 \`date +%s%N\`
\setenv CB_PID :pid
\setenv CB_T0 :t0
\setenv CB_T1 :t1
\! echo "elapsed_ms=\$(( (CB_T1 - CB_T0) / 1000000 )) \$(grep VmHWM /proc/\$CB_PID/status | tr -s ' \t' ' ')"
SQL
)
	res=$(echo "$out" | grep -E 'ERROR|^ *[0-9]+$' | head -1 | sed 's/^ *//')
	echo "$c: $(echo "$out" | grep elapsed_ms) | ${res:-?}"
done
