#!/usr/bin/env bash
# Samples a backend's private memory (RssAnon in /proc/PID/status) every
# 10 ms while one query runs, and prints the peak above its idle level.
# Run in agg_bench.sh's cluster by agg_bench_run.sh; reading /proc of the server's
# processes needs root (or the server's user).
set -euo pipefail

# Prints "peak_kB" for query $2 run after setting work_mem = $1.
peak_of() {
	local wm=$1 q=$2 pidfile
	pidfile=$(mktemp)
	psql -X -q -At -v ON_ERROR_STOP=1 -c "SET work_mem = '$wm'" \
		-c "\\o $pidfile" -c 'SELECT pg_backend_pid()' -c '\o' \
		-c 'SELECT pg_sleep(0.5)' -c "$q" >/dev/null &
	local client=$!
	while [ ! -s "$pidfile" ]; do sleep 0.01; done
	local pid base peak cur
	pid=$(cat "$pidfile")
	sleep 0.2
	base=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status")
	peak=$base
	while kill -0 "$client" 2>/dev/null; do
		cur=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
		[ -n "$cur" ] && [ "$cur" -gt "$peak" ] && peak=$cur
		sleep 0.01
	done
	wait "$client"
	rm -f "$pidfile"
	echo $((peak - base))
}

printf '| %-58s | %10s | %12s | %12s |\n' "query" "elements" "peak MB" "B/element"
printf '|%s|\n' "------------------------------------------------------------|------------|--------------|--------------"
row() {
	local label=$1 n=$2 wm=$3 q=$4 kb
	kb=$(peak_of "$wm" "$q")
	printf '| %-58s | %10s | %12.1f | %12.1f |\n' "$label" "$n" "$(echo "$kb / 1024" | bc -l)" \
		"$(echo "$kb * 1024 / $n" | bc -l)"
}
for n in 1000000 4000000 10000000 12000000; do
	row "one group: sbf_agg over $n distinct bigints" "$n" 4MB \
		"SELECT count(f) FROM (SELECT sbf_agg(x) AS f FROM generate_series(1, $n::bigint) x) s"
done
row "one group: hll_add_agg over 10000000 distinct bigints" 10000000 4MB \
	"SELECT count(f) FROM (SELECT hll_add_agg(hll_hash_bigint(x)) AS f FROM generate_series(1, 10000000::bigint) x) s"
for a in 'count(*)' 'sbf_agg(x)' 'hll_add_agg(hll_hash_bigint(x))'; do
	row "100,000 groups x 10 rows: $a" 1000000 1GB \
		"SELECT count(f) FROM (SELECT x % 100000, $a AS f FROM generate_series(1, 1000000::bigint) x GROUP BY 1) s"
done
echo "(one group: the state's sorted array is at most 10,485,760 x 8 B = 80 MB, plus a pending buffer"
echo " and the call site's sort scratch of at most 8 MB each; past 10,485,760 distinct hashes it streams"
echo " into a filter.  B/element for groups = peak / rows, including HashAggregate's own per-group"
echo " entries: compare with the count(*) row.)"
