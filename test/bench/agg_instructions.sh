#!/usr/bin/env bash
# Instructions (valgrind callgrind, deterministic, unlike timings on a shared
# machine) that one backend executes for sbf_agg GROUP BY over 400,000 rows
# in 2,000 groups of 100 distinct elements, run twice: 1.0's internal-state
# aggregate loaded from BASE_SO, this build's 1.0 entry points (v10api), and
# this build's sbf_agg with its sbf_hashset state (new).  Never a pass/fail
# test.  Run as root
# with sbf installed in the PostgreSQL installation whose bin directory is
# BIN (or whose pg_config is PG_CONFIG), e.g. a private copy of the built
# PostgreSQL 18 (cp -a the install directory; make PG_CONFIG=COPY/bin/pg_config
# install):
#   BIN=/var/cache/sbf/pg18-bench/bin BASE_SO=/path/to/1.0/sbf.so \
#       bash test/bench/agg_instructions.sh
# (BASE_SO must be a 1.0 build for the same PostgreSQL major as BIN.)
set -euo pipefail
BIN=${BIN:-$("${PG_CONFIG:?set BIN or PG_CONFIG}" --bindir)}
: "${BASE_SO:?set BASE_SO}"
D=$(mktemp -d /tmp/agginstr.XXXXXX); chown postgres: "$D"
trap 'runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$D"' EXIT
PORT=$(( 20000 + RANDOM % 20000 ))
runuser -u postgres -- "$BIN/initdb" -D "$D/data" -A trust -U postgres >/dev/null
runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -l "$D/log" -w start -o "-p $PORT -k $D -c listen_addresses=''" >/dev/null
"$BIN/psql" -X -q -h "$D" -p "$PORT" -U postgres postgres >/dev/null <<SQL
CREATE EXTENSION sbf;
CREATE SCHEMA base;
CREATE FUNCTION base.trans(internal, text) RETURNS internal AS '$BASE_SO', 'sbf_agg_trans_text' LANGUAGE C CALLED ON NULL INPUT;
CREATE FUNCTION base.final(internal) RETURNS bytea AS '$BASE_SO', 'sbf_agg_final' LANGUAGE C CALLED ON NULL INPUT;
CREATE AGGREGATE base.agg(text) (SFUNC = base.trans, STYPE = internal, SSPACE = 144, FINALFUNC = base.final, FINALFUNC_MODIFY = READ_ONLY);
CREATE AGGREGATE v10api(text) (SFUNC = sbf_agg_trans, STYPE = internal, SSPACE = 144, FINALFUNC = sbf_agg_final, FINALFUNC_MODIFY = READ_ONLY);
CREATE TABLE t AS SELECT (i % 2000) AS g, 'sku:' || (i % 200000) AS x FROM generate_series(1, 400000) i;
VACUUM ANALYZE t;
SQL
runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -m fast stop >/dev/null
for l in base v10api new; do
	case $l in
	base) agg="base.agg(x)" ;;
	v10api) agg="v10api(x)" ;;
	new) agg="sbf_agg(x)" ;;
	esac
	q="SELECT count(a) FROM (SELECT g, $agg a FROM t GROUP BY g) s;"
	echo "SET jit = off; SET max_parallel_workers_per_gather = 0; SET work_mem = '256MB'; $q $q" > "$D/q.sql"
	chown postgres "$D/q.sql"
	runuser -u postgres -- valgrind --tool=callgrind --callgrind-out-file="$D/cg.$l" \
		"$BIN/postgres" --single -D "$D/data" postgres < "$D/q.sql" > /dev/null 2> "$D/err.$l" || true
	echo "$l: $(sed -n 's/.*Collected : //p' "$D/err.$l") instructions"
done
