#!/usr/bin/env bash
# The body of agg_quick.sh, run in bench_cluster.sh's throwaway cluster (PG* variables set).
set -euo pipefail

PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
sql() { "${PSQL[@]}" -c "$1"; }

# Prints "wall_ms cpu_ms" for one run of query $1 in a fresh session; cpu_ms
# is the backend's user + system time from /proc (10 ms ticks), which a busy
# shared machine disturbs much less than the wall clock.
time_query() {
	local pid t0 t1 c0 c1 line fd
	coproc CP { "${PSQL[@]}" -c "SET max_parallel_workers_per_gather = $WORKERS" \
		-c "SET parallel_setup_cost = 0" -c "SET parallel_tuple_cost = 0" -f - 2>&1; }
	echo 'SELECT pg_backend_pid();' >&"${CP[1]}"
	read -r pid <&"${CP[0]}"
	c0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	t0=$(date +%s%N)
	echo "$1;" >&"${CP[1]}"
	read -r line <&"${CP[0]}"
	t1=$(date +%s%N)
	c1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	fd=${CP[1]}
	exec {fd}>&-
	wait "$CP_PID" || true
	echo "$(( (t1 - t0) / 1000000 )) $(( (c1 - c0) * 1000 / $(getconf CLK_TCK) ))"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "# sbf_agg quick benchmark"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; $(sql 'SELECT version()' | cut -d, -f1)"
echo "sbf commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- ../../src ../../sql 2>/dev/null || echo ' with local changes'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "REPS=$REPS SCALE=$SCALE WORKERS=$WORKERS"

declare -A Q AGG
# the floor: count(object) reads the same column through the same plan
# (issue 14's baseline); count(*) is shown too, as the cost of the plan alone
names=(count star)
Q[count]="SELECT count(a) FROM (SELECT user_id, count(object) AS a FROM interactions GROUP BY user_id) s"
Q[star]="SELECT count(a) FROM (SELECT user_id, count(*) AS a FROM interactions GROUP BY user_id) s"
# Adds a build to time: its label and the aggregate call that builds a filter.
add_build() {
	names+=("$1")
	AGG[$1]=$2
	Q[$1]="SELECT count(a) FROM (SELECT user_id, $2 AS a FROM interactions GROUP BY user_id) s"
}
if [ -z "$QUICK_BUILDS" ]; then
	sql "CREATE EXTENSION sbf"
	add_build sbf_agg "sbf_agg(object)"
else
	for b in $QUICK_BUILDS; do
		label=${b%%=*} so=${b#*=}
		case $so in
		ext)
			# the installed extension's own sbf_agg (its 1.1 sbf_hashset state)
			sql "CREATE EXTENSION IF NOT EXISTS sbf"
			add_build "$label" "sbf_agg(object)::bytea" ;;
		hs:*)
			# 1.1's entry points (sbf_hashset state) from another build
			so=${so#hs:}
			sql "CREATE EXTENSION IF NOT EXISTS sbf"
			"${PSQL[@]}" <<SQL
CREATE SCHEMA $label;
CREATE FUNCTION $label.trans(sbf_hashset, text) RETURNS sbf_hashset
	AS '$so', 'sbf_agg_hs_trans_text' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION $label.final(sbf_hashset) RETURNS bytea
	AS '$so', 'sbf_agg_hs_final' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION $label.combine(sbf_hashset, sbf_hashset) RETURNS sbf_hashset
	AS '$so', 'sbf_agg_hs_combine' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE $label.agg(text) (SFUNC = $label.trans, STYPE = sbf_hashset,
	FINALFUNC = $label.final, FINALFUNC_MODIFY = READ_ONLY, COMBINEFUNC = $label.combine,
	PARALLEL = SAFE);
SQL
			add_build "$label" "$label.agg(object)" ;;
		*)
			# 1.0's entry points (internal state)
			"${PSQL[@]}" <<SQL
