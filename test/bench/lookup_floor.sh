#!/usr/bin/env bash
# Issue 35: lookups at the floor.  Releases 1.2, 1.3 and this tree side by
# side in one invocation (f4_trio.sh: three private PostgreSQL 18 clusters);
# never a pass/fail test.
#
# 1. The ranking request of f4_lookup.sh (120 candidate posts scored with
#    sbf_matches, window_speed_data.sql's users): typical and heavy users,
#    the plain filter, the 30-bucket window, and the floor (the same request
#    without the filter check: 0 instead of sbf_matches).  pgbench -M
#    prepared, one run per (class, build, request) in each repetition, so load
#    drift hits all alike; the server's CPU per request (less disturbed than
#    tps by other load), ratios the medians of each repetition's own.
# 2. Raw calls: one query of CALLS lookups (f @> text over generate_series,
#    one filter row joined to every call) on each form: in line (30 and 1,000
#    elements, a 30-bucket window of 150), out of line (100,000 elements, a
#    30-bucket window of 60,000) and the plain filter of each window's
#    elements; the backend's CPU microseconds a call (medians of REPS), the
#    loop without a lookup on its own, ratios 1.4 / 1.3,
#    1.4 / 1.2 (of speed) and window / plain per build.
#
#   bash test/bench/lookup_floor.sh       (as root; about 15 minutes)
#   REPS (default 5), DURATION seconds a pgbench run (default 4), CLIENTS
#   (default 2), CALLS lookups a raw query (default 500000)
# Writes test/bench/results/lookup_floor.txt.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=f4_lib.sh
. ./f4_lib.sh
export REPS=${REPS:-5} DURATION=${DURATION:-4} CLIENTS=${CLIENTS:-2} CALLS=${CALLS:-500000}
BUILDS="12 13 14"

