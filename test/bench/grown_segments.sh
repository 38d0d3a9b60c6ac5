#!/usr/bin/env bash
# Segment by segment, where a filter grown at growth 1 loses its rate
# (grown_segments.c; issue 36, item 4), core only:
#   bash test/bench/grown_segments.sh [N]   (N absent probes, default 1,000,000)
# writes test/bench/results/grown_segments.txt.  About 3 minutes at N = 10^6.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-1000000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mapfile -t incs < <(find src/core -type d | sed 's/^/-I/')
mapfile -t srcs < <(find src/core -name '[a-z]*.c' | sort)
${CC:-cc} -O2 -Wall -Wextra -Werror "${incs[@]}" -Itest/bench -o "$out/grown_segments" \
	test/bench/grown_segments.c "${srcs[@]}" -lm
{
	echo "# grown_segments: sbf commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes'), $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "# command: bash test/bench/grown_segments.sh $N"
	nice "$out/grown_segments" "$N"
} | tee test/bench/results/grown_segments.txt
