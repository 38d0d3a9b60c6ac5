#!/usr/bin/env bash
# # and sbf_info's directory walks on many-segment values, two cores side by
# side in one run (issue 39's crafted shapes, test/bench/count_bench.c):
#   bash test/bench/count_compare.sh BASE [NSEG] [REPS]
# builds count_bench against commit BASE's src/core and against the working
# tree's (-O2, no server), runs both on each shape (NSEG segments, default
# 4096; REPS runs each, default 3) and prints the median ms of each build,
# the ratio base/new (> 1: the working tree is faster) and whether the two
# builds' answers are the same bits.  BASE must have src/core/core.mk's
# folders (c4983e9 or later); the bench's own files come from the tree.
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: count_compare.sh BASE [NSEG] [REPS]}
nseg=${2:-4096}
reps=${3:-3}
work=$(mktemp -d /var/tmp/sbf-count.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base" "$work/new"
git archive "$base" src/core | tar -x -C "$work/base"
cp -a src "$work/new/"
for v in base new; do
	incs=$(find "$work/$v/src/core" -type d | sed 's/^/-I/')
	srcs=$(find "$work/$v/src/core" -name '[a-z]*.c' | sort)
	# shellcheck disable=SC2086
	cc -O2 -std=gnu99 $incs -o "$work/$v/bench" \
		test/bench/count_bench.c $srcs -lm
done
echo "# $(date -u +%Y-%m-%dT%H:%MZ), base $(git rev-parse --short "$base"), new $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes'), $nseg segments, median of $reps, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %8s %10s %10s %7s %10s %10s %s\n' shape bytes 'base #ms' 'new #ms' ratio 'base walk' 'new walk' 'same bits'
for shape in equal alt3 altk distinct heavy; do
	read -r _ _ bytes bc bw bcb bwb < <(nice "$work/base/bench" "$shape" "$nseg" "$reps")
	read -r _ _ _ nc nw ncb nwb < <(nice "$work/new/bench" "$shape" "$nseg" "$reps")
	same=no
	[ "$bcb $bwb" = "$ncb $nwb" ] && same=yes
	printf '%-9s %8s %10s %10s %7s %10s %10s %s\n' "$shape" "$bytes" "$bc" "$nc" \
		"$(awk -v a="$bc" -v b="$nc" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')" "$bw" "$nw" "$same"
done