if [ "${1:-}" = --body ]; then
	work=$(mktemp -d)
	chmod 755 "$work"
	trap 'rm -rf "$work"' EXIT
	for b in $BUILDS; do
		q $b -c "CREATE EXTENSION sbf"
		q $b -f window_speed_data.sql >/dev/null
		q $b <<-'SQL'
			SET TimeZone = 'UTC';
			CREATE TABLE raw_f (form text PRIMARY KEY, f scalablebloom);
			ALTER TABLE raw_f ALTER f SET STORAGE external;
			INSERT INTO raw_f
			SELECT 'inline-30', sbf_agg('o:' || i) FROM generate_series(1, 30) i
			UNION ALL SELECT 'inline-1000', sbf_agg('o:' || i) FROM generate_series(1, 1000) i
			UNION ALL SELECT 'toast-100k', sbf_agg('o:' || i) FROM generate_series(1, 100000) i
			UNION ALL SELECT 'inline-window30', sbf_window_agg('o:' || i, timestamptz '2026-01-01' + (i % 30) * interval '1 day')
				FROM generate_series(1, 150) i
			UNION ALL SELECT 'inline-plain-of-window30', sbf_agg('o:' || i) FROM generate_series(1, 150) i
			UNION ALL SELECT 'toast-window30', sbf_window_agg('o:' || i, timestamptz '2026-01-01' + (i % 30) * interval '1 day')
				FROM generate_series(1, 60000) i
			UNION ALL SELECT 'toast-plain-of-window30', sbf_agg('o:' || i) FROM generate_series(1, 60000) i;
		SQL
	done
	f4_header "lookups at the floor: 1.2, 1.3 and 1.4 on PostgreSQL 18, alternating"
	echo "server: $(q 12 -c 'SELECT version()' | cut -d, -f1); pgbench -M prepared -c $CLIENTS -j $CLIENTS -T $DURATION; REPS=$REPS; CALLS=$CALLS"
	for b in $BUILDS; do
		echo "$b: sbf $(q $b -c "SELECT extversion FROM pg_extension WHERE extname = 'sbf'"); raw forms (form: bytes, bytes in the row, version): $(q $b -c "SELECT string_agg(format('%s: %s, %s, v%s', form, octet_length(f::bytea), pg_column_size(f), sbf_info(f)->>'version'), '; ' ORDER BY form) FROM raw_f")"
	done
	declare -A expr=([plain]="sbf_matches(f.plain, p.objects)" [window]="sbf_matches(f.w, p.objects)" [floor]="0")
	for v in plain window floor; do
		cat >"$work/$v.sql" <<-SQL
			\\set r random(:lo, :hi)
			SELECT p.post_id, ${expr[$v]} AS hits
			FROM wb_requests r JOIN wb_filters f ON f.user_id = r.user_id
			     JOIN wb_posts p ON p.post_id = ANY (r.post_ids)
			WHERE r.req_id = :r;
		SQL
	done
	# Server CPU (ms) used so far by a cluster's exited backends: the
	# postmaster's cutime + cstime, as f4_lookup.sh measures it (pgbench opens
	# new connections for each run, so a run's backends are all counted once
	# it ends); much less disturbed than tps by other load on the machine.
	declare -A PM
	for b in $BUILDS; do PM[$b]=$(head -1 "$(q $b -c 'SHOW data_directory')/postmaster.pid"); done
	reaped_ms() { awk -v t="$(getconf CLK_TCK)" '{print ($16 + $17) * 1000 / t}' "/proc/${PM[$1]}/stat"; }
	run() {	# build $1, request $2, requests $3..$4: "tps server-CPU-us-per-request"
		local h p c0 out
		eval "h=\$H$1 p=\$P$1"
		c0=$(reaped_ms "$1")
		out=$(pgbench -h "$h" -p "$p" -U postgres -n -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$DURATION" \
			-D lo="$3" -D hi="$4" -f "$work/$2.sql" postgres 2>&1)
		sleep 0.2
		awk -v c0="$c0" -v c1="$(reaped_ms "$1")" '
			/^tps = / {tps = $3}
			/^number of transactions actually processed: / {split($6, a, "/"); n = a[1]}
			END {printf "%s %.1f\n", tps, (n > 0) ? (c1 - c0) * 1000 / n : 0}' <<<"$out"
	}
	declare -A lo=([typical]=1 [heavy]=501) hi=([typical]=500 [heavy]=1000)
	declare -A tps=() cpu=() rr=() last=()
	for class in typical heavy; do
		for b in $BUILDS; do for v in plain window floor; do run $b $v "${lo[$class]}" "${hi[$class]}" >/dev/null; done; done
	done
	for ((i = 0; i < REPS; i++)); do
		for class in typical heavy; do
			for b in $BUILDS; do
				for v in plain window floor; do
					read -r t c < <(run $b $v "${lo[$class]}" "${hi[$class]}")
					tps[$class,$b,$v]+="$t " cpu[$class,$b,$v]+="$c " last[$b,$v]=$c
				done
				# ratios of speed from CPU per request: a / b = b's CPU / a's
				rr[$class,$b,wp]+="$(ratio "${last[$b,plain]}" "${last[$b,window]}" 3) "
				rr[$class,$b,pf]+="$(ratio "${last[$b,floor]}" "${last[$b,plain]}" 3) "
				rr[$class,$b,wf]+="$(ratio "${last[$b,floor]}" "${last[$b,window]}" 3) "
			done
			for v in plain window; do
				rr[$class,$v,14/13]+="$(ratio "${last[13,$v]}" "${last[14,$v]}" 3) "
				rr[$class,$v,14/12]+="$(ratio "${last[12,$v]}" "${last[14,$v]}" 3) "
			done
		done
	done
	# shellcheck disable=SC2086
	{
	echo
	f4_stamp
	echo "1. the 120-candidate request: server CPU microseconds per request (medians; tps in the raw lines);"
	echo "   ratios of speed from CPU (above 1 is faster), medians of each repetition's own"
	echo "| user | build | plain | window | floor | plain / floor | window / floor | window / plain |"
	echo "|---|---|--:|--:|--:|--:|--:|--:|"
	for class in typical heavy; do for b in $BUILDS; do
		echo "| $class | $b | $(median ${cpu[$class,$b,plain]}) | $(median ${cpu[$class,$b,window]}) | $(median ${cpu[$class,$b,floor]}) | $(median ${rr[$class,$b,pf]}) | $(median ${rr[$class,$b,wf]}) | $(median ${rr[$class,$b,wp]}) |"
	done; done
	echo
	echo "heavy user / typical user (CPU per request, plain), per build: $(for b in $BUILDS; do printf '%s %s ' $b "$(ratio "$(median ${cpu[typical,$b,plain]})" "$(median ${cpu[heavy,$b,plain]})")"; done)"
	echo
	echo "| user | plain 1.4/1.3 | plain 1.4/1.2 | window 1.4/1.3 | window 1.4/1.2 |"
	echo "|---|--:|--:|--:|--:|"
	for class in typical heavy; do
		echo "| $class | $(median ${rr[$class,plain,14/13]}) | $(median ${rr[$class,plain,14/12]}) | $(median ${rr[$class,window,14/13]}) | $(median ${rr[$class,window,14/12]}) |"
	done
	for class in typical heavy; do for b in $BUILDS; do for v in plain window floor; do
		echo "  $class $b $v tps: ${tps[$class,$b,$v]}; CPU us: ${cpu[$class,$b,$v]}"
	done; done; done
	}
	# 2. raw calls: the backend's CPU time for the query (the third field of
	# timed), per call; the loop without a lookup on each build
	forms=$(q 12 -c "SELECT string_agg(form, ' ' ORDER BY form) FROM raw_f")
	declare -A us=() rs=() lastc=()
	percall() { awk -v ms="$1" -v n="$CALLS" 'BEGIN {printf "%.4f", ms * 1000 / n}'; }
	for ((i = 0; i < REPS; i++)); do
		for form in $forms; do
			for b in $BUILDS; do
				read -r _ _ cms < <(timed $b "SELECT count(*) FROM raw_f f, generate_series(1, $CALLS) g WHERE f.form = '$form' AND f.f @> ('o:' || g)")
				us[$form,$b]+="$(percall "$cms") " lastc[$b]=$cms
			done
			rs[$form,14/13]+="$(ratio "${lastc[13]}" "${lastc[14]}" 3) "
			rs[$form,14/12]+="$(ratio "${lastc[12]}" "${lastc[14]}" 3) "
		done
		for b in $BUILDS; do
			read -r _ _ cms < <(timed $b "SELECT count(*) FROM raw_f f, generate_series(1, $CALLS) g WHERE f.form = 'inline-30' AND length('o:' || g) > 0")
			us[floor,$b]+="$(percall "$cms") "
		done
	done
	# shellcheck disable=SC2086
	{
	echo
	f4_stamp
	echo "2. raw calls: backend CPU microseconds a call (f @> text, $CALLS calls a query, medians of $REPS;"
	echo "   the loop itself included, shown alone in the last row); ratios of speed"
	echo "| form | 1.2 | 1.3 | 1.4 | 1.4/1.3 | 1.4/1.2 |"
	echo "|---|--:|--:|--:|--:|--:|"
	for form in $forms; do
		echo "| $form | $(median ${us[$form,12]}) | $(median ${us[$form,13]}) | $(median ${us[$form,14]}) | $(median ${rs[$form,14/13]}) | $(median ${rs[$form,14/12]}) |"
	done
	echo "| (the loop without a lookup) | $(median ${us[floor,12]}) | $(median ${us[floor,13]}) | $(median ${us[floor,14]}) | | |"
	echo
	echo "windowed calls / plain calls of the same elements (30 buckets), ratio of speed per build:"
	echo "whole calls, and (in brackets) the lookup alone, the loop's CPU subtracted from both"
	for pair in "inline-window30 inline-plain-of-window30" "toast-window30 toast-plain-of-window30"; do
		read -r w p <<<"$pair"
		line="  $w / $p:"
		for b in $BUILDS; do
			fl=$(median ${us[floor,$b]}) mw=$(median ${us[$w,$b]}) mp=$(median ${us[$p,$b]})
			line+=" $b $(ratio "$mp" "$mw") ($(awk -v w="$mw" -v p="$mp" -v f="$fl" 'BEGIN {printf "%.2f", (w - f > 0) ? (p - f) / (w - f) : 0}'))"
		done
		echo "$line"
	done
	for form in $forms; do for b in $BUILDS; do echo "  $form $b us: ${us[$form,$b]}"; done; done
	echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	}
	exit 0
fi

mkdir -p results
export F4_COMMAND="${F4_COMMAND:-REPS=$REPS DURATION=$DURATION CLIENTS=$CLIENTS CALLS=$CALLS bash test/bench/lookup_floor.sh}"
nice -n 5 bash ./f4_trio.sh "shared_buffers=256MB jit=off max_connections=30" \
	bash ./lookup_floor.sh --body | tee results/lookup_floor.txt
