#!/usr/bin/env bash
# The body of agg_bench.sh, run in bench_cluster.sh's throwaway cluster (PG* variables set).
set -euo pipefail

PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
REPS=${REPS:-3}
SCALE=${SCALE:-1}

sql() { "${PSQL[@]}" -c "$1"; }

# Prints the milliseconds one run of query $2 takes with $1 parallel workers.
time_query() {
	"${PSQL[@]}" -c "SET max_parallel_workers_per_gather = $1" \
		-c "SET parallel_setup_cost = 0" -c "SET parallel_tuple_cost = 0" \
		-c '\timing on' -c "$2" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
}

# Prints the median of its arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# Prints the plan's aggregate nodes on one line.
plan_of() {
	"${PSQL[@]}" -c "SET max_parallel_workers_per_gather = $1" \
		-c "SET parallel_setup_cost = 0" -c "SET parallel_tuple_cost = 0" \
		-c "EXPLAIN (COSTS OFF) $2" | grep -oE '(Finalize |Partial )?(Hash|Group)?Aggregate|Gather( Merge)?|Sort' |
		paste -sd'/' -
}

echo "# sbf aggregate benchmark"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; $(sql 'SELECT version()' | cut -d, -f1)"
echo "sbf commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- ../../src ../../sql 2>/dev/null || echo ' with local changes'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "settings: shared_buffers=1GB work_mem=256MB jit=off; REPS=$REPS (median of REPS after one warm-up) SCALE=$SCALE"
echo

sql "CREATE EXTENSION sbf; CREATE EXTENSION hll;"

echo "## data"
t0=$(date +%s)
# 3 heavy users with 1.1M-1.3M rows, then users k = 1..2000 with 250000/k rows
# (Zipf, exponent 1); objects: 70% sku (1M ids), 20% brand (5k), 10% voucher
# (20k), each with a power-law popularity (id = size * u^3 or u^2).  Rows are
# shuffled so that groups interleave as in a real log.
"${PSQL[@]}" -v scale="$SCALE" -f agg_data.sql
sql "SELECT format('%s rows, %s users, %s objects; rows per user: max %s, median %s, min %s; users with >= 1M rows: %s; table %s',
	sum(n), count(*), (SELECT count(DISTINCT object) FROM interactions), max(n),
	percentile_disc(0.5) WITHIN GROUP (ORDER BY n), min(n), count(*) FILTER (WHERE n >= 1000000),
	pg_size_pretty(pg_table_size('interactions')))
	FROM (SELECT user_id, count(*) AS n FROM interactions GROUP BY user_id) s"
echo "generated in $(( $(date +%s) - t0 )) s"
echo

echo "## GROUP BY user_id: median ms (ratio to count(*) in the same mode)"
declare -A Q
names=(count hll array_agg sbf_agg)
Q[count]="SELECT count(a) FROM (SELECT user_id, count(*) AS a FROM interactions GROUP BY user_id) s"
Q[hll]="SELECT count(a) FROM (SELECT user_id, hll_add_agg(hll_hash_text(object)) AS a FROM interactions GROUP BY user_id) s"
Q[array_agg]="SELECT count(a) FROM (SELECT user_id, array_agg(DISTINCT object) AS a FROM interactions GROUP BY user_id) s"
Q[sbf_agg]="SELECT count(a) FROM (SELECT user_id, sbf_agg(object) AS a FROM interactions GROUP BY user_id) s"
declare -A MED
for mode in 0 2; do
	for n in "${names[@]}"; do
		time_query "$mode" "${Q[$n]}" >/dev/null	# warm-up
		runs=()
		for ((i = 0; i < REPS; i++)); do runs+=("$(time_query "$mode" "${Q[$n]}")"); done
		MED[$n,$mode]=$(median "${runs[@]}")
		echo "  $n workers=$mode runs: ${runs[*]} ms; plan: $(plan_of "$mode" "${Q[$n]}")"
	done
