#!/usr/bin/env bash
# Sorting runs of hashes (hash_sort_ab.c) in two builds of the core, in one
# run:
#   bash test/bench/hash_sort_ab.sh BASE
# compiles hash_sort_ab.c against commit BASE's src/core and the working
# tree's (-O2), runs each ROUNDS times (default 3), alternating, prints every
# line and, per case, new / base of the medians of the rounds; the sorted
# hashes' digests of both builds must agree.  No server needed; never a
# pass/fail test.
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: hash_sort_ab.sh BASE}
ROUNDS=${ROUNDS:-3}
# shellcheck source=core_ab_lib.sh
. test/bench/core_ab_lib.sh
core_ab_build "$base" test/bench/hash_sort_ab.c -Itest/bench
core_ab_rounds
b=$(grep '^base sort' "$work/all" | grep -o 'n [0-9]* distinct [0-9]*\|digest [0-9a-f]*' | paste -d' ' - - | sort -u)
n=$(grep '^new sort' "$work/all" | grep -o 'n [0-9]* distinct [0-9]*\|digest [0-9a-f]*' | paste -d' ' - - | sort -u)
[ -n "$b" ] && [ "$b" = "$n" ] && echo "same sorted hashes in both builds: yes" || echo "same sorted hashes in both builds: NO"
awk 'function med(s,   x, k, i, j, t) { k = split(s, x, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t } return x[int((k + 1) / 2)] }
	$2 == "sort:" { key = sprintf("n %8d distinct %7d", $4, $6); v[$1, key] = v[$1, key] " " $7; keys[key] = 1 }
	END { for (k in keys) printf "%s: base %.2f, new %.2f ns a hash, new / base %.2f\n", k, med(v["base", k]), med(v["new", k]), med(v["new", k]) / med(v["base", k]) }' "$work/all" | sort -k2n -k4n
