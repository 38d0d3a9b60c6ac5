#!/usr/bin/env bash
# Live adds into one windowed bucket (window_adds_bench.c) in two builds of
# the core, in one run:
#   bash test/bench/window_adds_ab.sh BASE [n [single_n]]
# compiles window_adds_bench.c against commit BASE's src/core and the working
# tree's (-O2), runs each ROUNDS times (default 3), alternating, and prints
# every line; the bytes digests of both builds must agree (the same windows).
# No server needed; never a pass/fail test (CPU times on a shared machine:
# compare the ratios within one run).
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: window_adds_ab.sh BASE [n [single_n]]}
n=${2:-1000000}
ns=${3:-400000}
ROUNDS=${ROUNDS:-3}
# shellcheck source=core_ab_lib.sh
. test/bench/core_ab_lib.sh
core_ab_build "$base" test/bench/window_adds_bench.c -Itest/bench
echo "# n $n, single adds $ns"
core_ab_rounds "$n" "$ns"
# the same windows from both builds
# (each build's digests, by line, the same list: the rounds repeat the same windows)
bdig=$(grep '^base.*bytes' "$work/all" | grep -o '^base [a-z_]*\|bytes [0-9a-f]*' | paste -d' ' - - | sort -u | sed 's/^base //')
ndig=$(grep '^new.*bytes' "$work/all" | grep -o '^new [a-z_]*\|bytes [0-9a-f]*' | paste -d' ' - - | sort -u | sed 's/^new //')
[ -n "$bdig" ] && [ "$bdig" = "$ndig" ] && echo "same bytes in both builds: yes" || echo "same bytes in both builds: NO"
# per round new / base of each time, and their medians
awk 'function med(s,   x, k, i, j, t) { k = split(s, x, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t } return x[int((k + 1) / 2)] }
	$2 == "add_many:" { r[$1] = r[$1] " " $6; t[$1] = t[$1] " " $(NF - 3) }
	$2 == "single" { s[$1] = s[$1] " " $7 }
	$2 == "stored:" { c1[$1] = c1[$1] " " $11; c2[$1] = c2[$1] " " $(NF - 1) }
	END {
		split(r["base"], rb, " "); split(r["new"], rn, " "); split(t["base"], tb, " "); split(t["new"], tn, " ")
		split(s["base"], sb, " "); split(s["new"], sn, " ")
		for (i = 1; i in rb; i++) { one = one " " rn[i] / rb[i]; ten = ten " " tn[i] / tb[i]; sgl = sgl " " sn[i] / sb[i] }
		printf "new / base, median of the rounds: add_many of n %.2f, 10 x n/10 %.2f, single adds %.2f\n", med(one), med(ten), med(sgl)
		printf "add_many n / (10 x n/10), medians: base %.2f, new %.2f\n", med(r["base"]) / med(t["base"]), med(r["new"]) / med(t["new"])
		if ("new" in c1)
			printf "one add to a stored window, new / base of the medians: 150 pairs %.2f, 5000 pairs %.2f\n", med(c1["new"]) / med(c1["base"]), med(c2["new"]) / med(c2["base"])
	}' "$work/all"