done
echo
printf '| %-36s | %14s | %8s | %14s | %8s | %9s |\n' aggregate "serial ms" ratio "parallel ms" ratio "par/ser"
printf '|%s|%s|%s|%s|%s|%s|\n' "--------------------------------------" "----------------" "----------" "----------------" "----------" "-----------"
label() {
	case $1 in
		count) echo 'count(*)' ;;
		hll) echo 'hll_add_agg(hll_hash_text(object))' ;;
		array_agg) echo 'array_agg(DISTINCT object)' ;;
		sbf_agg) echo 'sbf_agg(object)' ;;
	esac
}
for n in "${names[@]}"; do
	s=${MED[$n,0]} p=${MED[$n,2]}
	printf '| %-36s | %14.0f | %8.2f | %14.0f | %8.2f | %9.2f |\n' "$(label "$n")" "$s" \
		"$(echo "$s / ${MED[count,0]}" | bc -l)" "$p" "$(echo "$p / ${MED[count,2]}" | bc -l)" \
		"$(echo "$p / $s" | bc -l)"
done
echo "sbf_agg / hll_add_agg: serial $(printf '%.2f' "$(echo "${MED[sbf_agg,0]} / ${MED[hll,0]}" | bc -l)"), parallel $(printf '%.2f' "$(echo "${MED[sbf_agg,2]} / ${MED[hll,2]}" | bc -l)")"
echo "(array_agg(DISTINCT) has no combine function, so it never runs in parallel)"
echo

echo "## stored bytes of sbf_agg(object) per user vs the Bloom optimum for the true distinct counts"
"${PSQL[@]}" <<'SQL'
CREATE UNLOGGED TABLE user_filters AS
SELECT user_id, sbf_agg(object) AS f, count(DISTINCT object) AS n
FROM interactions GROUP BY user_id;
CREATE UNLOGGED TABLE user_hll AS
SELECT user_id, hll_add_agg(hll_hash_text(object)) AS h FROM interactions GROUP BY user_id;
SQL
"${PSQL[@]}" -F ' ' <<'SQL'
WITH i AS (
	SELECT n, pg_column_size(f) AS stored, octet_length(f::bytea) AS payload,
		   sbf_info(f) AS info, sbf_cardinality(f) AS card
	FROM user_filters),
p AS (
	SELECT n, stored, payload, card,
		   (info->'hll'->>'bytes')::bigint AS hll,
		   (SELECT sum(ceil((s->>'bits')::numeric / 64) * 8) FROM jsonb_array_elements(info->'segments') s) AS bloom,
		   jsonb_array_length(info->'segments') AS segs,
		   (info->>'error_rate')::float8 AS e, (info->>'tightening')::float8 AS r
	FROM i),
o AS (
	SELECT *, (ceil(-n * ln(e ^ 1.04) / ln(2) ^ 2) / 8)::numeric AS opt_p0,
		   (ceil(-n * ln(e) / ln(2) ^ 2) / 8)::numeric AS opt_e
	FROM p)
