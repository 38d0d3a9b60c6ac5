#!/usr/bin/env bash
# Issue 27, item 4: the 120-candidate ranking request, release 1.3 against
# release 1.2 in one invocation (never a pass/fail test).
#
# Each build (f4_pair.sh: 1.2 = commit 232b1eb and this tree, on two private
# copies of PostgreSQL 18) generates the windowed request's data
# (window_speed_data.sql: the same rows, fixed seed) and builds its own
# filters: a 30-bucket window (sbf_window_agg) and a plain filter of the same
# 30 days (sbf_agg) per user.  The request scores 120 candidate posts with
# sbf_matches for a typical user (0-50 interactions a day, gaps of weeks) and
# a heavy one (days of 20,000).  In every repetition each (user, build,
# filter) runs one pgbench -M prepared run, so load drift hits all alike; the
# ratios 1.3 / 1.2 and window / plain are medians of each repetition's own.
# Targets of issue 27: 1.3 no slower than 1.2, window >= 0.8x plain.
#
#   bash test/bench/f4_lookup.sh       (as root; about 6 minutes)
#   REPS      repetitions (default 5); DURATION seconds a run (default 4);
#   CLIENTS   pgbench clients (default 2)
# Writes test/bench/results/f4_lookup.txt.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=f4_lib.sh
. ./f4_lib.sh
export REPS=${REPS:-5} DURATION=${DURATION:-4} CLIENTS=${CLIENTS:-2}

