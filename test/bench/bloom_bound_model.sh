#!/bin/bash
# RATE BOUND's model (docs/format.md) against the exact rate of kind-1 arrays:
# builds test/bench/bloom_bound_model.c against the core's sources (no
# PostgreSQL) and writes test/bench/results/bloom_bound_model.txt (~1 minute).
#   bash test/bench/bloom_bound_model.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
CORE=src/core
INC=$(for d in $(ls -d $CORE/*/); do printf -- '-I%s ' "${d%/}"; done)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2086
${CC:-cc} -O2 -Wall -Wextra -Werror $INC -o "$out/bloom_bound_model" \
	test/bench/bloom_bound_model.c $CORE/*/*.c -lm
mkdir -p test/bench/results
{
	echo "# bash test/bench/bloom_bound_model.sh at $(git rev-parse --short HEAD)"
	nice "$out/bloom_bound_model"
} | tee test/bench/results/bloom_bound_model.txt
