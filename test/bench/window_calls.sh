#!/usr/bin/env bash
# Issue 35's raw calls as a user makes them ("tried again as a user would"):
# 120 candidate arrays of 5 objects joined to one filter of 60,000 elements,
# sbf_matches per row, the join repeated 1,000 times in one query (120,000
# calls); the same elements as a plain filter (sbf_agg) and as a 30-bucket
# window (sbf_window_agg, 2,000 a bucket), and the same query without the
# filter check (the floor).  On release 1.2, release 1.3 and this tree, each
# on its private PostgreSQL 18 (f4_trio.sh), the queries alternating between
# the builds, REPS repetitions; per call (query - floor) / 120,000 from the
# medians of the backend's CPU time and of the wall time, and the ratio of
# speed windowed / plain.  Never a pass/fail test.  Run as root.
#   bash test/bench/window_calls.sh    -> test/bench/results/window_calls.txt
set -euo pipefail
cd "$(dirname "$0")"
export REPS=${REPS:-7}
if [ "${1:-}" = --body ]; then	# in f4_trio.sh's three clusters
	# shellcheck source=f4_lib.sh
	. ./f4_lib.sh
	for b in 12 13 14; do
		q "$b" >/dev/null <<-'SQL'
			CREATE EXTENSION IF NOT EXISTS sbf;
			CREATE TABLE wc_plain AS SELECT sbf_agg('o:' || i) AS f FROM generate_series(1, 60000) i;
			CREATE TABLE wc_window AS
				SELECT sbf_window_agg('o:' || i, timestamptz '2026-01-01 00:00+00' + (i % 30) * interval '1 day') AS f
				FROM generate_series(1, 60000) i;
			CREATE TABLE wc_cand AS
				SELECT c, ARRAY(SELECT 'o:' || ((c * 7919 + g * 104729) % 120000) FROM generate_series(1, 5) g) AS objs
				FROM generate_series(1, 120) c;
			VACUUM ANALYZE wc_plain, wc_window, wc_cand;
		SQL
	done
	declare -A sql=(
		[plain]="SELECT sum(sbf_matches(t.f, c.objs)) FROM wc_plain t, wc_cand c, generate_series(1, 1000) r"
		[window]="SELECT sum(sbf_matches(t.f, c.objs)) FROM wc_window t, wc_cand c, generate_series(1, 1000) r"
		[floor]="SELECT sum(cardinality(c.objs)) FROM wc_plain t, wc_cand c, generate_series(1, 1000) r")
	declare -A T C
	for ((i = 0; i < REPS; i++)); do
		for b in 12 13 14; do
			for k in floor plain window; do
				read -r ms _ cpu < <(timed "$b" "${sql[$k]}")
				T[$b,$k]+=" $ms"
				C[$b,$k]+=" $cpu"
			done
		done
	done
	f4_header "sbf_matches of 5 objects, 120 candidates joined to one 60,000-element filter, 1,000 times a query: 1.2, 1.3, this tree on PostgreSQL 18"
	echo "forms (bytes): $(for b in 12 13 14; do printf '%s plain %s window %s; ' "$b" "$(q $b -c 'SELECT pg_column_size(f) FROM wc_plain')" "$(q $b -c 'SELECT pg_column_size(f) FROM wc_window')"; done)"
	f4_stamp
	echo "(per call: (median of the query - median of the floor) / 120,000, in microseconds; CPU from the backend's clock ticks)"
	echo "| build | plain µs (CPU) | window µs (CPU) | plain µs (wall) | window µs (wall) | window / plain speed, CPU | wall |"
	echo "|---|--:|--:|--:|--:|--:|--:|"
	for b in 12 13 14; do
		# shellcheck disable=SC2086
		{
			cf=$(median ${C[$b,floor]}) cp=$(median ${C[$b,plain]}) cw=$(median ${C[$b,window]})
			tf=$(median ${T[$b,floor]}) tp=$(median ${T[$b,plain]}) tw=$(median ${T[$b,window]})
		}
		awk -v b="$b" -v cf="$cf" -v cp="$cp" -v cw="$cw" -v tf="$tf" -v tp="$tp" -v tw="$tw" 'BEGIN {
			pc = (cp - cf) / 120000 * 1000; wc = (cw - cf) / 120000 * 1000
			pt = (tp - tf) / 120000 * 1000; wt = (tw - tf) / 120000 * 1000
			name = b == 12 ? "1.2" : b == 13 ? "1.3" : "this tree"
			printf "| %s | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f |\n", name, pc, wc, pt, wt, (wc > 0) ? pc / wc : 0, (wt > 0) ? pt / wt : 0 }'
	done
	for b in 12 13 14; do
		echo "  $b raw ms (wall): floor${T[$b,floor]}; plain${T[$b,plain]}; window${T[$b,window]}"
		echo "  $b raw ms (CPU): floor${C[$b,floor]}; plain${C[$b,plain]}; window${C[$b,window]}"
	done
	exit 0
fi
mkdir -p results
export F4_COMMAND="REPS=$REPS bash test/bench/window_calls.sh"
bash ./f4_trio.sh "" bash ./window_calls.sh --body > results/window_calls.txt
sed -n '1,/^  12 raw/p' results/window_calls.txt
