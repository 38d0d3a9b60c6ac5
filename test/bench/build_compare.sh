#!/usr/bin/env bash
# The final build (build_final_bench.c: sbf_build_final on n sorted distinct
# hashes) of this tree's core against BASE's core (default main), in one
# invocation: both are compiled with -O2, then run alternately ROUNDS times
# (default 5) under nice; each round gives each build's median of REPS
# builds (default 5) and their ratio; the table quotes medians of those.
# "cold": the first build in a fresh process (its scratch is new memory,
# a page fault a 4 kB page, as in a fresh backend), and its page faults.
# Checks that both builds write the same bytes (digests).  Never a
# pass/fail test; the machine is shared, so only ratios within a run count.
#   usage: BASE=commit ROUNDS=5 REPS=5 bash test/bench/build_compare.sh [n ...]
#   (BASE defaults to where this branch left main)
#   (default sizes 10000 1000000 4000000 10000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE=${BASE:-$(git merge-base HEAD main)} ROUNDS=${ROUNDS:-5} REPS=${REPS:-5}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 1000000 4000000 10000000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/base"
git archive "$BASE" src/core | tar -x -C "$tmp/base"
# compiles the bench against the core under $1 (any folder layout of src/core) into $2
build() {
	local incs srcs
	mapfile -t incs < <(find "$1/src/core" -type d | sed 's/^/-I/')
	mapfile -t srcs < <(find "$1/src/core" -name '[a-z]*.c' | sort)
	cc -O2 "${incs[@]}" -o "$2" test/bench/build_final_bench.c "${srcs[@]}" -lm
}
build . "$tmp/new"
build "$tmp/base" "$tmp/old"
echo "# build_compare.sh: sbf_build_final, $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src/core || echo '+changes') against $(git rev-parse --short "$BASE")"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); ROUNDS=$ROUNDS REPS=$REPS"
printf '%10s %10s %10s %9s | %10s %10s %9s | %11s %11s | %s\n' n "base ns/h" "new ns/h" "new/base" \
	"cold base" "cold new" "new/base" "faults base" "faults new" "same bytes"
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
rat() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
for n in "${sizes[@]}"; do
	ob=() nb=() rs=() oc=() nc=() rc=() same=yes
	for ((r = 0; r < ROUNDS; r++)); do
		read -r _ to lo dgo co fo < <(nice "$tmp/old" "$REPS" "$n")
		read -r _ tn ln dgn cn fn < <(nice "$tmp/new" "$REPS" "$n")
		[ "$lo $dgo" = "$ln $dgn" ] || same=no
		ob+=("$to") nb+=("$tn") rs+=("$(rat "$tn" "$to")")
		oc+=("$co") nc+=("$cn") rc+=("$(rat "$cn" "$co")")
	done
	printf '%10s %10s %10s %9s | %10s %10s %9s | %11s %11s | %s\n' "$n" "$(med "${ob[@]}")" "$(med "${nb[@]}")" \
		"$(med "${rs[@]}")" "$(med "${oc[@]}")" "$(med "${nc[@]}")" "$(med "${rc[@]}")" "$fo" "$fn" "$same"
done
