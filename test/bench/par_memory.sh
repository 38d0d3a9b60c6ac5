#!/usr/bin/env bash
# Peak resident memory (VmHWM) of the backend that runs sbf_agg over one
# group of N distinct bigints in a table, serially and with two parallel
# workers (Partial Aggregate under Gather: the leader combines the three
# partial states); the time of both plans against count(*)'s; and where
# the leader's page faults come from in the parallel plan (perf, when
# installed).  Also checks that both plans give the same bytes.
# Never a pass/fail test.
#   PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config bash test/bench/par_memory.sh [N ...]
#   (default N: 10000000 40000000; work_mem 4MB; the tree must be installed
#   there; runs in a throwaway cluster, test/pg_tmp.sh)
#   OUT   file name under test/bench/results/ (default par_memory.txt)
#   REPS  timed runs of each query for the time table (default 3; medians)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" != --body ]; then
	out=test/bench/results/${OUT:-par_memory.txt}
	sizes=("$@")
	[ ${#sizes[@]} -gt 0 ] || sizes=(10000000 40000000)
	{
		echo "# par_memory.sh: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes'), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "# PG_CONFIG=$PG_CONFIG ($("$PG_CONFIG" --version)); work_mem 4MB, jit off"
		bash test/pg_tmp.sh bash test/bench/par_memory.sh --body "${sizes[@]}"
	} | tee "$out"
	exit 0
fi
shift
SER="SET jit = off; SET work_mem = '4MB'; SET max_parallel_workers_per_gather = 0"
PAR="SET jit = off; SET work_mem = '4MB'; SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0"
HWM="SELECT (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'VmHWM:\s*(\d+)'))[1]::bigint / 1024"
Q="SELECT md5(sbf_agg(x)::bytea) FROM par"
# ms of query $2 after settings $1, in a new session
ms() { psql -qXAt -c "$1" -c '\timing on' -c "$2" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'; }
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
declare -A T
psql -qX -c "CREATE EXTENSION sbf" >/dev/null
printf '| %11s | %12s | %12s | %14s | %13s | %10s |\n' distinct "count(*) MB" "serial MB" "parallel MB" "extra B/elem" "same bytes"
printf '|%s|\n' "-------------|--------------|--------------|----------------|---------------|------------"
for n in "$@"; do
	psql -qX -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS par" -c "CREATE TABLE par AS SELECT generate_series(1, $n::bigint) AS x" \
		-c "ALTER TABLE par SET (parallel_workers = 2)" -c "VACUUM ANALYZE par" >/dev/null
	plan=$(psql -qXAt -c "$PAR" -c "EXPLAIN (COSTS OFF) $Q" | grep -c -E 'Partial Aggregate|Gather')
	[ "$plan" -ge 2 ] || { echo "no parallel plan for $n" >&2; exit 1; }
	c=$(psql -qXAt -c "$SER" -c "SELECT count(*) FROM par" -c "$HWM" | tail -1)
	read -r ds s < <(psql -qXAt -c "$SER" -c "$Q" -c "$HWM" | paste -sd' ')
	read -r dp p < <(psql -qXAt -c "$PAR" -c "$Q" -c "$HWM" | paste -sd' ')
	printf '| %11s | %12s | %12s | %14s | %13s | %10s |\n' "$n" "$c" "$s" "$p" \
		"$(awk -v a="$p" -v b="$s" -v n="$n" 'BEGIN {printf "%.1f", (a - b) * 1048576 / n}')" \
		"$([ "$ds" = "$dp" ] && echo yes || echo NO)"
	# the query times, serial and parallel, each query in turn REPS times
	cs=() cp=() ss=() sp=()
	for ((r = 0; r < ${REPS:-3}; r++)); do
		cs+=("$(ms "$SER" "SELECT count(*) FROM par")") cp+=("$(ms "$PAR" "SELECT count(*) FROM par")")
		ss+=("$(ms "$SER" "$Q")") sp+=("$(ms "$PAR" "$Q")")
	done
	T[$n]="$(med "${cs[@]}") $(med "${cp[@]}") $(med "${ss[@]}") $(med "${sp[@]}")"
done
echo
echo "query times (ms, medians of ${REPS:-3}; each run: count serial, parallel, sbf_agg serial, parallel):"
printf '| %11s | %10s | %10s | %10s | %10s | %13s | %13s |\n' distinct "count ser" "count par" "sbf ser" "sbf par" "count par/ser" "sbf par/ser"
printf '|%s|\n' "-------------|------------|------------|------------|------------|---------------|--------------"
for n in "$@"; do
	read -r a b c d <<<"${T[$n]}"
	printf '| %11s | %10.0f | %10.0f | %10.0f | %10.0f | %13s | %13s |\n' "$n" "$a" "$b" "$c" "$d" \
		"$(awk -v x="$b" -v y="$a" 'BEGIN {printf "%.2f", x / y}')" "$(awk -v x="$d" -v y="$c" 'BEGIN {printf "%.2f", x / y}')"
done
echo
echo "(MB: the backend's VmHWM after the query, in a new session each; parallel: the leader's)"
command -v perf >/dev/null || { echo "perf not installed: no profile"; exit 0; }
# the leader's page faults in the parallel plan of the last size (the query
# waits a second, so that perf attaches before it starts)
data=$(mktemp -d)
( psql -qXAt -c "$PAR" -c "SELECT pg_sleep(1)" -c "$Q" >/dev/null ) &
query=$!
sleep 0.5
pid=$(psql -qXAt -c "SELECT pid FROM pg_stat_activity WHERE query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()")
perf record -q -e page-faults -c 20 --call-graph dwarf,16384 -o "$data/p.data" -p "$pid" >/dev/null 2>&1 &
rec=$!
wait $query
kill -INT $rec 2>/dev/null || true
wait $rec 2>/dev/null || true
echo
echo "the leader's page faults in the parallel plan of $n distinct, by the first function that is"
echo "not a copy, a fill, an allocator or the kernel (share of all the leader's faults during the query):"
perf script -i "$data/p.data" 2>/dev/null | awk '
	/page-faults:/ { insample = 1; got = 0; next }
	/^$/ { if (insample) { n[got ? who : "(unattributed)"]++; total++ } insample = 0; next }
	insample && !got {
		s = $2; sub(/\+0x[0-9a-f]+$/, "", s)
		if (s ~ /^(\[unknown\]|__mem|memcpy|memset|memmove|palloc|MemoryContextAlloc|AllocSet|asm_exc|exc_page|__raw|pvm_|__handle|handle_mm|clear_page|_copy|copy_)/ || $3 ~ /kernel/) next
		who = s; got = 1
	}
	END { for (w in n) printf "  %5.1f%%  %s\n", 100 * n[w] / total, w }' | sort -rn | head -8
rm -rf "$data"
