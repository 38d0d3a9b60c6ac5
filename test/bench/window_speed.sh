#!/usr/bin/env bash
# Speed of windowed filters in the ranking request (never a pass/fail test).
#
# The lookup benchmark's request -- score 120 candidate posts for one user
# with sbf_matches -- against a user's 30-bucket windowed filter
# (sbf_window_agg), against a plain filter of the same elements (sbf_agg over
# the same rows), and with since = the last 7 buckets.  Bursty users: a
# typical one has 0-50 interactions on most days and gaps of weeks; a heavy
# one has days of 20,000.  Prints the tps of each request (pgbench -M
# prepared, one run) and the ratios window / plain and since-7 / window.
#
#   test/bench/window_speed.sh            in a throwaway cluster (pg_virtualenv)
#   PGHOST=... PGPORT=... test/bench/window_speed.sh   against a running server
#   DURATION  seconds per pgbench run (default 10); CLIENTS (default 2)
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${PGHOST:-}" ]; then
	exec pg_virtualenv -t -v 15 -o shared_buffers=256MB -o jit=off bash "$0" "$@"
fi
DURATION=${DURATION:-10} CLIENTS=${CLIENTS:-2}
PSQL=(psql -X -q -v ON_ERROR_STOP=1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"${PSQL[@]}" <<'SQL'
DROP EXTENSION IF EXISTS sbf CASCADE;
CREATE EXTENSION sbf;
SQL
"${PSQL[@]}" -f window_speed_data.sql

"${PSQL[@]}" -At -c "
SELECT format('typical users: window %s bytes (median), plain %s bytes; heavy users: window %s bytes, plain %s bytes',
	percentile_disc(0.5) WITHIN GROUP (ORDER BY pg_column_size(w)) FILTER (WHERE user_id <= 200),
	percentile_disc(0.5) WITHIN GROUP (ORDER BY pg_column_size(plain)) FILTER (WHERE user_id <= 200),
	percentile_disc(0.5) WITHIN GROUP (ORDER BY pg_column_size(w)) FILTER (WHERE user_id > 200),
	percentile_disc(0.5) WITHIN GROUP (ORDER BY pg_column_size(plain)) FILTER (WHERE user_id > 200))
FROM wb_filters"

request() {
	cat > "$work/$1.sql" <<SQL
\set r random(:lo, :hi)
SELECT p.post_id, $2 AS hits
FROM wb_requests r JOIN wb_filters f ON f.user_id = r.user_id
	 JOIN wb_posts p ON p.post_id = ANY (r.post_ids)
WHERE r.req_id = :r;
SQL
}
request plain 'sbf_matches(f.plain, p.objects)'
request window 'sbf_matches(f.w, p.objects)'
request since7 "sbf_matches(f.w, p.objects, timestamptz '2026-02-03')"

tps() {
	pgbench -n -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$DURATION" -D lo="$2" -D hi="$3" \
		-f "$work/$1.sql" 2>&1 | sed -n 's/^tps = \([0-9.]*\).*/\1/p'
}
echo "pgbench -M prepared -c $CLIENTS -T $DURATION, one run each"
printf '| %-8s | %10s | %10s | %10s | %14s | %14s |\n' user "plain tps" "window tps" "since-7 tps" "window / plain" "since-7 / window"
for class in typical heavy; do
	if [ $class = typical ]; then lo=1 hi=500; else lo=501 hi=1000; fi
	for v in plain window since7; do tps $v $lo $hi >/dev/null; done   # warm
	p=$(tps plain $lo $hi); w=$(tps window $lo $hi); s=$(tps since7 $lo $hi)
	printf '| %-8s | %10s | %10s | %10s | %14s | %14s |\n' $class "$p" "$w" "$s" \
		"$(awk -v a="$w" -v b="$p" 'BEGIN{printf "%.2f", a/b}')" \
		"$(awk -v a="$s" -v b="$w" 'BEGIN{printf "%.2f", a/b}')"
done
