#!/usr/bin/env bash
# Quick benchmark of serial sbf_agg(object) GROUP BY user_id against
# count(object), the same plan reading the same column (count(*) is shown too)
# (never a pass/fail test; a few minutes instead of agg_bench.sh's quarter
# hour).  Same generator as agg_bench_run.sh at a smaller scale: ~2.3M rows,
# 2,003 users, 3 heavy users with 440k-520k rows, shuffled.
#
# By default it times the installed extension's sbf_agg.  To compare builds
# of sbf.so side by side, pass them as LABEL=PATH arguments: each gets its own
# aggregate (final function returning the filter as bytea) in schema LABEL,
# loaded straight from PATH, and the timed runs interleave the counts and the
# builds, so that load drifts on a shared machine hit them alike.  It also
# checks that every build produces the same bytes for every user.
#   test/bench/agg_quick.sh                       # installed sbf
#   test/bench/agg_quick.sh base=/tmp/a/sbf.so new=/tmp/b/sbf.so
# A build given as LABEL=ext is the installed extension's own sbf_agg (since
# 1.1 its state type is sbf_hashset, which needs the extension's type), e.g.
#   test/bench/agg_quick.sh base=/tmp/main/sbf.so new=ext
# A build given as LABEL=hs:PATH gets 1.1's aggregate (sbf_hashset state)
# from that file, so that two 1.1 builds can be compared, e.g.
#   test/bench/agg_quick.sh before=hs:/tmp/main/sbf.so after=hs:/tmp/new/sbf.so
# The cluster is a throwaway one (bench_cluster.sh) of the installation that
# PG_CONFIG names, with sbf installed in it (make PG_CONFIG=... install), or
# of Debian's PostgreSQL 15 (pg_virtualenv) when PG_CONFIG is not set:
#   PG_CONFIG=/var/cache/sbf/pg18-bench/bin/pg_config bash test/bench/agg_quick.sh
# Environment: REPS (default 5), SCALE (default 0.4), WORKERS (default 0).
# Run as root; the .so files must be readable by the postgres user.
set -euo pipefail
cd "$(dirname "$0")"
export REPS=${REPS:-5} SCALE=${SCALE:-0.4} WORKERS=${WORKERS:-0}
export QUICK_BUILDS="$*"
bash ./bench_cluster.sh "shared_buffers=1GB work_mem=256MB jit=off max_parallel_workers=4" \
	bash ./agg_quick_run.sh
