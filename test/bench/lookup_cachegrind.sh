#!/usr/bin/env bash
# Deterministic cost of the ranking request, for a machine whose timings are
# too noisy to resolve ten percent: valgrind's cachegrind counts the
# instructions one backend executes and simulates its cache misses, for N
# (default 200) prepared ranking requests (120 candidates, lookup_data.sql)
# in single-user mode, with the installed sbf.  Cases:
#   floor   the same join without a membership test (cardinality(objects))
#   typical sbf_matches(seen, objects) for typical users (10..1000)
#   heavy   sbf_matches for the same heavy user (1.1M interactions, a 535 kB
#           filter) again and again: the session cache holds it
#   random  sbf_matches for random users (2..2001)
# It prints each case's instructions, D1 and LL misses and estimated cycles
# (Ir + 10 per D1 miss + 100 per LL miss, last level modelled as LL_SIZE,
# default 1 MB: a crude model, it ignores how many instructions retire per
# cycle), start-up subtracted, and the issue's ratios in requests per cycle:
# typical / floor and heavy / typical.  Never a pass/fail test.  Run as root
# with sbf installed in the PostgreSQL installation whose bin directory is
# BIN (or whose pg_config is PG_CONFIG), e.g. a private copy of the built
# PostgreSQL 18 (cp -a the install directory; make PG_CONFIG=COPY/bin/pg_config
# install):
#   BIN=/var/cache/sbf/pg18-bench/bin bash test/bench/lookup_cachegrind.sh
# With KEEP=DIR the cachegrind output files (cg.CASE) are copied to DIR, for
# cg_annotate.
set -euo pipefail
BIN=${BIN:-$("${PG_CONFIG:?set BIN or PG_CONFIG}" --bindir)}
N=${N:-200} LL_SIZE=${LL_SIZE:-1048576}
cd "$(dirname "$0")"
D=$(mktemp -d /tmp/lookcg.XXXXXX); chown postgres: "$D"
trap 'runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$D"' EXIT
PORT=$(( 20000 + RANDOM % 20000 ))
runuser -u postgres -- "$BIN/initdb" -D "$D/data" -A trust -U postgres >/dev/null
runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -l "$D/log" -w start -o "-p $PORT -k $D -c listen_addresses=''" >/dev/null
"$BIN/psql" -X -q -h "$D" -p "$PORT" -U postgres -c "CREATE EXTENSION sbf" -v scale=1 -v nposts=50000 \
	-v nreq=1000 -v slim=1 -f "$PWD/lookup_data.sql" postgres >/dev/null
runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -m fast stop >/dev/null
echo "# ranking request under cachegrind: N=$N, LL=$LL_SIZE bytes, $(date -u '+%Y-%m-%d %H:%M UTC')"
prep() {
	echo "PREPARE q(int) AS SELECT p.post_id, $1 AS hits FROM requests r JOIN user_filters f ON f.user_id = r.user_id JOIN posts p ON p.post_id = ANY (r.post_ids) WHERE r.req_id = \$1;"
}
for c in none floor typical heavy random; do
	{
		echo "SET jit = off;"
		case $c in
		none) prep 'cardinality(p.objects)' ;;
		floor) prep 'cardinality(p.objects)'; for ((i = 1; i <= N; i++)); do echo "EXECUTE q($i);"; done ;;
		typical) prep 'sbf_matches(f.seen, p.objects)'; for ((i = 1; i <= N; i++)); do echo "EXECUTE q($i);"; done ;;
		heavy) prep 'sbf_matches(f.seen, p.objects)'; for ((i = 1; i <= N; i++)); do echo "EXECUTE q($((1000 + i)));"; done ;;
		random) prep 'sbf_matches(f.seen, p.objects)'; for ((i = 1; i <= N; i++)); do echo "EXECUTE q($((2000 + i)));"; done ;;
		esac
	} > "$D/q.sql"
	chown postgres "$D/q.sql"
	runuser -u postgres -- valgrind --tool=cachegrind --cache-sim=yes --LL="$LL_SIZE,16,64" \
		--cachegrind-out-file="$D/cg.$c" "$BIN/postgres" --single -D "$D/data" postgres \
		< "$D/q.sql" > /dev/null 2> "$D/err.$c" || true
done
[ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$D"/cg.* "$KEEP"/
PYTHONPATH="$PWD" python3 - "$D" "$N" <<'PY'
import sys
from cg_cost import cost
d, n = sys.argv[1], int(sys.argv[2])
est = {c: cost(f"{d}/cg.{c}") for c in ['none', 'floor', 'typical', 'heavy', 'random']}
base = est['none']
print("| case | Ir per request | D1 misses per request | LL misses per request | est. cycles per request |")
print("|---|---|---|---|---|")
per = {}
for c in ['floor', 'typical', 'heavy', 'random']:
    ir, d1, ll, cy = (est[c][i] - base[i] for i in range(4))
    per[c] = cy / n
    print(f"| {c} | {ir / n:,.0f} | {d1 / n:,.0f} | {ll / n:,.0f} | {cy / n:,.0f} |")
print(f"typical / floor = {per['floor'] / per['typical']:.2f}; heavy / typical = {per['typical'] / per['heavy']:.2f}; "
      f"random / floor = {per['floor'] / per['random']:.2f} (requests per estimated cycle)")
PY
