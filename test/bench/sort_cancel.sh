#!/usr/bin/env bash
# The baseline of agg_cancel.sh with BIG=1: how late PostgreSQL's own sort
# answers a statement_timeout when it has spilled gigabytes (never a
# pass/fail test).  In a throwaway cluster of the installation PG_CONFIG names
# (default the system's PostgreSQL 15; work_mem 4MB), it sorts 200,000,000
# bigints and cancels the sort at each TIMEOUTS ms (default 20000 30000),
# printing when psql had its answer and the temporary bytes written so far.
# The abort deletes the sort's temporary files before the answer, as it does
# for sbf_agg's runs.
#   PG_CONFIG=/path/to/pg_config bash test/bench/sort_cancel.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
export TIMEOUTS=${TIMEOUTS:-"20000 30000"}
exec bash test/pg_tmp.sh bash -c '
for t in $TIMEOUTS; do
	before=$(psql -X -At -c "SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()")
	s=$(date +%s%N)
	psql -X -q -c "SET statement_timeout = $t" -c "SET work_mem = '\''4MB'\''" \
		-c "SELECT count(*) FROM (SELECT x FROM generate_series(1, 200000000::bigint) x ORDER BY x DESC OFFSET 0) s" 2>&1 | head -1
	e=$(date +%s%N)
	psql -X -q -c "SELECT pg_sleep(1.5)" >/dev/null	# the statistics are flushed when idle
	after=$(psql -X -At -c "SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()")
	echo "sort cancelled at $t ms: answer after $(( (e - s) / 1000000 )) ms (late by $(( (e - s) / 1000000 - t )) ms), $(( (after - before) / 1048576 )) MB of temporary files"
done'
