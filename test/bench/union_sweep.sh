#!/usr/bin/env bash
# Unions of values sbf_agg wrote, against release 1.3's (issue 36: "any
# value larger than 1.3's for the same input: none"): sbf_union of two
# values of 1 to 10,000 elements, disjoint or sharing half of the smaller,
# within 1% to 10%, and sbf_union_agg of 3 to 30 overlapping days of 1 to
# 1,000 elements within 5% to 30% (union_sweep.sql), the bytes on release
# 1.3 (BASE, default 0d9b718) and on this tree, each on its private
# PostgreSQL 18 (f4_pair.sh); per kind of union the geometric mean, the
# largest and the smallest ratio this tree / 1.3, how many are larger, and
# where the two refuse differently.  No timing; never a pass/fail test.
# Run as root.
#   bash test/bench/union_sweep.sh    -> test/bench/results/union_sweep.txt
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = --body ]; then	# in f4_pair.sh's two clusters
	. ./f4_lib.sh
	q 12 -f union_sweep.sql > "$2/base.txt"
	q 13 -f union_sweep.sql > "$2/this.txt"
	python3 - "$2/base.txt" "$2/this.txt" <<'PY'
import math, sys
def rows(p):
    out = []
    for l in open(p):
        f = l.split()
        if len(f) == 6:
            out.append((f[0], int(f[1]), int(f[2]), int(f[3]), f[4], int(f[5])))
    return out
base, this = rows(sys.argv[1]), rows(sys.argv[2])
assert [b[:5] for b in base] == [t[:5] for t in this] and base
print("| union | cases | both written | geomean this / 1.3 | largest | smallest | larger than 1.3 | refused by 1.3 only | refused by this only |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
for op in ("pair", "days"):
    cs = [(b, t) for b, t in zip(base, this) if b[0] == op]
    r = [t[5] / b[5] for b, t in cs if b[5] > 0 and t[5] > 0]
    print(f"| {op} | {len(cs)} | {len(r)} | {math.exp(sum(map(math.log, r)) / len(r)):.3f} | {max(r):.2f} | {min(r):.2f} | {sum(x > 1 for x in r)} | "
          f"{sum(b[5] < 0 < t[5] for b, t in cs)} | {sum(t[5] < 0 < b[5] for b, t in cs)} |")
print()
print("op na nb shared rate bytes-1.3 bytes-this (every case; -1: refused):")
for b, t in zip(base, this):
    print(*b[:5], b[5], t[5], "LARGER" if t[5] > b[5] > 0 else "")
PY
	exit 0
fi
export BASE=${BASE:-0d9b718}
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p results
{
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), sbf commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- ../../src || echo '+changes'); 1.3 = commit $BASE; PostgreSQL 18"
	bash ./f4_pair.sh "" bash ./union_sweep.sh --body "$work"
} > results/union_sweep.txt
sed -n '1,/^$/p' results/union_sweep.txt