SELECT format(E'users %s, distinct elements %s, filters with more than one segment: %s\n'
			  'stored (pg_column_size)         %s bytes (%s bytes per distinct element)\n'
			  '  Bloom bit arrays              %s bytes\n'
			  '  HyperLogLog                   %s bytes (%s%% of stored)\n'
			  '  header + directory + varlena  %s bytes\n'
			  'optimal Bloom bytes at P0 = e^1.04 = %s:  %s -> bit arrays / optimal = %s\n'
			  'optimal Bloom bytes at e = %s:           %s -> bit arrays / optimal = %s\n'
			  'stored / (optimal at P0 + HLL + fixed)  = %s\n'
			  'stored / optimal at P0 = %s, stored / optimal at e = %s\n'
			  'HyperLogLog: mean |error| %s%%; users with n >= 1000: mean %s%%, max %s%% (1.04/sqrt(512) = 4.6%%)\n'
			  'postgresql-hll (log2m 11) for comparison: %s bytes stored',
			  count(*), sum(n), count(*) FILTER (WHERE segs > 1),
			  sum(stored), round(sum(stored)::numeric / sum(n), 3),
			  sum(bloom), sum(hll), round(100.0 * sum(hll) / sum(stored), 1),
			  sum(stored) - sum(bloom) - sum(hll),
			  round(min(e ^ 1.04)::numeric, 6), round(sum(opt_p0)), round(sum(bloom) / sum(opt_p0), 4),
			  min(e), round(sum(opt_e)), round(sum(bloom) / sum(opt_e), 4),
			  round(sum(stored) / (sum(opt_p0) + sum(stored) - sum(bloom)), 4),
			  round(sum(stored) / sum(opt_p0), 4), round(sum(stored) / sum(opt_e), 4),
			  round(avg(abs(card - n) / n::numeric) * 100, 2),
			  round(avg(abs(card - n) / n::numeric) FILTER (WHERE n >= 1000) * 100, 2),
			  round(max(abs(card - n) / n::numeric) FILTER (WHERE n >= 1000) * 100, 2),
			  (SELECT sum(pg_column_size(h)) FROM user_hll))
FROM o;
SQL
echo "by size class:"
"${PSQL[@]}" -F ' | ' <<'SQL'
SELECT '  n in [' || lo || ', ' || lo * 10 || ')', count(*) || ' users',
	   round(avg(pg_column_size(f))) || ' bytes avg',
	   round(sum(pg_column_size(f))::numeric / sum(n), 2) || ' B/elem',
	   round(sum(pg_column_size(f))::numeric /
			 sum(ceil(-n * ln(0.01) / ln(2) ^ 2) / 8)::numeric, 3) || ' x opt(e)'
FROM (SELECT f, n, 10 ^ floor(log(n)) AS lo FROM user_filters) s
GROUP BY lo ORDER BY lo;
SQL
echo

echo "## right-sizing from n = 1 to 10M (sbf_agg over generate_series, bigint)"
printf '| %9s | %5s | %10s | %10s | %8s | %8s | %10s | %8s | %8s |\n' n segs bits "opt(P0)" "x opt" "x opt(e)" bytes "B/elem" "ms"
printf '|%s|\n' "-----------|-------|------------|------------|----------|----------|------------|----------|----------"
for n in 1 10 100 1000 10000 100000 1000000 10000000; do
	t0=$(date +%s%N)
	row=$("${PSQL[@]}" -F ' ' -c "SET work_mem = '4MB'" -c "
		SELECT jsonb_array_length(i->'segments'), i->'segments'->0->>'bits',
			   ceil(-$n * ln((i->>'error_rate')::float8 ^ 1.04) / ln(2) ^ 2),
			   ceil(-$n * ln((i->>'error_rate')::float8) / ln(2) ^ 2), i->>'bytes'
		FROM (SELECT sbf_info(sbf_agg(x)) AS i FROM generate_series(1, $n::bigint) x) s")
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	read -r segs bits opt opte bytes <<<"$row"
	printf '| %9s | %5s | %10s | %10s | %8.4f | %8.4f | %10s | %8.2f | %8s |\n' "$n" "$segs" "$bits" "$opt" \
		"$(echo "$bits / $opt" | bc -l)" "$(echo "$bits / $opte" | bc -l)" "$bytes" "$(echo "$bytes / $n" | bc -l)" "$ms"
done
echo "(x opt = segment bits / ceil(-n ln P0 / ln^2 2), P0 = e^1.04 the right-sized segment's design error;"
echo " x opt(e) = the same against the requested e;"
echo " bytes = whole value incl. 36-byte header, 40-byte directory entry, 64-bit word rounding and HLL)"
echo

if [ "${SKIP_MEMORY:-0}" != 1 ]; then
	echo "## memory: peak private memory (RssAnon) of the backend above its idle level"
	bash ./agg_bench_memory.sh
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
