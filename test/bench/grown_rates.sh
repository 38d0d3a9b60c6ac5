#!/usr/bin/env bash
# Rates of filters grown by single adds against error_rate and fpr_bound
# (grown_rates.c; issue 36, item 4), core only:
#   bash test/bench/grown_rates.sh [N]     (N absent probes a filter, default 1,000,000)
# writes test/bench/results/grown_rates.txt; with BASE=commit, that commit's
# core (any layout; 1.3 is 0d9b718) and results/grown_rates_BASE.txt.  About
# 2 minutes at N = 10^6.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-1000000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
core=src/core
res=test/bench/results/grown_rates.txt
if [ -n "${BASE:-}" ]; then
	git archive "$BASE" src/core | tar -x -C "$out"
	core=$out/src/core
	res=test/bench/results/grown_rates_$BASE.txt
fi
mapfile -t incs < <(find "$core" -type d | sed 's/^/-I/')
mapfile -t srcs < <(find "$core" -name '[a-z]*.c' | sort)
${CC:-cc} -O2 -Wall -Wextra -Werror "${incs[@]}" -Itest/bench -o "$out/grown_rates" \
	test/bench/grown_rates.c "${srcs[@]}" -lm
{
	if [ -n "${BASE:-}" ]; then
		echo "# grown_rates: the core of $BASE, $(date -u +%Y-%m-%dT%H:%MZ)"
		echo "# command: BASE=$BASE bash test/bench/grown_rates.sh $N"
	else
		echo "# grown_rates: sbf commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes'), $(date -u +%Y-%m-%dT%H:%MZ)"
		echo "# command: bash test/bench/grown_rates.sh $N"
	fi
	nice "$out/grown_rates" "$N"
} | tee "$res"
