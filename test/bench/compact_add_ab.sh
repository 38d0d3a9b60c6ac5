#!/usr/bin/env bash
# The compact form's decode and one add to a stored compact value
# (compact_add_ab.c) in two builds of the core, in one run:
#   bash test/bench/compact_add_ab.sh BASE
# compiles compact_add_ab.c against commit BASE's src/core and the working
# tree's (-O2), runs each ROUNDS times (default 3), alternating, prints every
# line and, per line, new / base of the medians of the rounds; the decoded
# fingerprints' digests of both builds must agree.  No server needed; never
# a pass/fail test.
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: compact_add_ab.sh BASE}
ROUNDS=${ROUNDS:-3}
# shellcheck source=core_ab_lib.sh
. test/bench/core_ab_lib.sh
core_ab_build "$base" test/bench/compact_add_ab.c -Itest/bench
core_ab_rounds
b=$(grep '^base decode' "$work/all" | grep -o 'digest [0-9a-f]*' | sort -u)
n=$(grep '^new decode' "$work/all" | grep -o 'digest [0-9a-f]*' | sort -u)
[ -n "$b" ] && [ "$b" = "$n" ] && echo "same fingerprints decoded in both builds: yes" || echo "same fingerprints decoded in both builds: NO"
# the line's name (its words up to the time), the time, medians per build
awk 'function med(s,   x, k, i, j, t) { k = split(s, x, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t } return x[int((k + 1) / 2)] }
	$2 == "decode:" { key = $2 " n " $4 " b " $6; v[$1, key] = v[$1, key] " " $9; keys[key] = 1 }
	$2 == "add:" { key = $2 " n " $4; v[$1, key] = v[$1, key] " " $7; keys[key] = 1 }
	END { for (k in keys) printf "%-22s new / base %.2f\n", k, med(v["new", k]) / med(v["base", k]) }' "$work/all" | sort
