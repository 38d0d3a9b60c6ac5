#!/usr/bin/env bash
# The body of agg_scale.sh, run inside pg_virtualenv.
set -euo pipefail
psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS sbf' >/dev/null
HLL=0
if psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS hll' >/dev/null 2>&1; then HLL=1; fi

# runs query $1 once in a new session; prints "seconds temp_bytes peak_kB"
run_one() {
	local q=$1 pidfile errfile
	pidfile=$(mktemp) errfile=$(mktemp)
	psql -X -q -At -v ON_ERROR_STOP=1 >"$pidfile.out" 2>"$errfile" <<-SQL &
		SET work_mem = '$WORK_MEM';
		SET client_min_messages = log;
		\\o $pidfile
		SELECT pg_backend_pid();
		\\o
		SELECT pg_sleep(0.3);
		SELECT pg_stat_force_next_flush();
		SELECT temp_bytes AS tb0 FROM pg_stat_database WHERE datname = current_database() \\gset
		SELECT clock_timestamp() AS t0 \\gset
		$q;
		SELECT extract(epoch FROM clock_timestamp() - :'t0') AS secs \\gset
		SELECT pg_stat_force_next_flush();
		\\o $pidfile.tmp
		SELECT temp_bytes - :tb0 FROM pg_stat_database WHERE datname = current_database();
		\\o
		SELECT :'secs';
	SQL
	local client=$! pid base peak cur
	while [ ! -s "$pidfile" ]; do sleep 0.01; done
	pid=$(cat "$pidfile")
	sleep 0.15
	base=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status")
	peak=$base
	while kill -0 "$client" 2>/dev/null; do
		cur=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
		[ -n "$cur" ] && [ "$cur" -gt "$peak" ] && peak=$cur
		sleep 0.01
	done
	wait "$client"
	local secs temp
	secs=$(tail -1 "$pidfile.out")
	# the bytes of the temporary files the query wrote, from the statistics
	# (pg_stat_database.temp_bytes, flushed before and after)
	temp=$(cat "$pidfile.tmp")
	grep -v '^$' "$pidfile.out" | tail -2 | head -1 >"$pidfile.val"
	echo "$secs $temp $((peak - base)) $(cat "$pidfile.val")"
	rm -f "$pidfile" "$pidfile.out" "$pidfile.val" "$pidfile.tmp" "$errfile"
}

# median of the first field over REPS runs; prints "median temp peak value"
measure() {
	local q=$1 reps=$2 i lines
	lines=$(for ((i = 0; i < reps; i++)); do run_one "$q"; done)
	echo "$lines" | sort -n -k1,1 | awk -v m=$(((reps + 1) / 2)) 'NR == m'
}

printf '%s\n' "sbf_agg over one group of N distinct bigints; work_mem = $WORK_MEM; medians of $REPS runs"
printf '%s\n' "(200M: one run).  Spill threshold at this work_mem: $(psql -X -At -c "SELECT greatest(1024, least(4194304, pg_size_bytes('$WORK_MEM') / 24))") hashes."
printf '\n| %-12s | %-16s | %8s | %8s | %10s | %8s | %12s | %10s |\n' \
	"distinct" "aggregate" "seconds" "× count" "per row ×1M" "bits/elem" "temp MB" "peak MB"
printf '|%s|\n' "--------------|------------------|---------:|---------:|-----------:|---------:|-------------:|-----------:"
declare -A per1m
for n in $SIZES; do
	reps=$REPS
	[ "$n" -ge 100000000 ] && reps=1
	src="(SELECT generate_series(1, $n::bigint) AS x) s"
	c=$(measure "SELECT count(x) FROM $src" $reps)
	ct=$(echo "$c" | cut -d' ' -f1)
	aggs=("count|SELECT count(x) FROM $src"
		"sbf_agg|SELECT octet_length(sbf_agg(x)::bytea) FROM $src"
	)
	# an sbf_hashset value holds at most 134,217,726 hashes (54000 past it)
	[ "$n" -le 134217726 ] && aggs+=("sbf_hashset_agg|SELECT octet_length(sbf_hashset_agg(x)::bytea) FROM $src")
	[ $HLL = 1 ] && aggs+=("hll_add_agg|SELECT hll_cardinality(hll_add_agg(hll_hash_bigint(x))) FROM $src")
	for a in "${aggs[@]}"; do
		name=${a%%|*} q=${a#*|}
		if [ "$name" = count ]; then r=$c; else r=$(measure "$q" $reps); fi
		read -r t temp peak val <<<"$r"
		per=$(echo "$t / $n" | bc -l)
		[ -z "${per1m[$name]:-}" ] && per1m[$name]=$per
		bits=-
		[ "$name" = sbf_agg ] && bits=$(printf '%.2f' "$(echo "$val * 8 / $n" | bc -l)")
		printf '| %12s | %-16s | %8.2f | %8.2f | %10.2f | %8s | %12.1f | %10.1f |\n' \
			"$n" "$name" "$t" "$(echo "$t / $ct" | bc -l)" "$(echo "$per / ${per1m[$name]}" | bc -l)" \
			"$bits" "$(echo "$temp / 1048576" | bc -l)" "$(echo "$peak / 1024" | bc -l)"
	done
done
echo
echo "(per row ×1M: seconds per row against the same aggregate's at the first size.  temp MB: bytes"
echo " of the temporary files the query wrote (pg_stat_database.temp_bytes).  peak MB: the backend's RssAnon above"
echo " idle; for sbf_agg and sbf_hashset_agg it includes the result value itself, which must be in"
echo " memory: about 1.25 bytes a distinct element for a filter, 5-6 for an sbf_hashset.)"
