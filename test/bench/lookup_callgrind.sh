#!/usr/bin/env bash
# Instructions a lookup call costs (valgrind --tool=callgrind, deterministic),
# per form, for each installation given: a single-user backend (postgres
# --single) runs one query of N calls and one of 2N; the difference over N is
# the cost of a call (fmgr, hashing, opening the filter and probing), and
# callgrind_annotate of the 2N run gives the profile.  Never a pass/fail test.
#   bash test/bench/lookup_callgrind.sh /var/tmp/pg18-i35-b13 /var/tmp/pg18-i35-b14
#   N (default 20000); FORMS (default: every form of lookup_floor.sh); OUT
#   directory for the annotated profiles (default a temporary one, printed)
# Run as root (the backends run as postgres).
set -euo pipefail
N=${N:-20000}
out=${OUT:-$(mktemp -d /tmp/lookup_cg.XXXXXX)}
mkdir -p "$out"
chmod 777 "$out"
setup="SET TimeZone = 'UTC'; CREATE EXTENSION sbf; CREATE TABLE raw_f (form text PRIMARY KEY, f scalablebloom); ALTER TABLE raw_f ALTER f SET STORAGE external; INSERT INTO raw_f SELECT 'inline-30', sbf_agg('o:' || i) FROM generate_series(1, 30) i UNION ALL SELECT 'inline-1000', sbf_agg('o:' || i) FROM generate_series(1, 1000) i UNION ALL SELECT 'toast-100k', sbf_agg('o:' || i) FROM generate_series(1, 100000) i UNION ALL SELECT 'inline-window30', sbf_window_agg('o:' || i, timestamptz '2026-01-01' + (i % 30) * interval '1 day') FROM generate_series(1, 150) i UNION ALL SELECT 'inline-plain-of-window30', sbf_agg('o:' || i) FROM generate_series(1, 150) i UNION ALL SELECT 'toast-window30', sbf_window_agg('o:' || i, timestamptz '2026-01-01' + (i % 30) * interval '1 day') FROM generate_series(1, 60000) i UNION ALL SELECT 'toast-plain-of-window30', sbf_agg('o:' || i) FROM generate_series(1, 60000) i;"
FORMS=${FORMS:-inline-30 inline-1000 inline-plain-of-window30 inline-window30 toast-100k toast-plain-of-window30 toast-window30}
printf '%-26s' form
for inst in "$@"; do printf ' %14s' "$(basename "$inst")"; done
echo "   (instructions a call)"
declare -A ir
for inst in "$@"; do
	d=$(mktemp -d /tmp/lookup_cg_db.XXXXXX)
	chown postgres "$d"
	runuser -u postgres -- "$inst/bin/initdb" -D "$d/data" -A trust >/dev/null
	echo "$setup" | runuser -u postgres -- "$inst/bin/postgres" --single -D "$d/data" postgres >/dev/null
	for form in $FORMS; do
		for n in "$N" $((2 * N)); do
			f="$out/$(basename "$inst").$form.$n"
			echo "SELECT count(*) FROM raw_f f, generate_series(1, $n) g WHERE f.form = '$form' AND f.f @> ('o:' || g);" |
				runuser -u postgres -- valgrind --tool=callgrind --callgrind-out-file="$f.cg" \
				"$inst/bin/postgres" --single -D "$d/data" postgres >/dev/null 2>&1
			ir[$inst,$form,$n]=$(callgrind_annotate "$f.cg" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
		done
		callgrind_annotate "$f.cg" >"$f.txt" 2>/dev/null || true
	done
	rm -rf "$d"
done
for form in $FORMS; do
	printf '%-26s' "$form"
	for inst in "$@"; do
		printf ' %14s' "$(awk -v a="${ir[$inst,$form,$((2 * N))]}" -v b="${ir[$inst,$form,$N]}" -v n="$N" 'BEGIN {printf "%.0f", (a - b) / n}')"
	done
	echo
done
echo "profiles (callgrind_annotate of the ${N}x2 runs): $out"
