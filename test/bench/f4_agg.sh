#!/usr/bin/env bash
# Issue 27, item 4: sbf_agg against count(*) and hll_add_agg, release 1.3
# against release 1.2, in one invocation (never a pass/fail test).
#
#  1. On two private copies of PostgreSQL 18 (f4_pair.sh: 1.2 = commit
#     232b1eb in one, this tree in the other), the same queries alternate
#     between the builds: one group of N distinct bigints (generate_series in
#     the target list, nothing materialised, as agg_scale.sh), count(*) and
#     sbf_agg(x); then the feed workload (f4_feed.sql: heavy-tailed users with
#     1-20,000 interactions plus one of 1M), count(*) and sbf_agg(object) per
#     user (GROUP BY).  Each repetition runs every query on both builds, and
#     each ratio is the median of the repetitions' own ratios.
#  2. hll_add_agg exists for Debian's PostgreSQL 15 only (postgresql-15-hll,
#     installed here with apt-get when missing), so under the PostgreSQL 15
#     lock this tree is installed there and one throwaway cluster measures
#     count(*), sbf_agg (1.3) and hll_add_agg on the same data, same plan.
#
#   bash test/bench/f4_agg.sh          (as root; about 10 minutes)
#   SIZES     one-group sizes (default "1000000 10000000 40000000")
#   BIG=1     also 200,000,000 (one run of each query: about 5 minutes more)
#   REPS      repetitions (default 3; 1 for sizes >= 100M)
#   WORK_MEM  work_mem of the runs (default 4MB, PostgreSQL's default)
#   USERS     ordinary users of the feed (default 20000); ZIPF (1.0)
#   NO15=1    skip the PostgreSQL 15 part (hll_add_agg)
#   FEED=0    skip the feed workload (e.g. SIZES=" " BIG=1 FEED=0: 200M only)
#   OUT       file name under results/ (default f4_agg.txt)
#   BASE      the commit in the first cluster (default 232b1eb, 1.2; f4_pair.sh)
#   LB, LN    labels of the first cluster and this tree (default 1.2 and 1.3;
#             e.g. BASE=0d9b718 LB=1.3 LN=1.4 against release 1.3's code)
#   PAR=N     also one group of N distinct rows in a table, serial against 2
#             parallel workers (Partial Aggregate under Gather), both builds
#   The one-group table also gives each build's peak resident memory of the
#   backend (VmHWM) for count(*) and sbf_agg, from one more run each.
# Writes test/bench/results/$OUT (and the single runs to a .log beside it).
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=f4_lib.sh
. ./f4_lib.sh
export SIZES=${SIZES:-"1000000 10000000 40000000"}
# (once: the bodies below run this script again with SIZES exported)
if [ "${BIG:-0}" = 1 ]; then SIZES="$SIZES 200000000"; export BIG=0; fi
export LB=${LB:-1.2} LN=${LN:-1.3} PAR=${PAR:-0}
export FEED=${FEED:-1} REPS=${REPS:-3} WORK_MEM=${WORK_MEM:-4MB} USERS=${USERS:-20000} ZIPF=${ZIPF:-1.0}
SET="SET work_mem = '$WORK_MEM'"

# one group of n: the queries, by aggregate name
group_query() {
	local src="(SELECT generate_series(1, $2::bigint) AS x) s"
	case $1 in
		count) echo "SELECT count(*) FROM $src" ;;
		sbf_agg) echo "SELECT octet_length(sbf_agg(x)::bytea) FROM $src" ;;
		hll_add_agg) echo "SELECT hll_cardinality(hll_add_agg(hll_hash_bigint(x))) FROM $src" ;;
	esac
}
feed_query() {
	case $1 in
		count) echo "SELECT sum(c) FROM (SELECT user_id, count(*) AS c FROM feed GROUP BY user_id) s" ;;
		sbf_agg) echo "SELECT sum(octet_length(f::bytea)) FROM (SELECT user_id, sbf_agg(object) AS f FROM feed GROUP BY user_id) s" ;;
		hll_add_agg) echo "SELECT sum(hll_cardinality(h)) FROM (SELECT user_id, hll_add_agg(hll_hash_text(object)) AS h FROM feed GROUP BY user_id) s" ;;
	esac
}
# the backend's peak resident memory in MB after query $2 on build $1 (new session)
PEAK_SQL="SELECT ((regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\\s+(\\d+)'))[1]::bigint + 512) / 1024"
peak() { q "$1" -c "$SET" -c "$2" -c "$PEAK_SQL" | tail -1; }

