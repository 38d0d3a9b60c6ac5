#!/usr/bin/env bash
# Benchmark of live updates (never a pass/fail test): WAL bytes per update of
# a stored filter, the naive one-column UPDATE (seen = seen || x) against the
# two-column pattern (recent = recent || x, recent = sbf_delta(seen) at the
# start), for users whose big filter is about 10 kB, 1 MB and 10 MB; then
# the ranking query's tps over one column and over two (seen @> x OR
# recent @> x), with pgbench.
#
# WAL per update = pg_current_wal_insert_lsn() difference over N single-row
# UPDATE transactions (pgbench -t N, one client) after a CHECKPOINT, so it
# includes the first full-page images; N is 20 for the naive update and
# 200 for the pattern.  The merge seen || recent is measured once, as the
# WAL it costs (amortized over however many updates it folds in).
#
# Uses the cluster in the PG* environment variables when PGHOST is set, else a
# throwaway one (bench_cluster.sh): of the installation PG_CONFIG names, or
# Debian's PostgreSQL 15 (pg_virtualenv); sbf must be installed in it.
#   DURATION  seconds per pgbench tps run (default 5)
#   REPS      tps repetitions, medians reported (default 3)
# Output: stdout and test/bench/results/wal_bench.txt.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results
export REPS=${REPS:-3} DURATION=${DURATION:-5}
if [ -n "${PGHOST:-}" ]; then
	bash ./wal_bench_run.sh 2>&1 | tee results/wal_bench.txt
else
	bash ./bench_cluster.sh "shared_buffers=256MB jit=off" \
		bash ./wal_bench_run.sh 2>&1 | tee results/wal_bench.txt
fi
