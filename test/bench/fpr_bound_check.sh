#!/bin/bash
# Issue 36 item 4: is every kit value's fpr_bound an upper bound of its
# measured false-positive rate?  Builds test/bench/fpr_bound_check.c against
# the core's sources (as test/kit/Makefile builds kit_core; no PostgreSQL)
# and runs it over test/kit/kit.txt with N absent probes a value (default
# 1,000,000), writing test/bench/results/fpr_bound_check.txt (-s: with the
# per-segment lines under each plain value over its bound; ~3 minutes).
#   bash test/bench/fpr_bound_check.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-1000000}
CORE=src/core
INC=$(for d in $(ls -d $CORE/*/); do printf -- '-I%s ' "${d%/}"; done)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2086
${CC:-cc} -O2 -Wall -Wextra -Werror $INC -Itest/kit -o "$out/fpr_bound_check" \
	test/bench/fpr_bound_check.c test/kit/kit_read.c $CORE/*/*.c -lm
mkdir -p test/bench/results
nice "$out/fpr_bound_check" -s test/kit/kit.txt "$N" | tee test/bench/results/fpr_bound_check.txt