if [ "${1:-}" = --body ]; then	# in f4_pair.sh's two clusters
	work=$(mktemp -d)
	chmod 755 "$work"
	trap 'rm -rf "$work"' EXIT
	for b in 12 13; do
		q $b -c "CREATE EXTENSION sbf"
		q $b -f window_speed_data.sql >/dev/null
	done
	f4_header "ranking request, 120 candidates: 1.2 and 1.3 on PostgreSQL 18, alternating"
	echo "server: $(q 12 -c 'SELECT version()' | cut -d, -f1); pgbench -M prepared -c $CLIENTS -j $CLIENTS -T $DURATION; REPS=$REPS"
	for b in 12 13; do
		echo "$b: $(q $b -c "SELECT format('sbf %s; rows md5 %s; typical users: window %s bytes (median), plain %s; heavy: window %s, plain %s; window versions %s, plain %s',
			(SELECT extversion FROM pg_extension WHERE extname = 'sbf'),
			(SELECT md5(string_agg(user_id || object || at, ',' ORDER BY user_id, at, object)) FROM wb_rows WHERE user_id % 50 = 1),
			percentile_disc(0.5) WITHIN GROUP (ORDER BY pg_column_size(w)) FILTER (WHERE user_id <= 200),
			percentile_disc(0.5) WITHIN GROUP (ORDER BY pg_column_size(plain)) FILTER (WHERE user_id <= 200),
			percentile_disc(0.5) WITHIN GROUP (ORDER BY pg_column_size(w)) FILTER (WHERE user_id > 200),
			percentile_disc(0.5) WITHIN GROUP (ORDER BY pg_column_size(plain)) FILTER (WHERE user_id > 200),
			(SELECT string_agg(DISTINCT sbf_info(w)->>'version', ',') FROM wb_filters),
			(SELECT string_agg(DISTINCT sbf_info(plain)->>'version', ',') FROM wb_filters))
			FROM wb_filters")"
	done
	for v in plain window; do
		cat >"$work/$v.sql" <<-SQL
			\\set r random(:lo, :hi)
			SELECT p.post_id, sbf_matches(f.$( [ $v = plain ] && echo plain || echo w ), p.objects) AS hits
			FROM wb_requests r JOIN wb_filters f ON f.user_id = r.user_id
			     JOIN wb_posts p ON p.post_id = ANY (r.post_ids)
			WHERE r.req_id = :r;
		SQL
	done
	# Server CPU (ms) used so far by a cluster's exited backends: the
	# postmaster's cutime + cstime, as lookup_compare.sh measures it (pgbench
	# opens new connections for each run, so a run's backends are all counted
	# once it ends); less disturbed than tps by other load on the machine.
	declare -A PM
	for b in 12 13; do PM[$b]=$(head -1 "$(q $b -c 'SHOW data_directory')/postmaster.pid"); done
	reaped_ms() { awk -v t="$(getconf CLK_TCK)" '{print ($16 + $17) * 1000 / t}' "/proc/${PM[$1]}/stat"; }
	# one run: build $1, request $2, requests $3..$4, $5 seconds; prints
	# "tps server-CPU-microseconds-per-request"
	run() {
		local h p c0 out
		eval "h=\$H$1 p=\$P$1"
		c0=$(reaped_ms "$1")
		out=$(pgbench -h "$h" -p "$p" -U postgres -n -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$5" \
			-D lo="$3" -D hi="$4" -f "$work/$2.sql" postgres 2>&1)
		sleep 0.2	# let the postmaster reap the run's backends
		awk -v c0="$c0" -v c1="$(reaped_ms "$1")" '
			/^tps = / {tps = $3}
			/^number of transactions actually processed: / {split($6, a, "/"); n = a[1]}
			END {printf "%s %.1f\n", tps, (n > 0) ? (c1 - c0) * 1000 / n : 0}' <<<"$out"
	}
	declare -A lo=([typical]=1 [heavy]=501) hi=([typical]=500 [heavy]=1000)
	declare -A runs=() cpus=() vs12=() wp=() cvs12=() cwp=() last=() lastc=()
	for class in typical heavy; do	# warm-up
		for b in 12 13; do for v in plain window; do run $b $v "${lo[$class]}" "${hi[$class]}" 1 >/dev/null; done; done
	done
	for ((i = 0; i < REPS; i++)); do
		for class in typical heavy; do
			for b in 12 13; do
				for v in plain window; do
					read -r t c < <(run $b $v "${lo[$class]}" "${hi[$class]}" "$DURATION")
					runs[$class,$b,$v]+="$t " cpus[$class,$b,$v]+="$c " last[$b,$v]=$t lastc[$b,$v]=$c
				done
				wp[$class,$b]+="$(ratio "${last[$b,window]}" "${last[$b,plain]}" 3) "
				cwp[$class,$b]+="$(ratio "${lastc[$b,plain]}" "${lastc[$b,window]}" 3) "
			done
			for v in plain window; do
				vs12[$class,$v]+="$(ratio "${last[13,$v]}" "${last[12,$v]}" 3) "
				cvs12[$class,$v]+="$(ratio "${lastc[12,$v]}" "${lastc[13,$v]}" 3) "
			done
		done
	done
	# shellcheck disable=SC2086
	table() {	# $1: tps or cpu
		local class
		for class in typical heavy; do
			if [ "$1" = tps ]; then
				printf '| %-8s | %10.0f | %10.0f | %10.0f | %10.0f | %13s | %14s | %9s | %9s |\n' $class \
					"$(median ${runs[$class,12,plain]})" "$(median ${runs[$class,13,plain]})" \
					"$(median ${runs[$class,12,window]})" "$(median ${runs[$class,13,window]})" \
					"$(ratio "$(median ${vs12[$class,plain]})" 1)" "$(ratio "$(median ${vs12[$class,window]})" 1)" \
					"$(ratio "$(median ${wp[$class,12]})" 1)" "$(ratio "$(median ${wp[$class,13]})" 1)"
			else
				printf '| %-8s | %10.0f | %10.0f | %10.0f | %10.0f | %13s | %14s | %9s | %9s |\n' $class \
					"$(median ${cpus[$class,12,plain]})" "$(median ${cpus[$class,13,plain]})" \
					"$(median ${cpus[$class,12,window]})" "$(median ${cpus[$class,13,window]})" \
					"$(ratio "$(median ${cvs12[$class,plain]})" 1)" "$(ratio "$(median ${cvs12[$class,window]})" 1)" \
					"$(ratio "$(median ${cwp[$class,12]})" 1)" "$(ratio "$(median ${cwp[$class,13]})" 1)"
			fi
		done
	}
	echo
	f4_stamp
	echo "tps: medians; ratios (of speed: above 1 is faster) are medians of each repetition's own ratios"
	printf '| %-8s | %10s | %10s | %10s | %10s | %9s | %9s | %9s | %9s |\n' user "plain 1.2" "plain 1.3" "window 1.2" "window 1.3" \
		"plain 1.3/1.2" "window 1.3/1.2" "w/p 1.2" "w/p 1.3"
	printf '|%s|\n' "----------|------------|------------|------------|------------|---------------|----------------|-----------|-----------"
	table tps
	echo
	f4_stamp
	echo "server CPU per request (microseconds, all backends, medians); the same ratios of speed, from CPU"
	printf '| %-8s | %10s | %10s | %10s | %10s | %9s | %9s | %9s | %9s |\n' user "plain 1.2" "plain 1.3" "window 1.2" "window 1.3" \
		"plain 1.3/1.2" "window 1.3/1.2" "w/p 1.2" "w/p 1.3"
	printf '|%s|\n' "----------|------------|------------|------------|------------|---------------|----------------|-----------|-----------"
	table cpu
	echo
	for class in typical heavy; do
		for b in 12 13; do for v in plain window; do
			echo "  $class $b $v tps: ${runs[$class,$b,$v]}; CPU us: ${cpus[$class,$b,$v]}"
		done; done
		echo "  $class 1.3/1.2 plain: ${vs12[$class,plain]}(CPU ${cvs12[$class,plain]}); window: ${vs12[$class,window]}(CPU ${cvs12[$class,window]})"
		echo "  $class window/plain 1.2: ${wp[$class,12]}(CPU ${cwp[$class,12]}); 1.3: ${wp[$class,13]}(CPU ${cwp[$class,13]})"
	done
	echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi

mkdir -p results
export F4_COMMAND="${F4_COMMAND:-REPS=$REPS DURATION=$DURATION CLIENTS=$CLIENTS bash test/bench/f4_lookup.sh}"
bash ./f4_pair.sh "shared_buffers=256MB jit=off max_connections=30" \
	bash ./f4_lookup.sh --body | tee results/f4_lookup.txt