# the plan's aggregate node of query $2 on build $1
plan_of() { q "$1" -c "$SET" -c "EXPLAIN (COSTS OFF) $2" | grep -o -E '(Hash|Group|Mixed)Aggregate|Sort' | head -2 | paste -sd' ' -; }

# runs the cases "build:aggregate" of $2.. for workload $1 (a size or feed),
# REPS times in turn.  Sets T[w,case] (median ms), R[w,case] (median of the
# repetitions' ratios to the same build's count), C and RC (the same of the
# backend's CPU time) and V[w,case] (the query's result).
declare -A T R V C RC
measure() {
	local w=$1 reps=$REPS i c b a qry out
	shift
	[ "$w" != feed ] && [ "$w" -ge 100000000 ] && reps=1
	local ms val cpu
	declare -A runs=() rr=() cpus=() cr=()
	for ((i = 0; i < reps; i++)); do
		declare -A cnt=() cntc=()
		for c in "$@"; do
			b=${c%%:*} a=${c#*:}
			if [ "$w" = feed ]; then qry=$(feed_query "$a"); else qry=$(group_query "$a" "$w"); fi
			read -r ms val cpu < <(timed "$b" "$qry" "$SET")
			runs[$c]+="$ms " cpus[$c]+="$cpu " V[$w,$c]=$val
			[ "$a" = count ] && cnt[$b]=$ms cntc[$b]=$cpu
			rr[$c]+="$(ratio "$ms" "${cnt[$b]}" 3) " cr[$c]+="$(ratio "$cpu" "${cntc[$b]}" 3) "
		done
	done
	for c in "$@"; do
		# shellcheck disable=SC2086
		T[$w,$c]=$(median ${runs[$c]}) R[$w,$c]=$(median ${rr[$c]}) C[$w,$c]=$(median ${cpus[$c]}) RC[$w,$c]=$(median ${cr[$c]})
		echo "  $w $c ms: ${runs[$c]}; / count: ${rr[$c]}; CPU ms: ${cpus[$c]}; / count: ${cr[$c]}" >&2
	done
}

# PAR: one group of $PAR distinct bigints in a table, serial and with two
# parallel workers, on both builds; the bytes of both plans compared
par_section() {
	local b m ser="SET max_parallel_workers_per_gather = 0"
	local par="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0"
	local sq="SELECT octet_length(sbf_agg(x)::bytea) FROM par" cq="SELECT count(*) FROM par"
	local md="SELECT md5(sbf_agg(x)::bytea) FROM par"
	echo
	echo "## one group of $PAR distinct bigints in a table: serial against 2 parallel workers"
	f4_stamp
	for b in 12 13; do
		q $b -c "DROP TABLE IF EXISTS par" -c "CREATE TABLE par AS SELECT generate_series(1, $PAR::bigint) AS x" \
			-c "ALTER TABLE par SET (parallel_workers = 2)" -c "VACUUM ANALYZE par" >/dev/null
		echo "plan $b, parallel: $(q $b -c "$SET" -c "$par" -c "EXPLAIN (COSTS OFF) $sq" | grep -o -E 'Partial Aggregate|Gather|Finalize Aggregate' | paste -sd' ' -)"
		echo "same bytes serial and parallel on $b: $([ "$(q $b -c "$SET" -c "$ser" -c "$md" | tail -1)" = "$(q $b -c "$SET" -c "$par" -c "$md" | tail -1)" ] && echo yes || echo NO)"
	done
	printf '| %-5s | %10s | %10s | %10s | %10s | %10s | %10s |\n' build "count ser" "count par" "sbf ser" "sbf par" "sbf par/ser" "sbf ser/cnt"
	printf '|%s|\n' "-------|------------|------------|------------|------------|------------|------------"
	for b in 12 13; do
		declare -a cs=() cp=() ss=() sp=()
		for ((m = 0; m < REPS; m++)); do
			cs+=("$(timed $b "$cq" "$SET; $ser" | cut -d' ' -f1)") ss+=("$(timed $b "$sq" "$SET; $ser" | cut -d' ' -f1)")
			cp+=("$(timed $b "$cq" "$SET; $par" | cut -d' ' -f1)") sp+=("$(timed $b "$sq" "$SET; $par" | cut -d' ' -f1)")
		done
		echo "  par $b count ser ${cs[*]}; count par ${cp[*]}; sbf ser ${ss[*]}; sbf par ${sp[*]}" >>"$F4_LOG"
		local mcs mcp mss msp
		mcs=$(median "${cs[@]}") mcp=$(median "${cp[@]}") mss=$(median "${ss[@]}") msp=$(median "${sp[@]}")
		printf '| %-5s | %10.0f | %10.0f | %10.0f | %10.0f | %10s | %10s |\n' "$([ $b = 12 ] && echo "$LB" || echo "$LN")" \
			"$mcs" "$mcp" "$mss" "$msp" "$(ratio "$msp" "$mss")" "$(ratio "$mss" "$mcs")"
	done
	for b in 12 13; do q $b -c "DROP TABLE par" >/dev/null; done
}

if [ "${1:-}" = --body18 ]; then	# in f4_pair.sh's two clusters
	for b in 12 13; do q $b -c "CREATE EXTENSION sbf"; done
	f4_header "sbf_agg against count(*): $LB and $LN on PostgreSQL 18, alternating"
	echo "server: $(q 12 -c 'SELECT version()' | cut -d, -f1); work_mem $WORK_MEM, jit off, no parallel workers; REPS=$REPS (200M and up: 1 run)"
	echo "extension versions: $LB cluster $(q 12 -c "SELECT extversion FROM pg_extension WHERE extname = 'sbf'"), $LN cluster $(q 13 -c "SELECT extversion FROM pg_extension WHERE extname = 'sbf'")"
	echo
	echo "## one group of N distinct bigints; ms are medians, ratios medians of each repetition's own"
	f4_stamp
	echo "(ms: wall time of the query; CPU: the backend's own CPU time, less disturbed by other load)"
	printf '| %11s | %9s | %9s | %9s | %9s | %10s | %10s | %10s | %10s | %10s | %10s | %9s | %9s |\n' distinct "count $LB" "count $LN" "sbf $LB" "sbf $LN" "$LB /count" "$LN /count" "$LN / $LB" "CPU: $LB/c" "CPU: $LN/c" "CPU: new/b" "bits $LB" "bits $LN"
	printf '|%s|\n' "-------------|-----------|-----------|-----------|-----------|------------|------------|------------|------------|------------|------------|-----------|-----------"
	for n in $SIZES; do
		measure "$n" 12:count 12:sbf_agg 13:count 13:sbf_agg 2>>"$F4_LOG"
		printf '| %11s | %9.0f | %9.0f | %9.0f | %9.0f | %10s | %10s | %10s | %10s | %10s | %10s | %9s | %9s |\n' "$n" \
			"${T[$n,12:count]}" "${T[$n,13:count]}" "${T[$n,12:sbf_agg]}" "${T[$n,13:sbf_agg]}" \
			"$(ratio "${R[$n,12:sbf_agg]}" 1)" "$(ratio "${R[$n,13:sbf_agg]}" 1)" \
			"$(ratio "${T[$n,13:sbf_agg]}" "${T[$n,12:sbf_agg]}")" \
			"$(ratio "${RC[$n,12:sbf_agg]}" 1)" "$(ratio "${RC[$n,13:sbf_agg]}" 1)" \
			"$(ratio "${C[$n,13:sbf_agg]}" "${C[$n,12:sbf_agg]}")" \
			"$(bits "${V[$n,12:sbf_agg]}" "$n")" "$(bits "${V[$n,13:sbf_agg]}" "$n")"
	done
	echo
	echo "peak resident memory of the backend (VmHWM, MB; one run each, after the timed ones)"
	printf '| %11s | %9s | %9s | %9s | %9s |\n' distinct "count $LB" "count $LN" "sbf $LB" "sbf $LN"
	printf '|%s|\n' "-------------|-----------|-----------|-----------|-----------"
	for n in $SIZES; do
		printf '| %11s | %9s | %9s | %9s | %9s |\n' "$n" "$(peak 12 "$(group_query count "$n")")" \
			"$(peak 13 "$(group_query count "$n")")" "$(peak 12 "$(group_query sbf_agg "$n")")" \
			"$(peak 13 "$(group_query sbf_agg "$n")")"
	done
	[ "$PAR" = 0 ] || par_section
	[ "$FEED" = 1 ] || exit 0
	echo
	echo "## the feed workload, GROUP BY user_id (f4_feed.sql, users=$USERS zipf=$ZIPF)"
	f4_stamp
	for b in 12 13; do q $b -v users="$USERS" -v zipf="$ZIPF" -f f4_feed.sql >/dev/null; done
	echo "rows: $(q 12 -c "SELECT format('%s rows, %s users; rows checksum %s', count(*), count(DISTINCT user_id), (SELECT sum(hashtext(user_id || object)::bigint) FROM feed)) FROM feed")"
	echo "      ($LN cluster: $(q 13 -c "SELECT format('%s rows, %s users; rows checksum %s', count(*), count(DISTINCT user_id), (SELECT sum(hashtext(user_id || object)::bigint) FROM feed)) FROM feed"))"
	for b in 12 13; do
		echo "plans $b: count $(plan_of $b "$(feed_query count)"), sbf_agg $(plan_of $b "$(feed_query sbf_agg)")"
	done
	measure feed 12:count 12:sbf_agg 13:count 13:sbf_agg 2>>"$F4_LOG"
	printf '| %-28s | %9s | %9s | %9s |\n' "" "$LB" "$LN" "$LN / $LB"
	printf '|%s|\n' "------------------------------|-----------|-----------|-----------"
	printf '| %-28s | %9.0f | %9.0f | %9s |\n' "count(*) ms" "${T[feed,12:count]}" "${T[feed,13:count]}" "$(ratio "${T[feed,13:count]}" "${T[feed,12:count]}")"
	printf '| %-28s | %9.0f | %9.0f | %9s |\n' "sbf_agg ms" "${T[feed,12:sbf_agg]}" "${T[feed,13:sbf_agg]}" "$(ratio "${T[feed,13:sbf_agg]}" "${T[feed,12:sbf_agg]}")"
	printf '| %-28s | %9s | %9s | %9s |\n' "sbf_agg / count(*)" "$(ratio "${R[feed,12:sbf_agg]}" 1)" "$(ratio "${R[feed,13:sbf_agg]}" 1)" ""
	printf '| %-28s | %9.0f | %9.0f | %9s |\n' "sbf_agg backend CPU ms" "${C[feed,12:sbf_agg]}" "${C[feed,13:sbf_agg]}" "$(ratio "${C[feed,13:sbf_agg]}" "${C[feed,12:sbf_agg]}")"
	printf '| %-28s | %9s | %9s | %9s |\n' "sbf_agg / count(*), CPU" "$(ratio "${RC[feed,12:sbf_agg]}" 1)" "$(ratio "${RC[feed,13:sbf_agg]}" 1)" ""
	printf '| %-28s | %9s | %9s | %9s |\n' "filters' bytes (sum)" "${V[feed,12:sbf_agg]}" "${V[feed,13:sbf_agg]}" "$(ratio "${V[feed,13:sbf_agg]}" "${V[feed,12:sbf_agg]}")"
	exit 0
fi

if [ "${1:-}" = --body15 ]; then	# in a throwaway cluster of Debian's 15 (pg_tmp.sh)
	export H15=$PGHOST P15=$PGPORT
	q 15 -c "CREATE EXTENSION sbf" -c "CREATE EXTENSION hll"
	f4_header "sbf_agg (this tree, $LN) against count(*) and hll_add_agg, one PostgreSQL 15 server"
	echo "server: $(q 15 -c 'SELECT version()' | cut -d, -f1); sbf $(q 15 -c "SELECT extversion FROM pg_extension WHERE extname = 'sbf'"), hll $(q 15 -c "SELECT extversion FROM pg_extension WHERE extname = 'hll'"); work_mem $WORK_MEM, jit off, no parallel workers; REPS=$REPS"
	echo
	echo "## one group of N distinct bigints (hll_add_agg(hll_hash_bigint(x)), postgresql-hll's defaults)"
	f4_stamp
	printf '| %11s | %9s | %9s | %9s | %10s | %10s | %10s | %10s |\n' distinct "count ms" "sbf ms" "hll ms" "sbf /count" "hll /count" "CPU: sbf/c" "CPU: hll/c"
	printf '|%s|\n' "-------------|-----------|-----------|-----------|------------|------------|------------|------------"
	for n in $SIZES; do
		measure "$n" 15:count 15:sbf_agg 15:hll_add_agg 2>>"$F4_LOG"
		printf '| %11s | %9.0f | %9.0f | %9.0f | %10s | %10s | %10s | %10s |\n' "$n" "${T[$n,15:count]}" "${T[$n,15:sbf_agg]}" \
			"${T[$n,15:hll_add_agg]}" "$(ratio "${R[$n,15:sbf_agg]}" 1)" "$(ratio "${R[$n,15:hll_add_agg]}" 1)" \
			"$(ratio "${RC[$n,15:sbf_agg]}" 1)" "$(ratio "${RC[$n,15:hll_add_agg]}" 1)"
	done
	[ "$FEED" = 1 ] || exit 0
	echo
	q 15 -v users="$USERS" -v zipf="$ZIPF" -f f4_feed.sql >/dev/null
	echo "## the feed workload, GROUP BY user_id: $(q 15 -c "SELECT format('%s rows, %s users; rows checksum %s', count(*), count(DISTINCT user_id), (SELECT sum(hashtext(user_id || object)::bigint) FROM feed)) FROM feed")"
	f4_stamp
	echo "plans: count $(plan_of 15 "$(feed_query count)"), sbf_agg $(plan_of 15 "$(feed_query sbf_agg)"), hll_add_agg $(plan_of 15 "$(feed_query hll_add_agg)")"
	measure feed 15:count 15:sbf_agg 15:hll_add_agg 2>>"$F4_LOG"
	printf '| %9s | %9s | %9s | %10s | %10s | %10s | %10s |\n' "count ms" "sbf ms" "hll ms" "sbf /count" "hll /count" "CPU: sbf/c" "CPU: hll/c"
	printf '|%s|\n' "-----------|-----------|-----------|------------|------------|------------|------------"
	printf '| %9.0f | %9.0f | %9.0f | %10s | %10s | %10s | %10s |\n' "${T[feed,15:count]}" "${T[feed,15:sbf_agg]}" \
		"${T[feed,15:hll_add_agg]}" "$(ratio "${R[feed,15:sbf_agg]}" 1)" "$(ratio "${R[feed,15:hll_add_agg]}" 1)" \
		"$(ratio "${RC[feed,15:sbf_agg]}" 1)" "$(ratio "${RC[feed,15:hll_add_agg]}" 1)"
	exit 0
fi

if [ "${1:-}" = --pg15 ]; then	# holding the PostgreSQL 15 lock: install this tree, measure
	dpkg -s postgresql-15-hll >/dev/null 2>&1 || apt-get install -y -q postgresql-15-hll >/dev/null
	src=$(mktemp -d /tmp/sbf15.XXXXXX)
	(cd ../.. && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -x -C "$src"
	(cd "$src" && make -s -j2 PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config install >build.log 2>&1) ||
		{ tail "$src/build.log" >&2; exit 1; }
	rm -rf "$src"
	PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config exec bash ./bench_cluster.sh \
		"shared_buffers=256MB jit=off max_parallel_workers_per_gather=0" bash ./f4_agg.sh --body15
fi

mkdir -p results
export F4_COMMAND="${F4_COMMAND:-${OUT:+OUT=$OUT }${BASE:+BASE=$BASE LB=$LB LN=$LN }$([ "$PAR" = 0 ] || echo "PAR=$PAR ")SIZES=\"$SIZES\" FEED=$FEED REPS=$REPS WORK_MEM=$WORK_MEM USERS=$USERS ZIPF=$ZIPF bash test/bench/f4_agg.sh}"
out=results/${OUT:-f4_agg.txt}
export F4_LOG=${out%.txt}.log
: >"$F4_LOG"
bash ./f4_pair.sh "shared_buffers=256MB jit=off max_parallel_workers_per_gather=0" bash ./f4_agg.sh --body18 | tee "$out"
if [ "${NO15:-0}" != 1 ]; then
	echo | tee -a "$out"
	flock /var/lock/sbf-pg15.lock bash ./f4_agg.sh --pg15 | tee -a "$out"
fi
echo "(per-run figures: test/bench/$F4_LOG)" | tee -a "$out"
