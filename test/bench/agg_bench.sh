#!/usr/bin/env bash
# Benchmark of the sbf aggregates (never a pass/fail test).
#
# In a throwaway cluster (bench_cluster.sh) it generates a synthetic interaction
# log, then times GROUP BY user_id with count(*), hll_add_agg(hll_hash_text()),
# array_agg(DISTINCT) and sbf_agg, serial and parallel; measures the stored
# bytes of the filters against the optimal Bloom size for their true distinct
# counts; checks right-sizing from n = 1 to 10M; and samples the backend's
# peak private memory for single huge groups and for 100,000 small groups.
#
# Run as root from a machine where sbf is built and installed (make install);
# installs postgresql-15-hll if it is missing.  With PG_CONFIG set it runs in
# a throwaway cluster of that installation instead, which must have sbf and
# postgresql-hll installed (Debian packages hll for its own majors only).  Output goes to stdout and to
# test/bench/results/agg_bench.txt.
#   REPS        timed repetitions per query and mode (default 3; plus a warm-up)
#   SCALE       multiplies the row counts (default 1: 5.35M rows, 2,003 users)
#   SKIP_MEMORY set to 1 to skip the memory section
set -euo pipefail
cd "$(dirname "$0")"

if [ -n "${PG_CONFIG:-}" ]; then
	[ -f "$("$PG_CONFIG" --sharedir)/extension/hll.control" ] || {
		echo "agg_bench: postgresql-hll is not installed in $("$PG_CONFIG" --bindir)/.." >&2
		exit 1
	}
elif ! dpkg-query -W -f='${Status}' postgresql-15-hll 2>/dev/null | grep -q 'install ok installed'; then
	echo "installing postgresql-15-hll"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends postgresql-15-hll >/dev/null
fi

mkdir -p results
export REPS=${REPS:-3} SCALE=${SCALE:-1} SKIP_MEMORY=${SKIP_MEMORY:-0}
bash ./bench_cluster.sh "shared_buffers=1GB work_mem=256MB max_parallel_workers=4 jit=off" \
	bash ./agg_bench_run.sh 2>&1 | tee results/agg_bench.txt
