#!/usr/bin/env bash
# The body of `AB_BODY=lookup bash test/bench/agg_ab15.sh BASE`: run by
# agg_ab15.sh inside a throwaway cluster with the build under test installed.
# Times REPS times a query of CALLS lookups (f @> text, one filter row joined
# to every call) on small filters, the users most of a feed has: the exact
# form at 1, 5 and 10 elements, one segment at 30, and a 30-bucket window of
# 150 pairs; absent elements ('a:' || i) and present ones (cycling through
# the filter's own); and the loop without a lookup.  Prints "label ms" lines,
# then "md5" of every query's answer (equal across builds when no answer
# changed).
set -euo pipefail
CALLS=${CALLS:-500000}
psql -X -q -c "CREATE EXTENSION sbf"
psql -X -q <<'SQL'
CREATE TABLE f (name text PRIMARY KEY, n int, f scalablebloom);
INSERT INTO f SELECT 'exact-' || n, n, (SELECT sbf_agg('o:' || i) FROM generate_series(1, n) i)
FROM unnest(ARRAY[1, 5, 10, 30]) n;
INSERT INTO f SELECT 'window-150', 150, sbf_window_agg('o:' || i, timestamptz '2026-01-01' + (i % 30) * interval '1 day')
FROM generate_series(1, 150) i;
UPDATE f SET name = 'segment-30' WHERE n = 30;
SQL
names=$(psql -X -q -At -c "SELECT string_agg(name, ' ' ORDER BY name) FROM f")
sums=""
for _ in $(seq "$REPS"); do
	for nm in $names; do
		out=$(psql -X -q -At -c "SET jit = off" -c '\timing on' \
			-c "SELECT count(*) FROM f, generate_series(1, $CALLS) i WHERE f.name = '$nm' AND f.f @> ('a:' || i)" \
			-c "SELECT count(*) FROM f, generate_series(1, $CALLS) i WHERE f.name = '$nm' AND f.f @> ('o:' || (i % f.n + 1))" \
			-c "SELECT count(*) FROM f, generate_series(1, $CALLS) i WHERE f.name = '$nm' AND ('a:' || i) IS NOT NULL")
		echo "$out" | awk -v nm="$nm" '/^Time:/ {t++; q = t == 1 ? "absent" : t == 2 ? "present" : "loop"; printf "%s_%s %s\n", nm, q, $2}'
		sums="$sums $(echo "$out" | grep -v '^Time:' | tr '\n' ,)"
	done
done
echo "md5 $(echo "$sums" | md5sum | cut -d' ' -f1)"