CREATE SCHEMA $label;
CREATE FUNCTION $label.trans(internal, text) RETURNS internal
	AS '$so', 'sbf_agg_trans_text' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION $label.final(internal) RETURNS bytea
	AS '$so', 'sbf_agg_final' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION $label.combine(internal, internal) RETURNS internal
	AS '$so', 'sbf_agg_combine' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION $label.ser(internal) RETURNS bytea
	AS '$so', 'sbf_agg_serialize' LANGUAGE C STRICT PARALLEL SAFE;
CREATE FUNCTION $label.deser(bytea, internal) RETURNS internal
	AS '$so', 'sbf_agg_deserialize' LANGUAGE C STRICT PARALLEL SAFE;
CREATE AGGREGATE $label.agg(text) (SFUNC = $label.trans, STYPE = internal, SSPACE = 144,
	FINALFUNC = $label.final, FINALFUNC_MODIFY = READ_ONLY, COMBINEFUNC = $label.combine,
	SERIALFUNC = $label.ser, DESERIALFUNC = $label.deser, PARALLEL = SAFE);
SQL
			add_build "$label" "$label.agg(object)" ;;
		esac
	done
fi

t0=$(date +%s)
"${PSQL[@]}" -v scale="$SCALE" -f agg_data.sql
sql "SELECT format('%s rows, %s users; rows per user: max %s, median %s; table %s',
	sum(n), count(*), max(n), percentile_disc(0.5) WITHIN GROUP (ORDER BY n),
	pg_size_pretty(pg_table_size('interactions')))
	FROM (SELECT user_id, count(*) AS n FROM interactions GROUP BY user_id) s"
echo "generated in $(( $(date +%s) - t0 )) s"

if [ -n "$QUICK_BUILDS" ]; then
	for n in "${names[@]:2}"; do
		sum=$(sql "SET max_parallel_workers_per_gather = 0;
			SELECT md5(string_agg(md5(a), ',' ORDER BY user_id))
			FROM (SELECT user_id, ${AGG[$n]} AS a FROM interactions GROUP BY user_id) s")
		echo "bytes of $n: md5 $sum"
	done
fi

declare -A RUNS CPU
for n in "${names[@]}"; do time_query "${Q[$n]}" >/dev/null; done	# warm-up
for ((i = 0; i < REPS; i++)); do
	for n in "${names[@]}"; do
		read -r w c <<<"$(time_query "${Q[$n]}")"
		RUNS[$n]+=" $w" CPU[$n]+=" $c"
	done
done
# Prints the median over the repetitions of run i of $1 divided by run i of $2.
per_rep() {
	local -a a b
	read -ra a <<<"$1"
	read -ra b <<<"$2"
	for i in "${!a[@]}"; do echo "${a[$i]} ${b[$i]}"; done |
		awk '$2 > 0 {print $1 / $2}' | sort -g |
		awk '{v[NR]=$1} END {printf "%.2f", (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}
printf '| %-12s | %10s | %7s | %10s | %7s | %9s | %9s | %s\n' query "wall ms" ratio "cpu ms" ratio "rep wall" "rep cpu" "runs (wall/cpu ms)"
for n in "${names[@]}"; do
	# shellcheck disable=SC2086
	m=$(median ${RUNS[$n]}) mc=$(median ${CPU[$n]})
	[ "$n" = count ] && c=$m cc=$mc
	runs=$(paste -d/ <(tr ' ' '\n' <<<"${RUNS[$n]# }") <(tr ' ' '\n' <<<"${CPU[$n]# }") | paste -sd' ')
	printf '| %-12s | %10.0f | %7.2f | %10.0f | %7.2f | %9s | %9s | %s\n' "$n" "$m" "$(echo "$m / $c" | bc -l)" \
		"$mc" "$(echo "$mc / $cc" | bc -l)" "$(per_rep "${RUNS[$n]}" "${RUNS[count]}")" \
		"$(per_rep "${CPU[$n]}" "${CPU[count]}")" "$runs"
done
echo "(medians of REPS; ratios to count = count(object), as ratio of the medians and as the median of"
echo " each repetition's own ratio (rep); star = count(*); wall = client-side clock, cpu = backend"
echo " user+system time, which leaves out parallel workers)"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
