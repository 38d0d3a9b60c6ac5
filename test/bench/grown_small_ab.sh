#!/usr/bin/env bash
# Small filters grown by adds (grown_small_ab.c): bytes and ns a probe in
# two builds of the core, in one run:
#   bash test/bench/grown_small_ab.sh BASE
# compiles grown_small_ab.c against commit BASE's src/core and the working
# tree's (-O2), runs each twice, alternating, and prints every line and the
# ratio new/base of each column from the faster of each build's two runs.
# No server needed; never a pass/fail test.
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: grown_small_ab.sh BASE}
# shellcheck source=core_ab_lib.sh
. test/bench/core_ab_lib.sh
core_ab_build "$base" test/bench/grown_small_ab.c -Itest/bench
for round in 1 2; do
	for v in base new; do
		"$work/$v/run" | sed "s/^/$v /" | tee -a "$work/all"
	done
done
# the faster of the two runs of each build, then new/base
awk '{ k = $1 " " $3; b[k] = $5; if (!(k in a) || $7 < a[k]) a[k] = $7; if (!(k in p) || $9 < p[k]) p[k] = $9; n[$3] = 1 }
	END { for (x in n) printf "n %5d  bytes new/base %.3f  absent ns new/base %.2f  present ns new/base %.2f\n",
		x, b["new " x] / b["base " x], a["new " x] / a["base " x], p["new " x] / p["base " x] }' "$work/all" | sort -k2 -n
