#!/usr/bin/env bash
# sbf.huge_pages off against on, in one run (never a pass/fail test): one
# group of N distinct bigints and the feed workload (f4_feed.sql), each
# query in a fresh session (a fresh backend: its large arrays are new
# memory), with count(*) over the same rows as the floor.  Prints per case
# the median backend CPU ms (/proc/self/stat, clock-tick resolution) and
# minor page faults over REPS sessions, the ratio to count(*), and on/off;
# then checks that both settings give the same bytes.
#   PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config REPS=7 \
#     bash test/bench/agg_huge_pages.sh [N ...]      (as root; installs nothing:
#     the extension must be installed in that PostgreSQL)
#   default N: 1000000 4000000; USERS (feed, default 20000), FEED=0 skips it
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${SBF_HP_INNER:-}" ]; then
	: "${PG_CONFIG:?PG_CONFIG must name the installation}"
	exec env SBF_HP_INNER=1 bash test/pg_tmp.sh bash "$0" "$@"
fi
REPS=${REPS:-7} USERS=${USERS:-20000} FEED=${FEED:-1}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 4000000)
tick=$(awk -v t="$(getconf CLK_TCK)" 'BEGIN {print 1000 / t}')
ST="SELECT 'S '||split_part(pg_read_file('/proc/self/stat'), ') ', 2)"
psql -X -q -c "CREATE EXTENSION sbf"
if [ "$FEED" = 1 ]; then
	psql -X -q -v users="$USERS" -v zipf=1.0 -f test/bench/f4_feed.sql >/dev/null
fi

# one query in a fresh session with sbf.huge_pages = $1: "faults cpu_ms"
one() {
	psql -X -q -At -c "SET work_mem = '4MB'" -c "SET jit = off" \
		-c "SET sbf.huge_pages = $1" -c "$ST" -c "$2" -c "$ST" | grep '^S ' |
		awk -v tick="$tick" 'NR==1 {split($0, a, " ")}
			NR==2 {split($0, b, " "); printf "%d %d\n", b[9] - a[9], ((b[13] + b[14]) - (a[13] + a[14])) * tick}'
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# cases for workload $1: count, sbf_agg off/on, sbf_hashset_agg off/on
run_case() {
	local w=$1 from cnt sbf hs c k
	if [ "$w" = feed ]; then
		cnt="SELECT sum(c) FROM (SELECT user_id, count(*) AS c FROM feed GROUP BY user_id) s"
		sbf="SELECT sum(octet_length(f::bytea)) FROM (SELECT user_id, sbf_agg(object) AS f FROM feed GROUP BY user_id) s"
		hs="SELECT sum(octet_length(f::bytea)) FROM (SELECT user_id, sbf_hashset_agg(object) AS f FROM feed GROUP BY user_id) s"
	else
		from="FROM (SELECT generate_series(1, $w::bigint) AS x) s"
		cnt="SELECT count(*) $from"
		sbf="SELECT octet_length(sbf_agg(x)::bytea) $from"
		hs="SELECT octet_length(sbf_hashset_agg(x)::bytea) $from"
	fi
	declare -A F C
	for _ in $(seq "$REPS"); do
		for c in "count:off:$cnt" "sbf_agg:off:$sbf" "sbf_agg:on:$sbf" \
			"sbf_hashset_agg:off:$hs" "sbf_hashset_agg:on:$hs"; do
			k=${c%%:*}:$(echo "$c" | cut -d: -f2)
			read -r f t < <(one "$(echo "$c" | cut -d: -f2)" "${c#*:*:}")
			F[$k]+="$f "
			C[$k]+="$t "
		done
	done
	local c0 m f0 on off
	c0=$(echo "${C[count:off]}" | tr ' ' '\n' | grep . | median)
	printf '| %-10s | %-31s | %7s | %8s | %8s | %7s |\n' "$w" count "$c0" \
		"$(echo "${F[count:off]}" | tr ' ' '\n' | grep . | median)" 1.00 ""
	for a in sbf_agg sbf_hashset_agg; do
		off=$(echo "${C[$a:off]}" | tr ' ' '\n' | grep . | median)
		on=$(echo "${C[$a:on]}" | tr ' ' '\n' | grep . | median)
		for s in off on; do
			m=$(echo "${C[$a:$s]}" | tr ' ' '\n' | grep . | median)
			f0=$(echo "${F[$a:$s]}" | tr ' ' '\n' | grep . | median)
			printf '| %-10s | %-31s | %7s | %8s | %8s | %7s |\n' "$w" "$a, huge_pages $s" "$m" "$f0" \
				"$(awk -v a="$m" -v b="$c0" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')" \
				"$([ $s = on ] && awk -v a="$on" -v b="$off" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')"
		done
	done
}

echo "# sbf.huge_pages off / on, fresh sessions, work_mem 4MB, median of $REPS"
echo "# $(psql -X -At -c 'SELECT version()' | cut -d, -f1); THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo n/a)"
echo "| workload   | query                           | CPU ms  | faults   | / count  | on/off  |"
echo "|------------|---------------------------------|--------:|---------:|---------:|--------:|"
for n in "${sizes[@]}"; do run_case "$n"; done
[ "$FEED" = 1 ] && run_case feed

# the same bytes either way
n=${sizes[0]}
same=$(psql -X -q -At -c "SET sbf.huge_pages = off" \
	-c "CREATE TEMP TABLE hp AS SELECT sbf_agg(x) AS f, sbf_hashset_agg(x) AS h FROM generate_series(1, $n::bigint) x" \
	-c "SET sbf.huge_pages = on" \
	-c "SELECT (SELECT f::bytea FROM hp) = sbf_agg(x)::bytea AND (SELECT h::bytea FROM hp) = sbf_hashset_agg(x)::bytea FROM generate_series(1, $n::bigint) x")
echo "same bytes off and on ($n): $same"
