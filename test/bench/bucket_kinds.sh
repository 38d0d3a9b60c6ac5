#!/usr/bin/env bash
# A window bucket as each complete kind would store it
# (bucket_kinds.c; issue 36, windows row), core only:
#   bash test/bench/bucket_kinds.sh [N]   (N absent probes, default 1,000,000)
# writes test/bench/results/bucket_kinds.txt.  About a minute at N = 10^6.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-1000000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mapfile -t incs < <(find src/core -type d | sed 's/^/-I/')
mapfile -t srcs < <(find src/core -name '[a-z]*.c' | sort)
${CC:-cc} -O2 -Wall -Wextra -Werror "${incs[@]}" -Itest/bench -o "$out/bucket_kinds" \
	test/bench/bucket_kinds.c "${srcs[@]}" -lm
{
	echo "# bucket_kinds: sbf commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes'), $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "# command: bash test/bench/bucket_kinds.sh $N"
	nice "$out/bucket_kinds" "$N"
} | tee test/bench/results/bucket_kinds.txt
