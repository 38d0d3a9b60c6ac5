#!/usr/bin/env bash
# Values sbf_agg wrote, grown by adds, against release 1.3's (issue 36:
# "any value larger than 1.3's for the same input: none"): for n = 1 to 3,000
# aggregated elements and t added (agg_adds_sweep.sql: in batches, 10 to 50
# steps each, and one at a time, 400 to 1,500 steps each),
# the bytes on release 1.3 (BASE, default 0d9b718) and on this tree, each
# on its private PostgreSQL 18 (f4_pair.sh), then per n the geometric mean,
# the largest and the smallest ratio this tree / 1.3 and how many steps are
# larger.  No timing; never a pass/fail test.  Run as root.
#   bash test/bench/agg_adds_sweep.sh    -> test/bench/results/agg_adds_sweep.txt
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = --body ]; then	# in f4_pair.sh's two clusters
	. ./f4_lib.sh
	q 12 -f agg_adds_sweep.sql > "$2/base.txt"
	q 13 -f agg_adds_sweep.sql > "$2/this.txt"
	python3 - "$2/base.txt" "$2/this.txt" <<'PY'
import math, sys
rows = lambda p: [(l.split()[0],) + tuple(map(int, l.split()[1:])) for l in open(p)]
base, this = rows(sys.argv[1]), rows(sys.argv[2])
assert [b[:3] for b in base] == [t[:3] for t in this]
print("| adds | n aggregated | steps | geomean this / 1.3 | largest | smallest | steps larger than 1.3 |")
print("|---|--:|--:|--:|--:|--:|--:|")
for mode in ("batch", "single"):
    allr = []
    for n in sorted({b[1] for b in base if b[0] == mode}):
        r = [t[3] / b[3] for b, t in zip(base, this) if b[:2] == (mode, n)]
        allr += r
        print(f"| {mode} | {n} | {len(r)} | {math.exp(sum(map(math.log, r)) / len(r)):.3f} | {max(r):.2f} | {min(r):.2f} | {sum(x > 1 for x in r)} |")
    print(f"| {mode} | all | {len(allr)} | {math.exp(sum(map(math.log, allr)) / len(allr)):.3f} | {max(allr):.2f} | {min(allr):.2f} | {sum(x > 1 for x in allr)} |")
print()
print("mode n t bytes-1.3 bytes-this (batched steps; single adds where this is larger):")
for b, t in zip(base, this):
    if b[0] == "batch" or t[3] > b[3]:
        print(b[0], b[1], b[2], b[3], t[3])
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
	bash ./f4_pair.sh "" bash ./agg_adds_sweep.sh --body "$work"
} > results/agg_adds_sweep.txt
sed -n '1,/^$/p' results/agg_adds_sweep.txt
