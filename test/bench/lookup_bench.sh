#!/usr/bin/env bash
# Benchmark of sbf lookups (never a pass/fail test).
#
# In a throwaway cluster (bench_cluster.sh) it builds users, an interaction log
# and candidate posts (lookup_data.sql), then runs the ranking request "score
# 120 candidate posts for one user" with pgbench, 4 clients, for a typical
# user, for the user with 1.1M interactions asking again and again, and for
# random users (rarely the same filter twice in a row), five ways: the floor (no
# membership test), exact EXISTS over a btree, exact text[] overlap, and sbf
# (sbf_matches and @> ANY).  Then a single-lookup micro benchmark on a 10 kB
# and a 10 MB filter.  Prints tps medians and ratios, writes a plot with
# gnuplot.  To compare two builds of sbf (before/after) in one run, see
# lookup_compare.sh.
#
# Run as root where sbf is built and installed: into Debian's PostgreSQL 15
# (make install), or into any installation named by PG_CONFIG
# (make PG_CONFIG=... install; then PG_CONFIG=... bash test/bench/lookup_bench.sh).
# Output goes to stdout and to test/bench/results/lookup_bench.txt; the plot to
# test/bench/plots/lookup_tps.png (when gnuplot is installed).
#   REPS      repetitions per request kind (default 7; medians are reported)
#   DURATION  seconds per pgbench run (default 4)
#   CLIENTS   pgbench clients (default 4, with 2 threads)
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results plots
export REPS=${REPS:-7} DURATION=${DURATION:-4} CLIENTS=${CLIENTS:-4}
bash ./bench_cluster.sh "shared_buffers=1GB jit=off max_connections=50" \
	bash ./lookup_bench_run.sh 2>&1 | tee results/lookup_bench.txt
