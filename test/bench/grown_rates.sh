#!/usr/bin/env bash
# Rates of filters grown by single adds against error_rate and fpr_bound
# (grown_rates.c; issue 36, item 4), core only:
#   bash test/bench/grown_rates.sh [N]     (N absent probes a filter, default 1,000,000)
# writes test/bench/results/grown_rates.txt.  About 2 minutes at N = 10^6.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-1000000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mapfile -t incs < <(find src/core -type d | sed 's/^/-I/')
mapfile -t srcs < <(find src/core -name '[a-z]*.c' | sort)
${CC:-cc} -O2 -Wall -Wextra -Werror "${incs[@]}" -Itest/bench -o "$out/grown_rates" \
	test/bench/grown_rates.c "${srcs[@]}" -lm
{
	echo "# grown_rates: sbf commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes'), $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "# command: bash test/bench/grown_rates.sh $N"
	nice "$out/grown_rates" "$N"
} | tee test/bench/results/grown_rates.txt
