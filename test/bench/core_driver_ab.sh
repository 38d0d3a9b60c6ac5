#!/usr/bin/env bash
# The core's main paths (core_driver.c) in two builds of the core, by
# instruction count (callgrind: the same on a busy machine as on a quiet
# one), in one run:
#   bash test/bench/core_driver_ab.sh BASE
# compiles core_driver.c against commit BASE's src/core (any folder layout)
# and against the working tree's, with -O2, runs each once under callgrind,
# and prints each build's output (hits and counts: equal when no answer
# changed) and instructions, and the ratio new/base.  No server needed;
# needs valgrind (test/packages.sh does not install it: apt-get install
# valgrind).
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: core_driver_ab.sh BASE}
command -v valgrind > /dev/null || { echo "valgrind is not installed" >&2; exit 2; }
# shellcheck source=core_ab_lib.sh
. test/bench/core_ab_lib.sh
core_ab_build "$base" test/bench/core_driver.c
for v in base new; do
	out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/$v/run" 2> "$work/$v.vg")
	ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/$v.vg")
	echo "$v" "$ir" > "$work/$v.ir"
	printf '%-5s output %-28s instructions %s\n' "$v" "$out" "$ir"
done
read -r _ b < "$work/base.ir"
read -r _ n < "$work/new.ir"
awk -v b="$b" -v n="$n" 'BEGIN { printf "new/base instructions %.4f\n", n / b }'
