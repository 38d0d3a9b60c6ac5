#!/usr/bin/env bash
# Deterministic cost of sbf_agg against its floor, for a machine whose timings
# are too noisy to resolve a few percent: valgrind's cachegrind counts the
# instructions one backend executes and simulates its cache misses (D1 and a
# 8 MB last level), for SELECT count(a) FROM (SELECT user_id, AGG(object) a
# FROM interactions GROUP BY user_id) s over agg_data.sql at SCALE (default
# 0.1: 564k rows, 2,003 users), serial, in single-user mode.  Never a
# pass/fail test.  Arguments name what to run:
#   none          SELECT 1 (start-up and shutdown: subtracted from the rest)
#   count         count(object), the floor
#   LABEL=PATH    1.1's sbf_agg (sbf_hashset state) loaded from PATH
# and it prints, for each, instructions (Ir), D1 and LL misses, and an
# estimate of cycles: Ir + 10 per D1 miss + 100 per LL miss (a crude model:
# it ignores how many instructions retire per cycle and what a division
# costs), then each estimate minus none's, as a ratio to count's.  Run as
# root with sbf installed in the PostgreSQL installation whose bin directory is
# BIN (or whose pg_config is PG_CONFIG), e.g. a private copy of the built
# PostgreSQL 18 (cp -a the install directory; make PG_CONFIG=COPY/bin/pg_config
# install):
#   BIN=/var/cache/sbf/pg18-bench/bin bash test/bench/agg_cachegrind.sh none count \
#       before=/tmp/a/sbf.so after=/var/cache/sbf/pg18-bench/lib/postgresql/sbf.so
set -euo pipefail
BIN=${BIN:-$("${PG_CONFIG:?set BIN or PG_CONFIG}" --bindir)}
SCALE=${SCALE:-0.1}
cd "$(dirname "$0")"
D=$(mktemp -d /tmp/aggcg.XXXXXX); chown postgres: "$D"
trap 'runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$D"' EXIT
PORT=$(( 20000 + RANDOM % 20000 ))
runuser -u postgres -- "$BIN/initdb" -D "$D/data" -A trust -U postgres >/dev/null
runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -l "$D/log" -w start -o "-p $PORT -k $D -c listen_addresses=''" >/dev/null
"$BIN/psql" -X -q -h "$D" -p "$PORT" -U postgres -c "CREATE EXTENSION sbf" -v scale="$SCALE" -f "$PWD/agg_data.sql" postgres >/dev/null
for b in "$@"; do
	case $b in
	none | count) ;;
	*) l=${b%%=*} so=${b#*=}
		"$BIN/psql" -X -q -h "$D" -p "$PORT" -U postgres postgres <<SQL
CREATE SCHEMA $l;
CREATE FUNCTION $l.trans(sbf_hashset, text) RETURNS sbf_hashset AS '$so', 'sbf_agg_hs_trans_text' LANGUAGE C CALLED ON NULL INPUT;
CREATE FUNCTION $l.final(sbf_hashset) RETURNS bytea AS '$so', 'sbf_agg_hs_final' LANGUAGE C CALLED ON NULL INPUT;
CREATE AGGREGATE $l.agg(text) (SFUNC = $l.trans, STYPE = sbf_hashset, FINALFUNC = $l.final, FINALFUNC_MODIFY = READ_ONLY);
SQL
		;;
	esac
done
runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -m fast stop >/dev/null
echo "# sbf_agg under cachegrind: SCALE=$SCALE, $(date -u '+%Y-%m-%d %H:%M UTC')"
for b in "$@"; do
	l=${b%%=*}
	case $b in
	none) q="SELECT 1;" ;;
	count) q="SELECT count(a) FROM (SELECT user_id, count(object) a FROM interactions GROUP BY user_id) s;" ;;
	*) q="SELECT count(a) FROM (SELECT user_id, $l.agg(object) a FROM interactions GROUP BY user_id) s;" ;;
	esac
	echo "SET jit = off; SET max_parallel_workers_per_gather = 0; SET work_mem = '256MB'; $q" > "$D/q.sql"
	chown postgres "$D/q.sql"
	runuser -u postgres -- valgrind --tool=cachegrind --cache-sim=yes --LL=8388608,16,64 \
		--cachegrind-out-file="$D/cg.$l" "$BIN/postgres" --single -D "$D/data" postgres \
		< "$D/q.sql" > /dev/null 2> "$D/err.$l" || true
done
PYTHONPATH="$PWD" python3 - "$D" "$@" <<'PY'
import sys
from cg_cost import cost
d, labels = sys.argv[1], [a.split('=')[0] for a in sys.argv[2:]]
est = {}
for l in labels:
    ir, d1, ll, est[l] = cost(f"{d}/cg.{l}")
    print(f"| {l:10s} | Ir {ir / 1e6:8.1f}M | D1 misses {d1 / 1e6:6.2f}M | LL misses {ll / 1e6:5.2f}M | est. cycles {est[l] / 1e6:8.1f}M |")
if 'none' in est and 'count' in est:
    floor = est['count'] - est['none']
    for l in labels:
        if l not in ('none', 'count'):
            print(f"{l}: {(est[l] - est['none']) / floor:.2f} x count(object) (estimated cycles, start-up subtracted)")
PY
