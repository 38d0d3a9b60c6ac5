#!/usr/bin/env bash
# Lookups in small values (exact_lookup_ab.c) in two builds of the core, in
# one run:
#   bash test/bench/exact_lookup_ab.sh BASE
# compiles exact_lookup_ab.c against commit BASE's src/core and the working
# tree's (-O2), runs each three times, alternating, and prints every line and
# new/base of each time from the median of each build's runs.  No server
# needed; never a pass/fail test.
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: exact_lookup_ab.sh BASE}
# shellcheck source=core_ab_lib.sh
. test/bench/core_ab_lib.sh
core_ab_build "$base" test/bench/exact_lookup_ab.c -Itest/bench
for round in 1 2 3; do
	for v in base new; do
		"$work/$v/run" | sed "s/^/$v /" | tee -a "$work/all"
	done
done
awk 'function med(s,   x, k, i, j, t) { k = split(s, x, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t } return x[int((k + 1) / 2)] }
	{ k = $1 " " $3; f[$3] = $4; a[k] = a[k] " " $8; p[k] = p[k] " " $10; n[$3] = 1 }
	END { for (x in n) printf "n %3d %-5s absent ns base %6.2f new %6.2f new/base %.2f  present ns base %6.2f new %6.2f new/base %.2f\n",
		x, f[x], med(a["base " x]), med(a["new " x]), med(a["new " x]) / med(a["base " x]),
		med(p["base " x]), med(p["new " x]), med(p["new " x]) / med(p["base " x]) }' "$work/all" | sort -k2 -n
