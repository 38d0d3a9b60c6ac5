#!/usr/bin/env bash
# Compiles test/bench/kinds_bench.c with -O2 against the core and runs it:
# the standard, blocked and fused segment kinds side by side (10k, 1M and
# 10M elements at 1% and 0.1%; SBF_BENCH_100M=1 adds 100M, which needs about
# 6 GB of memory).  SBF_BENCH_REPS: repetitions a figure is the median of
# (default 3).  Never a pass/fail test.
#   usage: bash test/bench/kinds_bench.sh [n]     (one size only)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)/kinds_bench
trap 'rm -rf "$(dirname "$bin")"' EXIT
cc -O2 -std=gnu11 -Wall -Wextra -Werror $(printf -- '-I%s ' src/core/*/) -o "$bin" test/bench/kinds_bench.c src/core/*/*.c -lm
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin" "$@"
